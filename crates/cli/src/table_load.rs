//! `p4bpf table load PIPELINE FILE`: many entries from a file (`-`: stdin),
//! one a line in `table add` syntax after the pipeline
//! (`TABLE KEY=VALUE... ACTION [PARAM=VALUE...] [--priority P]`); `#`
//! starts a comment. Every line is parsed and every entry encoded and
//! checked before anything is written, then each table's entries go in as
//! batches (`control::insert_batches`): all or nothing, and an error names
//! the line (FILE:LINE) that caused it.

use p4bpf_runtime::control::{self, BatchError};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{names, RuntimeError};
use std::io::Read;

/// The entries of one table, with the line each came from.
struct TableEntries {
    table: p4bpf_layout::Table,
    specs: Vec<EntrySpec>,
    lines: Vec<usize>,
}

/// Load `file` into `pipeline`; the message to print on success.
pub fn load(pipeline: &str, file: &str) -> Result<String, String> {
    let text = read(file)?;
    let deployment = Deployment::open_for_writing(pipeline).map_err(|e| e.to_string())?;
    let batches = parse(&deployment, file, &text)?;
    let views: Vec<(&p4bpf_layout::Table, &[EntrySpec])> = batches
        .iter()
        .map(|b| (&b.table, b.specs.as_slice()))
        .collect();
    match control::insert_batches(&deployment, &views) {
        Ok(count) => Ok(format!(
            "loaded {count} entries into {} tables",
            batches.len()
        )),
        Err(BatchError { at, error }) => {
            let line = at.and_then(|(b, e)| batches.get(b).and_then(|b| b.lines.get(e)));
            Err(match line {
                Some(line) => format!("{file}:{line}: {error} (nothing was loaded)"),
                None => format!("{file}: {error} (nothing was loaded)"),
            })
        }
    }
}

fn read(file: &str) -> Result<String, String> {
    let mut text = String::new();
    let read = match file {
        "-" => std::io::stdin().read_to_string(&mut text).map(|_| ()),
        path => std::fs::read_to_string(path).map(|t| text = t),
    };
    read.map_err(|e| format!("cannot read {file}: {e}"))?;
    Ok(text)
}

fn parse(deployment: &Deployment, file: &str, text: &str) -> Result<Vec<TableEntries>, String> {
    let mut batches: Vec<TableEntries> = Vec::new();
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        let content = line.split('#').next().unwrap_or_default();
        let words: Vec<String> = content.split_whitespace().map(str::to_string).collect();
        if words.is_empty() {
            continue;
        }
        let at_line = |e: RuntimeError| format!("{file}:{number}: {e}");
        let (table_name, rest) = words
            .split_first()
            .ok_or_else(|| at_line(RuntimeError::Value("empty".into())))?;
        let (rest, priority) = priority(rest).map_err(|e| at_line(RuntimeError::Value(e)))?;
        let table = names::table(&deployment.description, table_name).map_err(at_line)?;
        let spec = control::parse_entry(table, &rest, priority).map_err(at_line)?;
        let batch = match batches.iter().position(|b| b.table.name == table.name) {
            Some(index) => &mut batches[index],
            None => {
                batches.push(TableEntries {
                    table: table.clone(),
                    specs: Vec::new(),
                    lines: Vec::new(),
                });
                let last = batches.len() - 1;
                &mut batches[last]
            }
        };
        batch.specs.push(spec);
        batch.lines.push(number);
    }
    Ok(batches)
}

/// The words without `--priority P` (or `--priority=P`), and P.
fn priority(words: &[String]) -> Result<(Vec<String>, Option<u32>), String> {
    let mut rest = Vec::with_capacity(words.len());
    let mut priority = None;
    let mut iter = words.iter();
    while let Some(word) = iter.next() {
        let value = match word.strip_prefix("--priority") {
            Some("") => iter.next().map(String::as_str),
            Some(joined) if joined.starts_with('=') => Some(&joined[1..]),
            _ => {
                rest.push(word.clone());
                continue;
            }
        };
        let parsed = value.and_then(|v| v.parse::<u32>().ok());
        priority = Some(parsed.ok_or("`--priority` needs a whole number")?);
    }
    Ok((rest, priority))
}
