//! PNA's add-on-miss in C: after an add-on-miss table's action ran, an
//! `add_entry` request it made inserts the key the table looked up, with
//! the requested action and parameters (the requests: `ir::EntryRequest`).

use super::c::{line, CStmt};
use super::Emitter;
use crate::ir::Table;
use crate::map_layout::TableLayout;

impl Emitter<'_> {
    /// Statements inserting `key` into `t` when its action asked to.
    pub(super) fn add_on_miss_insert(&self, t: &Table, l: &TableLayout) -> Vec<CStmt> {
        let Some(pending) = self.prog.entry_request.and_then(|v| self.prog.var(v)) else {
            return vec![];
        };
        if !t.add_on_miss {
            return vec![];
        }
        let pending = format!("st->{}", pending.c_name);
        let mut cases = vec![];
        for (index, request) in self.prog.entry_requests.iter().enumerate() {
            if request.refused {
                continue;
            }
            let Some((id, action)) = t.actions.iter().find_map(|a| {
                let action = self.prog.action(*a)?;
                request.names(&action.name).then_some((*a, action))
            }) else {
                continue;
            };
            let mut fill = vec![line(format!(
                "entry.action = {}",
                t.action_code(id).unwrap_or(0)
            ))];
            let fields = l.params_of(id).map(|s| s.fields.as_slice()).unwrap_or(&[]);
            for (field, arg) in fields.iter().zip(&request.args) {
                if let Some(var) = self.prog.var(*arg) {
                    fill.push(line(format!(
                        "entry.u.{}.{} = st->{}",
                        action.c_name, field.c_name, var.c_name
                    )));
                }
            }
            cases.push((vec![(index + 1).to_string()], fill));
        }
        let mut insert = vec![
            CStmt::Comment(format!("add on miss: insert the key {} missed", t.name)),
            line(format!("struct {}_value entry = {{}}", t.c_name)),
            CStmt::Switch {
                scrutinee: pending.clone(),
                cases,
                default: vec![],
            },
        ];
        insert.extend(self.timer_on_insert(t));
        insert.extend([
            CStmt::If {
                cond: "entry.action".into(),
                then: vec![line(format!(
                    "bpf_map_update_elem(&{}, &key, &entry, BPF_NOEXIST)",
                    t.c_name
                ))],
                other: vec![],
            },
            line(format!("{pending} = 0")),
        ]);
        vec![CStmt::If {
            cond: pending.clone(),
            then: insert,
            other: vec![],
        }]
    }
}
