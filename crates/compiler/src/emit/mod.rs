//! The C emitter: pipeline IR to one readable C file for XDP or TC.
//!
//! The file reads top to bottom: includes, helpers, the P4 types, the
//! per-packet state, the maps, one function per action, then the entry
//! function (parser, controls, deparser, verdict) and the pipeline
//! description in section `.p4bpf.pipeline`. Split by concern: [`c`] (C
//! syntax tree and printer), [`types`], [`expr`], [`stmt`], [`parser`],
//! [`maps`], [`tables`], [`packet`], [`deparser`], [`helpers`],
//! [`perf_events`], [`ports`]. The lowering already
//! checked everything, so emission cannot fail.

mod add_on_miss;
mod atomic;
pub(crate) mod c;
mod control_loop;
mod crc_continue;
mod deparser;
pub(crate) mod digest;
mod direct;
mod emitted_flags;
pub mod empty_group;
mod entry_timer;
mod expr;
mod externs;
mod flow_id;
mod hash;
mod helpers;
mod inline_exit;
mod lock_domains;
mod lock_word;
mod maps;
mod mtu;
mod packet;
mod packet_key;
mod parser;
mod parser_error;
mod parser_loop;
mod parser_merge;
mod pass_copies;
mod payload_checksum;
mod perf_events;
mod pna_mirror;
mod ports;
pub mod profile;
mod psa_clone_e2e;
mod psa_cos;
mod psa_egress;
mod psa_fuse;
mod psa_fuse_egress;
mod psa_resubmit;
mod register_composite;
mod replication;
mod source_map;
mod split;
mod stages;
mod stmt;
mod table_cache;
mod tables;
mod ternary;
mod trace;
mod trace_externs;
mod types;
mod v1model_clone;
mod v1model_passes;
mod value_set_live;
mod value_set_scan;
mod value_set_tuple;
mod varbit;
mod vlan;
mod wide;
mod wire_fields;
mod write_through;
mod xdp_clone_e2e;
mod xdp_clone_resubmit;
mod xdp_clone_round;
mod xdp_clone_traits;
mod xdp_copies;
mod xdp_e2e_passes;
mod xdp_pna_mirror;
mod xdp_psa_clone;

use crate::ir::{Outcome, Program, Step, VerdictRule};
use crate::map_layout::{table_layout, TableLayout};
use crate::midend::correspond::Shape;
use crate::midend::defuse::{Reads, Writes};
use crate::midend::validity::HeaderFacts;
use crate::target::{self, Target};
use crate::Instrument;
use c::{line, CStmt};
use helpers::Helper;
use p4bpf_layout::Hook;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use stmt::Ctx;

pub use direct::direct_description;
pub use externs::register_initials;
pub use mtu::{mtu_drops_map, ARRIVED_LEN};
pub use pna_mirror::mirror_sessions_description;
pub use ports::{ingress_port_map, port_map};
pub use register_composite::composite_registers;
pub use replication::replication_description;
pub use tables::{defaults_map, runtime_default};
pub use trace::describe as trace_description;
pub use trace::describe_table_stats as table_stats_description;

/// Where the deparser jumps when it cannot write the packet.
const DEPARSE_FAILED: &str = "deparse_failed";

/// State larger than this lives in a per-CPU array instead of the stack.
const MAX_STACK_STATE: u32 = 320;

