//! Registers of structs and of bit strings wider than 64 bits with an
//! initial value (PSA 1.2 `Register(bit<32> size, T initial_value)`,
//! `tests/tcfix_register/initial.p4`): a struct of 8-, 48- and 104-bit
//! fields at a number and at a struct index, and a 100-bit register;
//! `nested.p4`: a struct with a bool and a nested struct, at a nested
//! struct index.
//! Untouched cells read the initial value in the data path and through
//! the control plane (STF `register_read`, `p4bpf register get`); writes
//! from either side read back as written; a reset cell reads the initial
//! value again (a struct-indexed register's reset deletes its entries: it
//! wrote u32 keys into its hash map, which the kernel refused). Before,
//! such registers were refused with a diagnostic. The kernel runs skip
//! without root/BPF; the user target needs clang.

mod common;

use std::path::{Path, PathBuf};

fn own(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/tcfix_register")
        .join(name)
}

/// What `initial.stf`'s `register_read`s must report, at every target.
const READS: &[&str] = &[
    "initial.stf:23: register In.cells[0] = {a=0x5a, b=0x102030405ff, w=0x11223344556677889900aabbcc}",
    "initial.stf:24: register In.wide[0] = 0xf0000000000000000000000a5",
    "initial.stf:25: register In.keyed[9,3] = {a=0x1, b=0xee, w=0x1}",
    "initial.stf:28: register In.cells[2] = {a=0x1, b=0x2, w=0x3}",
    "initial.stf:37: register In.cells[1] = {a=0x5a, b=0x102030405ff, w=0x11223344556677889900aabbcc}",
    "initial.stf:45: register In.keyed[7,1] = {a=0x1, b=0xee, w=0x1}",
];

/// The same for `nested.stf`.
const NESTED_READS: &[&str] = &[
    "nested.stf:14: register In.cells[0,0,0] = {flag=0x1, inner.port=0x1234, inner.tag=0xabcdef0123456789ff, tail=0x7e}",
];

/// Both scripts pass at `target`, their reads reported as above.
fn scripts_pass(target: &[&str]) {
    script_passes("initial", 7, READS, target);
    script_passes("nested", 4, NESTED_READS, target);
}

fn script_passes(stem: &str, packets: usize, reads: &[&str], target: &[&str]) {
    let (p4, stf) = (own(&format!("{stem}.p4")), own(&format!("{stem}.stf")));
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    let args = [&["test", p4.as_ref(), stf.as_ref()][..], target].concat();
    let out = common::p4bpf(&args);
    let text = common::stdout(&out) + &common::stderr(&out);
    let label = format!("{stem} {}", target.join(" "));
    assert!(out.status.success(), "{label}:\n{text}");
    let pass = format!("PASS: {packets} packets, 0 failure(s)");
    assert!(text.contains(&pass), "{label}:\n{text}");
    for read in reads {
        assert!(text.contains(read), "{label}: no `{read}` in\n{text}");
    }
}

#[test]
fn initial_values_of_composite_registers_hold_in_user_space() {
    if std::process::Command::new("clang")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED tcfix_register in user space: clang is not installed");
        return;
    }
    scripts_pass(&["--target", "user", "--hook", "tc"]);
    scripts_pass(&["--target", "user", "--hook", "xdp"]);
}

#[test]
fn initial_values_of_composite_registers_hold_in_the_kernel() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tcfix_register: {why}");
        return;
    }
    scripts_pass(&["--target", "kernel", "--hook", "tc"]);
    scripts_pass(&["--target", "kernel", "--hook", "xdp"]);
}

/// `p4bpf register get|set` on a loaded pipeline: the initial value of an
/// untouched cell, by field, and a written value read back.
#[test]
fn the_register_cli_reads_initial_values_and_writes_values() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED tcfix_register cli: {why}");
        return;
    }
    let name = format!("tcfix_register_{}", std::process::id());
    let program = own("initial.p4");
    let p = program.to_string_lossy();
    let load = [
        "pipeline",
        "load",
        p.as_ref(),
        "--name",
        &name,
        "--hook",
        "tc",
    ];
    let out = common::p4bpf(&load);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let register = |args: &[&str]| common::p4bpf(&[&["register"][..], args].concat());
    let untouched = register(&["get", &name, "In.cells", "3"]);
    let keyed = register(&["get", &name, "In.keyed", "5,0xff"]);
    let set = register(&["set", &name, "In.wide", "1", "0xabc"]);
    let again = register(&["get", &name, "In.wide", "1"]);
    let _ = common::p4bpf(&["pipeline", "unload", &name]);
    assert_eq!(
        common::stdout(&untouched).trim(),
        "register In.cells[3] = {a=0x5a, b=0x102030405ff, w=0x11223344556677889900aabbcc}"
    );
    assert_eq!(
        common::stdout(&keyed).trim(),
        "register In.keyed[5,0xff] = {a=0x1, b=0xee, w=0x1}"
    );
    assert!(set.status.success(), "{}", common::stderr(&set));
    assert_eq!(common::stdout(&again).trim(), "register In.wide[1] = 0xabc");
}

/// P4Info gives a struct register its struct's name and the struct (and
/// the ones it holds) in `type_info`; it said `bitwidth: 0` before.
#[test]
fn p4info_names_a_struct_register_type_and_describes_it() {
    let dir = common::scratch_dir("tcfix_register_p4info");
    let program = own("nested.p4");
    let out_dir = dir.to_string_lossy();
    let out = common::p4bpf(&["compile", &program.to_string_lossy(), "-o", &out_dir]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let p4info = std::fs::read_to_string(dir.join("nested.p4info.txtpb")).unwrap_or_default();
    let register = p4info.split("registers {").nth(1).unwrap_or_default();
    assert!(
        register
            .contains("type_spec {\n    struct {\n      name: \"cell_t\"\n    }\n  }\n  size: 8"),
        "{p4info}"
    );
    for wanted in [
        "key: \"cell_t\"",
        "key: \"inner_t\"",
        "name: \"flag\"\n        type_spec {\n          bool {",
        "name: \"tag\"\n        type_spec {\n          bitstring {\n            bit {\n              bitwidth: 72",
    ] {
        assert!(p4info.contains(wanted), "no `{wanted}` in\n{p4info}");
    }
}
