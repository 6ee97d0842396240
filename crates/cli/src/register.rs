//! `p4bpf register get|set`: a pinned pipeline's register cells by P4
//! name, numbers or (for registers of structs or wide values) fields. A
//! thin shell over `p4bpf_runtime::stf::registers`, which STF's
//! `register_read` and `register_write` use too.

use crate::args::{Args, UsageError};
use crate::control_output::{fail, print_lines, split};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::int_value::Ints;
use p4bpf_runtime::stf::registers;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf register get PIPELINE REGISTER INDEX
       p4bpf register set PIPELINE REGISTER INDEX VALUE

get    prints `register NAME[INDEX] = VALUE`.
set    writes VALUE into the cell at INDEX.
INDEX is a number, or for a register indexed by a struct or a bit string
wider than 64 bits, its fields' values in order, comma-separated
(`5,0xffffffffffff`); a struct VALUE is written the same way and shown
with its fields named (`{port=0xda, srcAddr=0x55}`).
An int<W> register, field or index takes a number from -2^(W-1) to
2^(W-1)-1 (`-5`, `-0x5`) and shows as one; a bit<W> takes no sign.
The pipeline keeps the registers of structs or wide values and those with
an initial value; `p4bpf test` reaches every register.
";

pub fn run(words: Args) -> ExitCode {
    let words = match split(words, &[]) {
        Ok(words) => words,
        Err(error) => return error.report(Some("register")),
    };
    let result = match words.positional.as_slice() {
        [get, pipeline, name, index] if get == "get" => Deployment::open(pipeline).and_then(|d| {
            registers::read(&d, &d.description, name, index).map(|line| vec![line])
        }),
        [set, pipeline, name, index, value] if set == "set" => {
            Deployment::open(pipeline).and_then(|d| {
                let strict = Ints::Strict; // an operator's -5, not an int's bits
                registers::write(&d, &d.description, name, index, value, strict).map(|()| vec![])
            })
        }
        _ => {
            return UsageError::new(
                "expected `register get PIPELINE REGISTER INDEX` or `register set PIPELINE REGISTER INDEX VALUE`",
            )
            .report(Some("register"))
        }
    };
    match result {
        Ok(lines) => print_lines(&lines),
        Err(error) => fail(error),
    }
}
