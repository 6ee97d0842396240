//! `p4bpf table load PIPELINE FILE`: many entries from a file (`-`: stdin),
//! one a line in `table add` syntax after the pipeline
//! (`TABLE KEY=VALUE... ACTION [PARAM=VALUE...] [--priority P]`); `#`
//! starts a comment. Every line is parsed and every entry encoded and
//! checked before anything is written, then each table's entries go in as
//! batches (`control::insert_batches`): all or nothing, and an error names
//! the line (FILE:LINE) that caused it.

use p4bpf_layout::MatchKind;
use p4bpf_runtime::control::{self, BatchError};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{names, RuntimeError};
use std::collections::HashMap;
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
    // Shapes with their names, found by name; a line mostly has the shape
    // of the line before, which is checked first without building a name.
    let mut shapes: Vec<(String, Shape)> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut last = 0;
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        let content = line.split('#').next().unwrap_or_default();
        if content.trim().is_empty() {
            continue;
        }
        let split = Line::split(content);
        let known = split.as_ref().and_then(|l| {
            last = match shapes.get(last) {
                Some((name, _)) if l.has_shape(name) => last,
                _ => *by_name.get(&l.shape())?,
            };
            Some((&shapes.get(last)?.1, l))
        });
        if let Some((spec, batch)) = known.and_then(|(shape, l)| shape.entry(l, &batches)) {
            if let Some(batch) = batches.get_mut(batch) {
                batch.specs.push(spec);
                batch.lines.push(number);
                continue;
            }
        }
        let (batch, shape) = parse_words(deployment, &mut batches, content)
            .map_err(|e| format!("{file}:{number}: {e}"))?;
        if let (Some(line), Some(shape)) = (split, shape) {
            by_name.insert(line.shape(), shapes.len());
            shapes.push((line.shape(), shape));
        }
        if let Some(batch) = batches.get_mut(batch) {
            batch.lines.push(number);
        }
    }
    Ok(batches)
}

/// A line the slow way: names resolved by `control::parse_entry`, whose
/// errors are the ones to show. Returns the batch the entry joined and the
/// shape to reuse for lines like it.
fn parse_words(
    deployment: &Deployment,
    batches: &mut Vec<TableEntries>,
    content: &str,
) -> Result<(usize, Option<Shape>), RuntimeError> {
    let words: Vec<String> = content.split_whitespace().map(str::to_string).collect();
    let (table_name, rest) = words
        .split_first()
        .ok_or_else(|| RuntimeError::Value("empty line".into()))?;
    let (rest, priority) = priority(rest).map_err(RuntimeError::Value)?;
    let table = names::table(&deployment.description, table_name)?;
    let spec = control::parse_entry(table, &rest, priority)?;
    let batch = match batches.iter().position(|b| b.table.name == table.name) {
        Some(index) => index,
        None => {
            batches.push(TableEntries {
                table: table.clone(),
                specs: Vec::new(),
                lines: Vec::new(),
            });
            batches.len() - 1
        }
    };
    let shape = Shape {
        batch,
        keys: spec.keys.iter().map(|(i, _)| *i).collect(),
        action: spec.action,
        params: spec.args.iter().map(|(i, _)| *i).collect(),
    };
    if let Some(entries) = batches.get_mut(batch) {
        entries.specs.push(spec);
    }
    Ok((batch, Some(shape)))
}

/// A line's words, borrowed: table, `KEY=VALUE`s, action, `PARAM=VALUE`s.
struct Line<'a> {
    table: &'a str,
    keys: Vec<(&'a str, &'a str)>,
    action: &'a str,
    params: Vec<(&'a str, &'a str)>,
    priority: Option<u32>,
}

