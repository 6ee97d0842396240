//! The tokens of P4_16: what the lexer produces and the parser reads.
//!
//! Keywords and punctuation are listed once, in tables that serve both
//! directions: the lexer looks spellings up, messages print them back.

use crate::ast::IntLit;
use crate::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind {
    Ident(String),
    Number(IntLit),
    /// A string literal without its quotes, escapes kept as written.
    Str(String),
    // Keywords.
    Abstract,
    Action,
    Actions,
    Apply,
    Bit,
    Bool,
    Break,
    Const,
    Continue,
    Control,
    Default,
    Else,
    Entries,
    Enum,
    Error,
    Exit,
    Extern,
    False,
    For,
    Header,
    HeaderUnion,
    If,
    In,
    InOut,
    Int,
    Key,
    List,
    MatchKind,
    Out,
    Package,
    Parser,
    Priority,
    Return,
    Select,
    State,
    String,
    Struct,
    Switch,
    Table,
    This,
    Transition,
    True,
    Tuple,
    Type,
    Typedef,
    ValueSet,
    Varbit,
    Void,
    /// `_`
    Underscore,
    // Punctuation.
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Semi,
    Comma,
    Colon,
    Question,
    Dot,
    DotDot,
    DotDotDot,
    At,
    Hash,
    // Operators. There is no `>>`: see the module comment.
    Assign,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Plus,
    PlusPlus,
    /// `+:` in an indexed slice `e[lo +: width]`.
    PlusColon,
    Minus,
    Star,
    Slash,
    Percent,
    Amp,
    AmpAmp,
    AmpAmpAmp,
    Pipe,
    PipePipe,
    PipePlusPipe,
    PipeMinusPipe,
    Caret,
    Tilde,
    Bang,
    /// A character that starts no token. Kept (not reported here) because
    /// a free-form annotation body may hold anything; the parser reports
    /// it anywhere else.
    Unknown(char),
    /// A compound assignment `op=`, e.g. `+=` (carries `+`), `<<=` (`<<`).
    /// `>>=` is lexed as `>`, `>=` and joined by the parser.
    OpAssign(Box<TokenKind>),
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// Keywords and their spelling.
pub(super) const KEYWORDS: &[(&str, TokenKind)] = &[
    ("abstract", TokenKind::Abstract),
    ("action", TokenKind::Action),
    ("actions", TokenKind::Actions),
    ("apply", TokenKind::Apply),
    ("bit", TokenKind::Bit),
    ("bool", TokenKind::Bool),
    ("break", TokenKind::Break),
    ("const", TokenKind::Const),
    ("continue", TokenKind::Continue),
    ("control", TokenKind::Control),
    ("default", TokenKind::Default),
    ("else", TokenKind::Else),
    ("entries", TokenKind::Entries),
    ("enum", TokenKind::Enum),
    ("error", TokenKind::Error),
    ("exit", TokenKind::Exit),
    ("extern", TokenKind::Extern),
    ("false", TokenKind::False),
    ("for", TokenKind::For),
    ("header", TokenKind::Header),
    ("header_union", TokenKind::HeaderUnion),
    ("if", TokenKind::If),
    ("in", TokenKind::In),
    ("inout", TokenKind::InOut),
    ("int", TokenKind::Int),
    ("key", TokenKind::Key),
    ("list", TokenKind::List),
    ("match_kind", TokenKind::MatchKind),
    ("out", TokenKind::Out),
    ("package", TokenKind::Package),
    ("parser", TokenKind::Parser),
    ("priority", TokenKind::Priority),
    ("return", TokenKind::Return),
    ("select", TokenKind::Select),
    ("state", TokenKind::State),
    ("string", TokenKind::String),
    ("struct", TokenKind::Struct),
    ("switch", TokenKind::Switch),
    ("table", TokenKind::Table),
    ("this", TokenKind::This),
    ("transition", TokenKind::Transition),
    ("true", TokenKind::True),
    ("tuple", TokenKind::Tuple),
    ("type", TokenKind::Type),
    ("typedef", TokenKind::Typedef),
    ("value_set", TokenKind::ValueSet),
    ("varbit", TokenKind::Varbit),
    ("void", TokenKind::Void),
    ("_", TokenKind::Underscore),
];

impl TokenKind {
    /// The spelling of an identifier or keyword token.
    pub fn word(&self) -> Option<&str> {
        match self {
            TokenKind::Ident(name) => Some(name),
            _ => KEYWORDS
                .iter()
                .find(|(_, kind)| kind == self)
                .map(|(text, _)| *text),
        }
    }

    /// How the token is written, for messages like "expected `;`, found `}`".
    pub fn describe(&self) -> std::string::String {
        match self {
            TokenKind::Number(_) => "integer literal".into(),
            TokenKind::Str(_) => "string literal".into(),
            TokenKind::Eof => "end of file".into(),
            TokenKind::OpAssign(op) => format!("`{}=`", op.spelling()),
            TokenKind::Unknown(ch) => format!("`{}`", ch.escape_debug()),
            _ => format!("`{}`", self.spelling()),
        }
    }

    /// The text of a keyword, identifier or punctuation token.
    fn spelling(&self) -> &str {
        self.word()
            .or_else(|| {
                PUNCTUATION
                    .iter()
                    .find(|(_, kind)| kind == self)
                    .map(|(text, _)| *text)
            })
            .unwrap_or("?")
    }
}

/// Punctuation and operators, longest first so the first match wins.
pub(super) const PUNCTUATION: &[(&str, TokenKind)] = &[
    ("&&&", TokenKind::AmpAmpAmp),
    ("|+|", TokenKind::PipePlusPipe),
    ("|-|", TokenKind::PipeMinusPipe),
    ("...", TokenKind::DotDotDot),
    ("..", TokenKind::DotDot),
    ("&&", TokenKind::AmpAmp),
    ("||", TokenKind::PipePipe),
    ("++", TokenKind::PlusPlus),
    ("+:", TokenKind::PlusColon),
    ("==", TokenKind::Eq),
    ("!=", TokenKind::Ne),
    ("<=", TokenKind::Le),
    (">=", TokenKind::Ge),
    ("<<", TokenKind::Shl),
    ("(", TokenKind::LParen),
    (")", TokenKind::RParen),
    ("[", TokenKind::LBracket),
    ("]", TokenKind::RBracket),
    ("{", TokenKind::LBrace),
    ("}", TokenKind::RBrace),
    (";", TokenKind::Semi),
    (",", TokenKind::Comma),
    (":", TokenKind::Colon),
    ("?", TokenKind::Question),
    (".", TokenKind::Dot),
    ("@", TokenKind::At),
    ("#", TokenKind::Hash),
    ("=", TokenKind::Assign),
    ("<", TokenKind::Lt),
    (">", TokenKind::Gt),
    ("+", TokenKind::Plus),
    ("-", TokenKind::Minus),
    ("*", TokenKind::Star),
    ("/", TokenKind::Slash),
    ("%", TokenKind::Percent),
    ("&", TokenKind::Amp),
    ("|", TokenKind::Pipe),
    ("^", TokenKind::Caret),
    ("~", TokenKind::Tilde),
    ("!", TokenKind::Bang),
];
