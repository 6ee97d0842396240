//! Macro definitions: the token type macro expansion works on, the table of
//! defined macros, and the parsing of a `#define` line into a [`Macro`].
//!
//! Rules: a body is kept as tokens with their "space before" flags, so an
//! expansion re-creates the spacing of the definition (`>>` stays `>>`,
//! `> >` stays `> >`). Redefining a macro differently is allowed with a
//! warning, as in cpp.

use super::scan::{LexKind, Lexeme};
use crate::source::SrcLoc;
use std::collections::HashMap;
use std::rc::Rc;

/// Names of the macros a token came out of (Prosser's hide set).
pub type HideSet = Rc<[Rc<str>]>;

/// A token during macro expansion.
#[derive(Clone, Debug)]
pub struct Token {
    pub kind: LexKind,
    pub text: Rc<str>,
    pub space_before: bool,
    /// Starts a run that came from elsewhere (an expansion, an argument):
    /// when spelled, a space is added if it would otherwise paste onto the
    /// previous token.
    pub boundary: bool,
    /// Macros that must not expand this token again.
    pub hide: HideSet,
}

impl Token {
    pub fn from_lexeme(text: &str, lexeme: Lexeme) -> Token {
        Token {
            kind: lexeme.kind,
            text: text[lexeme.lo..lexeme.hi].into(),
            space_before: lexeme.space_before,
            boundary: false,
            hide: Rc::from([]),
        }
    }

    pub fn is(&self, punct: &str) -> bool {
        self.kind == LexKind::Punct && &*self.text == punct
    }

    pub fn is_hidden(&self, name: &str) -> bool {
        self.hide.iter().any(|h| &**h == name)
    }

    /// The empty token standing for an empty argument next to `##`.
    pub fn placemarker() -> Token {
        Token {
            kind: LexKind::Other,
            text: "".into(),
            space_before: false,
            boundary: false,
            hide: Rc::from([]),
        }
    }

    pub fn is_placemarker(&self) -> bool {
        self.text.is_empty()
    }
}

/// One `#define`.
#[derive(Debug)]
pub struct Macro {
    /// `None` for an object-like macro.
    pub params: Option<Vec<Rc<str>>>,
    /// The last parameter is `...`, named `__VA_ARGS__` in the body.
    pub variadic: bool,
    pub body: Vec<Token>,
    pub defined_at: Option<SrcLoc>,
}

impl Macro {
    /// The index of the parameter `token` names, if any.
    pub fn param_index(&self, token: &Token) -> Option<usize> {
        if token.kind != LexKind::Ident {
            return None;
        }
        self.params.as_ref()?.iter().position(|p| *p == token.text)
    }

    /// Same parameters and same body spelling: redefining it is harmless.
    fn same_as(&self, other: &Macro) -> bool {
        self.params == other.params
            && self.variadic == other.variadic
            && self.body.len() == other.body.len()
            && self
                .body
                .iter()
                .zip(&other.body)
                .enumerate()
                .all(|(i, (a, b))| a.text == b.text && (i == 0 || a.space_before == b.space_before))
    }
}

#[derive(Debug, Default)]
pub struct MacroTable {
    macros: HashMap<Rc<str>, Macro>,
}

impl MacroTable {
    pub fn get(&self, name: &str) -> Option<&Macro> {
        self.macros.get(name)
    }

    pub fn is_defined(&self, name: &str) -> bool {
        self.macros.contains_key(name)
    }

    /// Defines `name`; returns where a different earlier definition was, if
    /// this replaces one.
    pub fn define(&mut self, name: Rc<str>, mac: Macro) -> Option<Option<SrcLoc>> {
        let previous = match self.macros.get(&name) {
            Some(old) if !old.same_as(&mac) => Some(old.defined_at),
            _ => None,
        };
        self.macros.insert(name, mac);
        previous
    }

    pub fn undefine(&mut self, name: &str) {
        self.macros.remove(name);
    }
}