pub struct Emitter<'p> {
    prog: &'p Program,
    hook: Hook,
    target: &'static dyn Target,
    table_layouts: Vec<TableLayout>,
    helpers: RefCell<BTreeSet<Helper>>,
    facts: HeaderFacts,
    writes: Writes,
    reads: Reads,
    plan: Shape,
    /// Numbers unique labels of inlined controls.
    labels: std::cell::Cell<u32>,
    /// An inlined control's `exit` awaits its copy-out ([`inline_exit`]).
    exit_pending: std::cell::Cell<bool>,
    /// Tables applied through global functions, verified on their own.
    split: split::Split,
    /// Trace records and table counts to write ([`trace`]).
    instrument: Instrument,
    /// Programs the packet path is cut into, joined by tail calls.
    stages: stages::Stages,
    /// Printing PSA's egress function (`psa_egress`), not an entry.
    in_egress_function: bool,
    /// Global functions running parser loops ([`parser_loop`]), once written.
    parser_loops: RefCell<Vec<String>>,
    /// P4 loops run by `bpf_loop`: each one's context and callback
    /// declarations, and its callback (`control_loop`).
    loop_rounds: RefCell<Vec<(String, String)>>,
    /// Printing the program a multicast copy's egress runs ([`replication`]).
    on_copy: std::cell::Cell<bool>,
    /// Writing the actions of this add-on-miss table (its index), whose
    /// `add_entry` calls insert its key ([`add_on_miss`]).
    missed_table: std::cell::Cell<Option<usize>>,
    /// What differs between parser paths ([`parser_merge`]).
    placement: crate::midend::placement::Placement,
    /// Printing a fused PSA egress function: the ingress deparser's
    /// emits its parser takes headers from ([`psa_fuse`]).
    fused_ingress: Option<psa_fuse::Fusion>,
    /// Metadata fields whose reset no one reads: left out of it.
    skipped_resets: crate::midend::resets::SkippedResets,
    /// Inside a locked `@atomic` block: the cells looked up before the
    /// lock, as (register, index in C, pointer) ([`atomic`]).
    atomic_cells: RefCell<Vec<(crate::ir::ExternId, String, String)>>,
    /// The tables looked up through a cache first (`--table-caching`).
    caches: crate::table_cache::CachePlan,
    /// The map test harnesses read sent ports from, in builds with port
    /// notes ([`EmitOptions::port_notes`]).
    output_record: Option<String>,
    /// How many places run each action, counted as the calls are written
    /// ([`write_through`]: an action run from one place needs no barrier).
    action_calls: RefCell<BTreeMap<crate::ir::ActionId, u32>>,
    /// Sends check the packet against the port's MTU ([`mtu`]): decided
    /// on the whole program, which PSA's egress function is a cut of.
    mtu_checked: bool,
}

/// What goes into the C file besides the program.
pub struct EmitOptions<'o> {
    pub hook: Hook,
    /// JSON of the pipeline description, embedded in `.p4bpf.pipeline`.
    pub pipeline_json: &'o str,
    /// C text of the user's extern functions (`--extern-file`).
    pub extern_c: Option<&'o str>,
    /// The instrumented builds: table counts, or those and trace records.
    pub instrument: Instrument,
    /// The tables to cache (`--table-caching`).
    pub caches: &'o crate::table_cache::CachePlan,
    /// Note sent ports in the output record for test harnesses. Off in a
    /// deployed pipeline's build: its packet path then has no trace of them.
    pub port_notes: bool,
}

