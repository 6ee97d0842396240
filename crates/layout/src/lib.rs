//! The contract between the compiler and the runtime.
//!
//! The compiler describes every piece of a compiled pipeline that the runtime
//! must address by P4 name: tables (which BPF map, how a key and an action's
//! parameters are laid out in bytes, which code selects which action),
//! counters, value sets, ports. The description travels *inside* the object
//! file (an ELF section named [`SECTION`] holding the JSON of a [`Pipeline`]),
//! so a loaded program never needs a second, hand-maintained table.
//!
//! Conventions, true of every layout here:
//! - Byte offsets and sizes are those of the C structs the emitter wrote
//!   (clang's layout for BPF, which is also x86_64's).
//! - A field of `bit_width` W occupies `byte_len = ceil(W/8)` bytes, rounded
//!   up to 1, 2, 4 or 8 when W <= 64 and kept as a byte array otherwise.
//!   [`ByteOrder`] says how its value is stored there.
//! - Names are the P4 names, dotted from the top-level instance:
//!   `pipe.Check_src_ip`, `ingress.forward`, `hdr.ipv4.dstAddr`.

use serde::{Deserialize, Serialize};

pub mod digest;
pub mod port_slots;
pub mod table_cache;
pub mod trace;

/// Name of the ELF section that holds the JSON of a [`Pipeline`] (UTF-8
/// text followed by one NUL byte, as the emitter writes it as a C string).
pub const SECTION: &str = ".p4bpf.pipeline";

/// Name of the ELF section that maps lines of the generated C back to the
/// P4 source: text, one [`SourceRegion`] a line.
pub const LINES_SECTION: &str = ".p4bpf.lines";

/// Name of the ELF section (a read-only data map once loaded) holding one
/// byte: 1 while the program notes ports in its output record, 0 when the
/// loader turns the record off (a deployed pipeline needs none).
pub const NOTES_SECTION: &str = ".rodata.p4bpf_notes";

/// The maps of the lock words of `@atomic` blocks that call helpers (u64
/// words, 0 when free, else the holding CPU + 1), and of the blocks each
/// CPU skipped because it did not win the word (one per-CPU u64); a
/// program has them only when it has such blocks.
pub const LOCK_WORDS_MAP: &str = "p4bpf_lock_words";
pub const LOCK_TIMEOUTS_MAP: &str = "p4bpf_lock_timeouts";

/// Lines `c_first..=c_last` of the generated C come from P4 source at
/// `origin` (`file.p4:LINE`), inside `what` (`action f.look`, `table f.t`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceRegion {
    pub c_first: u32,
    pub c_last: u32,
    pub origin: String,
    pub what: String,
}

impl SourceRegion {
    /// `C_FIRST<TAB>C_LAST<TAB>ORIGIN<TAB>WHAT`.
    pub fn to_line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}",
            self.c_first, self.c_last, self.origin, self.what
        )
    }

    /// Every well-formed line of `text`.
    pub fn parse_all(text: &str) -> Vec<SourceRegion> {
        text.lines()
            .filter_map(|line| {
                let mut parts = line.splitn(4, '\t');
                Some(SourceRegion {
                    c_first: parts.next()?.parse().ok()?,
                    c_last: parts.next()?.parse().ok()?,
                    origin: parts.next()?.to_string(),
                    what: parts.next()?.to_string(),
                })
            })
            .collect()
    }

    /// The innermost region holding C line `line`.
    pub fn find(regions: &[SourceRegion], line: u32) -> Option<&SourceRegion> {
        regions
            .iter()
            .filter(|r| (r.c_first..=r.c_last).contains(&line))
            .min_by_key(|r| r.c_last - r.c_first)
    }
}

/// Value of the output record for "out of the port the packet came in on"
/// (an xdp_model XDP_TX run at TC, where it is a redirect).
pub const SAME_PORT: u32 = u32::MAX - 1;

