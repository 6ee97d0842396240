//! Looking tables and value sets up (their maps are defined in
//! [`super::maps`]).
//!
//! A lookup fills the key struct, probes the map (ternary tables: see
//! [`super::ternary`]), falls back to the runtime
//! default (a one-entry array; code 0 there means "the P4 default") and
//! dispatches on the action code. Tables whose entries are all const are
//! compiled into an if-chain with no map.

use super::c::{line, CStmt};
use super::expr::{literal, mask_literal, wrap};
use super::stmt::Ctx;
use super::Emitter;
use crate::cstruct::Scalar;
use crate::ir::{
    ActionCall, ActionId, Expr, Keyset, MatchKind, Program, Stmt, Storage, Table, TableId, Ty,
    VarId,
};
use crate::map_layout::TableLayout;
use crate::midend::visit::any_stmt;
use num_bigint::BigUint;
use p4bpf_layout::ByteOrder;

/// Whether the control plane can set `t`'s default action (it then lives
/// in the program's defaults map).
pub fn runtime_default(t: &Table) -> bool {
    !t.default_is_const && t.storage != Storage::Code
}

/// The one array holding every table's runtime default action, at the
/// table's index: one map for all, since the kernel allows 64 per program.
pub fn defaults_map(prog: &Program) -> String {
    format!("{}_defaults", super::c_identifier(&prog.name))
}

