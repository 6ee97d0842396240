//! The pipeline IR: what a P4 program means once names are resolved, types
//! are concrete and the architecture's blocks are known.
//!
//! Plain data in arenas addressed by small handles ([`AggId`], [`VarId`],
//! [`TableId`], ...), no behaviour beyond a few queries. Every header and
//! struct has a concrete bit layout; every expression carries its type;
//! parsers are state graphs of simple operations; controls are structured
//! statements. The lowering ([`crate::lower`]) builds it and checks
//! everything the target cannot do, so the emitter ([`crate::emit`]) only
//! prints.

use num_bigint::BigUint;

macro_rules! handle {
    ($name:ident) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        impl $name {
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}
handle!(AggId);
handle!(VarId);
handle!(TableId);
handle!(ActionId);
handle!(ExternId);
handle!(ValueSetId);
handle!(StateId);
handle!(ProfileId);

/// The architecture a program was written for (its blocks, metadata and
/// externs are described in [`crate::arch`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arch {
    /// `ebpfFilter(parse, filter)`: accept passes, reject drops.
    EbpfModel,
    /// `xdp(parser, switch, deparser)`.
    XdpModel,
    /// `ubpf(parse, pipeline, deparser)`: p4c's user-space uBPF model.
    UbpfModel,
    /// `PNA_NIC(main parser, pre-control, main control, main deparser)`.
    Pna,
    /// P4TC's `PNA_NIC(parser, control, deparser)` (`tc/pna.p4`).
    PnaTc,
    /// `PSA_Switch(IngressPipeline(..), PRE, EgressPipeline(..), BQE)`.
    Psa,
    /// `V1Switch(...)`: BMv2's simple_switch.
    V1Model,
}

impl Arch {
    /// The name of the architecture's include file, without `.p4`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::EbpfModel => "ebpf_model",
            Arch::XdpModel => "xdp_model",
            Arch::UbpfModel => "ubpf_model",
            Arch::Pna => "pna",
            Arch::PnaTc => "tc/pna",
            Arch::Psa => "psa",
            Arch::V1Model => "v1model",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    Bool,
    Bits {
        width: u32,
        signed: bool,
    },
    Header(AggId),
    Struct(AggId),
    Union(AggId),
    Stack {
        elem: AggId,
        size: u32,
    },
    /// The `error` type: a small code, 0 = `NoError`.
    Error,
    Void,
    /// `varbit<max_bits>`: up to `max_bits` (a multiple of 8) bits whose
    /// current size is known at run time.
    Varbit {
        max_bits: u32,
    },
}

impl Ty {
    pub fn bits(width: u32) -> Ty {
        Ty::Bits {
            width,
            signed: false,
        }
    }
    pub fn width(&self) -> Option<u32> {
        match self {
            Ty::Bits { width, .. } => Some(*width),
            Ty::Bool => Some(1),
            Ty::Error => Some(8),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggKind {
    Header,
    Struct,
    Union,
}

#[derive(Clone, Debug)]
pub struct AggField {
    pub name: String,
    pub ty: Ty,
    /// Bit offset from the start of the header on the wire (headers only).
    pub bit_offset: u32,
}

/// A header, struct or header union with its concrete layout.
#[derive(Clone, Debug)]
pub struct Aggregate {
    pub name: String,
    pub kind: AggKind,
    pub fields: Vec<AggField>,
    /// Size on the wire in bits (headers only; 0 otherwise), without the
    /// varbit field.
    pub wire_bits: u32,
    /// A header's `varbit` field, which must come last.
    pub varbit: Option<VarbitField>,
}

/// A header's trailing `varbit<max_bits>` field. It is not in `fields`:
/// its bytes follow the fixed ones and `extract` sets how many there are.
#[derive(Clone, Debug)]
pub struct VarbitField {
    pub name: String,
    /// A multiple of 8.
    pub max_bits: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarStorage {
    /// A field of the per-packet state struct.
    State,
    /// A parameter of the action function it belongs to.
    ActionParam,
    /// An `out`/`inout` action parameter: a pointer to the caller's place.
    ActionOutParam,
    /// A parameter of an inlined control renamed to its argument
    /// (`midend::alias`): nothing names it, nothing stores it.
    Aliased,
}

#[derive(Clone, Debug)]
pub struct Var {
    /// Dotted P4 name for people (`pipe.tmp`).
    pub p4_name: String,
    /// Unique C identifier.
    pub c_name: String,
    pub ty: Ty,
    pub storage: VarStorage,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Not,
    Complement,
    Neg,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    AddSat,
    SubSat,
    Shl,
    Shr,
    Le,
    Ge,
    Lt,
    Gt,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

/// Functions the targets provide, called from expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Ipv4Checksum,
    CsumReplace2,
    CsumReplace4,
    KtimeGetNs,
    /// ubpf_model's `ubpf_time_get_ns()`: nanoseconds as `bit<48>`.
    TimeNs48,
    PerfEventOutput,
    /// Bob Jenkins' lookup3 over the arguments, each widened to 32 bits
    /// (64-bit ones as two words, high first).
    Lookup3,
    /// A hash of the arguments concatenated as one bit string.
    Hash(HashAlgorithm),
    /// A random number of the expression's width (`random`).
    Random,
    /// A 32-bit ones' complement sum folded to 16 bits, carries added back.
    CsumFold,
    /// Sends the one argument (a struct place) to the control plane as
    /// digest `Program::digests[i]`.
    Digest(u32),
    /// How many passes the packet made before this one (PNA's `pass`).
    PassNumber,
    /// A CRC continued over more data: the first argument is the CRC of
    /// the data so far (0 for none), the rest the data's fields.
    CrcContinue(HashAlgorithm),
    /// The kernel socket buffer's field (TC only).
    SkbRead(SkbField),
    /// Writes the one argument into the socket buffer's field (TC only).
    SkbWrite(SkbField),
    /// PNA's `add_entry`, request `Program::entry_requests[i]`: inserts
    /// the key its add-on-miss table missed, with the request's action and
    /// arguments, where the call is made; true when the entry went in.
    AddEntry(u32),
    /// The Internet checksum of the arguments' bits followed by the
    /// packet's payload, the bytes after those the parser took (v1model's
    /// `*_checksum_with_payload`).
    Csum16WithPayload,
    /// PNA's `allocate_flow_id()`: a flow id no other call returned
    /// (`emit::flow_id` says how).
    AllocateFlowId,
}

/// The fields of the kernel's socket buffer (`struct __sk_buff`) that
/// P4TC's `skb_get_*`/`skb_set_*` externs read and a TC program may write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkbField {
    Tstamp,
    Mark,
    TcClassid,
    TcIndex,
    QueueMapping,
    /// Read only: the kernel lets no TC program write it.
    Protocol,
}

impl SkbField {
    /// The field's name in `struct __sk_buff`.
    pub fn c_name(self) -> &'static str {
        match self {
            SkbField::Tstamp => "tstamp",
            SkbField::Mark => "mark",
            SkbField::TcClassid => "tc_classid",
            SkbField::TcIndex => "tc_index",
            SkbField::QueueMapping => "queue_mapping",
            SkbField::Protocol => "protocol",
        }
    }
}

/// Hash algorithms over a bit string, as BMv2 and the PSA define them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum HashAlgorithm {
    Crc16,
    Crc32,
    /// The Internet checksum (RFC 1071).
    Csum16,
    Xor16,
    /// The bits themselves.
    Identity,
    /// The receive-side scaling hash (PNA's `TOEPLITZ`), with the
    /// Microsoft RSS key most NICs use by default.
    Toeplitz,
}

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Ty,
}

