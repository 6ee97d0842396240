//! `p4bpf meter set`: a pinned pipeline's meter cell by P4 name. A thin
//! shell over `p4bpf_runtime::meter`.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::meter::{self, MeterConfig};
use p4bpf_runtime::names;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf meter set PIPELINE METER INDEX PIR PBURST CIR CBURST
       p4bpf meter set PIPELINE DIRECT_METER FIELD=VALUE... PIR PBURST CIR CBURST
       p4bpf meter get PIPELINE DIRECT_METER FIELD=VALUE...

set    configures the two-rate three-colour meter (RFC 2698) at INDEX:
       peak and committed rates in packets or bytes (as the meter counts)
       per second, PIR >= CIR, and their bursts; both buckets start full.
       A meter never set colours every packet as it came (GREEN).
       A direct meter (one per table entry) is set in the entry the key
       names; `get` prints its rates and bursts.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("meter")),
    };
    let [command, pipeline, name, numbers @ ..] = words.positional.as_slice() else {
        return usage("expected `meter set PIPELINE METER INDEX PIR PBURST CIR CBURST`");
    };
    if let Some(exit) = crate::direct::meter(command, pipeline, name, numbers) {
        return exit;
    }
    if command != "set" {
        return usage(&format!("unknown meter command `{command}` (set)"));
    }
    let numbers: Result<Vec<u64>, _> = numbers.iter().map(|n| n.parse::<u64>()).collect();
    let Ok([index, pir, pburst, cir, cburst]) = numbers.as_deref() else {
        return usage("expected INDEX PIR PBURST CIR CBURST as five numbers");
    };
    let Ok(index) = u32::try_from(*index) else {
        return usage(&format!("meter index {index} is too large"));
    };
    let config = MeterConfig {
        pir: *pir,
        pburst: *pburst,
        cir: *cir,
        cburst: *cburst,
    };
    let result = Deployment::open(pipeline).and_then(|deployment| {
        let found = names::meter(&deployment.description, name)?;
        meter::set(&deployment, found, index, config)
    });
    match result {
        Ok(()) => print_lines(&[]),
        Err(error) => fail(error),
    }
}

fn usage(why: &str) -> ExitCode {
    UsageError::new(why.to_string()).report(Some("meter"))
}
