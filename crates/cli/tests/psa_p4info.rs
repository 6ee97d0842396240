//! Our P4Info against p4c's for the PSA corpus: every `.p4info.txtpb` of
//! `psa-ebpf/` and `psa-ebpf-examples/` whose program compiles must have
//! the same ids and names (tables, match fields, actions, parameters,
//! action profiles, counters, meters, registers, digests). Doc fields, aliases and
//! annotations are not compared.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

/// The top-level P4Info entities compared, by their text-format field.
const ENTITIES: [&str; 10] = [
    "tables",
    "actions",
    "action_profiles",
    "counters",
    "direct_counters",
    "meters",
    "direct_meters",
    "registers",
    "digests",
    "value_sets",
];

/// What the PTF suite compiles its programs with (its `common.py`).
const DEFINES: [&str; 8] = [
    "-D",
    "PORT0=0",
    "-D",
    "PORT1=1",
    "-D",
    "PORT2=2",
    "-D",
    "PSA_RECIRC=3",
];

/// The `id` and `name` of the block being read.
/// The block naming a field's or parameter's user-defined type.
const TYPE_NAME: &str = "type_name";

#[derive(Default)]
struct Pending {
    id: String,
    name: String,
}

/// Ids and names of `text`'s entities, their match fields and parameters,
/// one line each: `tables 33554433 ingress.t`,
/// `tables/ingress.t/match_fields 1 hdr.eth.dst`.
fn ids_and_names(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut path: Vec<String> = vec![];
    let mut entity = String::new();
    let mut item = Pending::default();
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(block) = line.strip_suffix(" {").filter(|b| !b.contains(':')) {
            // A field's `type_name { name: "PortId_t" }` names its type, not the field.
            if block != TYPE_NAME {
                item = Pending::default();
            }
            path.push(block.to_string());
            continue;
        }
        if line == "}" {
            let closed = path.join("/");
            path.pop();
            if path.len() == 1 && ENTITIES.contains(&path[0].as_str()) {
                if closed.ends_with("/preamble") {
                    entity = item.name.clone();
                    found.insert(format!("{} {} {}", path[0], item.id, item.name));
                } else if closed.ends_with("/match_fields") || closed.ends_with("/params") {
                    let field = closed.rsplit('/').next().unwrap_or_default();
                    found.insert(format!(
                        "{}/{entity}/{field} {} {}",
                        path[0], item.id, item.name
                    ));
                }
            }
            continue;
        }
        // References between entities: a table's action profile and the
        // tables an action profile serves.
        let reference = ["implementation_id: ", "table_ids: "]
            .into_iter()
            .find_map(|field| Some((field, line.strip_prefix(field)?)));
        if let (Some((field, id)), [top]) = (reference, path.as_slice()) {
            found.insert(format!(
                "{top}/{entity}/{}{id}",
                field.trim_end_matches(' ')
            ));
        }
        if path.last().is_some_and(|b| b == TYPE_NAME) {
            continue;
        }
        if let Some(id) = line.strip_prefix("id: ") {
            item.id = id.to_string();
        } else if let Some(name) = line.strip_prefix("name: ") {
            item.name = name.trim_matches('"').to_string();
        }
    }
    found
}

/// Ours against p4c's for one corpus file: Ok(entries matched), or what
/// differs, or why there is nothing to compare.
fn compare(reference: &Path, scratch: &Path) -> Result<usize, String> {
    let name = reference
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let stem = name.trim_end_matches(".p4info.txtpb");
    let program = reference.with_file_name(format!("{stem}.p4"));
    if !program.exists() {
        return Err("no program beside it".into());
    }
    let out = scratch.join(stem);
    let program_arg = program.to_string_lossy();
    let out_arg = out.to_string_lossy();
    // At TC, where copies (l2l3-acl's multicast) compile; P4Info does not
    // depend on the hook.
    let mut args = vec![
        "compile",
        program_arg.as_ref(),
        "-o",
        out_arg.as_ref(),
        "--hook",
        "tc",
    ];
    args.extend(DEFINES);
    let compiled = common::p4bpf(&args);
    if !compiled.status.success() {
        let stderr = common::stderr(&compiled);
        let first = stderr.lines().next().unwrap_or_default();
        return Err(format!("does not compile: {first}"));
    }
    let ours = std::fs::read_to_string(out.join(name)).map_err(|e| e.to_string())?;
    let theirs = std::fs::read_to_string(reference).map_err(|e| e.to_string())?;
    let (ours, theirs) = (ids_and_names(&ours), ids_and_names(&theirs));
    if ours != theirs {
        let missing: Vec<_> = theirs.difference(&ours).collect();
        let extra: Vec<_> = ours.difference(&theirs).collect();
        return Err(format!(
            "DIFFERS: p4c only {missing:?}; ours only {extra:?}"
        ));
    }
    Ok(theirs.len())
}

/// P4Info files whose programs compile but whose P4Info still differs from
/// p4c's, and why; each must still differ.
const KNOWN_DIFFERENT: &[(&str, &str)] = &[];

#[test]
fn psa_corpus_p4info_ids_and_names_match_p4c() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("SKIPPED psa_corpus_p4info: ../shared/corpus/p4c is absent");
        return;
    };
    let scratch = common::scratch_dir("psa_p4info");
    let mut matched = 0;
    let mut differing = vec![];
    for folder in ["psa-ebpf", "psa-ebpf-examples"] {
        for reference in common::files_where(&corpus.join(folder), |n| n.ends_with(".p4info.txtpb"))
        {
            let shown = reference
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            match compare(&reference, &scratch) {
                Ok(_) if KNOWN_DIFFERENT.iter().any(|(file, _)| *file == shown) => differing.push(
                    format!("{folder}/{shown} now matches: remove it from KNOWN_DIFFERENT"),
                ),
                Ok(entries) => {
                    matched += 1;
                    eprintln!("{folder}/{shown}: same ids and names ({entries} entries)");
                }
                Err(why) if why.starts_with("DIFFERS") => {
                    match KNOWN_DIFFERENT.iter().find(|(file, _)| *file == shown) {
                        Some((_, reason)) => eprintln!("{folder}/{shown}: differs: {reason}"),
                        None => differing.push(format!("{folder}/{shown}: {why}")),
                    }
                }
                Err(why) => eprintln!("{folder}/{shown}: not compared: {why}"),
            }
        }
    }
    eprintln!("{matched} PSA P4Info files have p4c's ids and names");
    assert!(differing.is_empty(), "{}", differing.join("\n"));
    assert!(matched >= 10, "only {matched} PSA P4Info files match");
}

#[test]
fn the_text_parser_finds_entities_fields_and_params() {
    let text = "tables {\n  preamble {\n    id: 2\n    name: \"c.t\"\n    alias: \"t\"\n  }\n  match_fields {\n    id: 1\n    name: \"h.x\"\n    bitwidth: 8\n  }\n  action_refs {\n    id: 7\n  }\n}\nactions {\n  preamble {\n    id: 7\n    name: \"c.a\"\n  }\n  params {\n    id: 1\n    name: \"port\"\n  }\n}\ntype_info {\n}\n";
    let text = text.replace(
        "    bitwidth: 8\n",
        "    bitwidth: 8\n    type_name {\n      name: \"T\"\n    }\n",
    );
    let found: Vec<String> = ids_and_names(&text).into_iter().collect();
    assert_eq!(
        found,
        [
            "actions 7 c.a",
            "actions/c.a/params 1 port",
            "tables 2 c.t",
            "tables/c.t/match_fields 1 h.x",
        ]
    );
}