/// Version of this format; bumped on every incompatible change.
pub const FORMAT_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pipeline {
    pub format_version: u32,
    /// The P4 program's file stem, e.g. `l3_router`.
    pub program: String,
    pub architecture: Architecture,
    pub hook: Hook,
    /// Name of the BPF program (function) in the object to attach.
    pub entry: String,
    /// Written for P4TC's `tc/pna.p4` (PNA_NIC without the pre-control):
    /// its STF scripts are read the way P4TC's harness reads them
    /// (`p4bpf_runtime::stf`). Left out of the JSON when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub p4tc: bool,
    /// Tables the control plane can fill (tables whose entries are all
    /// `const` are compiled into code and not listed).
    pub tables: Vec<Table>,
    pub counters: Vec<Counter>,
    /// Left out of the JSON when empty, so descriptions without meters
    /// read the same as before the field existed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub meters: Vec<Meter>,
    pub value_sets: Vec<ValueSet>,
    /// The devmap that maps P4 port numbers to ifindexes, if the program
    /// redirects.
    pub port_map: Option<String>,
    /// One-entry `BPF_MAP_TYPE_PERCPU_ARRAY` (key: u32 0, value: u32 in host
    /// byte order) where the program writes the P4 output port just before
    /// it returns a verdict that sends the packet out of a port (XDP_TX,
    /// XDP_REDIRECT, TC_ACT_REDIRECT). `BPF_PROG_TEST_RUN` does not perform
    /// the redirect, so this is how a test harness learns the port: it sets
    /// every CPU's slot to `u32::MAX` before a run and reads the one that
    /// changed. `None` when the program never sends to a chosen port.
    /// XDP_TX is not recorded (the verdict says "back out of the input
    /// port"); at TC, where XDP_TX becomes a redirect to the receiving
    /// interface, the slot holds [`SAME_PORT`].
    /// When the program reads its ingress port ([`Pipeline::ingress_port_map`]
    /// is set), key 1 is the other way: a harness that sends a packet in on
    /// P4 port `p` writes `p + 1` there, and the program takes that as its
    /// ingress port instead of the interface's (0: nothing noted).
    /// Left out of the JSON when absent, so descriptions of programs that
    /// never redirect read the same as before the field existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_record: Option<String>,
    /// Hash map interface index -> P4 port (u32 both, host byte order)
    /// the program reads its ingress port from; `p4bpf port add` fills it.
    /// `None` when the program does not read its ingress port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ingress_port_map: Option<String>,
    /// One-entry `BPF_MAP_TYPE_PERCPU_ARRAY` (key u32 0, value u64 per CPU)
    /// counting the packets dropped because the deparser made them longer
    /// than the output interface forwards. `None` (and left out of the
    /// JSON) when the program cannot grow a packet it sends to a port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu_drops: Option<String>,
    /// What the records of a traced build refer to; `None` (and left out
    /// of the JSON) in the normal build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<trace::Trace>,
    /// Per-table hit and miss counts of a `--table-stats` or `--trace`
    /// build; `None` (and left out of the JSON) in the normal build.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_stats: Option<trace::TableStats>,
    /// P4TC's `@tc_acl` of the tables that carry one: what the control
    /// plane may do to their entries (`p4bpf table` refuses the rest).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table_acls: Vec<TableAcl>,
    /// Multicast, when the program sets a group (TC only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replication: Option<Replication>,
    /// PNA's mirror sessions, when the program calls `mirror_packet`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mirror_sessions: Option<MirrorSessions>,
    /// Action profiles and selectors that tables name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub profiles: Vec<ActionProfile>,
    /// Counters and meters of table entries, whose cells live in each
    /// entry's value. Left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub direct: Vec<DirectExtern>,
    /// Digests to the control plane, when the program sends any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digests: Option<digest::Digests>,
    /// Registers of bit strings of at most 64 bits, each with its initial
    /// value (0: none), so the control plane finds every register's map.
    /// Left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub register_initials: Vec<RegisterInitial>,
    /// Entries of non-const `entries` lists, installed when the pipeline
    /// loads. Left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub initial_entries: Vec<InitialEntry>,
    /// Registers whose index or value is a struct or wider than 64 bits.
    /// Left out of the JSON when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub composite_registers: Vec<CompositeRegister>,
    /// PNA's tables whose entries have idle timers. Left out of the JSON
    /// when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub idle_timers: Vec<IdleTimer>,
    /// The table caches of a `--table-caching` build; `None` (and left
    /// out of the JSON) otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_caches: Option<table_cache::TableCaches>,
}