/// The expressions lowering and the mid-end build themselves.
impl Expr {
    /// The integer `value` as a literal of type `ty`.
    pub fn int(value: impl Into<BigUint>, ty: Ty) -> Expr {
        Expr {
            kind: ExprKind::Int(value.into()),
            ty,
        }
    }

    /// `lhs op rhs`: `bool` for a comparison or `&&`/`||`, otherwise of
    /// `lhs`'s type.
    pub fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
        use BinOp::*;
        let ty = match op {
            Le | Ge | Lt | Gt | Eq | Ne | And | Or => Ty::Bool,
            _ => lhs.ty.clone(),
        };
        Expr {
            kind: ExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty,
        }
    }

    /// `self` as `ty`: itself when it has that type already.
    pub fn cast(self, ty: Ty) -> Expr {
        if self.ty == ty {
            return self;
        }
        Expr {
            kind: ExprKind::Cast(Box::new(self)),
            ty,
        }
    }

    /// `cond ? then : other`, of `then`'s type.
    pub fn mux(cond: Expr, then: Expr, other: Expr) -> Expr {
        let ty = then.ty.clone();
        Expr {
            kind: ExprKind::Mux {
                cond: Box::new(cond),
                then: Box::new(then),
                other: Box::new(other),
            },
            ty,
        }
    }
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Bool(bool),
    Int(BigUint),
    Var(VarId),
    Field {
        base: Box<Expr>,
        agg: AggId,
        field: usize,
    },
    /// Element of a header stack, index already bounds-checked when constant.
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    /// The `varbit` field of the header `base` (of aggregate `agg`).
    VarbitField {
        base: Box<Expr>,
        agg: AggId,
    },
    /// `s.next`: the element the next extract fills (extract only).
    StackNext(Box<Expr>),
    /// `s.last`: the element most recently filled.
    StackLast(Box<Expr>),
    /// `s.nextIndex` (`offset` 0) or `s.lastIndex` (`offset` 1), as bit<32>.
    StackIndex {
        stack: Box<Expr>,
        minus: u32,
    },
    /// `h.isValid()`
    IsValid(Box<Expr>),
    Unary {
        op: UnOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `e[hi:lo]`
    Slice {
        base: Box<Expr>,
        hi: u32,
        lo: u32,
    },
    /// `a ++ b`
    Concat {
        hi: Box<Expr>,
        lo: Box<Expr>,
    },
    Cast(Box<Expr>),
    Mux {
        cond: Box<Expr>,
        then: Box<Expr>,
        other: Box<Expr>,
    },
    /// An error constant's code.
    ErrorCode(u32),
    /// `p.lookahead<T>()` (or a field of `p.lookahead<H>()`): the value's
    /// bits start `bit_offset` bits after the parse offset; `check_bytes`
    /// must be in the packet.
    Lookahead {
        bit_offset: u32,
        check_bytes: u32,
    },
    /// `p.length()`: the packet's length in bytes.
    PacketLength,
    Builtin {
        func: Builtin,
        args: Vec<Expr>,
    },
    /// A user extern function from `--extern-file`: called by its name.
    ExternCall {
        name: String,
        args: Vec<Expr>,
    },
    /// `instance.method(args)` of an extern object; the expression's type
    /// is the result (`Void` for operations done for their effect).
    ExternMethod {
        instance: ExternId,
        op: ExternOp,
        args: Vec<Expr>,
    },
    /// An operation on bit strings wider than 64 bits, which C holds as
    /// big-endian byte arrays. Only the right side of an assignment to a
    /// variable; its wide operands are places (variables, fields).
    Wide {
        op: WideOp,
        args: Vec<Expr>,
    },
}

