//! Ternary, range and optional tables: grouped tuple space with any number
//! of groups (layout in `p4bpf_layout::TernaryLayout`). A lookup walks two
//! group lists, its key's partition's and the wild one, each sorted by
//! the groups' best priority, the one with the better first group first,
//! with `bpf_loop` (so the verifier checks one probe, whatever the number
//! of groups). Per group it reads the group's filter (its mask and bits),
//! forms the bucket key (the key ANDed with the mask), skips it when the
//! bit of its hash is clear (an array lookup instead of a hash probe that
//! would miss), else probes the bucket and scans its rules best first; a
//! list stops as soon as the match in hand is at least as good as anything
//! its groups left can hold.

use super::c::{line, print, CStmt};
use super::maps::map_def;
use super::Emitter;
use crate::cstruct::Scalar;
use crate::ir::{MatchKind, Table};
use crate::map_layout::{TableLayout, TERNARY_BUCKET_RULES, TERNARY_FILTER_WORDS};

impl Emitter<'_> {
    /// The group, bucket, rule and search structs of ternary table `t`.
    pub fn ternary_structs(&self, t: &Table, l: &TableLayout) -> String {
        let n = &t.c_name;
        let shape = l.ternary_shape(t.size);
        let (groups, rules) = (shape.max_groups, TERNARY_BUCKET_RULES);
        let mut out = format!(
            "struct {n}_group {{\n    u32 id;\n    u32 max_priority; /* the best priority of its rules the list covers */\n}};\n\
             struct {n}_groups {{\n    u32 count;\n    struct {n}_group group[{groups}]; /* best max_priority first */\n}};\n\
             struct {n}_bucket_key {{\n    u32 group;\n    struct {n}_key key; /* key & the group's mask */\n}};\n\
             /* A group's mask, and a bit per bucket key hash: clear means no\n \
             * such bucket. */\n\
             struct {n}_filter {{\n    struct {n}_key mask; /* the bits every rule of the group fixes */\n    u32 bits[{filter_words}];\n}};\n",
            filter_words = TERNARY_FILTER_WORDS
        );
        // With a cells map a rule keeps its value's head; a hit reads the
        // whole value, cells and timer included, from the rule's slot.
        let copied = if !l.ternary_cells() {
            format!("struct {n}_value")
        } else {
            out.push_str(&format!(
                "struct {n}_head {{\n    u32 action;\n    u32 priority;\n    u32 slot;\n}};\n"
            ));
            out.push_str(&format!(
                "_Static_assert(__builtin_offsetof(struct {n}_value, slot) == 8 && sizeof(struct {n}_head) == 12, \"ternary head layout\");\n"
            ));
            format!("struct {n}_head")
        };
        out.push_str(&format!(
            "struct {n}_rule {{\n    struct {n}_key value;\n    struct {n}_key mask;\n"
        ));
        if l.ranged {
            out.push_str(&format!(
                "    struct {n}_key lo; /* range fields: the bounds, both included */\n    struct {n}_key hi;\n"
            ));
        }
        out.push_str(&format!(
            "    {copied} action;\n}};\n\
             struct {n}_bucket {{\n    u32 count; /* rules in use, best priority first */\n    struct {n}_rule rule[{rules}];\n}};\n\
             /* A lookup in progress: the key, the group list, a copy of the best\n \
             * rule's value so far (a copy, not a pointer: the verifier then\n \
             * checks one probe, not one per kind of pointer it may hold). */\n\
             struct {n}_search {{\n    struct {n}_key key;\n    struct {n}_groups *groups;\n    u32 found;\n    {copied} best;\n}};\n"
        ));
        let bounds_at = shape
            .rule_bounds_offset
            .map(|at| format!(" && __builtin_offsetof(struct {n}_rule, lo) == {at}"))
            .unwrap_or_default();
        out.push_str(&format!(
            "_Static_assert(sizeof(struct {n}_group) == {} && __builtin_offsetof(struct {n}_groups, group) == {}, \"ternary group layout\");\n\
             _Static_assert(__builtin_offsetof(struct {n}_filter, bits) == {}, \"ternary filter layout\");\n\
             _Static_assert(sizeof(struct {n}_bucket_key) == {}, \"ternary bucket key layout\");\n\
             _Static_assert(sizeof(struct {n}_rule) == {} && __builtin_offsetof(struct {n}_rule, action) == {}{bounds_at}, \"ternary rule layout\");\n\
             _Static_assert(sizeof(struct {n}_bucket) == {} && __builtin_offsetof(struct {n}_bucket, rule) == {}, \"ternary bucket layout\");\n",
            shape.group_size,
            shape.groups_offset,
            shape.filter_bits_offset,
            shape.bucket_key_size,
            shape.rule_size,
            shape.rule_value_offset,
            shape.bucket_size,
            shape.rules_offset,
        ));
        out
    }

    /// The group list and bucket maps of ternary table `t`, and the probe
    /// of one group that lookups run under `bpf_loop`.
    pub fn ternary_maps(&self, t: &Table, l: &TableLayout) -> String {
        let name = &t.c_name;
        // A list per partition and the wild one, each replaced whole: a
        // lookup sees the old list or the new.
        let lists = Self::wild_list(l, t.size) + 1;
        let mut out = map_def(
            "BPF_MAP_TYPE_HASH",
            "u32",
            &format!("struct {name}_groups"),
            lists,
            Some("BPF_F_NO_PREALLOC"),
            &format!("{name}_groups"),
        );
        out.push_str(&map_def(
            "BPF_MAP_TYPE_ARRAY",
            "u32",
            &format!("struct {name}_filter"),
            l.ternary_shape(t.size).max_groups,
            None,
            &format!("{name}_filters"),
        ));
        if l.ternary_cells() {
            out.push_str(&map_def(
                "BPF_MAP_TYPE_ARRAY",
                "u32",
                &format!("struct {name}_value"),
                l.ternary_shape(t.size).cell_slots,
                None,
                &format!("{name}_cells"),
            ));
        }
        // Buckets are large and mostly few: allocated on use.
        out.push_str(&map_def(
            "BPF_MAP_TYPE_HASH",
            &format!("struct {name}_bucket_key"),
            &format!("struct {name}_bucket"),
            t.size,
            Some("BPF_F_NO_PREALLOC"),
            name,
        ));
        out.push_str(&format!(
            "/* Probes group i of {name} (a bpf_loop callback) and keeps the best\n * matching rule; returns 1 when no group left can beat it. */\nstatic long {name}_probe(u32 i, void *ctx)\n{{\n"
        ));
        print(&self.probe_body(t, l), 1, &mut out);
        out.push_str("}\n\n");
        out
    }

    fn probe_body(&self, t: &Table, l: &TableLayout) -> Vec<CStmt> {
        let name = &t.c_name;
        let max_groups = l.ternary_shape(t.size).max_groups;
        let mut body = vec![
            line(format!("struct {name}_search *s = ctx")),
            CStmt::If {
                cond: format!("i >= {max_groups}"),
                then: vec![CStmt::Return("1".into())],
                other: vec![],
            },
            line(format!("struct {name}_group *group = &s->groups->group[i]")),
            CStmt::If {
                cond: "s->found && s->best.priority >= group->max_priority".into(),
                then: vec![
                    CStmt::Comment("groups come best first: none left can beat it".into()),
                    CStmt::Return("1".into()),
                ],
                other: vec![],
            },
            line(format!("struct {name}_bucket_key probe = {{}}")),
            line(format!(
                "struct {name}_filter *filter = bpf_map_lookup_elem(&{name}_filters, &group->id)"
            )),
            CStmt::If {
                cond: "!filter".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
            line("probe.group = group->id"),
        ];
        let mut differs = vec![line("u64 miss = 0")];
        for (f, i) in l.key.fields.iter().zip(&l.key_order) {
            let field = &f.c_name;
            let ranged = t.keys.get(*i).is_some_and(|k| k.kind == MatchKind::Range);
            match f.scalar {
                Scalar::Bytes(n) => {
                    body.push(CStmt::For {
                        head: format!("u32 j = 0; j < {n}; j++"),
                        body: vec![line(format!(
                            "probe.key.{field}[j] = s->key.{field}[j] & filter->mask.{field}[j]"
                        ))],
                    });
                    differs.push(CStmt::For {
                        head: format!("u32 j = 0; j < {n}; j++"),
                        body: vec![line(format!(
                            "miss |= (s->key.{field}[j] & rule->mask.{field}[j]) ^ rule->value.{field}[j]"
                        ))],
                    });
                }
                _ => {
                    body.push(line(format!(
                        "probe.key.{field} = s->key.{field} & filter->mask.{field}"
                    )));
                    differs.push(line(if ranged {
                        format!("miss |= s->key.{field} < rule->lo.{field} || s->key.{field} > rule->hi.{field}")
                    } else {
                        format!("miss |= (s->key.{field} & rule->mask.{field}) ^ rule->value.{field}")
                    }));
                }
            }
        }
        body.extend(self.filter_check(t, l));
        body.push(line(format!(
            "struct {name}_bucket *bucket = bpf_map_lookup_elem(&{name}, &probe)"
        )));
        body.push(CStmt::If {
            cond: "!bucket".into(),
            then: vec![CStmt::Return("0".into())],
            other: vec![],
        });
        let mut scan = vec![
            CStmt::If {
                cond: "r >= bucket->count".into(),
                then: vec![line("break")],
                other: vec![],
            },
            line(format!("struct {name}_rule *rule = &bucket->rule[r]")),
            CStmt::If {
                cond: "s->found && rule->action.priority <= s->best.priority".into(),
                then: vec![line("break /* sorted: no better rule further on */")],
                other: vec![],
            },
        ];
        scan.extend(differs);
        scan.push(CStmt::If {
            cond: "miss".into(),
            then: vec![line("continue")],
            other: vec![],
        });
        scan.push(line("s->best = rule->action"));
        scan.push(line("s->found = 1"));
        scan.push(line("break"));
        body.push(CStmt::For {
            head: format!("u32 r = 0; r < {TERNARY_BUCKET_RULES}; r++"),
            body: scan,
        });
        body.push(CStmt::Return("0".into()));
        body
    }

    /// Return from the probe when the group's filter rules the bucket out
    /// (the hash `p4bpf_layout::TernaryLayout` defines, over the probe's
    /// u32 words).
    fn filter_check(&self, t: &Table, l: &TableLayout) -> Vec<CStmt> {
        let words = l.ternary_shape(t.size).bucket_key_size / 4;
        let bits = (32 * TERNARY_FILTER_WORDS).trailing_zeros();
        vec![
            line("const u32 *word = (const u32 *)&probe"),
            line("u32 hash = 0"),
            CStmt::For {
                head: format!("u32 w = 0; w < {words}; w++"),
                body: vec![line("hash = (hash ^ word[w]) * 0x9e3779b1u")],
            },
            CStmt::If {
                cond: format!(
                    "!(filter->bits[hash >> {}] & (1u << ((hash >> {}) & 31)))",
                    32 - bits + 5,
                    32 - bits
                ),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            },
        ]
    }

    /// The key's partition: the top bits of the cut fields, the first
    /// cut most significant.
    fn partition(l: &TableLayout, size: u32) -> String {
        let mut shift = 0;
        let mut parts = vec![];
        for (j, bits) in l.ternary_cuts(size).into_iter().rev() {
            let Some(f) = l.key.fields.get(j) else {
                continue;
            };
            let top = format!(
                "((u32)(key.{} >> {}) & {:#x})",
                f.c_name,
                f.bit_width - bits,
                (1u32 << bits) - 1
            );
            parts.push(if shift == 0 {
                top
            } else {
                format!("{top} << {shift}")
            });
            shift += bits;
        }
        parts.reverse();
        if parts.is_empty() {
            "0".into()
        } else {
            parts.join(" | ")
        }
    }

    /// The key of the wild list: the one after the last partition.
    fn wild_list(l: &TableLayout, size: u32) -> u32 {
        1 << l.ternary_cuts(size).iter().map(|(_, b)| b).sum::<u32>()
    }

    /// Statements pointing `value` at the best matching rule's value.
    pub fn ternary_search(&self, t: &Table, l: &TableLayout) -> Vec<CStmt> {
        let name = &t.c_name;
        let groups = format!("struct {name}_groups");
        let walk = |list: &str| CStmt::If {
            cond: list.into(),
            then: vec![
                line(format!("search.groups = {list}")),
                line(format!("bpf_loop({list}->count, {name}_probe, &search, 0)")),
            ],
            other: vec![],
        };
        let mut body = vec![
            line(format!("struct {name}_search search = {{ .key = key }}")),
            line(format!("u32 wild = {}", Self::wild_list(l, t.size))),
            line(format!(
                "{groups} *first = bpf_map_lookup_elem(&{name}_groups, &wild)"
            )),
        ];
        if !l.ternary_cuts(t.size).is_empty() {
            body.extend([
                line(format!("u32 partition = {}", Self::partition(l, t.size))),
                line(format!(
                    "{groups} *second = bpf_map_lookup_elem(&{name}_groups, &partition)"
                )),
                CStmt::If {
                    cond: "second && second->count && (!first || !first->count || second->group[0].max_priority > first->group[0].max_priority)".into(),
                    then: vec![
                        CStmt::Comment("the better first group first: its match may stop the other list at once".into()),
                        line(format!("{groups} *better = second")),
                        line("second = first"),
                        line("first = better"),
                    ],
                    other: vec![],
                },
                walk("first"),
                walk("second"),
            ]);
        } else {
            body.push(walk("first"));
        }
        let found = if !l.ternary_cells() {
            vec![line("value = &search.best")]
        } else {
            vec![
                CStmt::Comment(format!(
                    "the rule's whole value, its {} updated in place",
                    Self::kept_in_cells(l)
                )),
                line("u32 slot = search.best.slot"),
                line(format!("value = bpf_map_lookup_elem(&{name}_cells, &slot)")),
            ]
        };
        body.push(CStmt::If {
            cond: "search.found".into(),
            then: found,
            other: vec![],
        });
        body
    }

    /// What a rule's value in the cells map holds that the data path
    /// updates.
    fn kept_in_cells(l: &TableLayout) -> &'static str {
        match (l.direct.is_empty(), l.timed) {
            (false, true) => "direct cells and timer",
            (true, true) => "timer",
            _ => "direct cells",
        }
    }

    /// The value struct's member naming a rule's slot in the cells map,
    /// for a ternary table with direct counters, meters or entry timers.
    pub(super) fn ternary_slot_member(t: &Table, l: &TableLayout) -> String {
        if !l.ternary_cells() {
            return String::new();
        }
        format!(
            "    u32 slot; /* the rule's element of {}_cells */\n",
            t.c_name
        )
    }
}