/// An entry a table starts with (P4's non-const `entries`), in the
/// control plane's terms: what `p4bpf table add` would be given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InitialEntry {
    /// Dotted P4 name of the table.
    pub table: String,
    /// (key field index, text): `v`, `v/prefix`, `v&&&mask` or `lo..hi`;
    /// a field left out matches every value.
    pub keys: Vec<(usize, String)>,
    /// Index into the table's [`Table::actions`].
    pub action: usize,
    /// The action's arguments in parameter order.
    pub args: Vec<String>,
    /// The larger wins; tables with ternary, range or optional keys only.
    pub priority: Option<u32>,
}

/// A register whose index or value is a struct or a bit string wider than
/// 64 bits. `index` empty: the index is a number picking a cell of an
/// array map; else the fields of a hash map's key. `value`: the fields of
/// a cell (one named `value` when the value is not a struct). A cell
/// never written reads as zero, or as `initial`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompositeRegister {
    /// Dotted P4 name of the instance.
    pub name: String,
    pub map: String,
    pub index: Vec<FieldLayout>,
    pub value: Vec<FieldLayout>,
    /// The initial value's bytes as a cell lays them out (empty: zero).
    /// Cells hold value XOR these bytes, so a zeroed cell, fresh or
    /// reset, reads as the initial value; the control plane applies the
    /// same XOR.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub initial: Vec<u8>,
}

/// A table whose entries have idle timers (PNA's `pna_idle_timeout`).
/// Each entry's value ends with the timer cell, a u64 in host order: the
/// timer's last restart (`bpf_ktime_get_ns`, CLOCK_MONOTONIC) << 8 | the
/// entry's expire-time profile; 0 until the entry's first hit. Each
/// profile's timeout (ns, 0: never) is the u64 at its index in the array
/// map [`IdleTimer::PROFILES_MAP`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdleTimer {
    pub table: String,
    /// `NOTIFY_CONTROL`: idle entries stay, and the control plane is told
    /// of them; otherwise (`AUTO_DELETE`) they are deleted.
    pub notify: bool,
}

impl IdleTimer {
    pub const PROFILES_MAP: &'static str = "pna_expire_profiles";
}

/// A register of a bit string of at most 64 bits, `initial` its initial
/// value (PSA's and PNA's `Register<T, I>(size, initial_value)`; 0 when
/// none). Its array map's cells hold value XOR `initial` in host byte
/// order, so a zeroed cell, fresh or reset, reads as `initial`; the
/// control plane applies the same XOR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisterInitial {
    /// Dotted P4 name of the instance.
    pub name: String,
    pub map: String,
    pub initial: u64,
    /// `Some(W)` for an `int<W>` register: the control plane reads and
    /// writes its cells as signed numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int_width: Option<u32>,
}

/// A direct counter or meter of one table (PSA's `DirectCounter`,
/// v1model's `direct_counter`): a cell in every entry's value struct at
/// `offset`, updated in place by the data path (counter cells are u64s,
/// packets then bytes, added to atomically; a meter cell is a [`Meter`]
/// cell). A new entry's cells start at zero. The default action has none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirectExtern {
    /// Dotted P4 name of the instance.
    pub name: String,
    /// Dotted P4 name of the table whose entries hold the cells.
    pub table: String,
    pub kind: DirectKind,
    /// Byte offset of the cell in the table's value struct.
    pub offset: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectKind {
    Counter(CounterKind),
    /// Metering bytes (else packets).
    Meter {
        bytes: bool,
    },
}

