//! The functions that loop over a clone session's or a multicast group's
//! members, in a program that makes passes (resubmission or
//! recirculation): global functions, verified once. At TC PSA's
//! `NAME_clone_i2e` and `NAME_clone_e2e` and the multicast's
//! `NAME_multicast` (v1model's too); at XDP the plan's
//! `NAME_copies_add_members` and `NAME_copies_add_clones`.
//!
//! Inline, such a loop over up to 64 members is walked by the verifier
//! member by member on every path into it, and the passes
//! ([`super::psa_resubmit`]) put those paths inside a loop of their own:
//! every pass count, every order of resubmit and recirculate, each with
//! its I2E clone and its egress's E2E clone or multicast, walks the loops
//! again (`copies`: over 1,000,000 verified instructions at TC and XDP).
//! A global function (not `static`, `noinline`) is verified once against
//! its argument types (the context, pointers as memory of their type's
//! size that may be null, scalars) and each call is one step of the
//! caller's walk. The state and the plan are already per-CPU map values,
//! so the callee reaches them through its arguments. A `bpf_loop`
//! callback would verify the body once but not spare the callers' paths
//! the rest of the function, and a tail call could not return. Programs
//! without passes keep the inline functions: nothing multiplies their
//! walks.

use super::c::CStmt;
use super::Emitter;

impl Emitter<'_> {
    /// Whether this program's member loops are global functions.
    fn copies_verified_once(&self) -> bool {
        let i = &self.prog.intrinsics;
        i.resubmit.is_some() || i.recirculate.is_some()
    }

    /// The C head of member-loop function `name`, taking `params`, after
    /// its `comment`: inline, it returns `returns`; global, an `int`.
    pub(super) fn copy_function_head(
        &self,
        comment: &str,
        returns: &str,
        name: &str,
        params: &str,
    ) -> String {
        if self.copies_verified_once() {
            return format!(
                "/* {comment}\n * A global function: the verifier checks it once, not once per pass. */\n\
                 __attribute__((noinline)) int {name}({params})\n{{\n"
            );
        }
        format!("/* {comment} */\nstatic __always_inline {returns} {name}({params})\n{{\n")
    }

    /// The first statements of a member-loop function: a global one is
    /// passed its `pointers` as ones the verifier holds may be null, and
    /// returns `give_up` when one is.
    pub(super) fn copy_function_prologue(&self, pointers: &[&str], give_up: &str) -> Vec<CStmt> {
        if !self.copies_verified_once() {
            return vec![];
        }
        let missing: Vec<String> = pointers.iter().map(|p| format!("!{p}")).collect();
        vec![CStmt::If {
            cond: missing.join(" || "),
            then: vec![CStmt::Return(give_up.into())],
            other: vec![],
        }]
    }

    /// What a member-loop function returns where it gives up.
    pub(super) fn copy_function_give_up(&self) -> CStmt {
        let value = if self.copies_verified_once() { "0" } else { "" };
        CStmt::Return(value.into())
    }

    /// The last statements of a member-loop function: a global one
    /// returns 0.
    pub(super) fn copy_function_end(&self) -> Vec<CStmt> {
        if !self.copies_verified_once() {
            return vec![];
        }
        vec![CStmt::Return("0".into())]
    }
}
