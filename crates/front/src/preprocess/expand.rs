//! Macro expansion, after Prosser's algorithm as cpp implements it.
//!
//! Rules: a token carries a hide set, the macros whose expansion produced
//! it, and is never expanded by one of them again (so `#define A A` ends).
//! Arguments are fully expanded before substitution, except next to `#` and
//! `##`. The result is rescanned together with the tokens that follow it,
//! which may be pulled from the file (a function-like macro whose `(` comes
//! after the expansion). A budget of tokens and a depth limit bound the
//! work for any input; when one is exceeded, expansion stops with an error
//! and the remaining tokens are passed through unexpanded.

use super::macros::{HideSet, Macro, MacroTable, Token};
use super::scan::{is_single_lexeme, LexKind};
use std::collections::VecDeque;
use std::rc::Rc;

/// Tokens produced by expansions in one run, over all invocations.
pub const TOKEN_BUDGET: usize = 200_000;
/// How deeply macro invocations may nest inside arguments.
const MAX_ARGUMENT_DEPTH: u32 = 64;
/// How many macros one expansion may go through (each adds to the hide set).
const MAX_NESTED_MACROS: usize = 128;

/// Where tokens come from once the pending ones run out.
pub trait TokenSource {
    /// Takes the next token, if any.
    fn next_token(&mut self) -> Option<Token>;
    /// Whether the next token is `(`, without taking it.
    fn next_is_lparen(&mut self) -> bool;
}

/// A source with nothing more (a directive line, an argument).
pub struct NoMoreTokens;

impl TokenSource for NoMoreTokens {
    fn next_token(&mut self) -> Option<Token> {
        None
    }

    fn next_is_lparen(&mut self) -> bool {
        false
    }
}

/// Where an expansion in program text happens, for `__FILE__` and
/// `__LINE__`.
pub struct Site {
    pub file: String,
    pub line: u32,
}

/// Whether `name` is one of the names cpp defines itself.
pub fn is_builtin_macro(name: &str) -> bool {
    name == "__FILE__" || name == "__LINE__"
}

pub struct Expander<'m> {
    macros: &'m MacroTable,
    budget: &'m mut usize,
    depth: u32,
    /// In `#if`: the name after `defined` is not expanded.
    keep_defined_operands: bool,
    site: Option<Site>,
    /// Messages for the caller to report at the invocation.
    pub errors: Vec<String>,
}

