//! Lowering: AST (+ the top-level type environment) to the pipeline IR.
//!
//! [`architecture`] finds `main` and its architecture ([`crate::arch`]),
//! binds the package's blocks to the variables the architecture shares
//! between them and records the pipeline's steps and the architecture's
//! metadata as IR places; each block is lowered with a scope stack of
//! names. Every limit of the eBPF target is reported here as a P4
//! diagnostic, so emission cannot fail on the program. Split by concern:
//! [`types`] (types, constants), [`expr`], [`call`], [`control`],
//! [`stmt`], [`method`], [`externs`], [`parser`], [`table`].

mod action_call;
mod actions_list;
mod add_on_miss;
mod architecture;
mod args;
mod atomic;
mod call;
mod cell_index;
mod class_of_service;
mod compare;
mod conditional;
mod control;
mod digest;
mod direct;
mod entry_priorities;
mod expr;
mod extern_params;
mod externs;
mod hash;
mod init;
mod initial_entries;
mod internet_checksum;
mod lookahead_value;
mod loops;
mod meter;
mod method;
mod multicast;
mod parser;
mod payload_checksum;
mod pna;
mod pna_checksum;
mod pna_ipsec;
mod pna_mirror;
mod pna_skb;
mod pna_tc_rules;
mod pna_timers;
mod profile;
mod psa_clone;
mod psa_egress;
mod psa_resubmit;
mod register_composite;
mod runnable;
mod stmt;
mod sub_parser;
mod table;
mod tc_acl;
mod tc_type;
pub mod types;
mod v1model_clone;
mod v1model_passes;
mod value_externs;
mod value_set_match;
mod value_set_tuple;
mod varbit;
mod wide;

use crate::arch::Architecture;
use crate::ir::{self, Arch, Ty, Var, VarId, VarStorage};
use num_traits::ToPrimitive;
use p4bpf_front::ast::{self, ExprKind};
use p4bpf_front::check::CheckedProgram;
use p4bpf_front::diag::{Diagnostic, Diagnostics};
use p4bpf_front::source::{SourceMap, Span, TranslationUnit};
use std::collections::HashMap;
use types::TypeEnv;

/// Diagnostics located in the translation unit.
pub struct Diags<'u> {
    unit: &'u TranslationUnit,
    sources: &'u SourceMap,
    pub list: Diagnostics,
}

impl<'u> Diags<'u> {
    pub fn new(unit: &'u TranslationUnit, sources: &'u SourceMap) -> Diags<'u> {
        Diags {
            unit,
            sources,
            list: Diagnostics::default(),
        }
    }

    /// `file.p4:12` for the start of `span`, noted in the generated C.
    pub fn origin(&self, span: Span) -> String {
        let Some(loc) = self.unit.resolve(span) else {
            return String::new();
        };
        // Every file a unit resolves to was added to this source map.
        let file = self.sources.file(loc.file);
        let name = file
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{name}:{}", file.line_col(loc.lo).0)
    }
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        self.list
            .push(Diagnostic::error(self.unit.resolve(span), message));
    }
    pub fn warning(&mut self, span: Span, message: impl Into<String>) {
        self.list
            .push(Diagnostic::warning(self.unit.resolve(span), message));
    }
    /// The program text of `span`, for names of key expressions.
    pub fn text(&self, span: Span) -> String {
        self.unit
            .slice(span)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("")
    }
}

/// What a name in scope stands for.
#[derive(Clone, Debug)]
enum Binding {
    Var(VarId),
    Table(ir::TableId),
    Action(ir::ActionId),
    /// An extern object instance (`CounterArray`, `Register`).
    Extern(ir::ExternId),
    /// An `InternetChecksum` instance: the variable holding its sum.
    InternetChecksum(VarId),
    /// PNA's `ipsec_accelerator`: whether the packet goes to it.
    Ipsec(VarId),
    /// A `Random<T>(lo, hi)` instance.
    Random {
        lo: u64,
        hi: u64,
        ty: Ty,
    },
    /// A `Hash<O>(algorithm)` instance, `ty` being `O`.
    Hash {
        algorithm: ir::HashAlgorithm,
        ty: Ty,
    },
    /// PNA's `Checksum`: the variable holding the CRC so far.
    CrcChecksum {
        state: VarId,
        algorithm: ir::HashAlgorithm,
    },
    ValueSet(ir::ValueSetId),
    /// An action profile or selector instance.
    Profile(ir::ProfileId),
    /// A `Digest<T>` instance: index into the program's digests.
    Digest(u32),
    State(ir::StateId),
    /// A control instantiated inside another: index into `sub_controls`.
    SubControl(usize),
    /// A parser instantiated inside a parser: index into `sub_parsers`.
    SubParser(usize),
    /// A control instance with extern parameters, lowered at its apply:
    /// index into `pending_controls`.
    PendingControl(usize),
    PacketIn,
    PacketOut,
}

