//! Parser value sets whose members are matched by ternary, lpm, range and
//! optional fields (P4_16 12.14's `@match` on the element's fields), as
//! programs of ours written to break the design (tests/vset_match/), at
//! kernel XDP, kernel TC and on the user target: a select matches when
//! some member matches; an empty set matches nothing; a full set refuses
//! one more member by name. Skips, saying why, without root/BPF or clang.

mod common;

use std::path::{Path, PathBuf};

const TARGETS: [&[&str]; 3] = [
    &["--target", "kernel", "--hook", "xdp"],
    &["--target", "kernel", "--hook", "tc"],
    &["--target", "user"],
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vset_match")
        .join(name)
}

/// Runs `script` against `program` on `target`: (succeeded, all output).
fn run(program: &Path, script: &Path, target: &[&str]) -> (bool, String) {
    let (p, s) = (program.to_string_lossy(), script.to_string_lossy());
    let mut args = vec!["test", p.as_ref(), s.as_ref()];
    args.extend_from_slice(target);
    let out = common::p4bpf(&args);
    let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
    (out.status.success(), text)
}

#[test]
fn inexact_members_match_by_their_fields_kinds_on_every_target() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED: {why}");
        return;
    }
    let program = fixture("inexact_sets.p4");
    let script = fixture("inexact_sets.stf");
    for target in TARGETS {
        let (ok, text) = run(&program, &script, target);
        let target = target.join(" ");
        assert!(ok, "at {target}:\n{text}");
        assert!(
            text.contains("PASS: 28 packets, 0 failure(s)"),
            "at {target}:\n{text}"
        );
    }
}

/// One member more than the program's size is refused, naming the set;
/// so are a value of another kind than the field's and one too wide.
#[test]
fn bad_members_are_refused_naming_the_set_field_and_value() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED: {why}");
        return;
    }
    let program = fixture("inexact_sets.p4");
    let dir = common::scratch_dir("vset_match_refused");
    let cases = [
        (
            "pvs_add InParser.bounds 1..2\npvs_add InParser.bounds 3..4\npvs_add InParser.bounds 5..6\n",
            "value set `InParser.bounds` is full (2 members)",
        ),
        (
            "pvs_add InParser.prefixes 10.0.0.0&&&255.0.0.0\n",
            "value set `InParser.prefixes`, field `addr`",
        ),
        (
            "pvs_add InParser.prefixes 10.0.0.0/33\n",
            "value set `InParser.prefixes`, field `addr`: `10.0.0.0/33` has a prefix length that is not 0..=32",
        ),
        (
            "pvs_add InParser.mixed 1 2..1 *\n",
            "value set `InParser.mixed`, field `b`: `2..1` ends below its start",
        ),
        (
            "pvs_add InParser.mixed 1 2 8\n",
            "value set `InParser.mixed`, field `c`: `8` does not fit in bit<3>",
        ),
        (
            "pvs_add InParser.mixed 1 2\n",
            "value set `InParser.mixed` takes one value per field (a, b, c), 2 given",
        ),
    ];
    for (i, (script, expected)) in cases.iter().enumerate() {
        let script = common::write(&dir, &format!("refused{i}.stf"), script);
        let (ok, text) = run(&program, &script, &["--target", "user"]);
        assert!(!ok, "{expected}: the script passed:\n{text}");
        assert!(text.contains(expected), "{expected}:\n{text}");
    }
}

/// A scanned set larger than the verifier follows is an error at its
/// name, saying how many slots it may have.
#[test]
fn scanned_sets_larger_than_the_verifier_follows_are_errors() {
    let source = std::fs::read_to_string(fixture("inexact_sets.p4")).expect("inexact_sets.p4");
    let from = "value_set<mixed_t>(4) mixed;";
    assert!(source.contains(from), "the mixed set changed");
    let dir = common::scratch_dir("vset_match_too_large");
    let program = common::write(
        &dir,
        "large.p4",
        &source.replacen(from, "value_set<mixed_t>(683) mixed;", 1),
    );
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &dir.join("out").to_string_lossy(),
    ]);
    let err = common::stderr(&out);
    assert!(!out.status.success(), "{err}");
    let line = source
        .lines()
        .position(|l| l.contains(from))
        .map_or(0, |l| l + 1);
    assert!(
        err.contains(&format!("large.p4:{line}:29: error: value set `InParser.mixed` has inexact members, so a select scans its 683 slots; the kernel verifier follows a scan of at most 682 slots of 3 field(s)")),
        "{err}"
    );
}

