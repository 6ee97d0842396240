//! `p4bpf graph`: every example program is drawn, and its pictures name
//! every parser state and every table the program declares.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

use common::{p4bpf, scratch_dir, stderr};
use std::path::{Path, PathBuf};

/// The example programs: examples/, bench/'s study programs and our own
/// shapes (files without a `main` are include files, not programs).
fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    for dir in ["../../examples", "../../bench/p4", "tests/graph"] {
        let entries = std::fs::read_dir(root.join(dir)).expect("example folder");
        for entry in entries.flatten() {
            let path = entry.path();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if path.extension().is_some_and(|e| e == "p4") && text.contains(" main;") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Names declared with `keyword NAME` in the program text, found without
/// the front end so the check does not share its mistakes.
fn declared(text: &str, keyword: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let is_name = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_alphanumeric() || c == '_');
    words
        .windows(3)
        .filter(|w| w[0] == keyword && (w[1].ends_with('{') || w[2].starts_with('{')))
        .map(|w| w[1].trim_end_matches('{').to_string())
        .filter(|name| is_name(name))
        .collect()
}

/// The program's text followed by that of the files it includes with
/// quotes (bench/'s programs share their parser that way).
fn with_quoted_includes(program: &Path) -> String {
    let text = std::fs::read_to_string(program).expect("program");
    let mut all = text.clone();
    for line in text.lines() {
        if let Some(name) = line.trim().strip_prefix("#include \"") {
            let name = name.trim_end_matches('"');
            let dir = program.parent().expect("folder");
            all.push_str(&std::fs::read_to_string(dir.join(name)).expect("included file"));
        }
    }
    all
}

/// Every text element of every SVG in `dir`.
fn svg_texts(dir: &Path) -> Vec<String> {
    let mut texts = vec![];
    for entry in std::fs::read_dir(dir).expect("output folder").flatten() {
        if entry.path().extension().is_some_and(|e| e == "svg") {
            let svg = std::fs::read_to_string(entry.path()).expect("svg");
            for piece in svg.split("<text").skip(1) {
                let inner = piece.split_once('>').map(|(_, rest)| rest).unwrap_or("");
                texts.push(inner.split('<').next().unwrap_or("").to_string());
            }
        }
    }
    texts
}

#[test]
fn pictures_name_every_state_and_table() {
    let programs = programs();
    assert!(programs.len() >= 3, "found only {programs:?}");
    for program in programs {
        let stem = program.file_stem().and_then(|s| s.to_str()).unwrap_or("p");
        let out_dir = scratch_dir(&format!("graph-{stem}"));
        let out = p4bpf(&[
            "graph",
            &program.display().to_string(),
            "-o",
            &out_dir.display().to_string(),
        ]);
        assert!(
            out.status.success(),
            "{}: {}\n(make test installs Graphviz; run scripts/install-deps.sh test)",
            program.display(),
            stderr(&out)
        );
        let texts = svg_texts(&out_dir);
        let text = with_quoted_includes(&program);
        let states = declared(&text, "state");
        assert!(
            !states.is_empty(),
            "{}: no parser states found",
            program.display()
        );
        for state in states {
            assert!(
                texts.contains(&state),
                "{}: state {state} not drawn",
                program.display()
            );
        }
        for table in declared(&text, "table") {
            let label = format!("table {table}");
            assert!(
                texts.contains(&label),
                "{}: {label} not drawn",
                program.display()
            );
        }
    }
}

#[test]
fn control_flow_follows_the_program() {
    let out_dir = scratch_dir("graph-flows");
    let program = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/graph/flows.p4");
    let out = p4bpf(&[
        "graph",
        &program.display().to_string(),
        "-o",
        &out_dir.display().to_string(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let dot = std::fs::read_to_string(out_dir.join("FlowSwitch.dot")).expect("FlowSwitch.dot");
    let node = |label: &str| {
        dot.lines()
            .find(|l| l.contains(&format!("label=\"{label}")))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("no node {label} in\n{dot}"))
            .to_string()
    };
    let (routes, vlan_ports, exit) = (node("table routes"), node("table vlan_ports"), node("exit"));
    // switch (routes.apply().action_run): the cases leave the table's node.
    assert!(
        dot.contains(&format!("{routes} -> {vlan_ports} [label=\"drop\"]")),
        "{dot}"
    );
    assert!(
        dot.contains(&format!("{routes} -> {exit} [label=\"default\"]")),
        "{dot}"
    );
    // `exit;` goes straight to the end.
    assert!(
        dot.contains(&format!("-> {exit} [label=\"exit\"]")),
        "{dot}"
    );
    let parser = std::fs::read_to_string(out_dir.join("FlowParser.dot")).expect("FlowParser.dot");
    assert!(
        parser.contains("[label=\"(0x8100, _)\"]"),
        "the stack loop: {parser}"
    );
    assert!(
        parser.contains("shape=doublecircle label=\"reject"),
        "{parser}"
    );
}

#[test]
fn a_program_with_errors_draws_nothing() {
    let out_dir = scratch_dir("graph-bad");
    let bad = common::write(&out_dir, "bad.p4", "control C() { apply { x = 1; } }\n");
    let out = p4bpf(&[
        "graph",
        &bad.display().to_string(),
        "-o",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("bad.p4:1:"), "{}", stderr(&out));
    assert!(!out_dir.join("C.svg").exists());
}
