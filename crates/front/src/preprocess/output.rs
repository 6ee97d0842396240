//! The translation unit being built: text plus the segment map back to the
//! sources.
//!
//! Rules: copied text maps byte for byte (neighbouring copies of one file
//! merge into one segment); expansion text maps as a whole to the
//! invocation. The total size is capped so that no input can make the
//! preprocessor use unbounded memory.

use crate::source::{FileId, Segment, SegmentKind, TranslationUnit};

/// Largest translation unit we build; P4 programs are far smaller.
pub const MAX_OUTPUT: usize = 16 << 20;

/// Where some source text maps to: a file and the offset of its first byte.
#[derive(Clone, Copy, Debug)]
pub struct Origin {
    pub file: FileId,
    pub offset: u32,
}

#[derive(Default)]
pub struct Output {
    unit: TranslationUnit,
}

/// The output would exceed [`MAX_OUTPUT`].
#[derive(Debug)]
pub struct TooLarge;

impl Output {
    /// Appends `text` copied from `origin`.
    pub fn copy(&mut self, text: &str, origin: Origin) -> Result<(), TooLarge> {
        if text.is_empty() {
            return Ok(());
        }
        let out_start = self.reserve(text.len())?;
        let continues = self.unit.segments.last().is_some_and(|last| {
            last.kind == SegmentKind::Copied
                && last.file == origin.file
                && last.src_start as usize + (out_start - last.out_start as usize)
                    == origin.offset as usize
        });
        if !continues {
            self.unit.segments.push(Segment {
                out_start: out_start as u32,
                file: origin.file,
                src_start: origin.offset,
                kind: SegmentKind::Copied,
            });
        }
        self.unit.text.push_str(text);
        Ok(())
    }

    /// Appends the `text` an invocation of `len` bytes at `origin` expands to.
    pub fn expanded(&mut self, text: &str, origin: Origin, len: u32) -> Result<(), TooLarge> {
        if text.is_empty() {
            return Ok(());
        }
        let out_start = self.reserve(text.len())?;
        self.unit.segments.push(Segment {
            out_start: out_start as u32,
            file: origin.file,
            src_start: origin.offset,
            kind: SegmentKind::Expanded { src_len: len },
        });
        self.unit.text.push_str(text);
        Ok(())
    }

    /// The last character written, to decide whether a space is needed.
    pub fn last_char(&self) -> Option<char> {
        self.unit.text.chars().next_back()
    }

    fn reserve(&self, len: usize) -> Result<usize, TooLarge> {
        let start = self.unit.text.len();
        if start + len > MAX_OUTPUT {
            return Err(TooLarge);
        }
        Ok(start)
    }

    pub fn finish(self) -> TranslationUnit {
        self.unit
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    #[test]
    fn adjacent_copies_merge_and_expansions_map_to_the_invocation() {
        let file = FileId(0);
        let mut out = Output::default();
        assert!(out.copy("ab", Origin { file, offset: 0 }).is_ok());
        assert!(out.copy("c", Origin { file, offset: 2 }).is_ok());
        assert!(out
            .expanded("(1 + 2)", Origin { file, offset: 3 }, 3)
            .is_ok());
        assert!(out.copy(";", Origin { file, offset: 6 }).is_ok());
        let unit = out.finish();
        assert_eq!(unit.segments.len(), 3);
        let loc = unit.resolve(Span::new(4, 5)).map(|l| (l.lo, l.hi));
        assert_eq!(loc, Some((3, 6)));
        assert_eq!(unit.resolve(Span::new(10, 11)).map(|l| l.lo), Some(6));
    }
}
