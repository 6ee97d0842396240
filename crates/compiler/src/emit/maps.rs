//! Map definitions: the key and value structs of every table (with
//! `_Static_assert`s on their sizes) and the BTF-typed maps of tables,
//! default actions, ternary groups and buckets, and value sets (extern
//! instances' maps are in `externs`).

use super::Emitter;
use crate::ir::{Storage, Table};
use crate::map_layout::TableLayout;

pub(super) fn map_def(
    kind: &str,
    key: &str,
    value: &str,
    entries: u32,
    flags: Option<&str>,
    name: &str,
) -> String {
    let flags = flags
        .map(|f| format!("    __uint(map_flags, {f});\n"))
        .unwrap_or_default();
    format!("struct {{\n    __uint(type, {kind});\n    __type(key, {key});\n    __type(value, {value});\n    __uint(max_entries, {entries});\n{flags}}} {name} SEC(\".maps\");\n\n")
}

impl Emitter<'_> {
    /// Key/value structs and maps of every table and value set.
    pub fn map_definitions(&self) -> String {
        let mut out = self.direct_prelude();
        for (i, t) in self.prog.tables.iter().enumerate() {
            let Some(l) = self.table_layouts.get(i) else {
                continue;
            };
            if t.storage == Storage::Code {
                // The traced build records a const table's key in its struct.
                if self.traces() {
                    out.push_str(&self.table_structs(t, l));
                }
                continue;
            }
            out.push_str(&self.table_structs(t, l));
            if t.storage == Storage::DefaultOnly && t.default_is_const {
                continue;
            }
            let key = format!("struct {}_key", t.c_name);
            let value = format!("struct {}_value", t.c_name);
            match t.storage {
                Storage::Hash => out.push_str(&map_def(
                    "BPF_MAP_TYPE_HASH",
                    &key,
                    &value,
                    t.size,
                    None,
                    &t.c_name,
                )),
                Storage::Array => out.push_str(&map_def(
                    "BPF_MAP_TYPE_ARRAY",
                    "u32",
                    &value,
                    t.size,
                    None,
                    &t.c_name,
                )),
                Storage::LpmTrie => out.push_str(&map_def(
                    "BPF_MAP_TYPE_LPM_TRIE",
                    &key,
                    &value,
                    t.size,
                    Some("BPF_F_NO_PREALLOC"),
                    &t.c_name,
                )),
                Storage::Ternary => out.push_str(&self.ternary_maps(t, l)),
                Storage::Code | Storage::DefaultOnly => {}
            }
        }
        out.push_str(&self.profile_maps());
        out.push_str(&self.cache_definitions());
        out.push_str(&self.timer_profiles_map());
        out.push_str(&self.defaults_definition());
        out.push_str(&self.value_set_live());
        out.push_str(&self.scanned_value_sets());
        for v in self.prog.value_sets.iter().filter(|v| !v.scans()) {
            out.push_str(&format!(
                "/* value_set {}: a member's value says its halves (bit 0, bit 1) */\n",
                v.name
            ));
            let key = self.declare(&v.ty, "").trim().to_string();
            out.push_str(&map_def(
                "BPF_MAP_TYPE_HASH",
                &key,
                "u8",
                super::value_set_live::both_halves(v),
                None,
                &v.c_name,
            ));
        }
        out
    }

    fn table_structs(&self, t: &Table, l: &TableLayout) -> String {
        let mut out = format!(
            "/* table {} ({}): {:?} storage */\n",
            t.name, t.origin, t.storage
        );
        let packed = if l.lpm {
            " __attribute__((packed))"
        } else {
            ""
        };
        out.push_str(&format!("struct {}_key {{\n", t.c_name));
        if l.lpm {
            out.push_str("    u32 prefixlen; /* bits matched, over all key bytes */\n");
        }
        out.push_str(&l.key.members("    "));
        out.push_str(&format!("}}{packed};\n"));
        out.push_str(&format!(
            "struct {}_value {{\n    u32 action; /* 0: the P4 default action */\n",
            t.c_name
        ));
        if l.ternary {
            out.push_str("    u32 priority; /* higher wins */\n");
            out.push_str(&Self::ternary_slot_member(t, l));
        }
        if t.implementation.is_some() {
            out.push_str("    u32 ref; /* action 1: a member id, 2: a group id */\n");
        }
        out.push_str(&self.param_union(l));
        out.push_str(&self.direct_members(t, l));
        out.push_str(&self.timer_member(t));
        out.push_str("};\n");
        let key_size = l.key.size() + if l.lpm { 4 } else { 0 };
        out.push_str(&format!(
            "_Static_assert(sizeof(struct {}_key) == {key_size}, \"key layout\");\n",
            t.c_name
        ));
        out.push_str(&format!(
            "_Static_assert(sizeof(struct {}_value) == {}, \"value layout\");\n",
            t.c_name, l.value_size
        ));
        if l.ternary {
            out.push_str(&self.ternary_structs(t, l));
        }
        out.push('\n');
        out
    }

    /// The union of the actions' parameter structs (`u`), if any action
    /// takes parameters.
    pub(super) fn param_union(&self, l: &TableLayout) -> String {
        if l.params.iter().all(|(_, s)| s.fields.is_empty()) {
            return String::new();
        }
        let mut out = String::from("    union {\n");
        for (a, s) in &l.params {
            if s.fields.is_empty() {
                continue;
            }
            let name = self
                .prog
                .action(*a)
                .map(|a| a.c_name.clone())
                .unwrap_or_default();
            out.push_str(&format!(
                "        struct {{\n{}        }} {name};\n",
                s.members("            ")
            ));
        }
        out.push_str("    } u;\n");
        out
    }
}
