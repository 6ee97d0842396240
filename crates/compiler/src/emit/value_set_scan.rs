//! A value set with inexact members (a field `@match(ternary|lpm|range|
//! optional)`): an array map of `size` slots, each a member written by the
//! control plane, that a select scans. Every field of a slot holds
//! `(mask, lo, hi)`, and a key matches it when `key & mask` lies in
//! `[lo, hi]`: exact, ternary, lpm and optional members are `lo == hi`
//! under their mask (optional's wildcard has mask 0), a range member has a
//! full mask. A select asks only whether some member matches (PSA orders
//! none), so the scan stops at the first. The loop is bounded by the size
//! the program gives, which keeps it verifiable.

use super::maps::map_def;
use super::value_set_live::both_halves;
use super::Emitter;
use crate::ir::{ValueSet, ValueSetId};

/// The field struct and its test, shared by every scanned set.
const FIELD_MATCH: &str = "\
struct p4bpf_set_field {
    u64 mask;
    u64 lo;
    u64 hi;
};

static __always_inline int p4bpf_set_field_matches(const struct p4bpf_set_field *f, u64 key)
{
    u64 masked = key & f->mask;
    return masked >= f->lo && masked <= f->hi;
}

";

impl Emitter<'_> {
    /// The slot struct, array map and scan function of each value set with
    /// inexact members.
    pub(super) fn scanned_value_sets(&self) -> String {
        let scanned: Vec<&ValueSet> = self.prog.value_sets.iter().filter(|v| v.scans()).collect();
        if scanned.is_empty() {
            return String::new();
        }
        let mut out = FIELD_MATCH.to_string();
        for v in scanned {
            out.push_str(&value_set_slots(v));
        }
        out
    }

    /// C condition: do the select keys' C `values` (in order, one per
    /// member field) match some member of scanned value set `id`?
    pub(super) fn value_set_scan_test(&self, id: ValueSetId, values: &[String]) -> Option<String> {
        let vs = self.prog.value_sets.get(id.index()).filter(|v| v.scans())?;
        let args: Vec<String> = values.iter().map(|v| format!("(u64)({v})")).collect();
        Some(format!(
            "{}_has({}, {})",
            vs.c_name,
            super::value_set_live::half_var(id),
            args.join(", ")
        ))
    }
}

/// One scanned value set: its slots, their map and its scan function,
/// which scans half `half` (see `value_set_live`).
fn value_set_slots(v: &ValueSet) -> String {
    let fields = v.match_kinds.len();
    let kinds: Vec<String> = v
        .match_kinds
        .iter()
        .map(|k| format!("{k:?}").to_lowercase())
        .collect();
    let slot = format!("struct {}_slot", v.c_name);
    let mut out = format!(
        "/* value_set {} ({}): {} slots, scanned, in each of two halves */\n{slot} {{\n    u64 used; /* 0: a free slot */\n    struct p4bpf_set_field field[{fields}];\n}};\n",
        v.name,
        kinds.join(", "),
        v.size.max(1)
    );
    out.push_str(&map_def(
        "BPF_MAP_TYPE_ARRAY",
        "u32",
        &slot,
        both_halves(v),
        None,
        &v.c_name,
    ));
    let params: Vec<String> = (0..fields).map(|i| format!("u64 key{i}")).collect();
    let tests: Vec<String> = (0..fields)
        .map(|i| format!(" &&\n            p4bpf_set_field_matches(&m->field[{i}], key{i})"))
        .collect();
    out.push_str(&format!(
        "static __always_inline int {name}_has(u32 half, {params})\n{{\n    for (u32 i = 0; i < {size}; i++) {{\n        u32 at = half * {size} + i;\n        const {slot} *m = bpf_map_lookup_elem(&{name}, &at);\n        if (m && m->used{tests})\n            return 1;\n    }}\n    return 0;\n}}\n\n",
        name = v.c_name,
        params = params.join(", "),
        size = v.size.max(1),
        tests = tests.concat(),
    ));
    out
}
