//! The instrumented builds: `--trace` writes records of what each packet
//! did to a BPF ring buffer (layout: [`p4bpf_layout::trace`]); it and
//! `--table-stats` count each table's hits and misses in a per-CPU array.
//!
//! The pipeline is hooked at four generic places, whatever the
//! architecture: the packet's start, each parser state entered, each table
//! applied and every return of the entry function (the verdict). The
//! stats-only build fills only the table hook's count; without either
//! option every hook emits nothing, so the normal build is unchanged.

use super::c::{line, CStmt};
use super::types::VALID;
use super::Emitter;
use crate::ir::{ActionCall, ExprKind, Program, Storage, Table, TableId, Ty};
use crate::Instrument;
use p4bpf_layout::trace::{self as layout, TableStats, Trace, TracedTable};

/// Room of the ring buffer: a few thousand packets' records.
const RING_BYTES: u32 = 256 * 1024;

fn ring_name(prog: &Program) -> String {
    format!("{}_trace", super::c_identifier(&prog.name))
}

fn stats_name(prog: &Program) -> String {
    format!("{}_table_stats", super::c_identifier(&prog.name))
}

/// Parser states in the order records number them, `parser.state`.
fn state_names(prog: &Program) -> Vec<String> {
    prog.parsers
        .iter()
        .flat_map(|p| {
            p.states
                .iter()
                .map(move |s| format!("{}.{}", p.name, s.name))
        })
        .collect()
}

/// What the records of `prog`'s traced build refer to; key and value
/// sizes come from the tables' descriptions.
pub fn describe(prog: &Program, tables: &[p4bpf_layout::Table]) -> Trace {
    let traced = |t: &Table| {
        let listed = tables.iter().find(|d| d.name == t.name);
        let action_name = |a| prog.action(a).map(|x| x.name.clone()).unwrap_or_default();
        let code = t.storage == Storage::Code;
        TracedTable {
            name: t.name.clone(),
            key_size: if listed.is_some() || code {
                key_struct_size(prog, t)
            } else {
                0
            },
            value_size: listed.map_or(0, |d| d.value_size),
            default_action: action_name(t.default_action.action),
            actions: t
                .actions
                .iter()
                .filter_map(|a| Some((t.action_code(*a)?, action_name(*a))))
                .collect(),
            code_keys: if code {
                crate::describe::key_fields(t, &crate::map_layout::table_layout(prog, t))
            } else {
                vec![]
            },
            entry_args: if code {
                let calls = t.const_entries.iter().map(|e| &e.action);
                calls
                    .chain([&t.default_action])
                    .map(|call| call_args(prog, call))
                    .collect()
            } else {
                vec![]
            },
        }
    };
    Trace {
        ring: ring_name(prog),
        states: state_names(prog),
        tables: prog.tables.iter().map(traced).collect(),
        headers: header_places(prog).into_iter().map(|(p4, _)| p4).collect(),
        errors: prog.errors.clone(),
        extern_calls: super::trace_externs::extern_calls(prog)
            .into_iter()
            .map(|(_, _, call)| call)
            .collect(),
    }
}

/// The hit and miss counts of a `--table-stats` or `--trace` build.
pub fn describe_table_stats(prog: &Program) -> TableStats {
    TableStats {
        map: stats_name(prog),
        tables: prog.tables.iter().map(|t| t.name.clone()).collect(),
    }
}

/// `(parameter, value)` of the control-plane arguments of a const call.
fn call_args(prog: &Program, call: &ActionCall) -> Vec<(String, String)> {
    let Some(action) = prog.action(call.action) else {
        return vec![];
    };
    let names = action.params.iter().skip(action.directional).map(|v| {
        let p4 = prog.var(*v).map_or("", |v| v.p4_name.as_str());
        p4.rsplit('.').next().unwrap_or(p4).to_string()
    });
    let values = call.args.iter().map(|a| match &a.kind {
        ExprKind::Int(n) => n.to_string(),
        ExprKind::Bool(b) => b.to_string(),
        _ => "(computed)".to_string(),
    });
    names.zip(values).collect()
}

/// Bytes of `struct T_key`: the fields, after an LPM key's prefix length.
fn key_struct_size(prog: &Program, t: &Table) -> u32 {
    let l = crate::map_layout::table_layout(prog, t);
    l.key.size() + if l.lpm { 4 } else { 0 }
}