impl<'m> Expander<'m> {
    pub fn new(macros: &'m MacroTable, budget: &'m mut usize) -> Expander<'m> {
        Expander {
            macros,
            budget,
            depth: 0,
            keep_defined_operands: false,
            site: None,
            errors: Vec::new(),
        }
    }

    /// An expander for program text at `site`.
    pub fn at(macros: &'m MacroTable, budget: &'m mut usize, site: Site) -> Expander<'m> {
        Expander {
            site: Some(site),
            ..Expander::new(macros, budget)
        }
    }

    /// An expander for `#if` lines, where `defined X` may come from a macro.
    pub fn for_condition(macros: &'m MacroTable, budget: &'m mut usize) -> Expander<'m> {
        Expander {
            keep_defined_operands: true,
            ..Expander::new(macros, budget)
        }
    }

    /// Expands `tokens`, pulling more from `more` when a function-like
    /// macro at the end needs its arguments.
    pub fn expand(&mut self, tokens: Vec<Token>, more: &mut dyn TokenSource) -> Vec<Token> {
        let mut pending: VecDeque<Token> = tokens.into();
        let mut out = Vec::new();
        while let Some(token) = pending.pop_front() {
            if self.keep_defined_operands && is_defined_operand(&out) {
                out.push(token);
                continue;
            }
            if let Some(value) = self.builtin_value(&token) {
                out.push(value);
                continue;
            }
            let Some(mac) = self.expandable(&token) else {
                out.push(token);
                continue;
            };
            // Prosser: an invocation hides what both its name and its `)`
            // hide, plus the macro itself.
            let (args, hide) = match &mac.params {
                None => (None, add_to_hide_set(&token.hide, &token.text)),
                Some(_) if !next_is_lparen(&pending, more) => {
                    out.push(token);
                    continue;
                }
                Some(_) => match self.collect_args(&token, mac, &mut pending, more) {
                    Ok((args, rparen_hide)) => {
                        let common = intersection(&token.hide, &rparen_hide);
                        (Some(args), add_to_hide_set(&common, &token.text))
                    }
                    Err(consumed) => {
                        out.push(token);
                        out.extend(consumed);
                        continue;
                    }
                },
            };
            if hide.len() > MAX_NESTED_MACROS {
                self.fail(format!(
                    "macro `{}` expands through too many nested macros",
                    token.text
                ));
            }
            let mut replacement = self.substitute(mac, args.as_deref(), &hide);
            // Hide-set work grows with its size, so it is paid for too.
            if !self.spend((replacement.len() + 1) * hide.len(), &token.text) {
                out.push(token);
                out.extend(pending);
                break;
            }
            match replacement.first_mut() {
                Some(first) => {
                    first.space_before = token.space_before;
                    first.boundary = true;
                }
                None => {
                    if let Some(next) = pending.front_mut() {
                        next.space_before |= token.space_before;
                    }
                }
            }
            if let Some(next) = pending.front_mut() {
                next.boundary = true;
            }
            for t in replacement.into_iter().rev() {
                pending.push_front(t);
            }
        }
        out
    }

    /// The macro `token` invokes, unless it is hidden or expansion has
    /// already failed.
    fn expandable(&self, token: &Token) -> Option<&'m Macro> {
        if token.kind != LexKind::Ident || token.is_hidden(&token.text) || self.out_of_budget() {
            return None;
        }
        self.macros.get(&token.text)
    }

    /// The value of `__FILE__` or `__LINE__`, unless the program defined
    /// its own.
    fn builtin_value(&self, token: &Token) -> Option<Token> {
        let site = self.site.as_ref()?;
        if token.kind != LexKind::Ident || self.macros.is_defined(&token.text) {
            return None;
        }
        let (kind, text) = match &*token.text {
            "__LINE__" => (LexKind::Number, site.line.to_string()),
            "__FILE__" => (LexKind::Str, format!("{:?}", site.file)),
            _ => return None,
        };
        Some(Token {
            kind,
            text: text.into(),
            boundary: true,
            ..token.clone()
        })
    }

    fn out_of_budget(&self) -> bool {
        *self.budget == 0
    }

    /// Stops all further expansion, reporting `message` unless expansion
    /// had already stopped.
    fn fail(&mut self, message: String) {
        if !self.out_of_budget() {
            self.errors.push(message);
        }
        *self.budget = 0;
    }

    fn spend(&mut self, tokens: usize, name: &str) -> bool {
        // Never spent down to zero: zero means an error was reported.
        if *self.budget <= tokens {
            self.fail(format!("expansion of macro `{name}` is too large"));
            return false;
        }
        *self.budget -= tokens;
        true
    }

    /// Collects the arguments of an invocation whose `(` is next, and the
    /// hide set of its `)`. On error, gives back the tokens taken so they
    /// can be passed through.
    fn collect_args(
        &mut self,
        name: &Token,
        mac: &Macro,
        pending: &mut VecDeque<Token>,
        more: &mut dyn TokenSource,
    ) -> Result<(Vec<Vec<Token>>, HideSet), Vec<Token>> {
        let mut consumed = Vec::new();
        let mut args = vec![Vec::new()];
        let mut depth = 0usize;
        let rparen_hide = loop {
            let Some(token) = pending.pop_front().or_else(|| more.next_token()) else {
                self.errors.push(format!(
                    "unterminated argument list invoking macro `{}`",
                    name.text
                ));
                return Err(consumed);
            };
            consumed.push(token.clone());
            if consumed.len() == 1 {
                continue; // the `(`
            }
            if token.is(")") && depth == 0 {
                break token.hide;
            }
            if token.is("(") {
                depth += 1;
            } else if token.is(")") {
                depth -= 1;
            }
            match args.last_mut() {
                Some(_) if token.is(",") && depth == 0 => args.push(Vec::new()),
                Some(last) => last.push(token),
                None => {}
            }
        };
        let params = mac.params.as_ref().map_or(0, Vec::len);
        if mac.variadic && args.len() > params {
            let extra = args.split_off(params);
            if let Some(last) = args.last_mut() {
                for arg in extra {
                    last.push(comma());
                    last.extend(arg);
                }
            }
        }
        if mac.variadic && args.len() + 1 == params {
            args.push(Vec::new());
        }
        if params == 0 && args.len() == 1 && args.first().is_some_and(Vec::is_empty) {
            args.clear();
        }
        if args.len() != params {
            self.errors.push(format!(
                "macro `{}` takes {params} argument{}, but {} were given",
                name.text,
                if params == 1 { "" } else { "s" },
                args.len()
            ));
            return Err(consumed);
        }
        Ok((args, rparen_hide))
    }

    /// The body of `mac` with parameters replaced, `#` and `##` applied,
    /// and `hide` added to every token.
    fn substitute(
        &mut self,
        mac: &Macro,
        args: Option<&[Vec<Token>]>,
        hide: &HideSet,
    ) -> Vec<Token> {
        let args = args.unwrap_or(&[]);
        let mut expanded_args: Vec<Option<Vec<Token>>> = vec![None; args.len()];
        let mut out: Vec<Token> = Vec::new();
        let mut body = mac.body.iter().peekable();
        let mut after_argument = false;
        while let Some(token) = body.next() {
            let param = mac
                .param_index(token)
                .and_then(|i| args.get(i).map(|a| (i, a)));
            if token.is("#") && mac.params.is_some() {
                if let Some(arg) = body
                    .next()
                    .and_then(|t| mac.param_index(t))
                    .and_then(|i| args.get(i))
                {
                    out.push(stringize(arg, token.space_before));
                }
                continue;
            }
            if token.is("##") {
                let right = match body.next() {
                    Some(next) => match mac.param_index(next).and_then(|i| args.get(i)) {
                        Some(arg) if arg.is_empty() => vec![Token::placemarker()],
                        Some(arg) => arg.clone(),
                        None => vec![next.clone()],
                    },
                    None => Vec::new(),
                };
                self.paste(&mut out, right);
                continue;
            }
            let Some((index, arg)) = param else {
                let mut token = token.clone();
                token.boundary = after_argument;
                after_argument = false;
                out.push(token);
                continue;
            };
            let mut substituted = if body.peek().is_some_and(|t| t.is("##")) {
                if arg.is_empty() {
                    vec![Token::placemarker()]
                } else {
                    arg.clone()
                }
            } else {
                self.expanded_argument(&mut expanded_args, index, arg)
            };
            if let Some(first) = substituted.first_mut() {
                first.space_before = token.space_before;
                first.boundary = true;
            }
            after_argument = true;
            out.extend(substituted);
        }
        out.retain(|t| !t.is_placemarker());
        for token in &mut out {
            token.hide = union(&token.hide, hide);
        }
        out
    }

    /// Argument `index` fully expanded, computed once per invocation.
    fn expanded_argument(
        &mut self,
        cache: &mut [Option<Vec<Token>>],
        index: usize,
        arg: &[Token],
    ) -> Vec<Token> {
        if let Some(Some(done)) = cache.get(index) {
            return done.clone();
        }
        let done = if self.depth >= MAX_ARGUMENT_DEPTH {
            self.fail("macro invocations are nested too deeply".into());
            arg.to_vec()
        } else {
            self.depth += 1;
            let done = self.expand(arg.to_vec(), &mut NoMoreTokens);
            self.depth -= 1;
            done
        };
        if let Some(slot) = cache.get_mut(index) {
            *slot = Some(done.clone());
        }
        done
    }

    /// Applies `##` between the last token of `out` and the first of `right`.
    fn paste(&mut self, out: &mut Vec<Token>, right: Vec<Token>) {
        let mut right = right.into_iter();
        let Some(first) = right.next() else { return };
        match out.pop() {
            Some(left) if left.is_placemarker() => out.push(first),
            Some(left) if first.is_placemarker() => out.push(left),
            Some(left) => {
                let joined = format!("{}{}", left.text, first.text);
                if is_single_lexeme(&joined) {
                    let mut scanner = super::scan::Scanner::new(&joined);
                    let kind = scanner.next().map_or(LexKind::Other, |l| l.kind);
                    out.push(Token {
                        kind,
                        text: joined.into(),
                        ..left
                    });
                } else {
                    self.errors.push(format!(
                        "pasting `{}` and `{}` does not give a valid token",
                        left.text, first.text
                    ));
                    out.push(left);
                    out.push(first);
                }
            }
            None => out.push(first),
        }
        out.extend(right);
    }
}