/// What [`ExprKind::Wide`] computes from its `args`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WideOp {
    Add,
    Sub,
    /// The product, cut to the width (modulo 2^width, as P4's `*`).
    Mul,
    BitAnd,
    BitOr,
    BitXor,
    Complement,
    /// Shift by a constant number of bits.
    Shl(u32),
    Shr(u32),
    /// The one argument (a scalar or a narrower wide place), zero-extended.
    Widen,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Assign {
        lhs: Expr,
        rhs: Expr,
    },
    If {
        cond: Expr,
        then: Vec<Stmt>,
        other: Vec<Stmt>,
    },
    /// Looks the table up and runs the chosen action; records the outcome
    /// in `hit` and `action_run` when the program asks for them.
    Apply {
        table: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
    },
    /// `switch (t.apply().action_run)`: `action_run` holds an action code.
    SwitchAction {
        table: TableId,
        action_run: VarId,
        cases: Vec<(Vec<ActionId>, Vec<Stmt>)>,
        default: Option<Vec<Stmt>>,
    },
    /// `switch (e) { 1: {...} 2: 3: {...} default: {...} }` over a bit value.
    SwitchValue {
        value: Expr,
        cases: Vec<(Vec<BigUint>, Vec<Stmt>)>,
        default: Option<Vec<Stmt>>,
    },
    CallAction {
        action: ActionId,
        args: Vec<Expr>,
    },
    SetValid {
        header: Expr,
        valid: bool,
    },
    /// `h.push_front(n)` / `h.pop_front(n)` on a stack.
    StackShift {
        stack: Expr,
        count: i64,
    },
    /// A loop: `body` runs while `cond` holds, `step` after each round
    /// and after `Continue`. `label` is unique in the program.
    Loop {
        label: String,
        cond: Expr,
        step: Vec<Stmt>,
        body: Vec<Stmt>,
    },
    /// Leaves the loop `label`.
    Break {
        label: String,
    },
    /// Ends the current round of the loop `label`.
    Continue {
        label: String,
    },
    /// Leaves the current control or action.
    Return,
    /// Leaves every control.
    Exit,
    Extract {
        header: Expr,
        /// `extract(h, bits)`: the size of `h`'s varbit field, in bits.
        varbit_bits: Option<Expr>,
    },
    /// Skips `bits` (a multiple of 8).
    Advance {
        bits: u32,
    },
    /// Skips a number of bits known only at run time: a whole number of
    /// bytes, else `ParserInvalidArgument`.
    AdvanceBy {
        bits: Expr,
    },
    Verify {
        cond: Expr,
        error: u32,
    },
    Emit {
        header: Expr,
    },
    /// An expression evaluated for its effect (an extern call).
    Eval(Expr),
    /// The body of a control applied from another control (`c.apply()`):
    /// `return` inside leaves only this body.
    Inline {
        name: String,
        body: Vec<Stmt>,
    },
    /// After an inlined control's copy-out: when `exit` left that body,
    /// the exit goes on through the controls around it (P4_16: `exit`
    /// still copies `inout` and `out` parameters back).
    ExitOnward,
    /// An `@atomic` block that holds a lock across CPUs (`lower/atomic.rs`
    /// checked that it can): under a `bpf_spin_lock`, its register cells
    /// are looked up before the lock, and `body` reads and writes them
    /// through those pointers. `calls_helpers`: the body applies a table,
    /// calls an extern, loops or computes an index it assigns, so its
    /// domain takes a lock word instead (`emit/lock_word.rs`).
    Atomic {
        body: Vec<Stmt>,
        calls_helpers: bool,
    },
}

#[derive(Clone, Debug)]
pub enum Keyset {
    Default,
    Value(BigUint),
    Mask { value: BigUint, mask: BigUint },
    Range { lo: BigUint, hi: BigUint },
    ValueSet(ValueSetId),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    Accept,
    Reject,
    State(StateId),
}

#[derive(Clone, Debug)]
pub struct SelectCase {
    /// One keyset per select expression, or one value set matching all
    /// of them.
    pub keysets: Vec<Keyset>,
    pub next: Next,
}

#[derive(Clone, Debug)]
pub enum Transition {
    Direct(Next),
    Select {
        keys: Vec<Expr>,
        cases: Vec<SelectCase>,
    },
}

