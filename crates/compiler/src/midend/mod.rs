//! The mid-end: analyses and rewrites of the pipeline IR between the
//! lowering and the emitter, all over one IR walk ([`visit`]).
//!
//! Passes that change the IR run in [`run`]: inlined controls' parameters
//! become their arguments where copying them in and out is the identity
//! ([`alias`]); constants and copies of
//! scalar variables reach later reads in straight-line code
//! ([`propagate`]); an emit guarded by its own header's validity is made
//! unconditional ([`validity::unguard_emits`]); headers that are never
//! valid are neither emitted nor tested ([`validity::drop_dead`]), and what
//! that makes constant is folded away with the code it made dead
//! ([`fold`]).
//! Analyses the emitter asks: header validity ([`validity::HeaderFacts`]),
//! field def-use ([`defuse`]) and the parser-to-deparser correspondence
//! ([`correspond`]) that decides how the deparser treats the packet,
//! where parser paths leave headers ([`placement`]), the metadata
//! fields no one reads, left out of the per-packet reset ([`resets`]),
//! and whether the deparsers may grow a packet ([`growth`]).
//! Inlining of controls and functions happens in the lowering; arithmetic
//! folding and propagation across branches are left to clang, which does
//! them on the C as long as state is on the stack.

pub mod alias;
pub mod correspond;
pub mod defuse;
pub mod direct_uses;
pub mod fold;
pub mod growth;
pub mod placement;
pub mod propagate;
pub mod resets;
pub mod validity;
pub mod visit;

use crate::ir::{Program, Stmt};

/// Runs the rewriting passes over `prog`.
pub fn run(prog: &mut Program) {
    alias::alias_inline_params(prog);
    propagate::propagate(prog);
    validity::unguard_emits(prog);
    validity::drop_dead(prog);
}

/// Every statement list that holds code: parser states, controls, actions.
fn bodies_mut(prog: &mut Program) -> Vec<&mut Vec<Stmt>> {
    prog.parsers
        .iter_mut()
        .flat_map(|p| p.states.iter_mut())
        .map(|s| &mut s.stmts)
        .chain(prog.controls.iter_mut().map(|c| &mut c.body))
        .chain(prog.actions.iter_mut().map(|a| &mut a.body))
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::ir::{AggId, Program};
    use std::path::Path;

    /// The IR of P4 source `text`, which must be free of errors.
    #[allow(clippy::panic)] // a program that does not lower is the test's own bug
    pub fn lowered(text: &str) -> Program {
        let fe = p4bpf_front::check_source(Path::new("t.p4"), text, &Default::default());
        assert!(!fe.has_errors(), "{:?}", fe.diagnostics);
        let Some(checked) = &fe.checked else {
            panic!("the front end did not check the program");
        };
        match crate::lower::lower(&fe.program, checked, &fe.unit, &fe.sources, "t", false) {
            Ok(prog) => prog,
            Err(d) => panic!("cannot lower: {d:?}"),
        }
    }

    /// The header or struct type named `name`.
    pub fn agg(prog: &Program, name: &str) -> AggId {
        let i = prog.aggregates.iter().position(|a| a.name == name);
        AggId(i.map_or(u32::MAX, |i| i as u32))
    }
}
