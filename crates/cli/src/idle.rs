//! `p4bpf idle sweep|profile`: PNA's and PSA's idle timeouts on a loaded
//! pipeline.
//! Each sweep prints the entries idle for longer than their expire-time
//! profile's timeout, deleting those of `AUTO_DELETE` tables; `profile`
//! sets a profile's timeout. A thin shell over `p4bpf_runtime::idle`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::{digest, idle, Result};
use std::sync::atomic::Ordering;
use std::time::Duration;

pub const USAGE: &str = "\
usage: p4bpf idle sweep PIPELINE [--every SECONDS]
       p4bpf idle profile PIPELINE PROFILE NANOSECONDS

sweep sweeps the tables of the loaded pipeline PIPELINE whose entries have idle
timers (PNA's pna_idle_timeout or idle_timeout_with_auto_delete, PSA's
psa_idle_timeout) and prints each entry idle for longer than its expire-time
profile's timeout:

  idle MainControl.flows hdr.ipv4.dstAddr=10.0.0.1 for 5000000000 ns: reported
  idle C.acl hdr.ipv4.dstAddr=10.0.0.0&&&255.0.0.0 priority=10 for 7000 ns: reported

(a ternary, range or optional rule shows its priority).

`reported`: a NOTIFY_CONTROL table's entry, which stays; `deleted`: an
AUTO_DELETE table's entry, which the sweep deleted (the data plane deletes
one only when a packet looks it up). An entry's timer starts when it is
added by the data plane or by a P4Runtime controller (with its own
idle_timeout_ns), at its first hit when `p4bpf table add` added it. In PSA
every hit restarts it; in PNA an action's restart_expire_timer does.

profile sets how long an entry of expire-time PROFILE (0 to 255) may stay
idle: NANOSECONDS, 0 for never (every profile starts at 0).

options:
  --every SECONDS   sweep again every SECONDS until Ctrl-C (default: once)
";

pub fn run(words: Args) -> std::process::ExitCode {
    let words = match split(words, &["--every"]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("idle")),
    };
    let (pipeline, profile, nanoseconds) = match words.positional.as_slice() {
        [sweep, pipeline] if sweep == "sweep" => (pipeline, None, None),
        [profile, pipeline, id, ns] if profile == "profile" => (pipeline, Some(id), Some(ns)),
        _ => {
            return UsageError::new(
                "expected `idle sweep PIPELINE` or `idle profile PIPELINE PROFILE NANOSECONDS`",
            )
            .report(Some("idle"))
        }
    };
    if let (Some(id), Some(ns)) = (profile, nanoseconds) {
        let (Ok(id), Ok(ns)) = (id.parse::<u32>(), ns.parse::<u64>()) else {
            return UsageError::new("PROFILE and NANOSECONDS are whole numbers")
                .report(Some("idle"));
        };
        return match Deployment::open(pipeline).and_then(|d| idle::set_profile(&d, id, ns)) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(error) => fail(error),
        };
    }
    let every = match words.option("--every").map(str::parse::<u64>).transpose() {
        Ok(every) => every.map(Duration::from_secs),
        Err(_) => return UsageError::new("bad --every: whole seconds").report(Some("idle")),
    };
    match sweeps(pipeline, every) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => fail(error),
    }
}

fn sweeps(pipeline: &str, every: Option<Duration>) -> Result<()> {
    let deployment = Deployment::open(pipeline)?;
    let stop = digest::interrupt_flag();
    loop {
        for found in idle::sweep(&deployment, &deployment.description)? {
            println!("{found}");
        }
        match every {
            Some(pause) if !stop.load(Ordering::Relaxed) => std::thread::sleep(pause),
            _ => return Ok(()),
        }
    }
}