#[derive(Clone, Debug)]
pub struct State {
    pub name: String,
    /// `file.p4:line` of the declaration, for comments in the C.
    pub origin: String,
    pub stmts: Vec<Stmt>,
    pub transition: Transition,
}

#[derive(Clone, Debug, Default)]
pub struct Parser {
    pub name: String,
    pub states: Vec<State>,
}

#[derive(Clone, Debug)]
pub struct Control {
    pub name: String,
    pub origin: String,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug)]
pub struct Action {
    /// Dotted P4 name (`pipe.Reject`, or `NoAction` at top level).
    pub name: String,
    pub c_name: String,
    pub origin: String,
    pub params: Vec<VarId>,
    /// How many of `params` (the first ones) have a direction: those are
    /// bound by the caller, the rest come from the control plane.
    pub directional: usize,
    pub body: Vec<Stmt>,
    pub default_only: bool,
    pub table_only: bool,
    /// `@id(N)`: the P4Runtime id the program asks for.
    pub p4_id: Option<u32>,
    /// `@hidden`: not shown to the control plane (absent from P4Info).
    pub hidden: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatchKind {
    Exact,
    Lpm,
    Ternary,
    /// `lo .. hi`, bounds included: stored as a ternary rule with bounds.
    Range,
    /// Exact or wildcard: stored as a ternary key whose mask is all or nothing.
    Optional,
}

#[derive(Clone, Debug)]
pub struct TableKey {
    /// The key expression as written (`headers.ipv4.srcAddr`).
    pub name: String,
    pub expr: Expr,
    pub kind: MatchKind,
}

#[derive(Clone, Debug)]
pub struct ActionCall {
    pub action: ActionId,
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug)]
pub struct ConstEntry {
    pub keysets: Vec<Keyset>,
    pub action: ActionCall,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    Hash,
    Array,
    LpmTrie,
    Ternary,
    /// Only const entries: compiled into code, no map.
    Code,
    /// No key: every lookup misses and runs the default action.
    DefaultOnly,
}

#[derive(Clone, Debug)]
pub struct Table {
    pub name: String,
    pub c_name: String,
    pub origin: String,
    pub keys: Vec<TableKey>,
    /// Actions the table may run, in declaration order; codes are 1-based
    /// positions (0 means "the compiled default").
    pub actions: Vec<ActionId>,
    pub default_action: ActionCall,
    pub default_is_const: bool,
    pub const_entries: Vec<ConstEntry>,
    pub size: u32,
    pub storage: Storage,
    pub p4_id: Option<u32>,
    /// PNA's `add_on_miss = true`: a miss whose action calls `add_entry`
    /// inserts the looked-up key (see [`EntryRequest`]).
    pub add_on_miss: bool,
    /// P4TC's `@tc_acl`, when the table has one.
    pub tc_acl: Option<TcAcl>,
    /// The action profile or selector holding this table's actions: its
    /// entries then name a member or a group instead of an action.
    pub implementation: Option<TableImplementation>,
    /// Its direct counters and meters, whose cells its entries hold.
    pub direct: Vec<ExternId>,
    /// PNA's idle timeout with auto-delete, when the table has one.
    pub entry_timer: Option<EntryTimer>,
    /// A non-const `entries` list: installed in the table's map when the
    /// pipeline loads, then the control plane's like any other entry.
    pub initial_entries: Vec<InitialEntry>,
    /// `@p4bpf_cache` (cached even without `--table-caching`) or
    /// `@p4bpf_no_cache` (never cached): the table's own say
    /// ([`crate::table_cache`]).
    pub cache: Option<bool>,
}

/// An entry of a non-const `entries` list, with its control-plane
/// priority (the larger wins) where the table's keys take one.
#[derive(Clone, Debug)]
pub struct InitialEntry {
    pub entry: ConstEntry,
    pub priority: Option<u32>,
}

/// PNA's entry timers on a table with `idle_timeout_with_auto_delete`
/// (or `pna_idle_timeout = AUTO_DELETE`), and PSA's on one with
/// `psa_idle_timeout = NOTIFY_CONTROL`: each entry's value ends with a
/// u64 cell, the `bpf_ktime_get_ns()` of its timer's last restart shifted
/// left 8, or'ed with its expire-time profile. A lookup that finds the
/// entry idle for longer than its profile's timeout (the control plane
/// sets those) deletes it and misses.
#[derive(Clone, Copy, Debug)]
pub struct EntryTimer {
    /// PNA's: what the entry's action asked of its timer. `None` in PSA,
    /// where every hit restarts it.
    pub requests: Option<TimerRequests>,
    /// `NOTIFY_CONTROL`: idle entries stay for the control plane to find.
    pub notify: bool,
}

/// An action the entry ran leaves in `request` what to do with its
/// timer: bit 0 restart it, bit 1 with the profile in `profile` (which
/// `add_entry` also sets for a new entry).
#[derive(Clone, Copy, Debug)]
pub struct TimerRequests {
    pub request: VarId,
    pub profile: VarId,
}