/// The map macros extern files written for p4c's eBPF back end use.
const EXTERN_MACROS: &str = "\
/* Map macros of p4c's eBPF kernel target, for extern files written against it. */
#define REGISTER_START()
#define REGISTER_END()
#define REGISTER_TABLE(NAME, TYPE, KEY, VALUE, SIZE) \\
    struct { __uint(type, TYPE); __type(key, KEY); __type(value, VALUE); __uint(max_entries, SIZE); } NAME SEC(\".maps\");
#define BPF_MAP_LOOKUP_ELEM(map, key) bpf_map_lookup_elem(&map, key)
#define BPF_MAP_UPDATE_ELEM(map, key, value, flags) bpf_map_update_elem(&map, key, value, flags)
#define BPF_MAP_DELETE_ELEM(map, key) bpf_map_delete_elem(&map, key)

";

/// The one-entry per-CPU map where the program notes the port it sends a
/// packet out of (the pipeline description's `output_record`), if any.
pub fn output_record(prog: &Program) -> Option<String> {
    prog.intrinsics
        .sends_to_ports()
        .then(|| format!("{}_output_port", c_identifier(&prog.name)))
}

/// The read-only global that turns the output record on (1, as compiled)
/// or off: a loader that needs no record (`p4bpf pipeline load`, the
/// bench) sets it to 0 before loading, and the verifier then removes every
/// note as dead code. In a section of its own, so the loader can set it
/// without knowing where other constants lie.
pub const NOTES_FLAG: &str = "p4bpf_notes_ports";

/// The flag's C definition, set to keep the notes.
fn notes_flag_definition() -> String {
    format!(
        "/* 1: note ports in the output record, for test runs; 0 (set by the loader of a\n * deployed pipeline): the verifier drops the notes. */\n\
         const volatile u8 {NOTES_FLAG} SEC(\"{}\") = 1;\n\n",
        p4bpf_layout::NOTES_SECTION
    )
}

/// `name` with every character C identifiers cannot hold made `_`.
pub(crate) fn c_identifier(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The name of the entry function (and BPF program) for `hook`.
pub fn entry_name(prog: &Program, hook: Hook) -> String {
    let stem: String = prog
        .name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("{stem}_{}", target::for_hook(hook).section())
}

/// The whole C file for `prog`.
pub fn emit(prog: &Program, options: &EmitOptions) -> String {
    let mut e = Emitter {
        prog,
        hook: options.hook,
        target: target::for_hook(options.hook),
        table_layouts: prog.tables.iter().map(|t| table_layout(prog, t)).collect(),
        helpers: RefCell::new(BTreeSet::new()),
        facts: HeaderFacts::of(prog),
        writes: Writes::default(),
        reads: Reads::default(),
        plan: Shape::Kept,
        labels: std::cell::Cell::new(0),
        exit_pending: std::cell::Cell::new(false),
        split: split::Split::plan(prog),
        instrument: options.instrument,
        stages: stages::Stages::plan(prog, options.caches),
        in_egress_function: false,
        parser_loops: RefCell::default(),
        loop_rounds: RefCell::default(),
        on_copy: std::cell::Cell::new(false),
        missed_table: std::cell::Cell::new(None),
        placement: crate::midend::placement::Placement::of(prog),
        fused_ingress: None,
        // A trace record holds every field: all are then reset.
        skipped_resets: match options.instrument {
            Instrument::Trace => Default::default(),
            _ => crate::midend::resets::SkippedResets::of(prog),
        },
        atomic_cells: RefCell::default(),
        caches: options.caches.clone(),
        output_record: output_record(prog).filter(|_| options.port_notes),
        action_calls: RefCell::default(),
        mtu_checked: mtu_drops_map(prog).is_some(),
    };
    e.writes = Writes::of(prog, &e.facts);
    e.plan = e.deparse_plan();
    e.reads = Reads::rebuilding(prog, e.rebuilt_headers());
    // Bodies first: they decide which helpers the file needs. Actions
    // last: their stores depend on how many places run them.
    let entry = e.entry_function();
    let later_stages = e.stage_functions();
    let egress = psa_egress::egress_function(&mut e);
    e.count_calls_from_actions();
    let actions: String = prog.actions.iter().map(|a| e.action_function(a)).collect();
    let mut out = e.preamble();
    for h in e.helpers.borrow().iter() {
        out.push_str(helpers::text(*h));
        out.push('\n');
    }
    out.push_str(&e.type_definitions());
    out.push_str(&e.state_definition());
    if let Some(c) = options.extern_c {
        out.push_str(EXTERN_MACROS);
        if let Some(arch) = crate::arch::find_arch(prog.arch) {
            out.push_str(arch.extern_prelude);
        }
        out.push_str("/* User extern functions (--extern-file). */\n");
        for l in c.lines() {
            // The extern file includes the compiler's generated header under some name, and
            // <stdint.h>, which BPF builds lack: their types are above.
            let include = l.trim_start().starts_with("#include");
            if !(include && (l.contains('"') || l.contains("<stdint.h>"))) {
                out.push_str(l);
                out.push('\n');
            }
        }
        out.push('\n');
    }
    out.push_str(&e.map_definitions());
    out.push_str(&e.trace_definitions());
    out.push_str(&e.trace_verdict_definition());
    out.push_str(&e.extern_definitions());
    if e.state_in_map() {
        out.push_str(&format!(
            "/* The per-packet state is too big for the stack: one per CPU. */\nstruct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, struct {});\n    __uint(max_entries, 1);\n}} {}_scratch SEC(\".maps\");\n\n",
            e.state_type(),
            e.c_prefix()
        ));
    }
    if let Some(record) = &e.output_record {
        out.push_str(&format!(
            "/* For test harnesses: [0] the port of the last packet sent out (XDP_TX/XDP_REDIRECT),\n * [1] the P4 port + 1 a packet is sent in on (0: none noted). */\nstruct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u32);\n    __uint(max_entries, 2);\n}} {record} SEC(\".maps\");\n\n{}\
             static __always_inline void p4bpf_note_port(u32 port)\n{{\n    if (!{NOTES_FLAG})\n        return;\n    u32 zero = 0;\n    u32 *slot = bpf_map_lookup_elem(&{record}, &zero);\n    if (slot)\n        *slot = port;\n}}\n\n",
            notes_flag_definition()
        ));
    }
    out.push_str(&e.ingress_port_definitions());
    out.push_str(&e.port_map_definition());
    out.push_str(&e.mtu_check_definitions());
    out.push_str(&e.replication_definitions());
    out.push_str(&e.pna_mirror_definitions());
    out.push_str(&e.pna_xdp_mirror_definitions());
    out.push_str(&e.perf_event_definitions());
    out.push_str(&e.digest_definitions());
    out.push_str(&e.loop_round_declarations());
    out.push_str(&e.add_entry_definitions());
    out.push_str(&actions);
    out.push_str(&e.table_function_definitions());
    if !e.parser_loops.borrow().is_empty() {
        out.push_str(&e.cursor_definition());
        out.push_str(&e.parser_loops.borrow().concat());
    }
    if e.stages.staged() {
        out.push_str(&e.stages_definition());
    }
    out.push_str(&e.loop_round_definitions());
    out.push_str(&egress);
    out.push_str(&entry);
    out.push_str(&later_stages);
    out.push_str(&e.egress_entry_function());
    out.push_str(&pipeline_section(options.pipeline_json));
    out.push_str("char LICENSE[] SEC(\"license\") = \"GPL\";\n");
    let (mut c, regions) = source_map::resolve(&out);
    c.push_str(&source_map::section(&regions));
    c
}

fn pipeline_section(json: &str) -> String {
    let mut escaped = String::new();
    for ch in json.chars() {
        match ch {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n\"\n    \""),
            c if c.is_ascii() && !c.is_ascii_control() => escaped.push(c),
            // Each UTF-8 byte in octal: a `\x` escape would run on into
            // the hex digits after it.
            c => {
                for byte in c.encode_utf8(&mut [0; 4]).bytes() {
                    escaped.push_str(&format!("\\{byte:03o}"));
                }
            }
        }
    }
    format!(
        "/* The pipeline description the runtime reads (p4bpf-layout). */\n__attribute__((used)) const char p4bpf_pipeline[] SEC(\"{}\") =\n    \"{escaped}\";\n\n",
        p4bpf_layout::SECTION
    )
}

impl Emitter<'_> {
    fn next_label(&self) -> u32 {
        self.labels.set(self.labels.get() + 1);
        self.labels.get()
    }

    /// Whether the parsers look at packet bytes at all.
    fn parser_reads_packet(&self) -> bool {
        let reads = |st: &crate::ir::Stmt| {
            matches!(
                st,
                crate::ir::Stmt::Extract { .. }
                    | crate::ir::Stmt::Advance { .. }
                    | crate::ir::Stmt::AdvanceBy { .. }
            )
        };
        self.prog.parsers.iter().flat_map(|p| &p.states).any(|s| {
            s.stmts.iter().any(reads)
                || match &s.transition {
                    crate::ir::Transition::Select { keys, .. } => {
                        keys.iter().any(|k| parser::has_lookahead(k).is_some())
                    }
                    crate::ir::Transition::Direct(_) => false,
                }
        })
    }

    fn use_helper(&self, h: Helper) {
        self.helpers.borrow_mut().insert(h);
    }

    fn c_prefix(&self) -> String {
        c_identifier(&self.prog.name)
    }

    fn state_in_map(&self) -> bool {
        self.state_size() + self.varbit_hash_bytes() > MAX_STACK_STATE || self.stages.staged()
    }

    fn preamble(&self) -> String {
        format!(
            "/* {}.c: generated by p4bpf from {}.p4 ({}, {} hook). Do not edit. */\n\
             #include <linux/bpf.h>\n#include <linux/pkt_cls.h>\n#include <bpf/bpf_helpers.h>\n#include <bpf/bpf_endian.h>\n\n\
             typedef __u8 u8;\ntypedef __u16 u16;\ntypedef __u32 u32;\ntypedef __u64 u64;\n\
             typedef __s8 s8;\ntypedef __s16 s16;\ntypedef __s32 s32;\ntypedef __s64 s64;\n\n",
            self.prog.name,
            self.prog.name,
            self.prog.arch.name(),
            self.target.name()
        )
    }

    fn entry_function(&self) -> String {
        let drop = self.target.drop();
        let mut body = vec![];
        if self.parser_reads_packet() {
            body.extend(self.vlan_tag_into_packet());
            body.extend(self.target.before_parsing());
        }
        let ctx = self.target.context();
        body.extend([
            line(format!("u8 *pkt = (u8 *)(long){ctx}->data")),
            line(format!("u8 *pkt_end = (u8 *)(long){ctx}->data_end")),
            line("u32 offset = 0 /* bytes parsed */"),
            line("u8 parser_error = 0"),
        ]);
        if self.state_in_map() {
            body.push(line("u32 zero = 0"));
            body.push(line(format!(
                "struct {} *st = bpf_map_lookup_elem(&{}_scratch, &zero)",
                self.state_type(),
                self.c_prefix()
            )));
            body.push(CStmt::If {
                cond: "!st".into(),
                then: vec![CStmt::Return(drop.into())],
                other: vec![],
            });
            body.push(CStmt::Comment(
                "the scratch keeps the last packet's values: invalidate headers, zero scalars"
                    .into(),
            ));
            body.extend(self.reset_state());
        } else {
            body.push(line(format!("struct {} state = {{}}", self.state_type())));
            body.push(line(format!("struct {} *st = &state", self.state_type())));
        }
        body.extend(self.arrival_length());
        body.extend(self.trace_begin());
        let mut pipeline = self.resubmit_entry();
        pipeline.extend(self.intrinsic_inputs());
        pipeline.extend(self.staged_steps(None));
        pipeline.extend(self.entry_epilogue());
        body.extend(self.trace_returns(pipeline));
        let mut out = format!(
            "SEC(\"{}\")\nint {}({})\n{{\n",
            self.target.section(),
            entry_name(self.prog, self.hook),
            self.target.context_param()
        );
        c::print(&body, 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    /// What every stage ends with: the cut, the verdict, and where a
    /// packet the deparser cannot write goes.
    fn entry_epilogue(&self) -> Vec<CStmt> {
        let mut body = match self.psa_egress_call() {
            Some(call) => call,
            None => {
                let mut body = self.truncation();
                body.extend(self.verdict());
                body
            }
        };
        if self.prog.deparser().is_some() {
            // Whatever a parser's reject does, a packet the deparser cannot write is dropped.
            body.push(CStmt::Label(DEPARSE_FAILED.into()));
            body.push(CStmt::Return(self.target.drop().into()));
        }
        body
    }

    /// The architecture's inputs set from the packet, and the defaults
    /// of its outputs.
    fn intrinsic_inputs(&self) -> Vec<CStmt> {
        let i = &self.prog.intrinsics;
        let mut out = vec![];
        // Finding the P4 port takes map lookups: only for programs that read it.
        let read = |place: &crate::ir::Expr| match place.kind {
            crate::ir::ExprKind::Field { agg, field, .. } => self.reads.contains(agg, field),
            _ => true,
        };
        if let Some(port) = i.ingress_port.as_ref().filter(|p| read(p)) {
            out.push(line(format!(
                "{} = p4bpf_input_port({})",
                self.lvalue(port),
                self.target.ingress_port()
            )));
            out.extend(self.recirculated_ingress_port(&self.lvalue(port)));
        }
        if let Some(length) = &i.packet_length {
            out.push(line(format!(
                "{} = {}",
                self.lvalue(length),
                self.target.packet_length()
            )));
        }
        let cx = Ctx {
            in_action: false,
            end: String::new(),
            exit: String::new(),
        };
        out.extend(self.stmts(&i.defaults, &cx));
        out
    }

    /// One pipeline step: a parser ending at `accept` (or `reject`, which
    /// drops), a control, or the deparser; of a control, the statements
    /// from `from` up to `until`, where `tail` ends the stage.
    fn step_part(
        &self,
        step: Step,
        from: usize,
        until: Option<usize>,
        tail: Option<Vec<CStmt>>,
    ) -> Vec<CStmt> {
        let mut out = vec![];
        match step {
            Step::Parse(i) => {
                let Some(parser) = self.prog.parsers.get(i) else {
                    return out;
                };
                out.extend(self.parser_code(parser));
                out.push(CStmt::Label("reject".into()));
                out.push(line("(void)parser_error"));
                out.extend(self.outcome(self.prog.intrinsics.on_reject));
                out.push(CStmt::Label("accept".into()));
                out.extend(self.merge_parse_paths(i));
            }
            Step::ParseKeepingError(i) => {
                let Some(parser) = self.prog.parsers.get(i) else {
                    return out;
                };
                out.extend(self.parser_code(parser));
                out.push(CStmt::Label("reject".into()));
                out.extend(self.explicit_reject());
                let places = &self.prog.intrinsics.parser_errors;
                if let Some((_, place)) = places.iter().find(|(p, _)| *p == i) {
                    out.push(line(format!("{} = parser_error", self.lvalue(place))));
                }
                out.extend(self.join_error_paths());
                out.push(CStmt::Label("accept".into()));
                out.extend(self.merge_parse_paths(i));
            }
            Step::Checkpoint => out.extend(self.checkpoint()),
            Step::Control(i) | Step::Deparse(i) => {
                let Some(control) = self.prog.controls.get(i) else {
                    return out;
                };
                let end = format!("{}_end", control.name);
                let cx = Ctx {
                    in_action: false,
                    end: end.clone(),
                    exit: end.clone(),
                };
                out.push(CStmt::Comment(format!(
                    "control {} ({})",
                    control.name, control.origin
                )));
                if matches!(step, Step::Deparse(_)) {
                    out.extend(self.clone_at_end_of_egress());
                    out.extend(self.deparser_prologue());
                }
                let body = control.body.get(from..).unwrap_or(&[]);
                let body = body
                    .get(..until.map_or(body.len(), |u| u.saturating_sub(from)))
                    .unwrap_or(body);
                let what = format!("control `{}`", control.name);
                let body = self.stmts(body, &cx);
                out.extend(source_map::from_p4(&control.origin, what, body));
                out.extend(tail.unwrap_or_default());
                out.push(CStmt::Label(end));
                if matches!(step, Step::Control(_)) {
                    out.extend(self.exit_flag_reset());
                }
                if matches!(step, Step::Deparse(_)) {
                    out.extend(self.clone_i2e_call(i));
                    out.extend(self.resubmit_check(i));
                    out.extend(self.deparser_epilogue());
                    out.extend(self.psa_clone_e2e_call(i));
                    out.extend(self.xdp_psa_clone_e2e_call(i));
                    out.extend(self.pna_mirror_call(i));
                    out.extend(self.recirculate_check(i));
                    out.extend(self.pna_xdp_mirror_call(i));
                }
            }
        }
        out
    }

    /// The cut the program asked for, if it can ask for one.
    fn truncation(&self) -> Vec<CStmt> {
        let Some(place) = &self.prog.intrinsics.truncate else {
            return vec![];
        };
        let len = self.expr(place);
        vec![
            CStmt::Comment("truncate: cut the packet after the pipeline".into()),
            CStmt::If {
                cond: format!("{len} < {}", self.target.packet_length()),
                then: vec![CStmt::If {
                    cond: self.target.cut_fails(&len),
                    then: vec![CStmt::Return(self.target.abort().into())],
                    other: vec![],
                }],
                other: vec![],
            },
        ]
    }

    /// The return value the architecture's metadata decide.
    fn verdict(&self) -> Vec<CStmt> {
        let (pass, drop) = (self.target.pass(), self.target.drop());
        match &self.prog.intrinsics.verdict {
            VerdictRule::Accept(flag) => vec![CStmt::Return(format!(
                "{} ? {pass} : {drop}",
                self.expr(flag)
            ))],
            VerdictRule::Code { place, outcomes } => {
                let cases = outcomes
                    .iter()
                    .map(|(code, outcome)| (vec![code.to_string()], self.outcome(*outcome)))
                    .collect();
                vec![
                    CStmt::Switch {
                        scrutinee: self.expr(place),
                        cases,
                        default: vec![],
                    },
                    CStmt::Return(drop.into()),
                ]
            }
            VerdictRule::Port { place, drop: port } => {
                let mut out = vec![CStmt::If {
                    cond: format!("{} == {port}", self.expr(place)),
                    then: vec![CStmt::Return(drop.into())],
                    other: vec![],
                }];
                out.extend(self.outcome(Outcome::Redirect));
                out
            }
        }
    }

    /// Between two controls: drops the packet if the verdict says drop
    /// already, else the output port takes the verdict's port.
    fn checkpoint(&self) -> Vec<CStmt> {
        let i = &self.prog.intrinsics;
        if let VerdictRule::Code { place, outcomes } = &i.verdict {
            return self.code_checkpoint(place, outcomes);
        }
        let (VerdictRule::Port { place, drop }, Some(port)) = (&i.verdict, &i.output_port) else {
            return vec![];
        };
        let spec = self.expr(place);
        let mut out = self.skb_priority();
        out.extend(self.clone_at_end_of_ingress());
        out.extend(self.resubmit_at_end_of_ingress());
        out.push(CStmt::If {
            cond: format!("{spec} == {drop}"),
            then: vec![CStmt::Return(self.target.drop().into())],
            other: vec![],
        });
        out.extend(self.multicast_check());
        out.push(line(format!("{} = {spec}", self.lvalue(port))));
        out
    }

    /// The note of sent port `port` for test harnesses, in builds with notes.
    fn port_note(&self, port: &str) -> Option<CStmt> {
        self.output_record
            .as_ref()
            .map(|_| line(format!("p4bpf_note_port({port})")))
    }

    fn outcome(&self, outcome: Outcome) -> Vec<CStmt> {
        let t = self.target;
        match outcome {
            Outcome::Abort => vec![CStmt::Return(t.abort().into())],
            Outcome::Drop => vec![CStmt::Return(t.drop().into())],
            Outcome::Pass => vec![CStmt::Return(t.pass().into())],
            Outcome::Transmit => {
                // At TC a transmit is a redirect like any other: noted.
                let same_port = format!("{:#x} /* the input port */", p4bpf_layout::SAME_PORT);
                let note = self.port_note(&same_port).filter(|_| self.hook == Hook::Tc);
                note.into_iter()
                    .chain(t.transmit(self.mtu_checked))
                    .collect()
            }
            Outcome::Redirect => {
                let port = self
                    .prog
                    .intrinsics
                    .output_port
                    .as_ref()
                    .map(|p| self.expr(p))
                    .unwrap_or_else(|| "0".into());
                let mut out: Vec<CStmt> = self.port_note(&port).into_iter().collect();
                out.extend(self.psa_to_host(&port));
                out.extend(self.redirect_to_port(&port));
                out
            }
        }
    }
}
