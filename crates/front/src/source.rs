//! Source files and positions.
//!
//! Every file the preprocessor reads is kept in a [`SourceMap`] under a
//! [`FileId`]. The preprocessor produces one [`TranslationUnit`]: a single
//! text the lexer reads, plus a table of segments that maps each byte of that
//! text back to the original file and offset. Later stages only ever hold a
//! [`Span`] (a byte range of the translation unit); diagnostics resolve it to
//! a [`SrcLoc`] (file + byte range in that file) for printing.

use std::path::{Path, PathBuf};

/// Index of a file in the [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// One file as read from disk (or one of the built-in architecture files).
#[derive(Debug)]
pub struct SourceFile {
    /// The path as shown in diagnostics.
    pub path: PathBuf,
    pub text: String,
    /// True for our own `p4include/` files embedded in the binary.
    pub builtin: bool,
    /// Byte offset of the first character of each line.
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: String, builtin: bool) -> SourceFile {
        let mut line_starts = vec![0];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| (i + 1) as u32),
        );
        SourceFile {
            path,
            text,
            builtin,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let col = self
            .text
            .get(start..offset as usize)
            .map_or(offset as usize - start, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }

    /// The text of a 1-based line, without its line terminator.
    pub fn line_text(&self, line: u32) -> &str {
        let Some(&start) = self.line_starts.get(line.saturating_sub(1) as usize) else {
            return "";
        };
        let rest = self.text.get(start as usize..).unwrap_or("");
        let end = rest.find('\n').unwrap_or(rest.len());
        rest[..end].trim_end_matches('\r')
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: u32) -> u32 {
        self.line_starts
            .get(line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(self.text.len() as u32)
    }
}

/// All files of one compilation.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// Every file, in the order they were added.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// The file already loaded from `path`, if any.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path == path)
            .map(|i| FileId(i as u32))
    }
}

/// A byte range `lo..hi` of the translation unit's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub fn new(lo: u32, hi: u32) -> Span {
        Span { lo, hi }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }
}

/// A byte range of one original file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SrcLoc {
    pub file: FileId,
    pub lo: u32,
    pub hi: u32,
}

/// How a run of translation-unit bytes relates to its origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentKind {
    /// Copied verbatim: byte `k` of the run is byte `src_start + k` of the file.
    Copied,
    /// Produced by a macro expansion: the whole run maps to the invocation,
    /// which spans `src_start..src_start + src_len` in the file.
    Expanded { src_len: u32 },
}

/// A run of the translation unit starting at `out_start` and continuing up
/// to the next segment's `out_start`.
#[derive(Clone, Copy, Debug)]
pub struct Segment {
    pub out_start: u32,
    pub file: FileId,
    pub src_start: u32,
    pub kind: SegmentKind,
}

/// The preprocessed program: one text and the map back to the sources.
#[derive(Debug, Default)]
pub struct TranslationUnit {
    pub text: String,
    /// Sorted by `out_start`; the first starts at 0 when `text` is non-empty.
    pub segments: Vec<Segment>,
}

impl TranslationUnit {
    /// The source text a span covers.
    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.lo as usize..span.hi as usize)
            .unwrap_or("")
    }

    /// Where the translation-unit byte `offset` came from.
    fn origin(&self, offset: u32) -> Option<(Segment, u32)> {
        let i = match self.segments.binary_search_by_key(&offset, |s| s.out_start) {
            Ok(i) => i,
            Err(0) => return None,
            Err(i) => i - 1,
        };
        let seg = self.segments[i];
        Some((seg, offset - seg.out_start))
    }

    /// Resolves a span to the file range it came from. A span that starts
    /// in one segment and ends in another is cut at the end of the first.
    pub fn resolve(&self, span: Span) -> Option<SrcLoc> {
        let (seg, delta) = self.origin(span.lo)?;
        Some(match seg.kind {
            SegmentKind::Copied => {
                let lo = seg.src_start + delta;
                let same_segment = self
                    .origin(span.hi.saturating_sub(1).max(span.lo))
                    .is_some_and(|(s, _)| s.out_start == seg.out_start);
                let hi = if same_segment {
                    lo + (span.hi - span.lo)
                } else {
                    lo + 1
                };
                SrcLoc {
                    file: seg.file,
                    lo,
                    hi,
                }
            }
            SegmentKind::Expanded { src_len } => SrcLoc {
                file: seg.file,
                lo: seg.src_start,
                hi: seg.src_start + src_len,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let f = SourceFile::new("a.p4".into(), "ab\ncd\n".into(), false);
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(4), (2, 2));
        assert_eq!(f.line_text(2), "cd");
    }

    #[test]
    fn spans_resolve_through_segments() {
        let tu = TranslationUnit {
            text: "abcXYZdef".into(),
            segments: vec![
                Segment {
                    out_start: 0,
                    file: FileId(0),
                    src_start: 10,
                    kind: SegmentKind::Copied,
                },
                Segment {
                    out_start: 3,
                    file: FileId(0),
                    src_start: 13,
                    kind: SegmentKind::Expanded { src_len: 5 },
                },
                Segment {
                    out_start: 6,
                    file: FileId(0),
                    src_start: 18,
                    kind: SegmentKind::Copied,
                },
            ],
        };
        assert_eq!(
            tu.resolve(Span::new(1, 2)),
            Some(SrcLoc {
                file: FileId(0),
                lo: 11,
                hi: 12
            })
        );
        assert_eq!(
            tu.resolve(Span::new(4, 5)),
            Some(SrcLoc {
                file: FileId(0),
                lo: 13,
                hi: 18
            })
        );
        assert_eq!(
            tu.resolve(Span::new(7, 9)),
            Some(SrcLoc {
                file: FileId(0),
                lo: 19,
                hi: 21
            })
        );
    }
}