/// A select on one key against a set whose members are several fields,
/// or a field of another width, is an error at the set's name.
#[test]
fn a_set_that_does_not_fit_one_key_is_an_error() {
    let source = std::fs::read_to_string(fixture("inexact_sets.p4")).expect("inexact_sets.p4");
    let from = "transition select(hdr.probe.b) { bounds: member;";
    assert!(source.contains(from), "by_bounds changed");
    let dir = common::scratch_dir("vset_match_one_key");
    for (select, expected) in [
        (
            "transition select(hdr.probe.b) { mixed: member;",
            "error: value set `InParser.mixed` holds members of 16, 8, 3 bits; the select's key has 8 bits",
        ),
        (
            "transition select(hdr.probe.a) { bounds: member;",
            "error: value set `InParser.bounds` holds members of 8 bits; the select's key has 16 bits",
        ),
    ] {
        let program = common::write(&dir, "one_key.p4", &source.replacen(from, select, 1));
        let out = common::p4bpf(&["compile", &program.to_string_lossy(), "-o", &dir.join("out").to_string_lossy()]);
        let err = common::stderr(&out);
        let line = source.lines().position(|l| l.contains(from)).map_or(0, |l| l + 1);
        assert!(!out.status.success(), "{err}");
        assert!(err.contains(&format!("one_key.p4:{line}:42: {expected}")), "{err}");
    }
}

/// A kind p4bpf does not match, and an inexact member wider than the 64
/// bits a slot compares, are errors where the program says them.
#[test]
fn unsupported_member_kinds_are_errors_at_their_annotation() {
    let source = std::fs::read_to_string(fixture("inexact_sets.p4")).expect("inexact_sets.p4");
    let from = "struct bounds_t {\n    @match(range) bit<8> b;";
    assert!(source.contains(from), "bounds_t changed");
    let dir = common::scratch_dir("vset_match_unsupported");
    for (field, expected) in [
        (
            "@match(selector) bit<8> b;",
            "error: value set `InParser.bounds`: member `b` is `@match(selector)`; p4bpf matches value set members by exact, ternary, lpm, range or optional",
        ),
        (
            "@match(range) bit<72> b;",
            "error: value set `InParser.bounds`: member `b` is `@match(range)` over 72 bits",
        ),
    ] {
        let changed = source.replacen(from, &format!("struct bounds_t {{\n    {field}"), 1);
        let program = common::write(&dir, "unsupported.p4", &changed);
        let out = common::p4bpf(&[
            "compile",
            &program.to_string_lossy(),
            "-o",
            &dir.join("out").to_string_lossy(),
        ]);
        let err = common::stderr(&out);
        let line = changed.lines().position(|l| l.contains(field)).map_or(0, |l| l + 1);
        let at = format!("unsupported.p4:{line}:5: ");
        assert!(err.contains(&format!("{at}{}", expected.split_once(": ").map_or("", |e| e.0))), "{at}:\n{err}");
        assert!(err.contains(expected.split_once(": ").map_or("", |e| e.1)), "{expected}:\n{err}");
    }
}

/// `p4bpf value-set` on a loaded pipeline: members added in each kind's
/// form show as they are held, a bad one is refused naming the set, and
/// clear empties the set.
#[test]
fn the_value_set_command_adds_shows_and_clears_members() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED: {why}");
        return;
    }
    let pipeline = format!("vsetcli{}", std::process::id());
    let program = fixture("inexact_sets.p4");
    let loaded = common::p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &pipeline,
    ]);
    assert!(loaded.status.success(), "{}", common::stderr(&loaded));
    let run = |args: &[&str]| {
        let mut all = vec!["value-set"];
        all.extend_from_slice(args);
        common::p4bpf(&all)
    };
    let mixed = "InParser.mixed";
    let added = [
        run(&["add", &pipeline, mixed, "0x1200&&&0xff00", "10..20", "*"]),
        run(&["add", &pipeline, mixed, "0xffff", "0xff", "5"]),
        run(&["add", &pipeline, "InParser.prefixes", "10.0.0.0/8"]),
    ];
    let shown = common::stdout(&run(&["show", &pipeline, mixed]));
    let prefixes = common::stdout(&run(&["show", &pipeline, "InParser.prefixes"]));
    let refused = run(&["add", &pipeline, mixed, "1", "2"]);
    let cleared = run(&["clear", &pipeline, mixed]);
    let after = common::stdout(&run(&["show", &pipeline, mixed]));
    let _ = common::p4bpf(&["pipeline", "unload", &pipeline]);
    for out in &added {
        assert!(out.status.success(), "{}", common::stderr(out));
    }
    assert_eq!(
        shown,
        "0x1200&&&0xff00\t0x0a..0x14\t*\n0xffff&&&0xffff\t0xff..0xff\t0x05\n"
    );
    assert_eq!(prefixes, "0x0a000000/8\n");
    assert!(!refused.status.success());
    assert!(
        common::stderr(&refused)
            .contains("value set `InParser.mixed` takes one value per field (a, b, c), 2 given"),
        "{}",
        common::stderr(&refused)
    );
    assert!(cleared.status.success(), "{}", common::stderr(&cleared));
    assert_eq!(after, "");
}