/// Every header of the per-packet state: its P4 name and its C place.
fn header_places(prog: &Program) -> Vec<(String, String)> {
    fn walk(prog: &Program, ty: &Ty, p4: String, c: String, out: &mut Vec<(String, String)>) {
        match ty {
            Ty::Header(_) => out.push((p4, c)),
            Ty::Stack { size, .. } => {
                out.extend((0..*size).map(|i| (format!("{p4}[{i}]"), format!("{c}.elem[{i}]"))))
            }
            Ty::Struct(a) | Ty::Union(a) => {
                for f in prog.agg(*a).map(|g| g.fields.as_slice()).unwrap_or(&[]) {
                    let field = crate::cstruct::c_ident(&f.name);
                    walk(
                        prog,
                        &f.ty,
                        format!("{p4}.{}", f.name),
                        format!("{c}.{field}"),
                        out,
                    );
                }
            }
            _ => {}
        }
    }
    let mut out = vec![];
    for v in prog
        .vars
        .iter()
        .filter(|v| v.storage == crate::ir::VarStorage::State)
    {
        walk(
            prog,
            &v.ty,
            v.p4_name.clone(),
            format!("st->{}", v.c_name),
            &mut out,
        );
    }
    out
}

impl Emitter<'_> {
    /// Whether the build writes trace records.
    pub fn traces(&self) -> bool {
        self.instrument == Instrument::Trace
    }

    /// Whether the build counts table hits and misses.
    pub fn counts_tables(&self) -> bool {
        self.instrument != Instrument::Off
    }

    /// The ring buffer and the function filling a record's head, and the
    /// table counts: what the instrumented builds define.
    pub fn trace_definitions(&self) -> String {
        let mut out = String::new();
        if self.traces() {
            out.push_str(&self.ring_definitions());
        }
        if self.counts_tables() {
            out.push_str(&self.table_stats_definitions());
        }
        out
    }

    fn ring_definitions(&self) -> String {
        format!(
            "/* --trace: what each packet did, for `p4bpf trace` (records: p4bpf_layout::trace). */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_RINGBUF);\n    __uint(max_entries, {RING_BYTES});\n}} {ring} SEC(\".maps\");\n\n\
             #define P4BPF_TRACE_BEGIN {begin}\n#define P4BPF_TRACE_STATE {state}\n#define P4BPF_TRACE_TABLE {table}\n#define P4BPF_TRACE_VERDICT {verdict}\n#define P4BPF_TRACE_EXTERN {extern_kind}\n#define P4BPF_TRACE_HIT {hit:#x}\n\n\
             struct p4bpf_trace_head {{\n    u32 cpu;\n    u16 kind;\n    u16 what;\n    u32 detail;\n    u32 len;\n}};\n\n\
             /* A record of `len` data bytes (a constant), its head filled; NULL when the ring is full. */\n\
             static __always_inline u8 *p4bpf_trace_open(u16 kind, u16 what, u32 detail, u32 len)\n{{\n\
             \x20   struct p4bpf_trace_head *head = bpf_ringbuf_reserve(&{ring}, sizeof(*head) + len, 0);\n\
             \x20   if (!head)\n        return 0;\n\
             \x20   head->cpu = bpf_get_smp_processor_id();\n    head->kind = kind;\n    head->what = what;\n    head->detail = detail;\n    head->len = len;\n\
             \x20   return (u8 *)(head + 1);\n}}\n\n\
             static __always_inline void p4bpf_trace_event(u16 kind, u16 what, u32 detail)\n{{\n\
             \x20   u8 *data = p4bpf_trace_open(kind, what, detail, 0);\n    if (data)\n        bpf_ringbuf_submit(data - sizeof(struct p4bpf_trace_head), 0);\n}}\n\n\
             /* An extern call's record: its arguments and result, `len` (a constant) bytes. */\n\
             static __always_inline void p4bpf_trace_values(u16 call, const u64 *values, u32 len)\n{{\n\
             \x20   u8 *data = p4bpf_trace_open(P4BPF_TRACE_EXTERN, call, 0, len);\n    if (!data)\n        return;\n\
             \x20   __builtin_memcpy(data, values, len);\n    bpf_ringbuf_submit(data - sizeof(struct p4bpf_trace_head), 0);\n}}\n\n",
            ring = ring_name(self.prog),
            begin = layout::BEGIN,
            state = layout::STATE,
            table = layout::TABLE,
            verdict = layout::VERDICT,
            extern_kind = layout::EXTERN,
            hit = layout::HIT,
        )
    }

    fn table_stats_definitions(&self) -> String {
        format!(
            "/* Hits ([2 * table]) and misses ([2 * table + 1]) of each table, for `p4bpf top`. */\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);\n    __type(key, u32);\n    __type(value, u64);\n    __uint(max_entries, {slots});\n}} {stats} SEC(\".maps\");\n\n\
             static __always_inline void p4bpf_table_stat(u32 slot)\n{{\n    u64 *n = bpf_map_lookup_elem(&{stats}, &slot);\n    if (n)\n        *n += 1;\n}}\n\n",
            stats = stats_name(self.prog),
            slots = (2 * self.prog.tables.len()).max(1),
        )
    }

    /// The packet's first record.
    pub fn trace_begin(&self) -> Vec<CStmt> {
        if !self.traces() {
            return vec![];
        }
        vec![line(format!(
            "p4bpf_trace_event(P4BPF_TRACE_BEGIN, 0, {})",
            self.target.packet_length()
        ))]
    }

    /// The record of entering state `state` of parser `parser`.
    pub fn trace_state(&self, parser: &str, state: &str) -> Vec<CStmt> {
        let name = format!("{parser}.{state}");
        let Some(index) = self
            .traces()
            .then(|| state_names(self.prog).iter().position(|s| *s == name))
            .flatten()
        else {
            return vec![];
        };
        vec![line(format!(
            "p4bpf_trace_event(P4BPF_TRACE_STATE, {index} /* {name} */, 0)"
        ))]
    }

    /// The hit or miss count of a table looked up in a map and, traced, its
    /// record: its key and the entry (or runtime default) it found; `hit`
    /// and `action` are C values.
    pub fn trace_table(&self, id: TableId, t: &Table, hit: &str) -> Vec<CStmt> {
        let mut out = vec![];
        if self.counts_tables() {
            out.push(line(format!(
                "p4bpf_table_stat({} /* hits of {} */ + !{hit})",
                2 * id.index(),
                t.name
            )));
        }
        if self.traces() {
            out.extend(self.table_record(id, t, hit));
        }
        if out.is_empty() {
            return out;
        }
        vec![CStmt::Block(out)]
    }

    /// The `TABLE` record of a table in a map.
    fn table_record(&self, id: TableId, t: &Table, hit: &str) -> Vec<CStmt> {
        let (key, value) = (
            format!("struct {}_key", t.c_name),
            format!("struct {}_value", t.c_name),
        );
        let open = format!(
            "u8 *trace_data = p4bpf_trace_open(P4BPF_TRACE_TABLE, {} /* {} */, ({hit} ? P4BPF_TRACE_HIT : 0) | action, sizeof({key}) + sizeof({value}))",
            id.index(),
            t.name
        );
        let fill = vec![
            line(format!("__builtin_memcpy(trace_data, &key, sizeof({key}))")),
            CStmt::If {
                cond: "value".into(),
                then: self.trace_value_copy(t, &format!("trace_data + sizeof({key})")),
                other: vec![line(format!(
                    "__builtin_memset(trace_data + sizeof({key}), 0, sizeof({value}))"
                ))],
            },
            line("bpf_ringbuf_submit(trace_data - sizeof(struct p4bpf_trace_head), 0)"),
        ];
        vec![
            line(open),
            CStmt::If {
                cond: "trace_data".into(),
                then: fill,
                other: vec![],
            },
        ]
    }

    /// The hit or miss count of a table compiled into code and, traced, its
    /// record: its key, the action and the index of the const entry that
    /// matched (`entry`; the number of entries for the default action).
    pub fn trace_code_table(
        &self,
        id: TableId,
        matched: bool,
        code: u32,
        entry: usize,
    ) -> Vec<CStmt> {
        let Some((t, l)) = self
            .layout_of(id)
            .filter(|(t, _)| self.counts_tables() && t.storage == Storage::Code)
        else {
            return vec![];
        };
        let (outcome, hit) = if matched {
            ("hits", "P4BPF_TRACE_HIT | ")
        } else {
            ("misses", "")
        };
        let slot = 2 * id.index() + usize::from(!matched);
        let mut record = vec![line(format!(
            "p4bpf_table_stat({slot} /* {outcome} of {} */)",
            t.name
        ))];
        if !self.traces() {
            return vec![CStmt::Block(record)];
        }
        let key = format!("struct {}_key", t.c_name);
        record.push(line(format!("{key} key = {{}}")));
        record.extend(self.fill_key(t, l));
        record.push(line(format!("u32 entry = {entry}")));
        record.push(line(format!(
            "u8 *trace_data = p4bpf_trace_open(P4BPF_TRACE_TABLE, {} /* {} */, {hit}{code}, sizeof({key}) + sizeof(entry))",
            id.index(),
            t.name
        )));
        record.push(CStmt::If {
            cond: "trace_data".into(),
            then: vec![
                line(format!("__builtin_memcpy(trace_data, &key, sizeof({key}))")),
                line(format!(
                    "__builtin_memcpy(trace_data + sizeof({key}), &entry, sizeof(entry))"
                )),
                line("bpf_ringbuf_submit(trace_data - sizeof(struct p4bpf_trace_head), 0)"),
            ],
            other: vec![],
        });
        vec![CStmt::Block(record)]
    }

    /// `body` with the verdict record written before each of its returns.
    pub fn trace_returns(&self, body: Vec<CStmt>) -> Vec<CStmt> {
        if !self.traces() {
            return body;
        }
        body.into_iter().map(|s| self.traced_return(s)).collect()
    }

    fn traced_return(&self, s: CStmt) -> CStmt {
        let all = |v: Vec<CStmt>| v.into_iter().map(|s| self.traced_return(s)).collect();
        match s {
            CStmt::Return(value) => CStmt::Block(vec![
                line(format!("int verdict = {value}")),
                line("p4bpf_trace_verdict(st, verdict, parser_error)"),
                CStmt::Return("verdict".into()),
            ]),
            CStmt::Block(b) => CStmt::Block(all(b)),
            CStmt::If { cond, then, other } => CStmt::If {
                cond,
                then: all(then),
                other: all(other),
            },
            CStmt::Switch {
                scrutinee,
                cases,
                default,
            } => CStmt::Switch {
                scrutinee,
                cases: cases.into_iter().map(|(k, b)| (k, all(b))).collect(),
                default: all(default),
            },
            CStmt::For { head, body } => CStmt::For {
                head,
                body: all(body),
            },
            CStmt::FromP4 { origin, what, body } => CStmt::FromP4 {
                origin,
                what,
                body: all(body),
            },
            other => other,
        }
    }

    /// The function writing the verdict record: output port, parser
    /// error, valid headers.
    pub fn trace_verdict_definition(&self) -> String {
        if !self.traces() {
            return String::new();
        }
        let mut out = format!(
            "static __always_inline void p4bpf_trace_verdict(struct {} *st, int verdict, u32 parser_error)\n{{\n",
            self.state_type()
        );
        super::c::print(&self.verdict_record(), 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    fn verdict_record(&self) -> Vec<CStmt> {
        let headers = header_places(self.prog);
        let bitmap_bytes = headers.len().div_ceil(8);
        let port = self
            .prog
            .intrinsics
            .output_port
            .as_ref()
            .map(|p| self.expr(p))
            .unwrap_or_else(|| "0".into());
        let mut fill = vec![
            line(format!("*(u32 *)trace_data = {port}")),
            line("*(u32 *)(trace_data + 4) = parser_error"),
        ];
        for (byte, chunk) in headers.chunks(8).enumerate() {
            let bits: Vec<String> = chunk
                .iter()
                .enumerate()
                .map(|(bit, (_, c))| format!("(!!{c}.{VALID} << {bit})"))
                .collect();
            fill.push(line(format!(
                "trace_data[{}] = {}",
                8 + byte,
                bits.join(" | ")
            )));
        }
        fill.push(line(
            "bpf_ringbuf_submit(trace_data - sizeof(struct p4bpf_trace_head), 0)",
        ));
        vec![
            line(format!(
                "u8 *trace_data = p4bpf_trace_open(P4BPF_TRACE_VERDICT, 0, verdict, {})",
                8 + bitmap_bytes
            )),
            CStmt::If {
                cond: "trace_data".into(),
                then: fill,
                other: vec![],
            },
        ]
    }
}