struct Lowerer<'a, 'u> {
    env: TypeEnv<'a>,
    /// The architecture of `main`'s package, once found.
    arch: Option<&'static Architecture>,
    /// The variables the architecture shares between blocks, by name.
    shared: HashMap<&'static str, VarId>,
    diags: Diags<'u>,
    prog: ir::Program,
    scopes: Vec<HashMap<String, Binding>>,
    /// Dotted prefix of the block being lowered (`pipe`).
    prefix: String,
    /// Table applications hoisted out of the expression being lowered.
    pending: Vec<ir::Stmt>,
    c_names: HashMap<String, u32>,
    /// User extern functions allowed through `--extern-file`.
    allow_user_externs: bool,
    sub_controls: Vec<SubControl>,
    sub_parsers: Vec<SubParser<'a>>,
    pending_controls: Vec<extern_params::PendingControl<'a>>,
    /// Initializers of the current block's locals, run when it starts.
    local_inits: Vec<ir::Stmt>,
    /// The constructor arguments `main` gives the block being lowered.
    block_ctor_args: &'a [ast::Argument],
    /// Where `return e;` stores `e` inside an inlined function.
    return_var: Option<VarId>,
    /// Functions being inlined, innermost last (P4 forbids recursion).
    inlining: Vec<String>,
    /// The current table's wrappers of actions bound in its `actions` list.
    bound_actions: HashMap<ir::ActionId, ir::ActionId>,
    /// Labels of the loops being lowered, innermost last.
    loops: Vec<String>,
    /// Each action's parameters as declared, for calls by name.
    action_params: HashMap<ir::ActionId, &'a [ast::Param]>,
    /// Where each of `prog.entry_requests` was made, for diagnostics.
    entry_request_spans: Vec<Span>,
    /// Statements computing a table's keys that apply a table or call a
    /// function, run before each of its `apply`s.
    key_setup: HashMap<ir::TableId, Vec<ir::Stmt>>,
}

/// A control instance inside a control, lowered once; each `apply` copies
/// arguments in, inlines the body and copies `out`/`inout` ones back.
#[derive(Clone, Debug)]
struct SubControl {
    name: String,
    /// The control type's name, for its parameters' default values.
    control_type: String,
    /// Each parameter's variable (none: the packet, `packet_out`).
    params: Vec<(Option<VarId>, Option<ast::Direction>)>,
    body: Vec<ir::Stmt>,
}

/// A parser instance inside a parser. Its states are copied into the
/// caller's state graph at each `apply` (`parser::sub_parser_call`).
#[derive(Clone, Debug)]
struct SubParser<'a> {
    /// The instance's name (the type's, when applied by type name).
    instance: &'a ast::Ident,
    decl: &'a ast::Decl,
    ctor_args: &'a [ast::Argument],
}