/// An action profile (or selector): members shared by the tables named in
/// [`ActionProfile::tables`]. Those tables' entries name a member or a
/// group: their [`Table::actions`] are the two references
/// [`MEMBER_ACTION`] (code 1) and [`GROUP_ACTION`] (code 2, selectors
/// only), each with one u32 parameter `id` (host order).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionProfile {
    /// Dotted P4 name (`MyIC.ap`).
    pub name: String,
    /// The members as a table: a hash map keyed by the u32 member id
    /// (host order, key field `member_id`) whose values are action
    /// records as a table's (code, parameters) over the sharing tables'
    /// actions.
    pub members: Table,
    /// Dotted names of the tables naming this profile.
    pub tables: Vec<String>,
    /// Present for a selector.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<SelectorLayout>,
}

/// A selector's groups: a hash map keyed by the u32 group id, holding a
/// u32 count then `max_group_size` u32 member ids (host order); a packet
/// takes the member at (hash of the selector keys) modulo the count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectorLayout {
    pub groups_map: String,
    pub max_group_size: u32,
    /// The hash map of the empty group actions the control plane may
    /// change (PSA's `psa_empty_group_action`, not `const`): u32 key, slot
    /// `i` for `empty_group_tables[i]`, a member value as
    /// [`ActionProfile::members`] encodes it. No value at a slot (as
    /// loaded) means the program's own empty group action.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub empty_group_map: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub empty_group_tables: Vec<EmptyGroupTable>,
    /// Tables sharing the selector whose `psa_empty_group_action` is
    /// `const`: compiled in, refused to the control plane.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub const_empty_group_tables: Vec<String>,
}

/// A table whose empty group action the control plane may change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyGroupTable {
    /// Dotted P4 name.
    pub table: String,
    /// The actions the table lists: its empty group action is one of them.
    pub actions: Vec<String>,
}

/// Name of the reference action of a profile table's entry naming a member.
pub const MEMBER_ACTION: &str = "member";
/// Name of the reference action of a selector table's entry naming a group.
pub const GROUP_ACTION: &str = "group";

/// How the control plane reaches a program's multicast groups, and the
/// second program that runs egress on each copy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replication {
    /// Hash map group (u32) -> [`Replication::max_replicas`] members:
    /// a u32 count, then (port u32, replica id u32) pairs, host order.
    pub groups_map: String,
    pub max_replicas: u32,
    /// The program to attach at TC egress of every port: it runs the
    /// egress pipeline on the copies the entry program sends there.
    pub egress_entry: String,
    /// Hash map clone session (u32) -> members, laid out as a group's
    /// (port, instance), when the program clones (PSA's clone I2E).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clone_sessions_map: Option<String>,
    /// At XDP, the hash of maps from a group (u64), or a clone session
    /// ([`SESSION_KEY`] | session), to the devmap its copies leave
    /// through: `bpf_devmap_val` entries (ifindex, [`Replication::egress_entry`]'s
    /// fd) for a group's members, or a session's members and every port.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_ports_map: Option<String>,
}

/// PNA's mirror sessions: a hash map laid out as
/// [`Replication::clone_sessions_map`] (session u32 -> a u32 member count,
/// then (port u32, instance u32) pairs, host order), which `p4bpf clone`
/// and the STF command `mirroring_add` write. Each member's port gets a
/// copy of every packet mirrored to the session.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MirrorSessions {
    pub map: String,
    pub max_members: u32,
    /// At XDP, as [`Replication::copy_ports_map`]: session -> the devmap
    /// its copies leave by (its members and every port), each entry
    /// running [`MirrorSessions::copy_entry`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_ports_map: Option<String>,
    /// At XDP, the devmap's program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_entry: Option<String>,
}

impl Pipeline {
    /// The program the pipeline's copies run in: multicast's and clones'
    /// egress, or at XDP the mirror devmaps' program.
    pub fn copy_entry(&self) -> Option<&str> {
        let mirror = self.mirror_sessions.as_ref();
        self.replication
            .as_ref()
            .map(|r| r.egress_entry.as_str())
            .or_else(|| mirror.and_then(|m| m.copy_entry.as_deref()))
    }

    /// At XDP, the map from a group or session to the devmap its copies
    /// leave by.
    pub fn copy_ports_map(&self) -> Option<&str> {
        let mirror = self.mirror_sessions.as_ref();
        self.replication
            .as_ref()
            .and_then(|r| r.copy_ports_map.as_deref())
            .or_else(|| mirror.and_then(|m| m.copy_ports_map.as_deref()))
    }
}

