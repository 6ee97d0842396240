//! `@atomic` blocks (P4_16 18.3.2, PSA 7.12.1): the kernel offers no lock
//! a block could hold across map lookups (a `bpf_spin_lock` forbids helper
//! calls while held), so a block runs as written. What that guarantees is
//! said where the annotation is, as a warning.

use super::Lowerer;
use p4bpf_front::ast;

impl Lowerer<'_, '_> {
    pub(super) fn warn_atomic_block(&mut self, block: &ast::Block) {
        for a in block.annotations.iter().filter(|a| a.name.name == "atomic") {
            self.diags.warning(
                a.span,
                "`@atomic`: p4bpf runs this block without a lock: no other packet runs on the same CPU in between, but a packet on another CPU may read or write the same register cells meanwhile (a read-modify-write can lose its update)",
            );
        }
    }
}