/// Whether the next token is the operand of `defined` (after `defined` or
/// `defined (`).
fn is_defined_operand(out: &[Token]) -> bool {
    let is_defined = |t: &Token| t.kind == LexKind::Ident && &*t.text == "defined";
    match out {
        [.., last] if is_defined(last) => true,
        [.., before, last] => last.is("(") && is_defined(before),
        _ => false,
    }
}

fn next_is_lparen(pending: &VecDeque<Token>, more: &mut dyn TokenSource) -> bool {
    match pending.front() {
        Some(token) => token.is("("),
        None => more.next_is_lparen(),
    }
}

fn comma() -> Token {
    Token {
        kind: LexKind::Punct,
        text: ",".into(),
        space_before: false,
        boundary: false,
        hide: Rc::from([]),
    }
}

/// `#arg`: the argument's spelling as a string literal.
fn stringize(arg: &[Token], space_before: bool) -> Token {
    let mut text = String::from("\"");
    for (i, token) in arg.iter().enumerate() {
        if i > 0 && token.space_before {
            text.push(' ');
        }
        if token.kind == LexKind::Str {
            for c in token.text.chars() {
                if c == '"' || c == '\\' {
                    text.push('\\');
                }
                text.push(c);
            }
        } else {
            text.push_str(&token.text);
        }
    }
    text.push('"');
    Token {
        kind: LexKind::Str,
        text: text.into(),
        space_before,
        boundary: true,
        hide: Rc::from([]),
    }
}

