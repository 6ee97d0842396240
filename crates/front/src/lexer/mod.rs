//! The lexer: the preprocessed translation unit → a list of [`Token`]s.
//!
//! Comments and whitespace are dropped; the list always ends with one
//! [`TokenKind::Eof`]. `>` is never merged into `>>`: the parser joins two
//! adjacent `>` into a shift only in expressions, so `Reg<bit<8>>` closes two
//! type-argument lists. Bad input (an unterminated string or comment, a
//! malformed number) is reported and skipped; an unknown character becomes
//! a [`TokenKind::Unknown`] token for the parser to judge. The lexer always
//! finishes.

mod token;

pub use token::{Token, TokenKind};

use crate::ast::IntLit;
use crate::diag::Diagnostics;
use crate::source::{Span, TranslationUnit};
use num_bigint::BigInt;
use token::{KEYWORDS, PUNCTUATION};

/// Splits the translation unit into tokens, reporting malformed ones.
pub fn tokenize(unit: &TranslationUnit, diags: &mut Diagnostics) -> Vec<Token> {
    let mut lexer = Lexer {
        unit,
        bytes: unit.text.as_bytes(),
        pos: 0,
        tokens: Vec::new(),
        diags,
    };
    lexer.run();
    let end = unit.text.len() as u32;
    lexer.tokens.push(Token {
        kind: TokenKind::Eof,
        span: Span::new(end, end),
    });
    lexer.tokens
}

struct Lexer<'a> {
    unit: &'a TranslationUnit,
    bytes: &'a [u8],
    pos: usize,
    tokens: Vec<Token>,
    diags: &'a mut Diagnostics,
}

/// Operators that have a compound-assignment form `op=`.
fn takes_assign_suffix(kind: &TokenKind) -> bool {
    use TokenKind::*;
    matches!(
        kind,
        Plus | Minus
            | Star
            | Slash
            | Percent
            | Amp
            | Pipe
            | Caret
            | Shl
            | PipePlusPipe
            | PipeMinusPipe
    )
}

