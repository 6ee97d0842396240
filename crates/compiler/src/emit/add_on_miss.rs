//! PNA's add-on-miss in C: an `add_entry` call ([`Builtin::AddEntry`])
//! inserts, where it is made, the key its add-on-miss table missed, with
//! the requested action and parameters, and gives whether the insert took
//! (a full table, or a key another CPU inserted first, refuses it).
//!
//! Each request is a function, `p4bpf_add_entry<i>`. The action making
//! the call takes the missed key and the table's index as its last two
//! parameters: the code of an add-on-miss table passes its own, any other
//! caller none, and the call then inserts nothing and gives false.
//!
//! [`Builtin::AddEntry`]: crate::ir::Builtin::AddEntry

use super::c::{line, print, CStmt};
use super::Emitter;
use crate::ir::{Action, ActionId, EntryRequest};

/// The C parameters of an action that calls `add_entry`.
const MISSED_PARAMS: [&str; 2] = ["const void *missed_key", "u32 missed_table"];

impl Emitter<'_> {
    /// Whether `action` calls `add_entry`, and so takes the missed key.
    fn takes_missed_key(&self, action: &Action) -> bool {
        !EntryRequest::made_in(&action.body).is_empty()
    }

    /// The parameters `action` takes for its `add_entry` calls.
    pub(super) fn missed_key_params(&self, action: &Action) -> Vec<String> {
        match self.takes_missed_key(action) {
            true => MISSED_PARAMS.map(String::from).to_vec(),
            false => vec![],
        }
    }

    /// The arguments a call of `action` passes for them: the key of the
    /// add-on-miss table whose code is being written, or none.
    pub(super) fn missed_key_args(&self, action: ActionId) -> Vec<String> {
        if !self
            .prog
            .action(action)
            .is_some_and(|a| self.takes_missed_key(a))
        {
            return vec![];
        }
        match self.missed_table.get() {
            Some(table) => vec!["&key".into(), table.to_string()],
            None => vec!["0".into(), "0".into()],
        }
    }

    /// The C expression of `add_entry` request `index`, in its action.
    pub(super) fn add_entry_call(&self, index: u32) -> String {
        format!("p4bpf_add_entry{index}(st, missed_key, missed_table)")
    }

    /// One function per `add_entry` request: a case per add-on-miss table
    /// with the requested action, filling the entry and inserting it.
    pub fn add_entry_definitions(&self) -> String {
        let mut out = String::new();
        for (index, request) in self.prog.entry_requests.iter().enumerate() {
            let mut body = vec![CStmt::If {
                cond: "!missed_key".into(),
                then: vec![CStmt::Return("0".into())],
                other: vec![],
            }];
            if !request.refused {
                body.extend(self.inserts(request));
            } else {
                body.push(CStmt::Comment(
                    "the table's @tc_acl refuses data-plane creates".into(),
                ));
            }
            body.push(CStmt::Return("0".into()));
            out.push_str(&format!(
                "/* add_entry(\"{}\", ...): inserts the key the calling table missed; 1 when it went in. */\n\
                 static __always_inline int p4bpf_add_entry{index}(struct {} *st, {}, {})\n{{\n",
                request.action,
                self.state_type(),
                MISSED_PARAMS[0],
                MISSED_PARAMS[1]
            ));
            print(&body, 1, &mut out);
            out.push_str("}\n\n");
        }
        out
    }

    /// An insert per add-on-miss table that has the action `request`
    /// names, when that table is the caller.
    fn inserts(&self, request: &EntryRequest) -> Vec<CStmt> {
        let mut inserts = vec![];
        for (table_index, t) in self.prog.tables.iter().enumerate() {
            if !t.add_on_miss {
                continue;
            }
            let Some((id, action)) = t.actions.iter().find_map(|a| {
                let action = self.prog.action(*a)?;
                request.names(&action.name).then_some((*a, action))
            }) else {
                continue;
            };
            let Some(l) = self.table_layouts.get(table_index) else {
                continue;
            };
            let mut fill = vec![
                line(format!("struct {}_value entry = {{}}", t.c_name)),
                line(format!("entry.action = {}", t.action_code(id).unwrap_or(0))),
            ];
            let fields = l.params_of(id).map(|s| s.fields.as_slice()).unwrap_or(&[]);
            for (field, arg) in fields.iter().zip(&request.args) {
                if let Some(var) = self.prog.var(*arg) {
                    fill.push(line(format!(
                        "entry.u.{}.{} = st->{}",
                        action.c_name, field.c_name, var.c_name
                    )));
                }
            }
            fill.extend(self.timer_on_insert(t));
            fill.push(CStmt::Return(format!(
                "bpf_map_update_elem(&{}, missed_key, &entry, BPF_NOEXIST) == 0",
                t.c_name
            )));
            inserts.push(CStmt::If {
                cond: format!("missed_table == {table_index}"),
                then: fill,
                other: vec![],
            });
        }
        inserts
    }
}
