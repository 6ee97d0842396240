//! P4TC's reading of STF, for programs written for `tc/pna.p4`: how
//! p4c's P4TC harness (backends/tc: `test_infra.py`, `build-simple-p4`)
//! plays a script, which its scripts are written against.
//!
//! - The program sits on port 0 alone: the harness puts only port 0's
//!   interface in the program's tc block. A packet sent on another port
//!   reaches no program.
//! - Each port's capture sees the packets sent on it as well as those
//!   the program sends out of it, and the harness expects each `packet`
//!   line's bytes on its port, in script order with the `expect` lines.
//!   The sent packet and its line's expectation cancel, which leaves the
//!   reference rule: what the program sends out is matched against the
//!   `expect` lines.
//! - Key values go to `tc p4ctrl` as written: a numeric lpm value is
//!   not read backwards as in the eBPF harness (`run::key_spec`).
//!
//! So under this reading a `packet` line on a port other than 0 runs
//! nothing; the report says so.

use p4bpf_layout::Pipeline;

/// The one port whose packets run the program in P4TC's harness.
const PROGRAM_PORT: u32 = 0;

/// Why a packet sent on `port` runs no program under the script reading
/// of `description`'s program; `None` when it runs.
pub(super) fn bypasses(description: &Pipeline, port: u32) -> Option<String> {
    (description.p4tc && port != PROGRAM_PORT).then(|| {
        format!(
            "not run: a script of a P4TC program (tc/pna.p4) is read as P4TC's harness reads it, \
             which attaches the program to port {PROGRAM_PORT} alone; the packet sent on port {port} \
             is seen there only, where its line also expects it \
             (`p4bpf test --stf-reading reference` runs it)"
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;

    fn description(p4tc: bool) -> Pipeline {
        let json = format!(
            r#"{{"format_version":{},"program":"p","architecture":"pna","hook":"tc",
            "entry":"p_tc","p4tc":{p4tc},"tables":[],"counters":[],"value_sets":[],"port_map":null}}"#,
            p4bpf_layout::FORMAT_VERSION
        );
        Pipeline::from_json(&json).unwrap()
    }

    #[test]
    fn only_port_0_runs_a_p4tc_program() {
        let p4tc = description(true);
        assert!(bypasses(&p4tc, 0).is_none());
        let why = bypasses(&p4tc, 1).unwrap();
        assert!(why.contains("port 1"), "{why}");
        assert!(bypasses(&p4tc, 7).is_some());
    }

    #[test]
    fn other_programs_run_on_every_port() {
        let pna = description(false);
        assert!(bypasses(&pna, 0).is_none() && bypasses(&pna, 1).is_none());
    }
}