impl Emitter<'_> {
    /// Whether every action the table can run, by entry or as its
    /// default, is its compiled default without arguments (a table of
    /// `NoAction` alone): a runtime default could only name that action
    /// again, so a miss need not read it.
    fn runs_one_plain_action(&self, t: &Table) -> bool {
        let only = t.default_action.action;
        t.default_action.args.is_empty()
            && t.implementation.is_none()
            && t.actions.iter().all(|a| *a == only)
            && self.prog.action(only).is_some_and(|a| a.params.is_empty())
    }

    pub(super) fn layout_of(&self, id: TableId) -> Option<(&Table, &TableLayout)> {
        Some((self.prog.table(id)?, self.table_layouts.get(id.index())?))
    }

    /// Assignments filling `key` (a `struct T_key`) from the key expressions.
    pub(super) fn fill_key(&self, t: &Table, l: &TableLayout) -> Vec<CStmt> {
        let mut out = vec![];
        let mut bits = 0u32;
        for (f, i) in l.key.fields.iter().zip(&l.key_order) {
            let Some(k) = t.keys.get(*i) else { continue };
            // An lpm lookup matches every bit of the key's bytes: the
            // control plane counts a narrow field's spare top bits too.
            bits += 8 * f.scalar.size();
            let value = self.key_bits(&k.expr);
            let value = match k.kind {
                // An int's range is compared as unsigned with its sign bit
                // flipped (offset binary), which keeps its order; the
                // control plane flips its bounds the same way.
                MatchKind::Range if f.signed && f.bit_width <= 64 => {
                    format!("({value}) ^ {:#x}ULL", 1u64 << (f.bit_width - 1))
                }
                _ => value,
            };
            let place = format!("key.{}", f.c_name);
            match (f.scalar, f.order) {
                (Scalar::Bytes(n), _) if f.bit_width > 64 => out.push(line(format!(
                    "__builtin_memcpy({place}, {}, {n})",
                    self.lvalue(&k.expr)
                ))),
                (Scalar::Bytes(n), _) => {
                    self.use_helper(super::helpers::Helper::StoreBe);
                    out.push(line(format!("p4bpf_store_be({place}, {n}, {value})")));
                }
                (s, ByteOrder::Network) if s != Scalar::U8 => {
                    let swap = match s {
                        Scalar::U16 => "bpf_htons",
                        Scalar::U32 => "bpf_htonl",
                        _ => "bpf_cpu_to_be64",
                    };
                    out.push(line(format!("{place} = {swap}({value})")));
                }
                _ => out.push(line(format!("{place} = {value}"))),
            }
        }
        if l.lpm {
            out.insert(0, line(format!("key.prefixlen = {bits}")));
        }
        out
    }

    /// A key's value as entries and keysets hold it: a signed value's bare
    /// bits, not its sign-extended holder (an s8's -3 is 0xfd, which C's
    /// promotion would not compare equal to the keyset's 0xfdU).
    pub(super) fn key_bits(&self, key: &Expr) -> String {
        let value = self.expr(key);
        match key.ty {
            Ty::Bits {
                width,
                signed: true,
            } if width <= 64 => wrap(
                &Ty::Bits {
                    width,
                    signed: false,
                },
                &value,
            ),
            _ => value,
        }
    }

    /// The whole application of table `id`: here, or as a call of its own
    /// global function when the program is split ([`super::split`]).
    pub fn apply_table(
        &self,
        id: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
        cx: &Ctx,
    ) -> Vec<CStmt> {
        if self.split.outlines(id) {
            return self.call_table_function(id, hit, action_run, cx);
        }
        self.table_lookup(id, hit, action_run, cx)
    }

    /// Key fill, lookup, default and action dispatch of table `id`, marked
    /// as coming from the table's declaration.
    pub fn table_lookup(
        &self,
        id: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
        cx: &Ctx,
    ) -> Vec<CStmt> {
        let Some(t) = self.prog.table(id) else {
            return vec![];
        };
        let code = self.table_code(id, hit, action_run, cx);
        super::source_map::from_p4(&t.origin, format!("table `{}`", t.name), code)
    }

    fn table_code(
        &self,
        id: TableId,
        hit: Option<VarId>,
        action_run: Option<VarId>,
        cx: &Ctx,
    ) -> Vec<CStmt> {
        let Some((t, l)) = self.layout_of(id) else {
            return vec![];
        };
        let var = |v: Option<VarId>| {
            v.and_then(|v| self.prog.var(v))
                .map(|v| format!("st->{}", v.c_name))
        };
        let (hit, run) = (var(hit), var(action_run));
        let mut body = vec![CStmt::Comment(format!("apply table {}", t.name))];
        if t.storage == Storage::Code {
            body.extend(self.const_table(id, t, hit.as_deref(), run.as_deref(), cx));
            return vec![CStmt::Block(body)];
        }
        body.push(line(format!("struct {}_key key = {{}}", t.c_name)));
        body.extend(self.fill_key(t, l));
        body.push(line(format!("struct {}_value *value = 0", t.c_name)));
        let mut search = vec![];
        match t.storage {
            Storage::Array => {
                search.push(line(format!(
                    "u32 index = key.{}",
                    l.key
                        .fields
                        .first()
                        .map(|f| f.c_name.as_str())
                        .unwrap_or("")
                )));
                search.push(line(format!(
                    "value = bpf_map_lookup_elem(&{}, &index)",
                    t.c_name
                )));
                // Array slots always exist: an unfilled slot (code 0) is a miss.
                search.push(CStmt::If {
                    cond: "value && value->action == 0".into(),
                    then: vec![line("value = 0")],
                    other: vec![],
                });
            }
            Storage::Ternary => search.extend(self.ternary_search(t, l)),
            Storage::DefaultOnly => {
                search.push(CStmt::Comment("no key: every lookup misses".into()))
            }
            // Add-on-miss inserts `key`, so it looks `key` up too.
            _ => match self
                .key_from_packet(t, l)
                .filter(|_| !t.add_on_miss && t.entry_timer.is_none())
            {
                Some(point) => {
                    search.push(line("const void *key_at = &key"));
                    search.extend(point);
                    search.push(line(format!(
                        "value = bpf_map_lookup_elem(&{}, key_at)",
                        t.c_name
                    )));
                }
                None => search.push(line(format!(
                    "value = bpf_map_lookup_elem(&{}, &key)",
                    t.c_name
                ))),
            },
        }
        let reads_default = runtime_default(t) && !self.runs_one_plain_action(t);
        let cached = self.caches.slot(id).is_some();
        let default_lookup = self.default_lookup(id, "value", line("action = value->action"));
        match cached {
            true => body.extend(self.cached_search(id, t, search, reads_default)),
            false => body.extend(search),
        }
        // A cached result says whether it hit; its value is the miss's too.
        let found = if cached { "found.hit" } else { "value" };
        body.extend(self.timer_expiry(t));
        body.push(line("u32 action = 0"));
        if self.counts_tables() {
            body.push(line(format!("u8 trace_hit = {found} != 0")));
        }
        let mut on_hit = vec![line("action = value->action")];
        if let Some(h) = &hit {
            on_hit.push(line(format!("{h} = 1")));
        }
        on_hit.extend(self.direct_on_hit(t));
        let mut on_miss = self.direct_on_miss(t);
        if let Some(h) = &hit {
            on_miss.push(line(format!("{h} = 0")));
        }
        match (reads_default, cached) {
            (true, true) => {
                on_miss.extend([line("value = &found.value"), line("action = value->action")])
            }
            (true, false) => on_miss.extend(default_lookup),
            (false, _) => {}
        }
        body.push(CStmt::If {
            cond: found.into(),
            then: on_hit,
            other: on_miss,
        });
        body.extend(self.trace_table(id, t, "trace_hit"));
        body.extend(self.cached_member(id, t));
        // A profile's member holds the arguments, else the entry does.
        let member_layout = self.member_layout_of(t);
        let (holder, l) = match &member_layout {
            Some(member) => ("member", member),
            None => ("value", l),
        };
        // An `add_entry` in its actions inserts the key this table missed.
        self.missed_table.set(t.add_on_miss.then_some(id.index()));
        let mut cases = vec![];
        for a in &t.actions {
            let Some(code) = t.action_code(*a) else {
                continue;
            };
            let args: Vec<String> = match l.params_of(*a) {
                Some(s) => s
                    .fields
                    .iter()
                    .map(|f| {
                        format!(
                            "{holder}->u.{}.{}",
                            self.prog
                                .action(*a)
                                .map(|x| x.c_name.as_str())
                                .unwrap_or(""),
                            f.c_name
                        )
                    })
                    .collect(),
                None => vec![],
            };
            let mut call = self.branch_barrier(*a);
            call.extend(self.call_action(*a, &args, cx));
            let label = self.member_code(t, *a, code, &mut call);
            cases.push((vec![label.to_string()], call));
        }
        let mut default = self.call_const(&t.default_action, cx);
        if run.is_some() {
            default.insert(
                0,
                line(format!(
                    "action = {}",
                    t.action_code(t.default_action.action).unwrap_or(0)
                )),
            );
        }
        self.missed_table.set(None);
        let switch = CStmt::Switch {
            scrutinee: "action".into(),
            cases,
            default,
        };
        body.extend(self.unless_empty_group(t, switch, cx));
        if let Some(r) = &run {
            body.push(line(format!("{r} = action")));
        }
        body.extend(self.timer_restart(t));
        vec![CStmt::Block(body)]
    }

    /// A miss's runtime default of table `id`: `into` pointed at it and,
    /// when the control plane set one, `then` run.
    pub(super) fn default_lookup(&self, id: TableId, into: &str, then: CStmt) -> Vec<CStmt> {
        vec![
            line(format!("u32 slot = {}", id.index())),
            line(format!(
                "{into} = bpf_map_lookup_elem(&{}, &slot)",
                defaults_map(self.prog)
            )),
            CStmt::If {
                cond: into.into(),
                then: vec![then],
                other: vec![],
            },
        ]
    }

    /// The defaults map: a union of the value structs of the tables with a
    /// runtime default, one slot per table.
    pub fn defaults_definition(&self) -> String {
        let members: String = self
            .prog
            .tables
            .iter()
            .filter(|t| runtime_default(t))
            .map(|t| format!("    struct {0}_value {0};\n", t.c_name))
            .collect();
        if members.is_empty() {
            return String::new();
        }
        let name = defaults_map(self.prog);
        format!(
            "/* Default actions set by the control plane, at each table's index. */\n\
             union {name} {{\n{members}}};\n\n\
             struct {{\n    __uint(type, BPF_MAP_TYPE_ARRAY);\n    __type(key, u32);\n    __type(value, union {name});\n    __uint(max_entries, {});\n}} {name} SEC(\".maps\");\n\n",
            self.prog.tables.len()
        )
    }

    /// Before the call of an action that branches, a compiler barrier:
    /// without it clang if-converts the action's branches into selects, each
    /// testing the action code again, and the verifier forks at every test
    /// on every parser path reaching the table.
    fn branch_barrier(&self, action: ActionId) -> Vec<CStmt> {
        let branches = self.prog.action(action).is_some_and(|a| {
            any_stmt(&a.body, |s| {
                matches!(
                    s,
                    Stmt::If { .. } | Stmt::SwitchValue { .. } | Stmt::SwitchAction { .. }
                )
            })
        });
        if branches {
            vec![
                CStmt::Comment("keeps the action's branches out of selects on `action`".into()),
                line("asm volatile(\"\" ::: \"memory\")"),
            ]
        } else {
            vec![]
        }
    }

    fn call_const(&self, call: &ActionCall, cx: &Ctx) -> Vec<CStmt> {
        let args: Vec<String> = call.args.iter().map(|a| self.expr(a)).collect();
        self.call_action(call.action, &args, cx)
    }

    /// A table of const entries as an if-chain, first match wins.
    fn const_table(
        &self,
        id: TableId,
        t: &Table,
        hit: Option<&str>,
        run: Option<&str>,
        cx: &Ctx,
    ) -> Vec<CStmt> {
        let outcome = |call: &ActionCall, matched: bool, entry: usize| {
            let mut body = vec![];
            if let Some(h) = hit {
                body.push(line(format!("{h} = {}", u8::from(matched))));
            }
            if let Some(r) = run {
                body.push(line(format!(
                    "{r} = {}",
                    t.action_code(call.action).unwrap_or(0)
                )));
            }
            let code = t.action_code(call.action).unwrap_or(0);
            body.extend(self.trace_code_table(id, matched, code, entry));
            body.extend(self.call_const(call, cx));
            body
        };
        let mut chain = outcome(&t.default_action, false, t.const_entries.len());
        for (index, entry) in t.const_entries.iter().enumerate().rev() {
            let conds: Vec<String> = entry
                .keysets
                .iter()
                .zip(&t.keys)
                .filter_map(|(ks, k)| {
                    keyset_test(
                        &self.key_bits(&k.expr),
                        ks,
                        k.expr.ty.width().unwrap_or(32),
                        &k.expr,
                        self,
                    )
                })
                .collect();
            let cond = if conds.is_empty() {
                "1".to_string()
            } else {
                conds.join(" && ")
            };
            chain = vec![CStmt::If {
                cond,
                then: outcome(&entry.action, true, index),
                other: chain,
            }];
        }
        chain
    }
}