impl EntryTimer {
    /// The array map of each profile's timeout in nanoseconds (0: never).
    pub const PROFILES_MAP: &'static str = "pna_expire_profiles";
    /// How many profiles there are: `ExpireTimeProfileId_t` is 8 bits.
    pub const PROFILES: u32 = 256;
    /// `request` bits.
    pub const RESTART: u32 = 1;
    pub const NEW_PROFILE: u32 = 2;
}

/// A table's `implementation`: the profile its entries point into, the
/// `selector` keys hashed to pick a group's member (not part of the match
/// key), and PSA's `psa_empty_group_action`.
#[derive(Clone, Debug)]
pub struct TableImplementation {
    pub profile: ProfileId,
    pub selector_keys: Vec<Expr>,
    pub empty_group_action: Option<ActionCall>,
    /// The control plane may change the empty group action: a PSA
    /// selector table whose `psa_empty_group_action` is not `const` (or
    /// absent: then it is `NoAction`, PSA 1.2 section 7.12).
    pub empty_group_runtime: bool,
}

/// An action profile (v1model `action_profile`, PSA/PNA `ActionProfile`)
/// or selector (`action_selector`, `ActionSelector`): members (an action
/// with its arguments, by member id) shared by every table naming it; a
/// selector also holds groups of members, one picked per packet by the
/// hash of the table's selector keys.
#[derive(Clone, Debug)]
pub struct ActionProfile {
    /// Dotted P4 name (`MyIC.as`).
    pub name: String,
    pub c_name: String,
    /// Members it may hold.
    pub size: u32,
    pub selector: Option<Selector>,
    pub p4_id: Option<u32>,
    /// The tables naming it, in declaration order.
    pub tables: Vec<TableId>,
    /// Every action of those tables, first seen first: a member's action
    /// code is its 1-based position here.
    pub actions: Vec<ActionId>,
}

impl ActionProfile {
    pub fn action_code(&self, action: ActionId) -> Option<u32> {
        self.actions
            .iter()
            .position(|a| *a == action)
            .map(|i| i as u32 + 1)
    }
}

/// What a selector adds to a profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Selector {
    pub algorithm: HashAlgorithm,
    /// Members a group holds (`@max_group_size`, else a fixed bound).
    pub max_group_size: u32,
    /// `@max_group_size` as written, for P4Info (0 when not given).
    pub declared_max_group_size: u32,
}

/// `@tc_acl("CP:DP")`: the control plane's and the data plane's
/// permissions on a table's entries, as letters (C create, R read,
/// U update, D delete, P publish, S subscribe, X execute).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcAcl {
    pub annotation: String,
    pub control: String,
    pub data: String,
}

/// An `add_entry(action, params, profile)` call (PNA add-on-miss). The
/// call stores its parameters in `args` and its index + 1 in
/// [`Builtin::AddEntry`]; the add-on-miss table whose default action
/// makes the call inserts the key it missed with this action.
#[derive(Clone, Debug)]
pub struct EntryRequest {
    /// The action's name as the call spells it (resolved in the table's
    /// `actions`, which may declare it after the caller).
    pub action: String,
    pub args: Vec<VarId>,
    /// The table's `@tc_acl` forbids data-plane creates: P4TC warns and
    /// the insert does not happen.
    pub refused: bool,
}

impl EntryRequest {
    /// Whether the request names the action `dotted` (`Main.next_hop`).
    pub fn names(&self, dotted: &str) -> bool {
        dotted == self.action || dotted.rsplit('.').next() == Some(self.action.as_str())
    }

    /// The requests (indexes into [`Program::entry_requests`]) `body` makes.
    pub fn made_in(body: &[Stmt]) -> Vec<u32> {
        use crate::midend::visit::{walk_stmts, Descend, Visitor};
        struct Requests(Vec<u32>);
        impl Visitor for Requests {
            fn expr(&mut self, e: &Expr) -> Descend {
                if let ExprKind::Builtin {
                    func: Builtin::AddEntry(index),
                    ..
                } = e.kind
                {
                    self.0.push(index);
                }
                Descend::Yes
            }
        }
        let mut found = Requests(vec![]);
        walk_stmts(&mut found, body);
        found.0
    }
}

impl Table {
    /// The code stored in an entry to select `action`.
    pub fn action_code(&self, action: ActionId) -> Option<u32> {
        self.actions
            .iter()
            .position(|a| *a == action)
            .map(|i| i as u32 + 1)
    }
}

/// A register's value or index type that C cannot pass as a number: a
/// struct, or a bit string wider than 64 bits. Such registers are read
/// and written through places (`emit::register_composite`).
pub fn composite_register_type(ty: &Ty) -> bool {
    match ty {
        Ty::Struct(_) => true,
        ty => ty.width().is_some_and(|w| w > 64),
    }
}

