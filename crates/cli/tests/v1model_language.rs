//! P4_16 language features v1model programs use (`static_assert`,
//! constructor arguments of `main`'s blocks, non-const entries, arrays of
//! non-headers, extern parameters, ...): refusals of what cannot work,
//! named at their place; non-const entries changed by `p4bpf table` after
//! the load; the corpus programs that use the features compiling and
//! loading at both hooks. The features' behaviour on packets is checked by
//! the scripts of tests/v1model.

mod common;

use std::path::Path;

fn own(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/v1model")
        .join(name)
}

/// Compiles `stem.p4` of tests/v1model with `from` replaced by `to`;
/// asserts the compiler refuses it with `says` at `line:col` of the
/// variant.
fn refused(stem: &str, from: &str, to: &str, says: &str, place: &str) {
    let source = std::fs::read_to_string(own(&format!("{stem}.p4"))).expect("program");
    assert!(source.contains(from), "`{from}` not in {stem}.p4");
    let case = place.replace(':', "_");
    let dir = common::scratch_dir(&format!("v1model_language_{stem}_{case}"));
    let program = common::write(&dir, "variant.p4", &source.replacen(from, to, 1));
    let out_dir = dir.join("out");
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &out_dir.to_string_lossy(),
    ]);
    let err = common::stderr(&out);
    assert!(!out.status.success(), "{stem} variant compiled: {to}");
    assert!(err.contains(says), "{stem}: {err}");
    assert!(
        err.contains(&format!("variant.p4:{place}: error")),
        "{stem}: not at {place}: {err}"
    );
}

#[test]
fn a_false_static_assert_is_an_error_with_its_message() {
    refused(
        "static_assert",
        "PORTS < 8, \"ports must fit bit<3>\"",
        "PORTS < 4, \"ports must fit bit<2>\"",
        "static assertion failed: ports must fit bit<2>",
        "9:24",
    );
}

#[test]
fn a_static_assert_of_a_run_time_value_is_refused() {
    refused(
        "static_assert",
        "static_assert(PORTS > 1);",
        "static_assert(type > 1);",
        "`static_assert` needs a condition known at compile time",
        "16:5",
    );
}

/// A loaded pipeline, unloaded when dropped.
struct Loaded(String);

impl Drop for Loaded {
    fn drop(&mut self) {
        let _ = common::p4bpf(&["pipeline", "unload", &self.0]);
    }
}

fn table(pipeline: &str, args: &[&str]) -> String {
    let mut all = vec!["table"];
    all.extend_from_slice(args);
    let out = common::p4bpf(&all);
    assert!(
        out.status.success(),
        "table {args:?}: {}",
        common::stderr(&out)
    );
    common::stdout(&out)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect::<String>()
        .replace(pipeline, "PIPELINE")
}

#[test]
fn initial_entries_are_the_control_planes_after_the_load() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED initial_entries_are_the_control_planes_after_the_load: {why}");
        return;
    }
    let name = format!("vinit{}", std::process::id());
    let program = own("initial_entries.p4");
    let out = common::p4bpf(&[
        "pipeline",
        "load",
        &program.to_string_lossy(),
        "--name",
        &name,
    ]);
    assert!(out.status.success(), "load: {}", common::stderr(&out));
    let _loaded = Loaded(name.clone());
    let ports = table(&name, &["dump", &name, "MyIngress.ports"]);
    assert_eq!(ports.lines().count(), 2, "{ports}");
    assert!(
        ports.contains("hdr.eth.type=2048\tMyIngress.to\tport=2"),
        "{ports}"
    );
    let marks = table(&name, &["dump", &name, "MyIngress.marks"]);
    assert!(
        marks.contains("MyIngress.mark\tm=12\tpriority=100"),
        "{marks}"
    );
    assert!(
        marks.contains("MyIngress.mark\tm=11\tpriority=45"),
        "{marks}"
    );
    // Smallest wins in P4: 10, 20, 21 are installed as 12, 2, 1.
    let classes = table(&name, &["dump", &name, "MyIngress.classes"]);
    assert!(
        classes.contains("MyIngress.classify\tc=16\tpriority=12"),
        "{classes}"
    );
    assert!(
        classes.contains("MyIngress.classify\tc=48\tpriority=1"),
        "{classes}"
    );

    table(
        &name,
        &["del", &name, "MyIngress.ports", "hdr.eth.type=0x86dd"],
    );
    table(
        &name,
        &[
            "modify",
            &name,
            "MyIngress.ports",
            "hdr.eth.type=0x0800",
            "MyIngress.to",
            "port=7",
        ],
    );
    let ports = table(&name, &["dump", &name, "MyIngress.ports"]);
    assert_eq!(ports, "hdr.eth.type=2048\tMyIngress.to\tport=7\n");
    table(
        &name,
        &[
            "del",
            &name,
            "MyIngress.marks",
            "hdr.eth.dst=0x101&&&0xffffffffffff",
            "--priority",
            "100",
        ],
    );
    let marks = table(&name, &["dump", &name, "MyIngress.marks"]);
    assert_eq!(marks.lines().count(), 2, "{marks}");
    assert!(!marks.contains("priority=100"), "{marks}");
}

#[test]
fn initial_entries_of_a_table_with_an_action_profile_are_refused() {
    refused(
        "initial_entries",
        "        default_action = to(1);\n",
        "        implementation = action_profile(4);\n",
        "takes its entries from the control plane",
        "26:5",
    );
}

#[test]
fn a_run_time_index_into_an_array_of_non_headers_is_refused() {
    refused(
        "arrays",
        "bit<4> first = hdr.tags.nibbles[0];",
        "bit<4> first = hdr.tags.nibbles[hdr.tags.count[1:0]];",
        "an index into a tuple or an array of non-headers must be known at compile time",
        "30:41",
    );
}

#[test]
fn a_control_with_extern_parameters_is_applied_once_per_instance() {
    refused(
        "extern_params",
        "count_others.apply(slot = 0, seen = others, hdr = hdr);",
        "count_ones.apply(hdr, others, 0);",
        "`count_ones` takes extern instances as parameters: the eBPF target applies such a control instance once",
        "37:13",
    );
}

/// Corpus programs each needing one of these features, loaded at both
/// hooks.
const CORPUS_PROGRAMS: &[&str] = &[
    "array1.p4",
    "array2.p4",
    "init-entries-bmv2.p4",
    "issue1560-bmv2.p4",
    "issue1958.p4",
    "issue3531.p4",
    "parser-unroll-t1-cond.p4",
    "pvs-struct-3-bmv2.p4",
];

#[test]
fn corpus_programs_using_these_features_load_at_both_hooks() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED corpus_programs_using_these_features_load_at_both_hooks: ../shared/corpus/p4c is absent");
        return;
    };
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED corpus_programs_using_these_features_load_at_both_hooks: {why}");
        return;
    }
    let mut failures = vec![];
    for program in CORPUS_PROGRAMS {
        let source = corpus.join("p4_16_samples").join(program);
        for hook in ["tc", "xdp"] {
            let name = format!("vlang{}{hook}", std::process::id());
            let out = common::p4bpf(&[
                "pipeline",
                "load",
                &source.to_string_lossy(),
                "--name",
                &name,
                "--hook",
                hook,
            ]);
            if out.status.success() {
                drop(Loaded(name));
            } else {
                failures.push(format!("{program} at {hook}: {}", common::stderr(&out)));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
