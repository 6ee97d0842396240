//! Parsers invoked from parser states (P4_16 §13.9 sub-parsers), by
//! instance (`p.apply(packet, hdr)`) or by type name (`P.apply(...)`).
//! Each call copies the sub-parser's states into the caller's state graph:
//! arguments are copied in before the jump to its `start`, its `accept`
//! leads to the caller's continuation, which copies `out`/`inout`
//! parameters back; its `reject` rejects the whole parse, as in BMv2.

use super::parser::StateGraph;
use super::{Binding, Lowerer, SubParser};
use crate::ir::{StateId, Stmt};
use p4bpf_front::ast::{self, DeclKind, ExprKind as A, StmtKind};
use std::collections::HashMap;

impl<'a, 'u> Lowerer<'a, 'u> {
    /// The sub-parser, arguments and call of `st` if it is `p.apply(...)`
    /// on a parser instance or a parser type.
    pub(super) fn sub_parser_call(
        &self,
        st: &'a ast::Stmt,
    ) -> Option<(SubParser<'a>, &'a [ast::Argument], &'a ast::Expr)> {
        let StmtKind::Call(call) = &st.kind else {
            return None;
        };
        let A::Call { callee, args, .. } = &call.kind else {
            return None;
        };
        let A::Member { base, member } = &callee.kind else {
            return None;
        };
        let A::Path(path) = &base.kind else {
            return None;
        };
        if member.name != "apply" {
            return None;
        }
        let sub_parser = match self.lookup(&path.name.name) {
            Some(Binding::SubParser(index)) => self.sub_parsers.get(index)?.clone(),
            Some(_) => return None,
            None => match self.env.decl(&path.name.name) {
                Some(
                    decl @ ast::Decl {
                        kind: DeclKind::Parser { .. },
                        ..
                    },
                ) => SubParser {
                    instance: &path.name,
                    decl,
                    ctor_args: &[],
                },
                _ => return None,
            },
        };
        Some((sub_parser, args, call))
    }

    /// Copies `callee`'s states into `graph` for one call; `out` receives
    /// the copy-in. Returns the copied `start` and the copy-out statements
    /// that open the continuation state `after`.
    pub(super) fn inline_sub_parser(
        &mut self,
        callee: &SubParser<'a>,
        args: &'a [ast::Argument],
        call: &'a ast::Expr,
        after: StateId,
        out: &mut Vec<Stmt>,
        graph: &mut StateGraph,
    ) -> Option<(StateId, Vec<Stmt>)> {
        let DeclKind::Parser {
            sig, ctor_params, ..
        } = &callee.decl.kind
        else {
            return None;
        };
        if self.inlining.contains(&sig.name.name) {
            self.diags.error(
                call.span,
                format!("parser `{}` applies itself", sig.name.name),
            );
            return None;
        }
        let prefix = self.dotted(&callee.instance.name);
        // The sub-parser sees only the top level and its own names.
        let global = self.scopes.first().cloned().unwrap_or_default();
        let instances = self.instance_ctor_args(ctor_params, callee.ctor_args);
        let caller_scopes = std::mem::replace(&mut self.scopes, vec![global, HashMap::new()]);
        let params = self.call_params(&sig.params, &prefix);
        let callee_scopes = std::mem::replace(&mut self.scopes, caller_scopes);
        let copy_out = self.copy_in(&prefix, &sig.params, &params, args, call, out)?;

        let caller_scopes = std::mem::replace(&mut self.scopes, callee_scopes);
        let caller_prefix = std::mem::replace(&mut self.prefix, prefix);
        let start = self.copy_states(callee, instances, after, graph);
        self.scopes = caller_scopes;
        self.prefix = caller_prefix;
        Some((start?, copy_out))
    }

    /// In the sub-parser's own scope: binds its constructor arguments
    /// (`instances` among them) and `accept` (to `after`), lowers its locals
    /// and copies its states into `graph`. Returns its copied `start`.
    fn copy_states(
        &mut self,
        callee: &SubParser<'a>,
        instances: Vec<(String, Binding)>,
        after: StateId,
        graph: &mut StateGraph,
    ) -> Option<StateId> {
        let DeclKind::Parser {
            sig,
            ctor_params,
            locals,
            states,
        } = &callee.decl.kind
        else {
            return None;
        };
        let caller_inits = std::mem::take(&mut self.local_inits);
        self.inlining.push(sig.name.name.clone());
        for (name, binding) in instances {
            self.bind(&name, binding);
        }
        self.bind_ctor_args(ctor_params, callee.ctor_args, callee.instance);
        self.bind("accept", Binding::State(after));
        for local in locals {
            self.local_decl(local);
        }
        let declared = self.declare_states(states, &callee.instance.name, graph);
        let inits = std::mem::replace(&mut self.local_inits, caller_inits);
        self.lower_states(states, &declared, inits, graph);
        self.inlining.pop();
        let start = states
            .iter()
            .zip(&declared)
            .find(|(s, _)| s.name.name == "start")
            .map(|(_, (id, _))| *id);
        if start.is_none() {
            self.diags.error(
                callee.decl.span,
                format!("parser `{}` has no `start` state", sig.name.name),
            );
        }
        start
    }
}