/// Lowers a checked program; `name` is the program's file stem.
pub fn lower(
    program: &ast::Program,
    checked: &CheckedProgram,
    unit: &TranslationUnit,
    sources: &SourceMap,
    name: &str,
    allow_user_externs: bool,
) -> Result<ir::Program, Diagnostics> {
    let diags = Diags::new(unit, sources);
    let env = TypeEnv::new(program, checked);
    let mut lw = Lowerer {
        env,
        arch: None,
        shared: HashMap::new(),
        diags,
        prog: ir::Program {
            name: name.to_string(),
            arch: Arch::EbpfModel,
            aggregates: vec![],
            vars: vec![],
            errors: vec![],
            parsers: vec![],
            controls: vec![],
            pipeline: vec![],
            actions: vec![],
            tables: vec![],
            externs: vec![],
            value_sets: vec![],
            profiles: vec![],
            headers: VarId(0),
            intrinsics: ir::Intrinsics {
                ingress_port: None,
                packet_length: None,
                output_port: None,
                verdict: ir::VerdictRule::Accept(ir::Expr {
                    kind: ir::ExprKind::Bool(true),
                    ty: Ty::Bool,
                }),
                on_reject: ir::Outcome::Drop,
                parser_errors: Vec::new(),
                truncate: None,
                defaults: vec![],
                replication: None,
                clone_i2e: None,
                clone_e2e: None,
                resubmit: None,
                recirculate: None,
                mirror: None,
                class_of_service: None,
                sets_class_of_service: false,
            },
            sends_perf_events: false,
            entry_requests: vec![],
            digests: vec![],
            skb_meta_at: None,
            warnings: vec![],
        },
        scopes: vec![HashMap::new()],
        prefix: String::new(),
        pending: vec![],
        c_names: HashMap::new(),
        allow_user_externs,
        sub_controls: vec![],
        sub_parsers: vec![],
        pending_controls: vec![],
        local_inits: vec![],
        block_ctor_args: &[],
        return_var: None,
        inlining: vec![],
        bound_actions: HashMap::new(),
        loops: vec![],
        action_params: HashMap::new(),
        entry_request_spans: vec![],
        key_setup: HashMap::new(),
    };
    lw.program(program);
    lw.prog.aggregates = lw.env.aggregates.clone();
    lw.prog.errors = lw.env.errors.clone();
    if lw.diags.list.has_errors() {
        Err(lw.diags.list)
    } else {
        lw.prog.warnings = lw.diags.list.list;
        Ok(lw.prog)
    }
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// Binds a block's parameters to the shared variables (`None`: packet).
    fn bind_params(&mut self, params: &[ast::Param], shared: &[Option<VarId>], is_parser: bool) {
        if params.len() != shared.len() {
            if let Some(p) = params.first() {
                self.diags.error(
                    p.span,
                    format!(
                        "expected {} parameters for this architecture block",
                        shared.len()
                    ),
                );
            }
        }
        for (p, v) in params.iter().zip(shared) {
            let binding = match v {
                Some(v) => Binding::Var(*v),
                None if is_parser => Binding::PacketIn,
                None => Binding::PacketOut,
            };
            self.bind(&p.name.name, binding);
        }
    }

    fn bind(&mut self, name: &str, binding: Binding) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), binding);
        }
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name).cloned())
    }

    fn dotted(&self, name: &str) -> String {
        if self.prefix.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.prefix)
        }
    }

    /// A C identifier for `p4_name`, unique in the program.
    fn c_name(&mut self, p4_name: &str) -> String {
        let base: String = p4_name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let base = crate::cstruct::c_ident(&base);
        let n = self.c_names.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base}_{n}")
        }
    }

    fn new_var(&mut self, p4_name: String, ty: Ty, storage: VarStorage) -> VarId {
        let id = VarId(self.prog.vars.len() as u32);
        let c_name = self.c_name(&p4_name);
        self.prog.vars.push(Var {
            p4_name,
            c_name,
            ty,
            storage,
        });
        id
    }

    /// The value of `@id(N)`, for P4Runtime (annotation bodies are not
    /// typed, so `N` is read as the integer literal it must be).
    fn id_annotation(&mut self, annotations: &[ast::Annotation]) -> Option<u32> {
        let a = annotations.iter().find(|a| a.name.name == "id")?;
        let ast::AnnotationBody::Expressions(list) = &a.body else {
            return None;
        };
        let e = list.first()?;
        let id = match &e.kind {
            ExprKind::Int(lit) => lit.value.to_u32(),
            _ => None,
        };
        if id.is_none() {
            self.diags
                .error(e.span, "`@id` takes an integer literal that fits 32 bits");
        }
        id
    }

    pub(super) fn annotation_string(annotations: &[ast::Annotation], name: &str) -> Option<String> {
        annotations
            .iter()
            .find(|a| a.name.name == name)
            .and_then(|a| match &a.body {
                ast::AnnotationBody::Expressions(list) => match list.first().map(|e| &e.kind) {
                    Some(ExprKind::String(s)) => Some(s.clone()),
                    _ => None,
                },
                _ => None,
            })
    }

    /// The control-plane name of a declaration: `@name("x")` (relative to
    /// the enclosing block, or absolute with a leading `.`) or its own name.
    fn control_plane_name(&self, annotations: &[ast::Annotation], name: &str) -> String {
        match Self::annotation_string(annotations, "name") {
            Some(n) => match n.strip_prefix('.') {
                Some(absolute) => absolute.to_string(),
                None => self.dotted(&n),
            },
            None => self.dotted(name),
        }
    }

    /// `@name`-style annotation presence.
    fn has_annotation(annotations: &[ast::Annotation], name: &str) -> bool {
        annotations.iter().any(|a| a.name.name == name)
    }
}