fn add_to_hide_set(hide: &HideSet, name: &Rc<str>) -> HideSet {
    union(hide, std::slice::from_ref(name))
}

fn intersection(a: &HideSet, b: &[Rc<str>]) -> HideSet {
    if a.iter().all(|n| b.contains(n)) {
        return a.clone();
    }
    a.iter().filter(|n| b.contains(n)).cloned().collect()
}

fn union(a: &HideSet, b: &[Rc<str>]) -> HideSet {
    if b.iter().all(|n| a.contains(n)) {
        return a.clone();
    }
    a.iter()
        .chain(b.iter().filter(|n| !a.contains(n)))
        .cloned()
        .collect()
}

/// Writes expanded tokens as text. A space is put where the definition or
/// the argument had one, and between tokens that came from different places
/// when they would otherwise read as one token.
pub fn spell(tokens: &[Token], before: Option<char>, after: Option<char>) -> String {
    let mut text = String::new();
    let mut previous = before;
    for (i, token) in tokens.iter().enumerate() {
        let first = token.text.chars().next();
        let needs_space = if i == 0 {
            token.space_before || would_paste(previous, first)
        } else {
            token.space_before || (token.boundary && would_paste(previous, first))
        };
        if needs_space {
            text.push(' ');
        }
        text.push_str(&token.text);
        previous = token.text.chars().last().or(previous);
    }
    if would_paste(previous, after) && !tokens.is_empty() {
        text.push(' ');
    }
    text
}