/// What an extern object is; its state lives in a map of `size` cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExternKind {
    /// Packets, bytes or both per index (ebpf_model's `CounterArray`,
    /// PSA's `Counter`): a per-CPU array, or a per-CPU hash when `sparse`.
    Counter { sparse: bool, unit: CounterUnit },
    /// Values of type `value` kept across packets, at indexes of type
    /// `index` (ubpf_model's `Register`): an array whose cells read as
    /// `initial` (PSA's and PNA's `initial_value`, else 0) until written.
    /// A composite register's initial value is `initial_fields` instead:
    /// one value per field of its struct, or one for a wide bit string
    /// (empty: zero).
    Register {
        value: Ty,
        index: Ty,
        initial: u64,
        initial_fields: Vec<BigUint>,
    },
    /// Two-rate three-colour meters (RFC 2698) per index, metering
    /// packets or `bytes`: an array whose cells hold the control plane's
    /// rates, the buckets and a lock.
    Meter { bytes: bool },
    /// A counter of table entries (PSA's `DirectCounter`, v1model's
    /// `direct_counter`): a cell in each entry of the tables naming it
    /// ([`Table::direct`]), no map. `every_hit` counts every hit
    /// (v1model); else a hit counts when its action calls `count()`.
    DirectCounter { unit: CounterUnit, every_hit: bool },
    /// A meter of table entries: a meter cell in each entry, run when
    /// the entry is hit as a counter of the same `every_hit` counts; the
    /// meter's `colour` variable holds the colour of the last hit.
    DirectMeter {
        bytes: bool,
        every_hit: bool,
        colour: VarId,
    },
}

impl ExternKind {
    /// A register whose value or index is composite.
    pub fn is_composite_register(&self) -> bool {
        matches!(self, ExternKind::Register { value, index, .. }
            if composite_register_type(value) || composite_register_type(index))
    }
    /// Whether the state is in table entries, not a map of its own.
    pub fn is_direct(&self) -> bool {
        matches!(
            self,
            ExternKind::DirectCounter { .. } | ExternKind::DirectMeter { .. }
        )
    }

    /// Whether a table naming it updates it on every hit, whatever the
    /// action (v1model's direct externs).
    pub fn every_hit(&self) -> bool {
        matches!(
            self,
            ExternKind::DirectCounter {
                every_hit: true,
                ..
            } | ExternKind::DirectMeter {
                every_hit: true,
                ..
            }
        )
    }
}

/// What a counter cell counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CounterUnit {
    Packets,
    /// The frame's length at ingress, in bytes.
    Bytes,
    /// Both, packets first.
    PacketsAndBytes,
}

impl CounterUnit {
    /// Whether a count adds the packet's length.
    pub fn counts_bytes(self) -> bool {
        self != CounterUnit::Packets
    }
}

/// An operation of an extern object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExternOp {
    /// `(index)` or `(index, amount)`: adds to a counter cell.
    Count,
    /// `(index)`: a register cell's value.
    Read,
    /// `(index, value)`: stores into a register cell.
    Write,
    /// `(index, colour, amount)`: a meter's colour for a packet of
    /// `amount` packets or bytes coloured `colour` so far (0 green,
    /// 1 yellow, 2 red, BMv2's codes).
    Execute,
}

/// One instance of an extern object (`CounterArray(1024, true) c;`).
#[derive(Clone, Debug)]
pub struct ExternInstance {
    /// Dotted P4 name (`pipe.counters`).
    pub name: String,
    /// C name of its map; its operations are functions named after it.
    pub c_name: String,
    pub kind: ExternKind,
    pub size: u32,
    pub p4_id: Option<u32>,
}

/// A stream of messages to the control plane (v1model's `digest`, PSA's
/// and PNA's `Digest`): each send is one record of the program's digest
/// ring buffer holding the value of `ty`, a struct of bit strings.
#[derive(Clone, Debug)]
pub struct Digest {
    /// P4Runtime name: the dotted instance (PSA, PNA) or the type's name
    /// (v1model).
    pub name: String,
    /// C name: its record struct and send function are named after it.
    pub c_name: String,
    pub ty: Ty,
    pub p4_id: Option<u32>,
}

#[derive(Clone, Debug)]
pub struct ValueSet {
    pub name: String,
    pub c_name: String,
    pub size: u32,
    pub ty: Ty,
    pub p4_id: Option<u32>,
    /// How each member field is matched (its `@match`, else exact), one
    /// per bit-string leaf of `ty` in order (one for a bit-string `ty`).
    pub match_kinds: Vec<MatchKind>,
}

impl ValueSet {
    /// Whether some member field is matched other than exactly: the set
    /// is then an array of slots that a select scans, not a hash set.
    pub fn scans(&self) -> bool {
        self.match_kinds.iter().any(|k| *k != MatchKind::Exact)
    }
}

/// One step of a pipeline, naming the block it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Runs `parsers[i]` from its start state; rejecting drops the packet.
    Parse(usize),
    /// Runs `parsers[i]`; rejecting stores the error in
    /// [`Intrinsics::parser_error`] and goes on to the next step.
    ParseKeepingError(usize),
    /// Runs `controls[i]`.
    Control(usize),
    /// Runs `controls[i]` as the deparser: the packet is rewritten from
    /// the headers it emits.
    Deparse(usize),
    /// Drops the packet if the verdict says drop; else the output port
    /// takes the verdict's port ([`VerdictRule::Port`]).
    Checkpoint,
}

/// What a pipeline's verdict-deciding metadata says about the packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The program failed (XDP_ABORTED).
    Abort,
    Drop,
    /// To the host's stack (or, in a test harness, out of the input port).
    Pass,
    /// Back out of the port it came in on.
    Transmit,
    /// Out of the port in [`Intrinsics::output_port`].
    Redirect,
}

