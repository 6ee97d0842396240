//! Preprocessing lexemes: splits source text into the pieces the
//! preprocessor reasons about (identifiers, numbers, strings, punctuators).
//!
//! Rules: comments and whitespace are skipped but remembered as "space
//! before" and "at line start" flags; a string ends at its closing quote or
//! at the end of the line; a backslash-newline is whitespace that does not
//! end a line (so directives continue over it). The scanner never slices a
//! multi-byte character, so every lexeme boundary is a `char` boundary.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LexKind {
    Ident,
    Number,
    Str,
    Punct,
    /// Any other character (stray `\`, `$`, non-ASCII letters...).
    Other,
}

/// One lexeme: a byte range of the scanned text.
#[derive(Clone, Copy, Debug)]
pub struct Lexeme {
    pub kind: LexKind,
    pub lo: usize,
    pub hi: usize,
    /// Whitespace or a comment comes right before it.
    pub space_before: bool,
    /// Nothing but whitespace and comments precedes it on its line.
    pub line_start: bool,
}

/// Punctuators made of several characters, longest first so that the first
/// match is the longest.
const PUNCTUATORS: &[&str] = &[
    "<<=", ">>=", "...", "##", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "->", "++", "--",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
];

#[derive(Clone)]
pub struct Scanner<'a> {
    text: &'a str,
    pos: usize,
    at_line_start: bool,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `text`, past a byte-order mark if any.
    pub fn new(text: &'a str) -> Scanner<'a> {
        let pos = if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        Scanner {
            text,
            pos,
            at_line_start: true,
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The next lexeme, reading across lines; `None` at the end of the text.
    pub fn next(&mut self) -> Option<Lexeme> {
        let space = self.skip_blank(false);
        self.lex(space)
    }

    /// The next lexeme of the current line; `None` at the end of the line,
    /// with the position left on the newline.
    pub fn next_in_line(&mut self) -> Option<Lexeme> {
        let space = self.skip_blank(true);
        self.lex(space)
    }

    /// Skips the rest of the current line; returns where its newline is.
    pub fn skip_line(&mut self) -> usize {
        while self.next_in_line().is_some() {}
        self.pos
    }

    /// Skips whitespace and comments; returns whether there were any. With
    /// `stop_at_newline` it stops before a newline that ends the line.
    fn skip_blank(&mut self, stop_at_newline: bool) -> bool {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        while let Some(&b) = bytes.get(self.pos) {
            match b {
                b'\n' if stop_at_newline => break,
                b'\n' => {
                    self.at_line_start = true;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | b'\x0b' | b'\x0c' => self.pos += 1,
                b'\\' => match self.continues_line(self.pos + 1) {
                    Some(next) => self.pos = next,
                    None => break,
                },
                b'/' if bytes.get(self.pos + 1) == Some(&b'/') => {
                    self.pos = self.text[self.pos..]
                        .find('\n')
                        .map_or(bytes.len(), |i| self.pos + i);
                }
                b'/' if bytes.get(self.pos + 1) == Some(&b'*') => {
                    self.pos = self.text[self.pos + 2..]
                        .find("*/")
                        .map_or(bytes.len(), |i| self.pos + 2 + i + 2);
                }
                _ => break,
            }
        }
        self.pos > start
    }

    /// If a newline (optionally after `\r`) starts at `at`, the position
    /// after it: used to recognise backslash-newline.
    fn continues_line(&self, at: usize) -> Option<usize> {
        let rest = self.text.as_bytes().get(at..)?;
        match rest {
            [b'\n', ..] => Some(at + 1),
            [b'\r', b'\n', ..] => Some(at + 2),
            _ => None,
        }
    }

    fn lex(&mut self, space_before: bool) -> Option<Lexeme> {
        let bytes = self.text.as_bytes();
        let lo = self.pos;
        let &first = bytes.get(lo)?;
        if first == b'\n' {
            return None;
        }
        let kind = match first {
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                self.pos = end_of(bytes, lo, |b| b.is_ascii_alphanumeric() || b == b'_');
                LexKind::Ident
            }
            b'0'..=b'9' => {
                self.pos = end_of(bytes, lo, |b| {
                    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
                });
                LexKind::Number
            }
            b'"' => {
                self.pos = end_of_string(bytes, lo);
                LexKind::Str
            }
            _ if first.is_ascii_punctuation() => {
                let rest = &self.text[lo..];
                let len = PUNCTUATORS
                    .iter()
                    .find(|p| rest.starts_with(**p))
                    .map_or(1, |p| p.len());
                self.pos = lo + len;
                LexKind::Punct
            }
            _ => {
                let len = self.text[lo..].chars().next().map_or(1, char::len_utf8);
                self.pos = lo + len;
                LexKind::Other
            }
        };
        let line_start = std::mem::replace(&mut self.at_line_start, false);
        Some(Lexeme {
            kind,
            lo,
            hi: self.pos,
            space_before,
            line_start,
        })
    }
}

fn end_of(bytes: &[u8], from: usize, part: impl Fn(u8) -> bool) -> usize {
    from + bytes[from..].iter().take_while(|&&b| part(b)).count()
}

/// End of the string literal opening at `from`: after its closing quote, or
/// at the end of the line when it has none.
fn end_of_string(bytes: &[u8], from: usize) -> usize {
    let mut i = from + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => return i + 1,
            b'\n' => return i,
            b'\\' if bytes.get(i + 1).is_some_and(|&n| n != b'\n') => i += 2,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Whether `text` is exactly one lexeme (used to check `##` results).
pub fn is_single_lexeme(text: &str) -> bool {
    let mut scanner = Scanner::new(text);
    matches!(scanner.next(), Some(l) if l.lo == 0 && l.hi == text.len() && !l.space_before)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lexemes(text: &str) -> Vec<(LexKind, &str)> {
        let mut scanner = Scanner::new(text);
        std::iter::from_fn(|| scanner.next())
            .map(|l| (l.kind, &text[l.lo..l.hi]))
            .collect()
    }

    #[test]
    fn skips_comments_and_keeps_strings_whole() {
        assert_eq!(
            lexemes("a /* b */ \"c // d\" // e\n8w5>>=x"),
            vec![
                (LexKind::Ident, "a"),
                (LexKind::Str, "\"c // d\""),
                (LexKind::Number, "8w5"),
                (LexKind::Punct, ">>="),
                (LexKind::Ident, "x"),
            ]
        );
    }

    #[test]
    fn line_start_survives_comments_but_not_tokens() {
        let mut scanner = Scanner::new("a # b\n  /* c */ # d");
        let flags: Vec<bool> = std::iter::from_fn(|| scanner.next())
            .map(|l| l.line_start)
            .collect();
        assert_eq!(flags, vec![true, false, false, true, false]);
    }

    #[test]
    fn line_mode_stops_at_newline_but_not_at_continuation() {
        let mut scanner = Scanner::new("a \\\n b /* x\n y */ c\nd");
        let mut seen = Vec::new();
        while let Some(l) = scanner.next_in_line() {
            seen.push(l.lo);
        }
        assert_eq!(seen, vec![0, 5, 18]);
        assert_eq!(scanner.text()[scanner.pos()..].chars().next(), Some('\n'));
    }

    #[test]
    fn unterminated_string_stops_at_line_end() {
        assert_eq!(
            lexemes("\"abc\nx"),
            vec![(LexKind::Str, "\"abc"), (LexKind::Ident, "x")]
        );
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let mut scanner = Scanner::new("\u{feff}#x");
        assert!(scanner.next().is_some_and(|l| l.lo == 3 && l.line_start));
    }

    #[test]
    fn non_ascii_is_one_lexeme_per_character() {
        assert_eq!(
            lexemes("é1"),
            vec![(LexKind::Other, "é"), (LexKind::Number, "1")]
        );
    }
}