/// Whether two characters side by side could belong to one token.
fn would_paste(left: Option<char>, right: Option<char>) -> bool {
    let (Some(a), Some(b)) = (left, right) else {
        return false;
    };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let operator = |c: char| "+-*/%<>=!&|^~?:.#@".contains(c);
    (word(a) && word(b)) || (operator(a) && operator(b)) || (a == '/' && b == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preprocess::macros::parse_definition;
    use crate::preprocess::scan::Scanner;

    fn tokens(text: &str) -> Vec<Token> {
        let mut scanner = Scanner::new(text);
        std::iter::from_fn(|| scanner.next())
            .map(|l| Token::from_lexeme(text, l))
            .collect()
    }

    fn table(defines: &[&str]) -> MacroTable {
        let mut table = MacroTable::default();
        for line in defines {
            let mut scanner = Scanner::new(line);
            let Some(name) = scanner.next_in_line() else {
                continue;
            };
            let rest: Vec<_> = std::iter::from_fn(|| scanner.next_in_line())
                .map(|l| (l, Token::from_lexeme(line, l)))
                .collect();
            if let Ok(mac) = parse_definition(name.hi, &rest, None) {
                table.define(line[name.lo..name.hi].into(), mac);
            }
        }
        table
    }

    fn expand(defines: &[&str], text: &str) -> (String, Vec<String>) {
        let table = table(defines);
        let mut budget = TOKEN_BUDGET;
        let mut expander = Expander::new(&table, &mut budget);
        let out = expander.expand(tokens(text), &mut NoMoreTokens);
        (spell(&out, None, None), expander.errors)
    }

    #[test]
    fn self_reference_is_not_expanded_again() {
        assert_eq!(expand(&["A A + 1"], "A").0, "A + 1");
        assert_eq!(expand(&["A B", "B A"], "A").0, "A");
    }

    #[test]
    fn a_call_completed_after_the_expansion_is_expanded_as_in_cpp() {
        // The C standard's example: the hide set of `)` decides.
        let defines = ["f(a) a*g", "g(a) f(a)"];
        assert_eq!(expand(&defines, "f(2)(9)").0, "2*9*g");
    }

    #[test]
    fn arguments_are_expanded_before_substitution() {
        let defines = ["ONE 1", "ADD(a, b) (a + b)", "TWICE(x) ADD(x, x)"];
        assert_eq!(expand(&defines, "TWICE(ONE)").0, "(1 + 1)");
        assert_eq!(expand(&defines, "ADD((1, 2), 3)").0, "((1, 2) + 3)");
    }

    #[test]
    fn stringize_and_paste() {
        let defines = ["_STR(x) #x", "STR(x) _STR(x)", "V 1.2", "CAT(a, b) a ## b"];
        assert_eq!(expand(&defines, "STR(V)").0, "\"1.2\"");
        assert_eq!(expand(&defines, "_STR(V  \"q\")").0, "\"V \\\"q\\\"\"");
        assert_eq!(expand(&defines, "CAT(x, 1) CAT(, y) CAT(x,)").0, "x1 y x");
    }

    #[test]
    fn spacing_of_the_definition_is_kept_and_pasting_avoided() {
        let defines = ["SHR >>", "GT >", "NEG -1"];
        assert_eq!(expand(&defines, "a SHR b").0, "a >> b");
        assert_eq!(expand(&defines, "GT GT").0, "> >");
        assert_eq!(expand(&defines, "-NEG").0, "- -1");
    }

    #[test]
    fn wrong_argument_counts_are_errors() {
        let (text, errors) = expand(&["F(a, b) a"], "F(1)");
        assert_eq!(text, "F(1)");
        assert_eq!(
            errors,
            vec!["macro `F` takes 2 arguments, but 1 were given".to_string()]
        );
        assert_eq!(expand(&["G() 7"], "G()").0, "7");
        assert_eq!(
            expand(&["V(x, ...) x: __VA_ARGS__"], "V(1, 2, 3)").0,
            "1: 2, 3"
        );
    }

    #[test]
    fn exponential_expansion_hits_the_budget() {
        let mut defines = vec!["A0 x x".to_string()];
        for i in 1..40 {
            defines.push(format!("A{i} A{p} A{p}", p = i - 1));
        }
        let defines: Vec<&str> = defines.iter().map(String::as_str).collect();
        let (_, errors) = expand(&defines, "A39");
        assert_eq!(errors.len(), 1);
        assert!(errors.iter().all(|e| e.ends_with("is too large")));
    }

    #[test]
    fn long_chains_of_macros_stop_with_an_error() {
        let defines: Vec<String> = (0..5000).map(|i| format!("M{i} M{}", i + 1)).collect();
        let defines: Vec<&str> = defines.iter().map(String::as_str).collect();
        let (_, errors) = expand(&defines, "M0");
        assert_eq!(
            errors,
            vec!["macro `M128` expands through too many nested macros".to_string()]
        );
    }

    #[test]
    fn deeply_nested_arguments_stop_with_an_error() {
        let text = format!("{}1{}", "F(".repeat(200), ")".repeat(200));
        let (_, errors) = expand(&["F(x) x"], &text);
        assert_eq!(
            errors,
            vec!["macro invocations are nested too deeply".to_string()]
        );
    }
}
