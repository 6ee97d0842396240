//! Target primitives: what the generated C does that depends on where
//! it runs, below the architecture layer (T4P4S's split of a
//! target-independent core and a hardware abstraction library). The
//! emitter asks a [`Target`] for the entry signature, packet pointers and
//! resizing, the packet's length and ingress port, verdicts, sending to a
//! port, and the program context helpers take; a new hook is one new
//! implementation, not edits across the emitter.
//!
//! The user-space target is not a third implementation: it compiles the
//! same C (for XDP or TC) over the runtime's stand-ins for the kernel's
//! headers and helpers (`crates/runtime/user-c`).

mod tc;
mod xdp;

use crate::emit::c::CStmt;
use p4bpf_layout::Hook;

pub trait Target {
    /// The hook's name in comments (`XDP`).
    fn name(&self) -> &'static str;
    /// The ELF section of the entry function.
    fn section(&self) -> &'static str;
    /// The entry function's parameter, the program context.
    fn context_param(&self) -> &'static str;
    /// The context's name in the entry function and helpers.
    fn context(&self) -> &'static str;
    /// Statements before the first packet access (making headers
    /// directly readable), when the parser reads the packet.
    fn before_parsing(&self) -> Vec<CStmt>;
    /// Statements reloading `pkt` and `pkt_end` after a resize.
    fn reload_pointers(&self) -> [String; 2];
    /// A C condition that moves the packet's start by `delta` bytes
    /// (positive: fewer bytes), true when that failed; the first `parsed`
    /// bytes are rewritten after it, so new room may open anywhere in them.
    fn move_start_fails(&self, delta: &str, parsed: &str) -> String;
    /// A C condition that cuts the packet to `len` bytes (shorter than it
    /// is), true when that failed.
    fn cut_fails(&self, len: &str) -> String;
    /// Whether [`Target::move_start_fails`] calls `p4bpf_skb_grow` and
    /// `p4bpf_skb_shrink`.
    fn moving_needs_shrink(&self) -> bool;
    /// The packet's length in bytes, as a `u32`, in the entry function.
    fn packet_length(&self) -> &'static str;
    /// The same from the context alone (in helpers).
    fn context_length(&self) -> &'static str;
    /// The interface the packet came in on.
    fn ingress_port(&self) -> &'static str;
    /// The return value that passes the packet to the stack.
    fn pass(&self) -> &'static str;
    /// The return value that drops the packet.
    fn drop(&self) -> &'static str;
    /// The return value for a program failure.
    fn abort(&self) -> &'static str;
    /// Statements sending the packet back out of its input port, first
    /// dropping it if `mtu_checked` and it does not fit (`emit/mtu.rs`).
    fn transmit(&self, mtu_checked: bool) -> Vec<CStmt>;
    /// The kind of the ports map (P4 port to ifindex) and why.
    fn port_map_kind(&self) -> (&'static str, &'static str);
    /// Statements sending the packet out of P4 port `port` through the
    /// ports map `map`, dropping it when the port has no interface (or,
    /// if `mtu_checked`, when the packet does not fit it).
    fn redirect(&self, map: &str, port: &str, mtu_checked: bool) -> Vec<CStmt>;
}

/// When `checked` (`emit/mtu.rs`), for a packet longer than it came in:
/// `prelude`, then `if (GUARD && p4bpf_over_mtu(ctx, ifindex)) return
/// DROP;` (ifindex 0 is the input interface). A packet no longer than it
/// came in is left to the kernel, as in programs that cannot grow one:
/// the check's helper call is paid only by packets the program grew.
fn over_mtu_drop(
    target: &dyn Target,
    checked: bool,
    prelude: Vec<CStmt>,
    guard: Option<&str>,
    ifindex: &str,
) -> Vec<CStmt> {
    if !checked {
        return vec![];
    }
    let over = format!("p4bpf_over_mtu({}, {ifindex})", target.context());
    let mut then = prelude;
    then.push(CStmt::If {
        cond: guard.map_or(over.clone(), |g| format!("{g} && {over}")),
        then: vec![CStmt::Return(target.drop().into())],
        other: vec![],
    });
    vec![CStmt::If {
        cond: format!(
            "{} > st->{}",
            target.context_length(),
            crate::emit::ARRIVED_LEN
        ),
        then,
        other: vec![],
    }]
}

/// The primitives of `hook`.
pub fn for_hook(hook: Hook) -> &'static dyn Target {
    match hook {
        Hook::Xdp => &xdp::Xdp,
        Hook::Tc => &tc::Tc,
    }
}
