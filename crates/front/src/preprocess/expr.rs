//! The integer expressions of `#if` and `#elif`.
//!
//! Rules (as in cpp): the tokens arrive with `defined` already replaced and
//! macros expanded; any identifier left is 0. Arithmetic is on 64-bit
//! signed integers and wraps; division by zero is an error only where it is
//! evaluated (`0 && 1 / 0` is fine). Nesting is bounded so that no input
//! overflows the stack.

use super::macros::Token;
use super::scan::LexKind;

const MAX_NESTING: u32 = 128;

/// Evaluates a whole `#if` expression.
pub fn evaluate(tokens: &[Token]) -> Result<i64, String> {
    let mut parser = Parser {
        tokens,
        pos: 0,
        nesting: 0,
    };
    if tokens.is_empty() {
        return Err("missing expression in #if".into());
    }
    let value = parser.conditional(true)?;
    match parser.peek() {
        None => Ok(value),
        Some(t) => Err(format!("unexpected `{}` in #if expression", t.text)),
    }
}

struct Parser<'t> {
    tokens: &'t [Token],
    pos: usize,
    nesting: u32,
}

/// Binary operators by precedence level, loosest first.
const LEVELS: &[&[&str]] = &[
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", ">", "<=", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl<'t> Parser<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.pos)
    }

    fn eat(&mut self, punct: &str) -> bool {
        let found = self.peek().is_some_and(|t| t.is(punct));
        if found {
            self.pos += 1;
        }
        found
    }

    fn expect(&mut self, punct: &str) -> Result<(), String> {
        if self.eat(punct) {
            return Ok(());
        }
        match self.peek() {
            Some(t) => Err(format!(
                "expected `{punct}` in #if expression, found `{}`",
                t.text
            )),
            None => Err(format!("expected `{punct}` at the end of #if expression")),
        }
    }

    /// `cond ? a : b`. `live` is false in a branch that is not evaluated.
    fn conditional(&mut self, live: bool) -> Result<i64, String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err("#if expression is nested too deeply".into());
        }
        let condition = self.binary(0, live)?;
        let value = if self.eat("?") {
            let then = self.conditional(live && condition != 0)?;
            self.expect(":")?;
            let otherwise = self.conditional(live && condition == 0)?;
            if condition != 0 {
                then
            } else {
                otherwise
            }
        } else {
            condition
        };
        self.nesting -= 1;
        Ok(value)
    }

    fn binary(&mut self, level: usize, live: bool) -> Result<i64, String> {
        let Some(operators) = LEVELS.get(level) else {
            return self.unary(live);
        };
        let mut left = self.binary(level + 1, live)?;
        while let Some(op) = operators
            .iter()
            .find(|op| self.peek().is_some_and(|t| t.is(op)))
        {
            self.pos += 1;
            let right_live = match *op {
                "&&" => live && left != 0,
                "||" => live && left == 0,
                _ => live,
            };
            let right = self.binary(level + 1, right_live)?;
            left = apply(op, left, right, right_live)?;
        }
        Ok(left)
    }

    fn unary(&mut self, live: bool) -> Result<i64, String> {
        let Some(token) = self.peek() else {
            return Err("missing operand at the end of #if expression".into());
        };
        self.pos += 1;
        match token.kind {
            LexKind::Number => parse_number(&token.text),
            LexKind::Ident => Ok(0),
            LexKind::Punct => match &*token.text {
                "(" => {
                    let value = self.conditional(live)?;
                    self.expect(")")?;
                    Ok(value)
                }
                "!" | "~" | "-" | "+" => {
                    self.nesting += 1;
                    if self.nesting > MAX_NESTING {
                        return Err("#if expression is nested too deeply".into());
                    }
                    let operand = self.unary(live)?;
                    self.nesting -= 1;
                    Ok(match &*token.text {
                        "!" => i64::from(operand == 0),
                        "~" => !operand,
                        "-" => operand.wrapping_neg(),
                        _ => operand,
                    })
                }
                _ => Err(format!("unexpected `{}` in #if expression", token.text)),
            },
            LexKind::Str | LexKind::Other => {
                Err(format!("unexpected `{}` in #if expression", token.text))
            }
        }
    }
}

fn apply(op: &str, a: i64, b: i64, live: bool) -> Result<i64, String> {
    Ok(match op {
        "||" => i64::from(a != 0 || b != 0),
        "&&" => i64::from(a != 0 && b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        ">" => i64::from(a > b),
        "<=" => i64::from(a <= b),
        ">=" => i64::from(a >= b),
        "<<" => a.wrapping_shl((b & 63) as u32),
        ">>" => a.wrapping_shr((b & 63) as u32),
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" | "%" if b == 0 => {
            if live {
                return Err("division by zero in #if".into());
            }
            0
        }
        "/" => a.wrapping_div(b),
        _ => a.wrapping_rem(b),
    })
}

/// A C integer literal: decimal, `0x` hex, `0b` binary or `0` octal, with
/// optional `u`/`l` suffixes.
fn parse_number(text: &str) -> Result<i64, String> {
    let digits = text.trim_end_matches(['u', 'U', 'l', 'L']);
    let lower = digits.to_ascii_lowercase();
    let (radix, body) = if let Some(hex) = lower.strip_prefix("0x") {
        (16, hex)
    } else if let Some(bin) = lower.strip_prefix("0b") {
        (2, bin)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    u64::from_str_radix(body, radix)
        .map(|v| v as i64)
        .map_err(|_| format!("invalid integer `{text}` in #if expression"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preprocess::scan::Scanner;

    fn eval(text: &str) -> Result<i64, String> {
        let mut scanner = Scanner::new(text);
        let tokens: Vec<Token> = std::iter::from_fn(|| scanner.next())
            .map(|l| Token::from_lexeme(text, l))
            .collect();
        evaluate(&tokens)
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval("1 + 2 * 3"), Ok(7));
        assert_eq!(eval("10 - 4 - 3"), Ok(3));
        assert_eq!(eval("1 << 4 >> 2"), Ok(4));
        assert_eq!(eval("1 ? 2 : 0 ? 3 : 4"), Ok(2));
        assert_eq!(eval("(1 | 2) == 3 && !0"), Ok(1));
        assert_eq!(eval("-3 / 2 + 7 % 4"), Ok(2));
    }

    #[test]
    fn literals_and_identifiers() {
        assert_eq!(eval("0x10 + 010 + 0b11 + 5u"), Ok(16 + 8 + 3 + 5));
        assert_eq!(eval("UNDEFINED_NAME + 1"), Ok(1));
        assert!(eval("8w5").is_err());
    }

    #[test]
    fn division_by_zero_only_when_evaluated() {
        assert_eq!(eval("0 && 1 / 0"), Ok(0));
        assert_eq!(eval("1 ? 2 : 1 % 0"), Ok(2));
        assert!(eval("1 / 0").is_err());
    }

    #[test]
    fn malformed_expressions_are_errors() {
        assert!(eval("").is_err());
        assert!(eval("1 +").is_err());
        assert!(eval("(1").is_err());
        assert!(eval("1 2").is_err());
        assert!(eval("\"s\"").is_err());
        assert!(eval(&"(".repeat(10_000)).is_err());
        assert!(eval(&"-".repeat(10_000)).is_err());
    }
}