/// How the packet's fate is read from the metadata after the last step.
#[derive(Clone, Debug)]
pub enum VerdictRule {
    /// A boolean place: true passes, false drops (ebpf_model's `accept`).
    Accept(Expr),
    /// A code place whose values select outcomes; other values drop.
    Code {
        place: Expr,
        outcomes: Vec<(u32, Outcome)>,
    },
    /// A port place: `drop` drops, any other value redirects out of
    /// [`Intrinsics::output_port`].
    Port { place: Expr, drop: u32 },
}

/// The architecture's metadata by meaning, as places in the program's
/// variables: the target fills the inputs before the first step and reads
/// the outputs after the last.
#[derive(Clone, Debug)]
pub struct Intrinsics {
    /// Set to the P4 port the packet came in on.
    pub ingress_port: Option<Expr>,
    /// Set to the packet's length in bytes.
    pub packet_length: Option<Expr>,
    /// The P4 port an [`Outcome::Redirect`] sends to.
    pub output_port: Option<Expr>,
    pub verdict: VerdictRule,
    /// What a parser's `reject` does with the packet (as it came in).
    pub on_reject: Outcome,
    /// Where the [`Step::ParseKeepingError`] of `parsers[i]` stores its
    /// error: (i, place) each.
    pub parser_errors: Vec<(usize, Expr)>,
    /// The length the packet is cut to after the last step, when the
    /// program asks for a cut (ubpf_model's `truncate`).
    pub truncate: Option<Expr>,
    /// Assignments giving outputs their defaults before the first step.
    pub defaults: Vec<Stmt>,
    /// Multicast between ingress and egress, when the program asks for it.
    pub replication: Option<Replication>,
    /// PSA's clone I2E, when the program asks for it.
    pub clone_i2e: Option<CloneI2e>,
    /// v1model's clone E2E (at the end of egress), when the program asks
    /// for it.
    pub clone_e2e: Option<CloneI2e>,
    /// PSA's resubmission, when the program asks for it.
    pub resubmit: Option<Resubmit>,
    /// PSA's recirculation (after the last deparser), when the program
    /// names the recirculation port.
    pub recirculate: Option<Resubmit>,
    /// PNA's mirror slots, when the program calls `mirror_packet`.
    pub mirror: Option<Mirror>,
    /// PSA's `ostd.class_of_service` (when the program sets it or clones)
    /// or v1model's `priority` (when set): at TC the packet's
    /// `skb->priority`, a PSA clone's from its session.
    pub class_of_service: Option<Expr>,
    /// Whether runnable code sets `class_of_service` (not only clones):
    /// a program that never sets it leaves the host's `skb->priority`.
    pub sets_class_of_service: bool,
}

/// PNA's `mirror_packet(slot, session)`: slot `i`'s variable holds the
/// session of its last call plus one (0: no call this pass). After the
/// main deparser, each called slot sends one copy of the packet as the
/// deparser wrote it to every port of its session, whatever happens to
/// the packet itself (`emit::pna_mirror`).
#[derive(Clone, Debug)]
pub struct Mirror {
    pub slots: Vec<Expr>,
    /// The first call, for hooks that cannot mirror.
    pub at: Option<p4bpf_front::source::SrcLoc>,
}

/// PSA's resubmission: when `flag` holds after the ingress deparser's
/// body (the packet still as ingress received it), ingress runs again on
/// the packet, with every variable reset but `kept` (the resubmit
/// metadata) and `packet_paths` set to [`Resubmit::path`]; at most
/// [`Resubmit::MAX_PASSES`] times, then the packet is dropped.
/// Recirculation is the same after the last deparser has written the
/// packet (`kept`: the recirculate metadata).
#[derive(Clone, Debug)]
pub struct Resubmit {
    pub flag: Expr,
    pub kept: Option<Expr>,
    pub packet_paths: Vec<Expr>,
    /// `PSA_PacketPath_t.RESUBMIT`.
    pub path: u32,
    /// v1model: the user metadata kept is the field list the program
    /// chose at run time.
    pub field_lists: Option<FieldLists>,
}

/// v1model's field lists (`@field_list(index)` on user metadata fields):
/// a pass keeps the fields of the list the program chose, and nothing
/// else.
#[derive(Clone, Debug)]
pub struct FieldLists {
    /// Where the program stores the chosen list's index.
    pub chosen: Expr,
    /// Each index some field names, with the fields naming it.
    pub lists: Vec<(u32, Vec<Expr>)>,
}

impl Resubmit {
    pub const MAX_PASSES: u32 = 4;
}

/// PSA's clone I2E: when `flag` holds after the ingress deparser's body
/// (the packet still as ingress received it), one copy per member of
/// clone session `session`, each through egress with its port, its
/// instance and the packet path [`CloneI2e::path`]. Rides on
/// [`Replication`]'s copies (TC only).
#[derive(Clone, Debug)]
pub struct CloneI2e {
    pub flag: Expr,
    pub session: Expr,
    /// Where a copy finds its packet path (`egress_istd.packet_path`).
    pub packet_path: Expr,
    /// `PSA_PacketPath_t.CLONE_I2E`.
    pub path: u32,
    /// Where the program asks for a clone, for hooks that cannot.
    pub at: Option<p4bpf_front::source::SrcLoc>,
    /// v1model: the user metadata a copy keeps (the rest is reset).
    pub field_lists: Option<FieldLists>,
}

