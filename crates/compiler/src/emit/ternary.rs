//! The ternary lookup: grouped tuple space (layout in
//! `p4bpf_layout::TernaryLayout`). For each group in use, the key ANDed
//! with the group's mask finds one bucket; its rules are sorted best
//! priority first, so the first rule whose own mask and value match is the
//! bucket's best, and the best over the groups wins. The cost is one probe
//! per group, not one per distinct mask. Group slots are looked up through
//! a copy of the loop counter, which the verifier needs to bound the loop.

use super::c::{line, CStmt};
use super::Emitter;
use crate::cstruct::Scalar;
use crate::ir::Table;
use crate::map_layout::{TableLayout, MAX_TERNARY_GROUPS, TERNARY_BUCKET_RULES};

impl Emitter<'_> {
    /// Statements pointing `value` at the best matching rule's value.
    pub fn ternary_search(&self, t: &Table, l: &TableLayout) -> Vec<CStmt> {
        let name = &t.c_name;
        let mut probe = vec![
            line("u32 slot = g"),
            line(format!(
                "struct {name}_group *group = bpf_map_lookup_elem(&{name}_groups, &slot)"
            )),
            CStmt::If {
                cond: "!group || !group->used".into(),
                then: vec![line("break")],
                other: vec![],
            },
            line(format!("struct {name}_bucket_key probe = {{}}")),
            line("probe.group = g"),
        ];
        let mut differs = vec![line("u64 miss = 0")];
        for f in &l.key.fields {
            let field = &f.c_name;
            match f.scalar {
                Scalar::Bytes(n) => {
                    probe.push(CStmt::For {
                        head: format!("u32 j = 0; j < {n}; j++"),
                        body: vec![line(format!(
                            "probe.key.{field}[j] = key.{field}[j] & group->mask.{field}[j]"
                        ))],
                    });
                    differs.push(CStmt::For {
                        head: format!("u32 j = 0; j < {n}; j++"),
                        body: vec![line(format!(
                            "miss |= (key.{field}[j] & rule->mask.{field}[j]) ^ rule->value.{field}[j]"
                        ))],
                    });
                }
                _ => {
                    probe.push(line(format!(
                        "probe.key.{field} = key.{field} & group->mask.{field}"
                    )));
                    differs.push(line(format!(
                        "miss |= (key.{field} & rule->mask.{field}) ^ rule->value.{field}"
                    )));
                }
            }
        }
        probe.push(line(format!(
            "struct {name}_bucket *bucket = bpf_map_lookup_elem(&{name}, &probe)"
        )));
        probe.push(CStmt::If {
            cond: "!bucket".into(),
            then: vec![line("continue")],
            other: vec![],
        });
        let mut scan = vec![
            CStmt::If {
                cond: "r >= bucket->count".into(),
                then: vec![line("break")],
                other: vec![],
            },
            line(format!("struct {name}_rule *rule = &bucket->rule[r]")),
        ];
        scan.extend(differs);
        scan.push(CStmt::If {
            cond: "miss".into(),
            then: vec![line("continue")],
            other: vec![],
        });
        scan.push(CStmt::If {
            cond: "!value || rule->action.priority > value->priority".into(),
            then: vec![line("value = &rule->action")],
            other: vec![],
        });
        scan.push(line(
            "break /* sorted: the first match is the bucket's best */",
        ));
        probe.push(CStmt::For {
            head: format!("u32 r = 0; r < {TERNARY_BUCKET_RULES}; r++"),
            body: scan,
        });
        vec![CStmt::For {
            head: format!("u32 g = 0; g < {MAX_TERNARY_GROUPS}; g++"),
            body: probe,
        }]
    }
}