/// In [`Replication::copy_ports_map`], the bit that makes a key a clone
/// session's.
pub const SESSION_KEY: u64 = 1 << 32;

/// A table's control-plane permissions, from `@tc_acl("CRUDPS:RX")`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableAcl {
    /// Dotted P4 name of the table.
    pub table: String,
    /// The annotation as written, for messages.
    pub annotation: String,
    /// The control plane's letters (before the colon): C create, R read,
    /// U update, D delete, P publish, S subscribe.
    pub control: String,
}

impl TableAcl {
    /// Whether the control plane holds permission `letter` (`'C'`).
    pub fn allows(&self, letter: char) -> bool {
        self.control.contains(letter)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Architecture {
    EbpfModel,
    XdpModel,
    UbpfModel,
    Psa,
    Pna,
    #[serde(rename = "v1model")]
    V1Model,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Hook {
    Xdp,
    Tc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ByteOrder {
    /// Big-endian, as on the wire: what fields copied from packets use.
    Network,
    /// Little-endian on x86_64 and bpfel.
    Host,
}

/// A field inside a key or value struct.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldLayout {
    pub name: String,
    pub bit_width: u32,
    pub byte_offset: u32,
    pub byte_len: u32,
    pub byte_order: ByteOrder,
    /// An `int<W>`: its text may be negative, and its bytes are two's
    /// complement (sign-extended to `byte_len` where the data path keeps
    /// it so: a register's struct field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub signed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    Exact,
    Lpm,
    Ternary,
    Range,
    Optional,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyField {
    /// The key expression as written, e.g. `hdr.ipv4.dstAddr`; also
    /// addressable as `key.fieldN` (N = position, from 0) and by its
    /// `@name` annotation when it has one.
    pub field: FieldLayout,
    pub match_kind: MatchKind,
}

/// How a table's entries are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStorage {
    /// BPF_MAP_TYPE_HASH keyed by the key struct.
    Hash,
    /// BPF_MAP_TYPE_ARRAY indexed by a single exact key (u32); a slot
    /// whose action code is 0 is a miss.
    Array,
    /// BPF_MAP_TYPE_LPM_TRIE: the key struct is preceded by a u32 prefix
    /// length (host order, in bits, counted over all key bytes: exact
    /// fields first, fully matched, then the lpm field). LPM key structs
    /// are packed and every field is in network order, `ceil(W/8)` bytes.
    LpmTrie,
    /// Ternary/range/optional keys: see [`Table::ternary`].
    Ternary,
    /// No key: only the default action (in [`Table::default_map`]) runs;
    /// `map` names no map.
    Keyless,
    /// Every entry is `const` and compiled into the program: `map` names
    /// no map and the control plane cannot change the entries.
    Const,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Action {
    pub name: String,
    /// The value stored in the entry's `action` field (a u32 at offset 0
    /// of the value) to select it. Codes start at 1: a zeroed value (code
    /// 0) in a default-action map means "the P4 program's own default".
    pub code: u32,
    /// Parameter layout inside the value struct (offsets from the start of
    /// the value struct, so the first parameter is at 4 or 8, after the
    /// action code and, for ternary tables, the priority).
    pub params: Vec<FieldLayout>,
    /// `@defaultonly`: may only be the default action.
    pub default_only: bool,
    /// `@tableonly`: may not be the default action.
    pub table_only: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Table {
    /// Dotted P4 name, e.g. `pipe.Check_src_ip`.
    pub name: String,
    /// Name of the BPF map holding the entries (its ELF symbol name; the
    /// kernel truncates map names to 15 characters, so find maps by this
    /// name through libbpf).
    pub map: String,
    pub storage: TableStorage,
    /// Capacity in entries (the P4 `size`, or the default).
    pub size: u32,
    /// In the order the P4 `key` lists them (so `key.fieldN` is `keys[N]`),
    /// whatever order the map key struct stores them in: `byte_offset`
    /// says where each lies (an lpm trie key puts exact fields first).
    pub keys: Vec<KeyField>,
    /// Size in bytes of the key struct (without the lpm prefix length).
    pub key_size: u32,
    /// Size in bytes of the value struct: a u32 action code then the
    /// parameters of the chosen action.
    pub value_size: u32,
    pub actions: Vec<Action>,
    /// The array holding the default actions of the program's tables (one
    /// map for all: the kernel allows 64 maps per program), this table's
    /// at index [`Table::default_slot`], as a value struct padded with
    /// zeros to the map's value size; or
    /// `None` when the default is `const` and compiled into the code.
    pub default_map: Option<String>,
    /// Index of this table's default action in [`Table::default_map`].
    #[serde(default)]
    pub default_slot: u32,
    /// Present for [`TableStorage::Ternary`].
    pub ternary: Option<TernaryLayout>,
}

/// How ternary, range and optional entries are stored: grouped tuple
/// space (after TupleMerge, Daly and Torng 2017) with any number of groups,
/// probed best first. The control plane puts every rule into a group whose
/// mask `R` keeps only bits the rule always fixes (its ternary mask; for a
/// range field, the bits `lo` and `hi` share); the rule lives in the bucket
/// keyed by (group id, key & R), a short array of rules sorted by priority,
/// best first. The data path walks the group list in order of each group's
/// best priority and stops once no group left can beat the match in hand.
///
/// - `groups_map`: BPF hash of group lists (key u32), each replaced whole
///   so a lookup sees the old list or the new one. A key's partition is
///   the top bits `partition` cuts from its fields; the list of a
///   partition names the groups fixing some cut bit with a rule that may
///   match a key of that partition, each with the best priority among
///   those rules; the *wild* list (key [`TernaryLayout::wild_list`]) names
///   the groups fixing no cut bit, with their best priority. A lookup
///   probes both (no cut: only the wild list). A list: a u32 count, then
///   from `groups_offset` up to `max_groups` groups of `group_size` bytes:
///   u32 id, u32 best priority. Sorted by best priority, highest first.
///   A list may name a group too high or one since closed (a probe too
///   many), never miss one. Group ids are below `max_groups`.
/// - `filters_map`: BPF array of `max_groups` filters indexed by group id:
///   the key struct holding the group's mask `R` at 0, then from
///   `filter_bits_offset` `filter_words` (a power of two) u32 words of
///   bits: a group's bucket may exist only if the bit of its bucket key is
///   set. The bit of a bucket key (all its bytes, padding zero) is the top
///   log2(32 * filter_words) bits of `h`, where `h` starts at 0 and takes
///   each u32 word of the key in native order as `h = (h ^ word) *
///   0x9e3779b1` (32-bit); bit `b` is bit `b % 32` of word `b / 32`.
/// - [`Table::map`] (hash): key = u32 group id, then at `bucket_key_offset`
///   the key struct ANDed with `R` (`bucket_key_size` bytes); value = a
///   bucket of `bucket_size` bytes: u32 count of rules in use, then from
///   `rules_offset` `bucket_rules` rules of `rule_size` bytes: the key
///   struct value (masked; zero in range fields) at 0, its mask (zero in
///   range fields) at `rule_mask_offset`, for tables with range keys the
///   key structs `lo` at `rule_bounds_offset` and `hi` right after it
///   (meaningful in range fields only), and the table's value struct
///   (action, u32 priority at `priority_offset`, parameters) at
///   `rule_value_offset`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TernaryLayout {
    pub groups_map: String,
    pub max_groups: u32,
    pub groups_offset: u32,
    pub group_size: u32,
    pub filters_map: String,
    pub filter_bits_offset: u32,
    pub filter_words: u32,
    pub bucket_key_offset: u32,
    pub bucket_key_size: u32,
    pub bucket_size: u32,
    pub bucket_rules: u32,
    pub rules_offset: u32,
    pub rule_size: u32,
    pub rule_mask_offset: u32,
    pub rule_bounds_offset: Option<u32>,
    pub rule_value_offset: u32,
    /// Offset of the u32 priority inside the value struct (higher wins,
    /// as in P4Runtime).
    pub priority_offset: u32,
    /// The cuts forming a key's partition, most significant first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub partition: Vec<PartitionCut>,
    /// For a table with direct counters or meters: where each rule's cells are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cells: Option<TernaryCells>,
}

/// The direct counters and meters of a ternary table's rules. A lookup
/// copies the best rule's head out of its bucket, so the cells cannot
/// live there: each rule has an element of `map` (a BPF array of
/// `slots` values, twice the table's size), the whole value struct
/// (action, priority, slot, parameters, then the cells at the offsets
/// [`DirectExtern`] gives), which a hit points `value` at. A rule's
/// copy in its bucket is only the value's first `head_size` bytes:
/// action, priority and, at `slot_offset`, the u32 slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TernaryCells {
    pub map: String,
    pub slots: u32,
    pub slot_offset: u32,
    pub head_size: u32,
}

/// The top `bits` bits of key field `key` (an index into [`Table::keys`],
/// a field held as a host-order number) as part of a key's partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PartitionCut {
    pub key: u32,
    pub bits: u32,
}

impl TernaryLayout {
    /// Size of the group list value.
    pub fn groups_size(&self) -> u32 {
        self.groups_offset + self.max_groups * self.group_size
    }

    /// How many partitions (and group lists) keys fall into.
    pub fn partitions(&self) -> u32 {
        1 << self.partition.iter().map(|c| c.bits).sum::<u32>().min(16)
    }

    /// The key of the wild list: the one after the last partition.
    pub fn wild_list(&self) -> u32 {
        self.partitions()
    }

    /// Size of a filter value (mask, then bits).
    pub fn filter_size(&self) -> u32 {
        self.filter_bits_offset + 4 * self.filter_words
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CounterKind {
    Packets,
    Bytes,
    PacketsAndBytes,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counter {
    /// Dotted P4 name of the counter instance.
    pub name: String,
    pub map: String,
    pub kind: CounterKind,
    /// Number of cells.
    pub size: u32,
    /// Per-CPU array (dense) or per-CPU hash (sparse).
    pub sparse: bool,
    /// Layout of one cell: `packets` and/or `bytes`, each a u64 in host
    /// byte order. Keys are u32 indexes. Cells are per CPU: sum them.
    pub value_size: u32,
}

/// An array of two-rate three-colour meters (RFC 2698). A cell (host
/// byte order) is: a 4-byte `bpf_spin_lock`, 4 bytes of padding, then
/// u64s: `pir`, `pburst`, `cir`, `cburst` (units per second, units),
/// the peak and committed buckets in billionths of a unit, and the time
/// of the last packet in ns. Keys are u32 indexes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meter {
    /// Dotted P4 name of the meter instance.
    pub name: String,
    pub map: String,
    /// Metering bytes (else packets).
    pub bytes: bool,
    /// Number of cells.
    pub size: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueSet {
    pub name: String,
    pub map: String,
    pub size: u32,
    pub fields: Vec<FieldLayout>,
    pub key_size: u32,
    /// How each of `fields` is matched (its `@match`). All exact: `map` is
    /// a hash set whose keys are the members. Otherwise (see
    /// [`ValueSet::scans`]) `map` is an array of `size` slots: a `u64`
    /// "used" flag, then per field three host-order `u64`s, mask, lo and
    /// hi, a key matching when `key & mask` lies in `[lo, hi]`; each
    /// field's `byte_offset` is then its mask's offset in the slot.
    /// Either holds the members twice, in halves 0 and 1 (see `index`).
    #[serde(default)]
    pub match_kinds: Vec<MatchKind>,
    /// The set's `u32` in [`ValueSet::LIVE_MAP`], the half of its map
    /// packets read: a scanned set's half `h` is slots `h * size` on, a
    /// hash set's value has bit `h` set when its key is in half `h`.
    #[serde(default)]
    pub index: u32,
}

impl ValueSet {
    /// The array of every value set's live half (0 or 1), by `index`.
    pub const LIVE_MAP: &'static str = "p4bpf_vset_live";
    /// Bytes of one field's `(mask, lo, hi)` in a scanned set's slot.
    pub const SLOT_FIELD_BYTES: u32 = 24;
    /// Bytes before the first field of a slot (the "used" flag).
    pub const SLOT_HEADER_BYTES: u32 = 8;

    /// Whether the members are slots a select scans (some field is not
    /// exact) rather than keys of a hash set.
    pub fn scans(&self) -> bool {
        self.match_kinds.iter().any(|k| *k != MatchKind::Exact)
    }

    /// The size of one slot of a scanned set.
    pub fn slot_size(&self) -> u32 {
        Self::SLOT_HEADER_BYTES + Self::SLOT_FIELD_BYTES * self.fields.len() as u32
    }

    /// The match kind of field `index` (exact when the description
    /// predates match kinds).
    pub fn match_kind(&self, index: usize) -> MatchKind {
        self.match_kinds
            .get(index)
            .copied()
            .unwrap_or(MatchKind::Exact)
    }
}

impl Table {
    /// The map holding the entries, or `None` for keyless and const tables
    /// (their `map` names no map).
    pub fn entry_map(&self) -> Option<&str> {
        match self.storage {
            TableStorage::Keyless | TableStorage::Const => None,
            _ => Some(&self.map),
        }
    }
}

impl Pipeline {
    pub fn to_json(&self) -> String {
        // Serializing plain data with string keys cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a description; trailing NUL bytes (the C string terminator the
    /// section's contents end with) are ignored.
    pub fn from_json(text: &str) -> Result<Pipeline, String> {
        let text = text.trim_end_matches('\0');
        let pipeline: Pipeline =
            serde_json::from_str(text).map_err(|e| format!("bad pipeline description: {e}"))?;
        if pipeline.format_version != FORMAT_VERSION {
            return Err(format!(
                "pipeline description has format version {}, this p4bpf reads version {FORMAT_VERSION}: recompile the program",
                pipeline.format_version
            ));
        }
        Ok(pipeline)
    }

    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }

    pub fn profile(&self, name: &str) -> Option<&ActionProfile> {
        self.profiles.iter().find(|p| p.name == name)
    }

    /// The action profile table `table` (dotted name) takes its actions
    /// from, if it has one.
    pub fn profile_of_table(&self, table: &str) -> Option<&ActionProfile> {
        self.profiles
            .iter()
            .find(|p| p.tables.iter().any(|t| t == table))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trip_and_version_check() {
        let p = Pipeline {
            format_version: FORMAT_VERSION,
            program: "x".into(),
            architecture: Architecture::XdpModel,
            hook: Hook::Xdp,
            entry: "x_xdp".into(),
            p4tc: false,
            tables: vec![],
            counters: vec![],
            meters: vec![],
            value_sets: vec![],
            port_map: None,
            output_record: None,
            ingress_port_map: None,
            mtu_drops: None,
            trace: None,
            table_stats: None,
            table_acls: vec![TableAcl {
                table: "t".into(),
                annotation: "RS:RX".into(),
                control: "RS".into(),
            }],
            replication: None,
            mirror_sessions: None,
            profiles: vec![],
            direct: vec![DirectExtern {
                name: "In.hits".into(),
                table: "In.t".into(),
                kind: DirectKind::Counter(CounterKind::PacketsAndBytes),
                offset: 8,
            }],
            digests: None,
            idle_timers: vec![],
            table_caches: None,
            register_initials: vec![RegisterInitial {
                name: "In.r".into(),
                map: "In_r".into(),
                initial: u64::MAX,
                int_width: Some(12),
            }],
            initial_entries: vec![InitialEntry {
                table: "In.t".into(),
                keys: vec![(1, "0x800&&&0xff00".into())],
                action: 1,
                args: vec!["7".into()],
                priority: Some(3),
            }],
            composite_registers: vec![],
        };
        assert_eq!(Pipeline::from_json(&p.to_json()), Ok(p.clone()));
        let old = p
            .to_json()
            .replace("\"format_version\": 1", "\"format_version\": 0");
        assert!(matches!(Pipeline::from_json(&old), Err(e) if e.contains("recompile")));
    }
}