/// Multicast (v1model's `mcast_grp`): at the [`Step::Checkpoint`] a
/// non-zero group sends one copy of the packet per member of the group,
/// each through the steps after the checkpoint with its own output port,
/// replica id and instance type; the original is dropped.
#[derive(Clone, Debug)]
pub struct Replication {
    /// The group number ingress sets (0: no multicast).
    pub group: Expr,
    /// Where each copy finds its replica id (`egress_rid`).
    pub replica_id: Expr,
    /// Where each copy finds [`Replication::replica_instance`].
    pub instance_type: Expr,
    /// The instance type of a multicast copy (v1model: 5).
    pub replica_instance: u32,
    /// Where the program asks for multicast, for hooks that cannot.
    pub at: Option<p4bpf_front::source::SrcLoc>,
    /// The group's field as the program names it (`mcast_grp`).
    pub field: &'static str,
}

impl Intrinsics {
    /// Whether the program can send a packet out of a port.
    pub fn sends_to_ports(&self) -> bool {
        match &self.verdict {
            VerdictRule::Accept(_) => false,
            VerdictRule::Code { outcomes, .. } => outcomes
                .iter()
                .any(|(_, o)| matches!(o, Outcome::Transmit | Outcome::Redirect)),
            VerdictRule::Port { .. } => true,
        }
    }
}

/// A whole program for one architecture.
#[derive(Clone, Debug)]
pub struct Program {
    /// File stem of the P4 program; prefix of C names.
    pub name: String,
    pub arch: Arch,
    pub aggregates: Vec<Aggregate>,
    pub vars: Vec<Var>,
    /// Error names by code (0 = `NoError`).
    pub errors: Vec<String>,
    /// Every parser of the program (each is run by a [`Step::Parse`]).
    pub parsers: Vec<Parser>,
    /// Every control and deparser (run by [`Step::Control`] and
    /// [`Step::Deparse`]).
    pub controls: Vec<Control>,
    /// The steps a packet goes through, in order.
    pub pipeline: Vec<Step>,
    pub actions: Vec<Action>,
    pub tables: Vec<Table>,
    pub externs: Vec<ExternInstance>,
    pub value_sets: Vec<ValueSet>,
    pub profiles: Vec<ActionProfile>,
    /// The packet's header struct variable (`H` of the architecture).
    pub headers: VarId,
    pub intrinsics: Intrinsics,
    /// Calls `BPF_PERF_EVENT_OUTPUT`: the C needs the perf event map, and
    /// actions need the program context the helper takes.
    pub sends_perf_events: bool,
    /// The program's `add_entry` calls ([`Builtin::AddEntry`]).
    pub entry_requests: Vec<EntryRequest>,
    /// The digests the program sends, indexed by [`Builtin::Digest`].
    pub digests: Vec<Digest>,
    /// Where the program first uses the socket buffer's metadata (P4TC's
    /// `skb_*` externs), for hooks without one; actions then take the
    /// context.
    pub skb_meta_at: Option<p4bpf_front::source::SrcLoc>,
    /// What lowering warned about: the program compiles, and the compiler
    /// prints these.
    pub warnings: Vec<p4bpf_front::diag::Diagnostic>,
}

impl Program {
    /// Whether actions and table functions take the program's context.
    pub fn actions_take_context(&self) -> bool {
        self.sends_perf_events || self.skb_meta_at.is_some()
    }

    pub fn agg(&self, id: AggId) -> Option<&Aggregate> {
        self.aggregates.get(id.index())
    }
    pub fn var(&self, id: VarId) -> Option<&Var> {
        self.vars.get(id.index())
    }
    pub fn action(&self, id: ActionId) -> Option<&Action> {
        self.actions.get(id.index())
    }
    pub fn table(&self, id: TableId) -> Option<&Table> {
        self.tables.get(id.index())
    }
    pub fn profile(&self, id: ProfileId) -> Option<&ActionProfile> {
        self.profiles.get(id.index())
    }
    pub fn extern_instance(&self, id: ExternId) -> Option<&ExternInstance> {
        self.externs.get(id.index())
    }
    /// The counter instances, with whether each is sparse.
    pub fn counters(&self) -> impl Iterator<Item = (&ExternInstance, bool)> {
        self.externs.iter().filter_map(|e| match e.kind {
            ExternKind::Counter { sparse, .. } => Some((e, sparse)),
            ExternKind::Register { .. }
            | ExternKind::Meter { .. }
            | ExternKind::DirectCounter { .. }
            | ExternKind::DirectMeter { .. } => None,
        })
    }
    /// The deparser the pipeline runs, if any.
    pub fn deparser(&self) -> Option<&Control> {
        self.pipeline.iter().find_map(|s| match s {
            Step::Deparse(i) => self.controls.get(*i),
            _ => None,
        })
    }
}
