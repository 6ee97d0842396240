//! The C of table caches (`--table-caching`; which tables: see
//! [`crate::table_cache`]). A cached table looks its exact key (and its
//! selector keys) up in an LRU hash before searching; a result stored
//! under the table's current generation is used as the search's, else
//! the table is searched and the result stored with the generation read
//! before the search. The control plane writes a fresh generation after
//! each write the result depends on, so a result from before a write is
//! never used after it.

use super::c::{line, CStmt};
use super::maps::map_def;
use super::Emitter;
use crate::ir::{Table, TableId};
use crate::table_cache::{cache_map, generations_map, key_layout, selector_count, value_layout};
use p4bpf_layout::table_cache::CACHE_VALUE_OFFSET;

impl Emitter<'_> {
    /// The cache key and value structs and the LRU hash of every cached
    /// table, and the generations array.
    pub(super) fn cache_definitions(&self) -> String {
        if self.caches.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        for t in self.caches.tables().filter_map(|id| self.prog.table(id)) {
            out.push_str(&self.cache_structs(t));
            out.push_str(&map_def(
                "BPF_MAP_TYPE_LRU_HASH",
                &self.cache_key_type(t),
                &format!("struct {}_cache_value", t.c_name),
                t.size.max(1),
                None,
                &cache_map(t),
            ));
        }
        out.push_str("/* Each cached table's generation: the control plane writes a fresh one\n * after every write a cached result depends on. */\n");
        out.push_str(&map_def(
            "BPF_MAP_TYPE_ARRAY",
            "u32",
            "u64",
            self.caches.tables().count() as u32,
            None,
            &generations_map(self.prog),
        ));
        out
    }

    fn cache_key_type(&self, t: &Table) -> String {
        if selector_count(t) == 0 {
            format!("struct {}_key", t.c_name)
        } else {
            format!("struct {}_cache_key", t.c_name)
        }
    }

    fn cache_structs(&self, t: &Table) -> String {
        let n = &t.c_name;
        let mut out = format!(
            "/* cache of table {}: its search's result by the key looked up */\n",
            t.name
        );
        let selectors = selector_count(t);
        let (selector_offset, key_size) = key_layout(self.prog, t);
        if selectors > 0 {
            out.push_str(&format!(
                "struct {n}_cache_key {{\n    struct {n}_key key;\n    u64 selector[{selectors}] __attribute__((aligned(8))); /* the selector keys */\n}};\n\
                 _Static_assert(__builtin_offsetof(struct {n}_cache_key, selector) == {selector_offset} && sizeof(struct {n}_cache_key) == {key_size}, \"cache key layout\");\n"
            ));
        }
        let member = self.cached_profile(t).map(|p| {
            format!("    struct {p}_member member __attribute__((aligned(8))); /* the member a hit runs */\n")
        });
        out.push_str(&format!(
            "struct {n}_cache_value {{\n    u64 generation; /* the table's when the search ran */\n    u8 hit;\n    u8 member_found;\n    u8 empty_group;\n    struct {n}_value value __attribute__((aligned(8)));\n{}}};\n",
            member.clone().unwrap_or_default()
        ));
        let (member_offset, value_size) = value_layout(self.prog, t);
        let member_check = member
            .map(|_| {
                format!(" && __builtin_offsetof(struct {n}_cache_value, member) == {member_offset}")
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "_Static_assert(__builtin_offsetof(struct {n}_cache_value, value) == {CACHE_VALUE_OFFSET}{member_check} && sizeof(struct {n}_cache_value) == {value_size}, \"cache value layout\");\n\n"
        ));
        out
    }

    /// The C name of the action selector whose member `t`'s cache keeps.
    fn cached_profile(&self, t: &Table) -> Option<&str> {
        let p = self.prog.profile(t.implementation.as_ref()?.profile)?;
        p.selector.as_ref().map(|_| p.c_name.as_str())
    }

    /// `search` (pointing `value` at the entry found) behind table `id`'s
    /// cache, when it has one; `value` then points into `found`.
    /// A miss keeps the runtime default it ran when `reads_default`.
    pub(super) fn cached_search(
        &self,
        id: TableId,
        t: &Table,
        search: Vec<CStmt>,
        reads_default: bool,
    ) -> Vec<CStmt> {
        let Some(slot) = self.caches.slot(id) else {
            return search;
        };
        let n = &t.c_name;
        let mut out = vec![CStmt::Comment(
            "a result found under the current generation stands for the search".into(),
        )];
        let (fill, key) = self.cache_key(t);
        out.extend(fill);
        out.extend([
            line(format!("u32 cache_slot = {slot}")),
            line(format!(
                "u64 *generation_at = bpf_map_lookup_elem(&{}, &cache_slot)",
                generations_map(self.prog)
            )),
            line("u64 generation = generation_at ? *generation_at : 0"),
            line(format!("struct {n}_cache_value found = {{}}")),
            line(format!(
                "struct {n}_cache_value *cached = bpf_map_lookup_elem(&{}, &{key})",
                cache_map(t)
            )),
            CStmt::If {
                cond: "cached".into(),
                then: vec![line("found = *cached")],
                other: vec![],
            },
        ]);
        let fresh = self.search_into_cache(id, t, search, reads_default, key);
        out.push(CStmt::If {
            cond: "!cached || found.generation != generation".into(),
            then: fresh,
            other: vec![],
        });
        out.push(line("value = found.hit ? &found.value : 0"));
        out
    }

    /// `search`, then its result (a miss's with the runtime default it
    /// ran, when `reads_default`) in `found` and in the cache under `key`.
    fn search_into_cache(
        &self,
        id: TableId,
        t: &Table,
        search: Vec<CStmt>,
        reads_default: bool,
        key: &str,
    ) -> Vec<CStmt> {
        let mut fresh = search;
        fresh.push(line("__builtin_memset(&found, 0, sizeof(found))"));
        fresh.push(line("found.generation = generation"));
        let mut on_hit = vec![line("found.hit = 1"), line("found.value = *value")];
        on_hit.extend(self.member_into_cache(t));
        let on_miss = match reads_default {
            true => {
                let n = &t.c_name;
                let mut lookup = vec![line(format!("struct {n}_value *default_value = 0"))];
                let keep = line("found.value = *default_value");
                lookup.extend(self.default_lookup(id, "default_value", keep));
                lookup
            }
            false => vec![],
        };
        fresh.push(CStmt::If {
            cond: "value".into(),
            then: on_hit,
            other: on_miss,
        });
        fresh.push(line(format!(
            "bpf_map_update_elem(&{}, &{key}, &found, BPF_ANY)",
            cache_map(t)
        )));
        fresh
    }

    /// The cache's key: `key` itself, or `cache_key` holding it and the
    /// selector keys after it.
    fn cache_key(&self, t: &Table) -> (Vec<CStmt>, &'static str) {
        let Some(im) = t.implementation.as_ref().filter(|_| selector_count(t) > 0) else {
            return (vec![], "key");
        };
        let mut out = vec![
            line(format!("struct {}_cache_key cache_key = {{}}", t.c_name)),
            line("cache_key.key = key"),
        ];
        for (i, k) in im.selector_keys.iter().enumerate() {
            out.push(line(format!(
                "cache_key.selector[{i}] = {}",
                self.key_bits(k)
            )));
        }
        (out, "cache_key")
    }

    /// On a search's hit of a selector table: the member its reference
    /// picks, kept in `found`.
    fn member_into_cache(&self, t: &Table) -> Vec<CStmt> {
        if self.cached_profile(t).is_none() {
            return vec![];
        }
        let Some((mut pick, resolution)) = self.member_parts(t) else {
            return vec![];
        };
        pick.insert(0, line("u32 action = value->action"));
        pick.push(resolution);
        pick.push(CStmt::If {
            cond: "member".into(),
            then: vec![
                line("found.member_found = 1"),
                line("found.member = *member"),
            ],
            other: vec![],
        });
        if t.implementation
            .as_ref()
            .is_some_and(|im| im.empty_group_action.is_some())
        {
            pick.push(line("found.empty_group = empty_group"));
        }
        vec![CStmt::Block(pick)]
    }

    /// For a cached selector table, after the hit or the miss: a hit's
    /// member from the cache; a miss's default resolved as uncached.
    pub(super) fn cached_member(&self, id: TableId, t: &Table) -> Vec<CStmt> {
        if self.caches.slot(id).is_none() || self.cached_profile(t).is_none() {
            return self.resolve_member(t);
        }
        let Some((mut out, resolution)) = self.member_parts(t) else {
            return vec![];
        };
        let mut from_cache = vec![line("member = found.member_found ? &found.member : 0")];
        if t.implementation
            .as_ref()
            .is_some_and(|im| im.empty_group_action.is_some())
        {
            from_cache.push(line("empty_group = found.empty_group"));
        }
        out.push(CStmt::If {
            cond: "found.hit".into(),
            then: from_cache,
            other: vec![resolution],
        });
        out.push(line("action = member ? member->action : 0"));
        out
    }
}
