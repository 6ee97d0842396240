//! `p4bpf table load PIPELINE FILE`: many entries from a file (`-`: stdin),
//! one a line in `table add` syntax after the pipeline
//! (`TABLE KEY=VALUE... ACTION [PARAM=VALUE...] [--priority P]`); `#`
//! starts a comment. Every line is parsed and every entry encoded and
//! checked before anything is written (hash and lpm entries are encoded as
//! their line is read, into `control::TableBatch`), then each table's
//! entries go in as batches (`control::insert_table_batches`): all or
//! nothing, and an error names the line (FILE:LINE) that caused it.

use p4bpf_layout::{MatchKind, Pipeline};
use p4bpf_runtime::control::{self, BatchError, TableBatch};
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::entry::EntrySpec;
use p4bpf_runtime::{names, RuntimeError};
use std::collections::HashMap;
use std::io::Read;

/// The entries of each table, with the line each came from.
#[derive(Default)]
struct Loaded<'t> {
    batches: Vec<TableBatch<'t>>,
    lines: Vec<Vec<usize>>,
}

impl<'t> Loaded<'t> {
    /// Add `spec` to `batch`, from line `number`.
    fn push(&mut self, batch: usize, spec: &EntrySpec, number: usize) -> Result<(), RuntimeError> {
        if let (Some(entries), Some(lines)) =
            (self.batches.get_mut(batch), self.lines.get_mut(batch))
        {
            entries.push(spec)?;
            lines.push(number);
        }
        Ok(())
    }

    /// Add the entries of `later`, parsed from the text after our
    /// `lines_before` lines.
    fn append(&mut self, later: Loaded<'t>, lines_before: usize) -> Result<(), RuntimeError> {
        for (batch, lines) in later.batches.into_iter().zip(later.lines) {
            let index = self.batch_of(batch.table());
            if let (Some(entries), Some(numbers)) =
                (self.batches.get_mut(index), self.lines.get_mut(index))
            {
                entries.append(batch)?;
                numbers.extend(lines.iter().map(|n| lines_before + n));
            }
        }
        Ok(())
    }

    /// The batch of `table`, opened if new.
    fn batch_of(&mut self, table: &'t p4bpf_layout::Table) -> usize {
        match self
            .batches
            .iter()
            .position(|b| b.table().name == table.name)
        {
            Some(index) => index,
            None => {
                self.batches.push(TableBatch::new(table));
                self.lines.push(Vec::new());
                self.batches.len() - 1
            }
        }
    }
}

/// Load `file` into `pipeline`; the message to print on success.
pub fn load(pipeline: &str, file: &str) -> Result<String, String> {
    let text = read(file)?;
    let deployment = Deployment::open_for_writing(pipeline).map_err(|e| e.to_string())?;
    let Loaded { batches, lines } = parse_on_two_threads(&deployment.description, file, &text)?;
    match control::insert_table_batches(&deployment, &batches) {
        Ok(count) => Ok(format!(
            "loaded {count} entries into {} tables",
            batches.len()
        )),
        Err(BatchError { at, error }) => {
            let line = at.and_then(|(b, e)| lines.get(b).and_then(|l| l.get(e)));
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

/// Parse `text`, a long one as two halves, the second on another thread
/// (the machine's other core), joined in file order. Each half reports
/// its first bad line, so the first half's error is the file's first.
fn parse_on_two_threads<'t>(
    pipeline: &'t Pipeline,
    file: &str,
    text: &str,
) -> Result<Loaded<'t>, String> {
    let at = |lines_before: usize| {
        move |BadLine(number, error)| format!("{file}:{}: {error}", lines_before + number)
    };
    let Some((first, second)) = halves(text) else {
        return parse(pipeline, text)
            .map(|(loaded, _)| loaded)
            .map_err(at(0));
    };
    std::thread::scope(|scope| {
        let later = std::thread::Builder::new().spawn_scoped(scope, || parse(pipeline, second));
        let (mut loaded, lines) = parse(pipeline, first).map_err(at(0))?;
        let later = match later {
            Ok(thread) => thread
                .join()
                .map_err(|_| format!("{file}: a parsing thread stopped"))?,
            // No second thread: this one parses the second half too.
            Err(_) => parse(pipeline, second),
        };
        let (later, _) = later.map_err(at(lines))?;
        loaded
            .append(later, lines)
            .map_err(|e| format!("{file}: {e}"))?;
        Ok(loaded)
    })
}

/// A bad line: its number in the text parsed, and what is wrong with it.
struct BadLine(usize, RuntimeError);

/// Below this many bytes a text is parsed on one thread.
const SPLIT_FROM: usize = 64 * 1024;

/// `text` cut after the line ending nearest its middle, if it is long.
fn halves(text: &str) -> Option<(&str, &str)> {
    let middle = text.len() / 2;
    let end = text
        .as_bytes()
        .get(middle..)?
        .iter()
        .position(|b| *b == b'\n')?;
    let (first, second) = text.split_at_checked(middle + end + 1)?;
    (text.len() >= SPLIT_FROM && !second.is_empty()).then_some((first, second))
}

/// The entries of `text`, and how many lines it has.
fn parse<'t>(pipeline: &'t Pipeline, text: &str) -> Result<(Loaded<'t>, usize), BadLine> {
    let mut loaded = Loaded::default();
    // Shapes with their names, found by name; a line mostly has the shape
    // of the line before, which is checked first without building a name.
    let mut shapes: Vec<(String, Shape)> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut last = 0;
    let mut scratch = EntrySpec::default();
    let mut words = Line::default();
    let mut lines = 0;
    for (number, line) in text.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        lines = number;
        let content = line.split('#').next().unwrap_or_default();
        if content.trim().is_empty() {
            continue;
        }
        let split = words.read(content).then_some(&words);
        let known = split.and_then(|l| {
            last = match shapes.get(last) {
                Some((name, _)) if l.has_shape(name) => last,
                _ => *by_name.get(&l.shape())?,
            };
            Some((&shapes.get(last)?.1, l))
        });
        let at_line = |e: RuntimeError| BadLine(number, e);
        if let Some(batch) = known.and_then(|(shape, l)| shape.fill(l, &loaded, &mut scratch)) {
            loaded.push(batch, &scratch, number).map_err(at_line)?;
            continue;
        }
        let (batch, spec, shape) = parse_words(pipeline, &mut loaded, content).map_err(at_line)?;
        loaded.push(batch, &spec, number).map_err(at_line)?;
        if let Some(line) = split {
            by_name.insert(line.shape(), shapes.len());
            shapes.push((line.shape(), shape));
        }
    }
    Ok((loaded, lines))
}