impl<'a> Lexer<'a> {
    fn run(&mut self) {
        while let Some(&b) = self.bytes.get(self.pos) {
            let start = self.pos;
            match b {
                b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c => self.pos += 1,
                b'/' if self.peek(1) == Some(b'/') => self.skip_line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.skip_block_comment(),
                b'"' => self.string(),
                b'0'..=b'9' => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(),
                _ => self.punctuation(start),
            }
        }
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn push(&mut self, kind: TokenKind, start: usize) {
        self.tokens.push(Token {
            kind,
            span: Span::new(start as u32, self.pos as u32),
        });
    }

    fn error(&mut self, start: usize, end: usize, message: String) {
        let loc = self.unit.resolve(Span::new(start as u32, end as u32));
        self.diags.error(loc, message);
    }

    fn skip_line_comment(&mut self) {
        while self.bytes.get(self.pos).is_some_and(|&b| b != b'\n') {
            self.pos += 1;
        }
    }

    fn skip_block_comment(&mut self) {
        let start = self.pos;
        self.pos += 2;
        loop {
            match self.bytes.get(self.pos) {
                None => {
                    self.error(start, start + 2, "unterminated comment".into());
                    return;
                }
                Some(b'*') if self.peek(1) == Some(b'/') => {
                    self.pos += 2;
                    return;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1;
        loop {
            match self.bytes.get(self.pos) {
                None => {
                    self.error(start, start + 1, "unterminated string literal".into());
                    let text = self.unit.text.get(start + 1..).unwrap_or("").to_string();
                    self.push(TokenKind::Str(text), start);
                    return;
                }
                Some(b'\\') => self.pos += 2,
                Some(b'"') => {
                    let text = self
                        .unit
                        .text
                        .get(start + 1..self.pos)
                        .unwrap_or("")
                        .to_string();
                    self.pos += 1;
                    self.push(TokenKind::Str(text), start);
                    return;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// Moves past a run of letters, digits and `_` (a name, a keyword or
    /// a number with its width and radix prefixes) and returns it.
    fn alphanumeric_run(&mut self) -> &'a str {
        let start = self.pos;
        while self
            .bytes
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.pos += 1;
        }
        self.unit.text.get(start..self.pos).unwrap_or("")
    }

    fn word(&mut self) {
        let start = self.pos;
        let text = self.alphanumeric_run();
        let keyword = KEYWORDS.iter().find(|(word, _)| *word == text);
        let kind = keyword.map_or_else(
            || TokenKind::Ident(text.to_string()),
            |(_, kind)| kind.clone(),
        );
        self.push(kind, start);
    }

    /// `123`, `0x1F`, `0b1_0`, `0o17`, `0d9`, and the width-prefixed forms
    /// `8w255`, `4s0b11`. A malformed number is reported and read as 0.
    fn number(&mut self) {
        let start = self.pos;
        let text = self.alphanumeric_run();
        let lit = parse_int(text).unwrap_or_else(|message| {
            self.error(start, self.pos, message);
            IntLit {
                value: BigInt::from(0),
                width: None,
            }
        });
        self.push(TokenKind::Number(lit), start);
    }

    fn punctuation(&mut self, start: usize) {
        let rest = self.bytes.get(start..).unwrap_or(&[]);
        let found = PUNCTUATION
            .iter()
            .find(|(text, _)| rest.starts_with(text.as_bytes()));
        match found {
            Some((text, kind)) => {
                self.pos += text.len();
                let assign_follows = self.peek(0) == Some(b'=');
                if assign_follows && takes_assign_suffix(kind) {
                    self.pos += 1;
                    self.push(TokenKind::OpAssign(Box::new(kind.clone())), start);
                } else {
                    self.push(kind.clone(), start);
                }
            }
            None => {
                let ch = self
                    .unit
                    .text
                    .get(start..)
                    .and_then(|s| s.chars().next())
                    .unwrap_or('?');
                self.pos += ch.len_utf8().max(1);
                self.push(TokenKind::Unknown(ch), start);
            }
        }
    }
}

/// Reads an integer literal as written, e.g. `8w0xFF` or `1_000`.
fn parse_int(text: &str) -> Result<IntLit, String> {
    let bad = || format!("invalid integer literal `{text}`");
    let width_end = text.find(['w', 's']).filter(|&i| {
        i > 0
            && text
                .get(..i)
                .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
    });
    let (width, digits) = match width_end {
        Some(i) => {
            let width: u32 = text.get(..i).and_then(|w| w.parse().ok()).ok_or_else(bad)?;
            let signed = text.get(i..i + 1) == Some("s");
            (Some((width, signed)), text.get(i + 1..).unwrap_or(""))
        }
        None => (None, text),
    };
    let (radix, body) = match digits.get(..2) {
        Some("0x" | "0X") => (16, digits.get(2..).unwrap_or("")),
        Some("0b" | "0B") => (2, digits.get(2..).unwrap_or("")),
        Some("0o" | "0O") => (8, digits.get(2..).unwrap_or("")),
        Some("0d" | "0D") => (10, digits.get(2..).unwrap_or("")),
        _ => (10, digits),
    };
    let clean: std::string::String = body.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return Err(bad());
    }
    let value = BigInt::parse_bytes(clean.as_bytes(), radix).ok_or_else(bad)?;
    Ok(IntLit { value, width })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Segment, SegmentKind};

    fn unit(text: &str) -> TranslationUnit {
        TranslationUnit {
            text: text.into(),
            segments: vec![Segment {
                out_start: 0,
                file: FileId(0),
                src_start: 0,
                kind: SegmentKind::Copied,
            }],
        }
    }

    fn kinds(text: &str) -> (Vec<TokenKind>, Diagnostics) {
        let mut diags = Diagnostics::default();
        let tokens = tokenize(&unit(text), &mut diags);
        (tokens.into_iter().map(|t| t.kind).collect(), diags)
    }

    fn int(value: i64, width: Option<(u32, bool)>) -> TokenKind {
        TokenKind::Number(IntLit {
            value: BigInt::from(value),
            width,
        })
    }

    #[test]
    fn integer_literals_with_widths_and_bases() {
        let (toks, diags) = kinds("8w0xFF 4s3 0b101 0o17 1_000 16w0b_1010_1010 0d12");
        assert!(!diags.has_errors());
        assert_eq!(
            toks,
            vec![
                int(255, Some((8, false))),
                int(3, Some((4, true))),
                int(5, None),
                int(15, None),
                int(1000, None),
                int(170, Some((16, false))),
                int(12, None),
                TokenKind::Eof
            ]
        );
    }

    #[test]
    fn malformed_number_is_reported() {
        let (toks, diags) = kinds("0b102 8wz");
        assert_eq!(diags.errors().count(), 2);
        assert_eq!(toks.len(), 3);
    }

    #[test]
    fn operators_take_longest_match_except_shift_right() {
        use TokenKind::*;
        let (toks, _) = kinds("&&& && & |+| |-| || ++ .. ... << >> >= += <<= @ {#}");
        assert_eq!(
            toks,
            vec![
                AmpAmpAmp,
                AmpAmp,
                Amp,
                PipePlusPipe,
                PipeMinusPipe,
                PipePipe,
                PlusPlus,
                DotDot,
                DotDotDot,
                Shl,
                Gt,
                Gt,
                Ge,
                OpAssign(Box::new(Plus)),
                OpAssign(Box::new(Shl)),
                At,
                LBrace,
                Hash,
                RBrace,
                Eof
            ]
        );
    }

    #[test]
    fn comments_are_skipped_and_keywords_recognised() {
        use TokenKind::*;
        let (toks, diags) = kinds("header /* x */ h_t // y\n { _ }");
        assert!(!diags.has_errors());
        assert_eq!(
            toks,
            vec![Header, Ident("h_t".into()), LBrace, Underscore, RBrace, Eof]
        );
    }

    #[test]
    fn strings_keep_escapes() {
        let (toks, _) = kinds(r#""a \" b""#);
        assert_eq!(toks[0], TokenKind::Str(r#"a \" b"#.into()));
    }

    #[test]
    fn unterminated_things_are_errors_not_panics() {
        for text in ["\"abc", "/* abc", "\"\\", "8w", "0x"] {
            let (toks, diags) = kinds(text);
            assert!(diags.has_errors(), "{text}");
            assert_eq!(toks.last(), Some(&TokenKind::Eof));
        }
        let (toks, diags) = kinds("$é");
        assert!(!diags.has_errors());
        assert_eq!(
            toks,
            vec![
                TokenKind::Unknown('$'),
                TokenKind::Unknown('é'),
                TokenKind::Eof
            ]
        );
    }
}