impl<'a> Line<'a> {
    /// `None` for anything unusual: the slow path then says what is wrong.
    fn split(content: &'a str) -> Option<Line<'a>> {
        let mut words = content.split_whitespace();
        let table = words.next()?;
        let mut line = Line {
            table,
            keys: Vec::new(),
            action: "",
            params: Vec::new(),
            priority: None,
        };
        while let Some(word) = words.next() {
            if let Some(option) = word.strip_prefix("--") {
                let value = match option.strip_prefix("priority") {
                    Some("") => words.next()?,
                    Some(joined) => joined.strip_prefix('=')?,
                    None => return None,
                };
                line.priority = Some(value.parse().ok()?);
                continue;
            }
            match (word.split_once('='), line.action.is_empty()) {
                (Some(pair), true) => line.keys.push(pair),
                (Some(pair), false) => line.params.push(pair),
                (None, true) => line.action = word,
                _ => return None,
            }
        }
        (!line.action.is_empty()).then_some(line)
    }

    /// The names that decide how the line resolves.
    fn shape(&self) -> String {
        let mut shape = format!("{}\t{}", self.table, self.action);
        for (name, _) in &self.keys {
            shape.push_str("\tk");
            shape.push_str(name);
        }
        for (name, _) in &self.params {
            shape.push_str("\tp");
            shape.push_str(name);
        }
        shape
    }

    /// Whether `shape` is this line's shape (as `shape()` would spell it).
    fn has_shape(&self, shape: &str) -> bool {
        let mut rest = shape;
        let mut eat = |part: &str| match rest.strip_prefix(part) {
            Some(after) => {
                rest = after;
                true
            }
            None => false,
        };
        eat(self.table)
            && eat("\t")
            && eat(self.action)
            && self.keys.iter().all(|(name, _)| eat("\tk") && eat(name))
            && self.params.iter().all(|(name, _)| eat("\tp") && eat(name))
            && rest.is_empty()
    }
}

/// How lines of one shape resolve: their batch, the key field of each key
/// word, the action, the parameter of each parameter word.
struct Shape {
    batch: usize,
    keys: Vec<usize>,
    action: usize,
    params: Vec<usize>,
}

impl Shape {
    /// The entry of `line`, if its values have the forms their match kinds
    /// need (else the slow path reports it).
    fn entry(&self, line: &Line, batches: &[TableEntries]) -> Option<(EntrySpec, usize)> {
        let table = &batches.get(self.batch)?.table;
        if self.keys.len() != line.keys.len() || self.params.len() != line.params.len() {
            return None;
        }
        let mut keys = Vec::with_capacity(self.keys.len());
        for (index, (_, value)) in self.keys.iter().zip(&line.keys) {
            let needs = match table.keys.get(*index)?.match_kind {
                MatchKind::Lpm => "/",
                MatchKind::Ternary => "&&&",
                _ => "",
            };
            if !value.contains(needs) {
                return None;
            }
            keys.push((*index, value.to_string()));
        }
        let args = self.params.iter().zip(&line.params);
        let spec = EntrySpec {
            keys,
            action: self.action,
            args: args.map(|(i, (_, v))| (*i, v.to_string())).collect(),
            priority: line.priority,
        };
        Some((spec, self.batch))
    }
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

#[cfg(test)]
mod tests {
    use super::Line;

    fn line(text: &str) -> Line<'_> {
        Line::split(text).expect("a plain entry line")
    }

    #[test]
    fn a_line_has_exactly_the_shape_it_spells() {
        let first = line("hosts dst=10.0.0.1 send port=1");
        let shape = first.shape();
        assert!(line("hosts dst=10.9.9.9 send port=7").has_shape(&shape));
        for other in [
            "hosts dst=10.0.0.1 send port=1 queue=2",
            "hosts dst=10.0.0.1 send prt=1",
            "hosts dst=10.0.0.1 sendx port=1",
            "host dst=10.0.0.1 send port=1",
            "hosts dst=10.0.0.1 src=1.2.3.4 send port=1",
            "hosts send port=1",
            "hosts dst=10.0.0.1 drop",
        ] {
            assert!(!line(other).has_shape(&shape), "{other}");
            assert_ne!(line(other).shape(), shape, "{other}");
        }
    }
}