/// C condition: do a wide field's network-order bytes, masked, equal the
/// masked constant? One test per byte the mask keeps.
fn wide_masked_test(value: &str, v: &BigUint, mask: &BigUint, width: u32) -> String {
    let n = width.div_ceil(8) as usize;
    let bytes = |x: &BigUint| {
        let digits = x.to_bytes_be();
        let pad = n.saturating_sub(digits.len());
        (0..n)
            .map(|i| {
                i.checked_sub(pad)
                    .and_then(|j| digits.get(j))
                    .copied()
                    .unwrap_or(0)
            })
            .collect::<Vec<u8>>()
    };
    let tests: Vec<String> = bytes(&(v & mask))
        .iter()
        .zip(bytes(mask))
        .enumerate()
        .filter(|(_, (_, m))| *m != 0)
        .map(|(i, (b, m))| format!("(({value})[{i}] & {m:#04x}) == {b:#04x}"))
        .collect();
    if tests.is_empty() {
        "1".to_string()
    } else {
        format!("({})", tests.join(" && "))
    }
}

/// C condition: does `value` (of `width` bits) fall in keyset `ks`?
pub fn keyset_test(
    value: &str,
    ks: &Keyset,
    width: u32,
    key: &Expr,
    e: &Emitter,
) -> Option<String> {
    match ks {
        Keyset::Default => None,
        Keyset::Value(v) if width > 64 => {
            // Wide fields are network-order bytes: compare with the constant's bytes.
            let n = width.div_ceil(8) as usize;
            let digits = v.to_bytes_be();
            let bytes: Vec<String> = (0..n)
                .map(|i| {
                    (i + digits.len())
                        .checked_sub(n)
                        .and_then(|j| digits.get(j))
                        .copied()
                        .unwrap_or(0)
                        .to_string()
                })
                .collect();
            e.use_helper(super::helpers::Helper::BytesEq);
            Some(format!(
                "p4bpf_bytes_eq({value}, (const u8[{n}]){{{}}}, {n})",
                bytes.join(", ")
            ))
        }
        Keyset::Mask { value: v, mask } if width > 64 => {
            Some(wide_masked_test(value, v, mask, width))
        }
        Keyset::Value(v) => Some(format!("{value} == {}", literal(v, width))),
        Keyset::Mask { value: v, mask } => Some(format!(
            "({value} & {}) == {}",
            literal(mask, width),
            literal(&(v & mask), width)
        )),
        Keyset::Range { lo, hi } => Some(format!(
            "({value} >= {} && {value} <= {})",
            literal(lo, width),
            literal(hi, width)
        )),
        Keyset::ValueSet(id) if e.prog.value_sets.get(id.index()).is_some_and(|v| v.scans()) => {
            e.value_set_scan_test(*id, &[value.to_string()])
        }
        // A wide key's bytes are the map's key as they are.
        Keyset::ValueSet(id) if width > 64 => e.value_set_hash_test(*id, value),
        Keyset::ValueSet(id) => {
            let _ = (key, mask_literal(width));
            let bits = Scalar::for_width(width).size() * 8;
            e.value_set_hash_test(*id, &format!("&(u{bits}){{{value}}}"))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{generate, Hook};
    use std::path::Path;

    const TWO_TABLES: &str = "
#include <xdp_model.p4>
header h_t { bit<32> a; bit<32> b; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control sw(inout hs hdr, in xdp_input imd, out xdp_output omd) {
    action set_b(bit<32> v) { hdr.h.b = v; }
    table only_noaction { key = { hdr.h.a : exact; } actions = { NoAction; } }
    table with_choice { key = { hdr.h.a : exact; } actions = { set_b; NoAction; } }
    apply { only_noaction.apply(); with_choice.apply(); }
}
control dprs(in hs hdr, packet_out p) { apply { p.emit(hdr.h); } }
xdp(prs(), sw(), dprs()) main;
";

    #[test]
    fn a_miss_reads_the_runtime_default_only_where_it_can_choose() {
        let fe = p4bpf_front::check_source(Path::new("t.p4"), TWO_TABLES, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        let c = generate(&fe, "t", Hook::Xdp, None)
            .map(|g| g.c)
            .unwrap_or_default();
        let reads = c.matches("bpf_map_lookup_elem(&t_defaults, &slot)").count();
        assert_eq!(reads, 1, "{c}");
        assert!(c.contains("u32 slot = 1;"), "with_choice is table 1: {c}");
    }
}