/// A line the slow way: names resolved by `control::parse_entry`, whose
/// errors are the ones to show. Returns the batch the entry is for, the
/// entry, and the shape to reuse for lines like it.
fn parse_words<'t>(
    pipeline: &'t Pipeline,
    loaded: &mut Loaded<'t>,
    content: &str,
) -> Result<(usize, EntrySpec, Shape), RuntimeError> {
    let words: Vec<String> = content.split_whitespace().map(str::to_string).collect();
    let (table_name, rest) = words
        .split_first()
        .ok_or_else(|| RuntimeError::Value("empty line".into()))?;
    let (rest, priority) = priority(rest).map_err(RuntimeError::Value)?;
    let table = names::table(pipeline, table_name)?;
    let spec = control::parse_entry(table, &rest, priority)?;
    let batch = loaded.batch_of(table);
    let shape = Shape {
        batch,
        keys: spec.keys.iter().map(|(i, _)| *i).collect(),
        action: spec.action,
        params: spec.args.iter().map(|(i, _)| *i).collect(),
    };
    Ok((batch, spec, shape))
}

/// A line's words, borrowed: table, `KEY=VALUE`s, action, `PARAM=VALUE`s
/// (one reused for every line: lines are many).
#[derive(Default)]
struct Line<'a> {
    table: &'a str,
    keys: Vec<(&'a str, &'a str)>,
    action: &'a str,
    params: Vec<(&'a str, &'a str)>,
    priority: Option<u32>,
}

impl<'a> Line<'a> {
    /// Read the words of `content`; false for anything unusual: the slow
    /// path then says what is wrong.
    fn read(&mut self, content: &'a str) -> bool {
        self.keys.clear();
        self.params.clear();
        self.action = "";
        self.priority = None;
        self.split(content).is_some()
    }

    fn split(&mut self, content: &'a str) -> Option<()> {
        let mut words = content.split_whitespace();
        self.table = words.next()?;
        let line = self;
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
        (!line.action.is_empty()).then_some(())
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
    /// Fill `spec` with the entry of `line` (reusing its buffers: lines
    /// are many), if its values have the forms their match kinds need
    /// (else the slow path reports it); returns the entry's batch.
    fn fill(&self, line: &Line, loaded: &Loaded, spec: &mut EntrySpec) -> Option<usize> {
        let table = loaded.batches.get(self.batch)?.table();
        if self.keys.len() != line.keys.len() || self.params.len() != line.params.len() {
            return None;
        }
        for (index, (_, value)) in self.keys.iter().zip(&line.keys) {
            let needs = match table.keys.get(*index)?.match_kind {
                MatchKind::Lpm => "/",
                MatchKind::Ternary => "&&&",
                _ => "",
            };
            if !value.contains(needs) {
                return None;
            }
        }
        let keys = self.keys.iter().zip(&line.keys);
        refill(&mut spec.keys, keys.map(|(i, (_, v))| (*i, *v)));
        let args = self.params.iter().zip(&line.params);
        refill(&mut spec.args, args.map(|(i, (_, v))| (*i, *v)));
        spec.action = self.action;
        spec.priority = line.priority;
        Some(self.batch)
    }
}

/// Make `pairs` the `given` ones, reusing the strings already there.
fn refill<'v>(pairs: &mut Vec<(usize, String)>, given: impl Iterator<Item = (usize, &'v str)>) {
    let mut count = 0;
    for (index, value) in given {
        match pairs.get_mut(count) {
            Some((i, text)) => {
                *i = index;
                text.clear();
                text.push_str(value);
            }
            None => pairs.push((index, value.to_string())),
        }
        count += 1;
    }
    pairs.truncate(count);
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
        let mut line = Line::default();
        assert!(line.read(text), "a plain entry line: {text}");
        line
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