/// Parses the tokens after `#define NAME`. `name_end` is the byte where the
/// name ends and `rest` the tokens after it: a `(` right after the name
/// (no space) starts a parameter list.
pub fn parse_definition(
    name_end: usize,
    rest: &[(Lexeme, Token)],
    defined_at: Option<SrcLoc>,
) -> Result<Macro, String> {
    let function_like = rest
        .first()
        .is_some_and(|(l, t)| t.is("(") && l.lo == name_end);
    if !function_like {
        let body = body_tokens(rest.iter().map(|(_, t)| t.clone()).collect());
        check_paste_ends(&body)?;
        return Ok(Macro {
            params: None,
            variadic: false,
            body,
            defined_at,
        });
    }
    let mut params: Vec<Rc<str>> = Vec::new();
    let mut variadic = false;
    let mut i = 1;
    let close = loop {
        let Some((_, token)) = rest.get(i) else {
            return Err("missing `)` in macro parameter list".into());
        };
        if token.is(")") && params.is_empty() && !variadic {
            break i;
        }
        if token.is("...") {
            variadic = true;
            params.push("__VA_ARGS__".into());
        } else if token.kind == LexKind::Ident && !variadic {
            if params.contains(&token.text) {
                return Err(format!("duplicate macro parameter `{}`", token.text));
            }
            params.push(token.text.clone());
        } else {
            return Err(format!(
                "unexpected `{}` in macro parameter list",
                token.text
            ));
        }
        match rest.get(i + 1) {
            Some((_, t)) if t.is(")") => break i + 1,
            Some((_, t)) if t.is(",") && !variadic => i += 2,
            Some((_, t)) => return Err(format!("unexpected `{}` in macro parameter list", t.text)),
            None => return Err("missing `)` in macro parameter list".into()),
        }
    };
    let body = body_tokens(
        rest.iter()
            .skip(close + 1)
            .map(|(_, t)| t.clone())
            .collect(),
    );
    check_paste_ends(&body)?;
    let mac = Macro {
        params: Some(params),
        variadic,
        body,
        defined_at,
    };
    check_stringize_operands(&mac)?;
    Ok(mac)
}

/// The body as stored: the first token's leading space is not part of it.
fn body_tokens(mut body: Vec<Token>) -> Vec<Token> {
    if let Some(first) = body.first_mut() {
        first.space_before = false;
    }
    body
}

fn check_paste_ends(body: &[Token]) -> Result<(), String> {
    if body.first().is_some_and(|t| t.is("##")) || body.last().is_some_and(|t| t.is("##")) {
        return Err("`##` cannot appear at either end of a macro body".into());
    }
    Ok(())
}

fn check_stringize_operands(mac: &Macro) -> Result<(), String> {
    let mut tokens = mac.body.iter().peekable();
    while let Some(token) = tokens.next() {
        if token.is("#") && tokens.peek().and_then(|t| mac.param_index(t)).is_none() {
            return Err("`#` is not followed by a macro parameter".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preprocess::scan::Scanner;

    fn define(line: &str) -> Result<Macro, String> {
        let mut scanner = Scanner::new(line);
        let name = scanner.next_in_line().map_or(0, |l| l.hi);
        let rest: Vec<_> = std::iter::from_fn(|| scanner.next_in_line())
            .map(|l| (l, Token::from_lexeme(line, l)))
            .collect();
        parse_definition(name, &rest, None)
    }

    #[test]
    fn parameters_need_the_parenthesis_right_after_the_name() {
        let function = define("F(a, b) a + b").unwrap_or_else(|e| unreachable!("{e}"));
        assert_eq!(function.params.as_ref().map(Vec::len), Some(2));
        let object = define("F (a) a").unwrap_or_else(|e| unreachable!("{e}"));
        assert!(object.params.is_none());
        assert_eq!(object.body.len(), 4);
    }

    #[test]
    fn variadic_and_empty_parameter_lists() {
        let m = define("F(x, ...) x __VA_ARGS__").unwrap_or_else(|e| unreachable!("{e}"));
        assert!(m.variadic);
        assert_eq!(m.params.map(|p| p.len()), Some(2));
        assert_eq!(
            define("G() 1").map(|m| m.params.map(|p| p.len())),
            Ok(Some(0))
        );
    }

    #[test]
    fn malformed_definitions_are_rejected() {
        assert!(define("F(a, a) a").is_err());
        assert!(define("F(a b) a").is_err());
        assert!(define("F(a").is_err());
        assert!(define("F(a) # b").is_err());
        assert!(define("F ## x").is_err());
    }

    #[test]
    fn redefinition_is_reported_only_when_different() {
        let mut table = MacroTable::default();
        let m = |s| define(s).unwrap_or_else(|e| unreachable!("{e}"));
        assert!(table.define("A".into(), m("A 1 + 2")).is_none());
        assert!(table.define("A".into(), m("A   1 + 2")).is_none());
        assert!(table.define("A".into(), m("A 1+2")).is_some());
    }
}
