//! Lowering: AST (+ the top-level type environment) to the pipeline IR.
//!
//! Finds `main` and its architecture ([`crate::arch`]), binds the
//! package's blocks to the variables the architecture shares between them,
//! lowers each block with a scope stack of names, and records the
//! pipeline's steps and the architecture's metadata as IR places. Every limit of the
//! eBPF target is reported here as a P4 diagnostic, so emission cannot fail
//! on the program. Split by concern: [`types`] (types, constants),
//! [`expr`], [`call`], [`control`], [`stmt`], [`method`], [`parser`], [`table`].

mod call;
mod control;
mod expr;
mod externs;
mod method;
mod parser;
mod stmt;
mod table;
pub mod types;

use crate::arch::{self, Architecture, BlockKind, Param};
use crate::ir::{self, Arch, Ty, Var, VarId, VarStorage};
use p4bpf_front::ast::{self, DeclKind, ExprKind, TypeRefKind};
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
    /// The program text of `span`, for names of key expressions.
    pub fn text(&self, span: Span) -> String {
        self.unit
            .slice(span)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join("")
    }
}

/// The shared variable holding the package's headers.
const HEADERS: &str = "headers";

/// The shared variable a block parameter is bound to (none: the packet).
fn shared_name(param: Param) -> Option<&'static str> {
    match param {
        Param::Packet => None,
        Param::Headers => Some(HEADERS),
        Param::Shared(name) => Some(name),
    }
}

/// What a name in scope stands for.
#[derive(Clone, Debug)]
enum Binding {
    Var(VarId),
    Const(num_bigint::BigInt, Ty),
    Table(ir::TableId),
    Action(ir::ActionId),
    /// An extern object instance (`CounterArray`, `Register`).
    Extern(ir::ExternId),
    ValueSet(ir::ValueSetId),
    State(ir::StateId),
    /// A control instantiated inside another: index into `sub_controls`.
    SubControl(usize),
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
    /// Initializers of the current block's locals, run when it starts.
    local_inits: Vec<ir::Stmt>,
    /// Where `return e;` stores `e` inside an inlined function.
    return_var: Option<VarId>,
    /// Functions being inlined, innermost last (P4 forbids recursion).
    inlining: Vec<String>,
}

/// A control instance inside a control, lowered once; each `apply` copies
/// arguments in, inlines the body and copies `out`/`inout` ones back.
#[derive(Clone, Debug)]
struct SubControl {
    name: String,
    params: Vec<(VarId, Option<ast::Direction>)>,
    body: Vec<ir::Stmt>,
}

/// Lowers a parsed program; `name` is the program's file stem.
pub fn lower(
    program: &ast::Program,
    unit: &TranslationUnit,
    sources: &SourceMap,
    name: &str,
    allow_user_externs: bool,
) -> Result<ir::Program, Diagnostics> {
    let mut diags = Diags::new(unit, sources);
    let env = TypeEnv::new(program, &mut diags);
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
                truncate: None,
                defaults: vec![],
            },
            sends_perf_events: false,
        },
        scopes: vec![HashMap::new()],
        prefix: String::new(),
        pending: vec![],
        c_names: HashMap::new(),
        allow_user_externs,
        sub_controls: vec![],
        local_inits: vec![],
        return_var: None,
        inlining: vec![],
    };
    lw.program(program);
    lw.prog.aggregates = lw.env.aggregates.clone();
    lw.prog.errors = lw.env.errors.clone();
    if lw.diags.list.has_errors() {
        Err(lw.diags.list)
    } else {
        Ok(lw.prog)
    }
}

impl<'a, 'u> Lowerer<'a, 'u> {
    fn program(&mut self, program: &'a ast::Program) {
        let Some(main) = program
            .decls
            .iter()
            .find(|d| matches!(&d.kind, DeclKind::Instance { name, .. } if name.name == "main"))
        else {
            self.diags
                .list
                .error(None, "the program has no `main` instance");
            return;
        };
        let DeclKind::Instance { ty, args, .. } = &main.kind else {
            return;
        };
        let package = match &ty.kind {
            TypeRefKind::Named { path, .. } => path.name.name.as_str(),
            _ => "",
        };
        let Some(arch) = crate::arch::find(package) else {
            self.diags.error(
                main.span,
                format!(
                    "package `{package}` is not supported: p4bpf runs {}",
                    crate::arch::known_packages()
                ),
            );
            return;
        };
        self.arch = Some(arch);
        self.prog.arch = arch.arch;
        let blocks: Vec<Option<&'a ast::Decl>> =
            args.iter().map(|a| self.block_decl(&a.value)).collect();
        if blocks.iter().any(Option::is_none) {
            return;
        }
        let blocks: Vec<&'a ast::Decl> = blocks.into_iter().flatten().collect();
        if blocks.len() != arch.blocks.len() {
            self.diags.error(
                main.span,
                format!(
                    "`{package}` takes {} blocks ({}), not {}",
                    arch.blocks.len(),
                    arch.blocks
                        .iter()
                        .map(|b| b.role)
                        .collect::<Vec<_>>()
                        .join(", "),
                    blocks.len()
                ),
            );
            return;
        }
        self.architecture(arch, &blocks, program);
    }

    /// Lowers the package's blocks in order, each bound to the variables
    /// the architecture shares between them, then its steps and metadata.
    fn architecture(
        &mut self,
        arch: &'static Architecture,
        decls: &[&'a ast::Decl],
        program: &'a ast::Program,
    ) {
        for (block, decl) in arch.blocks.iter().zip(decls) {
            if !self.block_fits(block, decl) {
                return;
            }
            for (index, param) in block.params.iter().enumerate() {
                let Some(name) = shared_name(*param) else {
                    continue;
                };
                if !self.shared.contains_key(name) {
                    let Some(var) = self.shared_var(decl, index, name) else {
                        return;
                    };
                    self.shared.insert(name, var);
                }
            }
        }
        if let Some(headers) = self.shared.get(HEADERS) {
            self.prog.headers = *headers;
        }
        let span = decls.first().map(|d| d.span).unwrap_or_default();
        let Some(intrinsics) = self.intrinsics(&arch.intrinsics, span) else {
            return;
        };
        self.prog.intrinsics = intrinsics;
        // Top-level actions may call externs that set the metadata.
        for decl in &program.decls {
            if let DeclKind::Action { .. } = decl.kind {
                self.action(decl);
            }
        }
        let mut lowered = Vec::with_capacity(decls.len());
        for (block, decl) in arch.blocks.iter().zip(decls) {
            let bound: Vec<Option<VarId>> = block
                .params
                .iter()
                .map(|p| shared_name(*p).and_then(|n| self.shared.get(n).copied()))
                .collect();
            lowered.push(match block.kind {
                BlockKind::Parser => {
                    self.parser(decl, &bound);
                    self.prog.parsers.len().saturating_sub(1)
                }
                BlockKind::Control | BlockKind::Deparser => {
                    self.control(decl, &bound);
                    self.prog.controls.len().saturating_sub(1)
                }
            });
        }
        let at = |i: usize| lowered.get(i).copied().unwrap_or(0);
        self.prog.pipeline = arch
            .steps
            .iter()
            .map(|step| match *step {
                arch::Step::Parse(i) => ir::Step::Parse(at(i)),
                arch::Step::Control(i) => ir::Step::Control(at(i)),
                arch::Step::Deparse(i) => ir::Step::Deparse(at(i)),
            })
            .collect();
    }

    /// Whether `decl` can fill `block`: a parser or control as the block
    /// asks, with as many parameters.
    fn block_fits(&mut self, block: &arch::Block, decl: &ast::Decl) -> bool {
        let (is_parser, sig) = match &decl.kind {
            DeclKind::Parser { sig, .. } => (true, sig),
            DeclKind::Control { sig, .. } => (false, sig),
            _ => return false,
        };
        let wanted = if block.kind == BlockKind::Parser {
            "parser"
        } else {
            "control"
        };
        if is_parser != (block.kind == BlockKind::Parser) {
            self.diags.error(
                decl.span,
                format!(
                    "`{}` fills the architecture's `{}` block, which must be a {wanted}",
                    sig.name.name, block.role
                ),
            );
            return false;
        }
        if sig.params.len() != block.params.len() {
            self.diags.error(
                decl.span,
                format!(
                    "`{}` fills the architecture's `{}` block, which takes {} parameters, not {}",
                    sig.name.name,
                    block.role,
                    block.params.len(),
                    sig.params.len()
                ),
            );
            return false;
        }
        true
    }

    /// The architecture's metadata as places in the shared variables.
    fn intrinsics(&mut self, named: &arch::Intrinsics, span: Span) -> Option<ir::Intrinsics> {
        let mut place = |p: &arch::Place| self.place(p, span);
        let ingress_port = named.ingress_port.as_ref().and_then(&mut place);
        let packet_length = named.packet_length.as_ref().and_then(&mut place);
        let output_port = named.output_port.as_ref().and_then(&mut place);
        let verdict = match &named.verdict {
            arch::Verdict::Accept(p) => ir::VerdictRule::Accept(place(p)?),
            arch::Verdict::Code { place: p, outcomes } => ir::VerdictRule::Code {
                place: place(p)?,
                outcomes: outcomes.to_vec(),
            },
        };
        let mut defaults = vec![];
        for (p, code) in named.defaults {
            let lhs = place(p)?;
            defaults.push(ir::Stmt::Assign {
                rhs: ir::Expr {
                    kind: ir::ExprKind::Int((*code).into()),
                    ty: lhs.ty.clone(),
                },
                lhs,
            });
        }
        Some(ir::Intrinsics {
            ingress_port,
            packet_length,
            output_port,
            verdict,
            on_reject: named.on_reject,
            truncate: None,
            defaults,
        })
    }

    /// An architecture's place (`std.output_port`) as an expression.
    fn place(&mut self, place: &arch::Place, span: Span) -> Option<ir::Expr> {
        let var = self.shared.get(place.var).copied()?;
        let ty = self.prog.var(var)?.ty.clone();
        let base = ir::Expr {
            kind: ir::ExprKind::Var(var),
            ty,
        };
        let Some(field) = place.field else {
            return Some(base);
        };
        let found = match base.ty {
            Ty::Struct(agg) => self.env.aggregates.get(agg.index()).and_then(|a| {
                a.fields
                    .iter()
                    .position(|f| f.name == field)
                    .map(|i| (agg, i, a.fields[i].ty.clone()))
            }),
            _ => None,
        };
        let Some((agg, index, ty)) = found else {
            self.diags.error(
                span,
                format!(
                    "the architecture needs a field `{field}` in `{}`",
                    place.var
                ),
            );
            return None;
        };
        Some(ir::Expr {
            kind: ir::ExprKind::Field {
                base: Box::new(base),
                agg,
                field: index,
            },
            ty,
        })
    }

    /// The parser or control declaration an argument of `main` instantiates.
    fn block_decl(&mut self, arg: &ast::Expr) -> Option<&'a ast::Decl> {
        let name = match &arg.kind {
            ExprKind::Call { callee, args, .. } if args.is_empty() => match &callee.kind {
                ExprKind::Path(p) => Some(&p.name.name),
                _ => None,
            },
            _ => None,
        };
        let decl = name.and_then(|n| self.env.decl(n));
        match decl {
            Some(
                d @ ast::Decl {
                    kind:
                        DeclKind::Parser { ctor_params, .. } | DeclKind::Control { ctor_params, .. },
                    ..
                },
            ) if ctor_params.is_empty() => Some(d),
            _ => {
                self.diags.error(
                    arg.span,
                    "expected a parser or control without constructor parameters, like `prs()`",
                );
                None
            }
        }
    }

    /// A variable for the block parameter at `index`, shared by all blocks.
    fn shared_var(&mut self, block: &'a ast::Decl, index: usize, name: &str) -> Option<VarId> {
        let sig = match &block.kind {
            DeclKind::Parser { sig, .. } | DeclKind::Control { sig, .. } => sig,
            _ => return None,
        };
        let Some(param) = sig.params.get(index) else {
            self.diags.error(
                block.span,
                format!(
                    "`{}` has too few parameters for its architecture",
                    sig.name.name
                ),
            );
            return None;
        };
        let ty = self.env.resolve(&param.ty, &mut self.diags)?;
        Some(self.new_var(name.to_string(), ty, VarStorage::State))
    }

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

    /// The value of `@id(N)`, for P4Runtime.
    fn id_annotation(&mut self, annotations: &[ast::Annotation]) -> Option<u32> {
        let a = annotations.iter().find(|a| a.name.name == "id")?;
        match &a.body {
            ast::AnnotationBody::Expressions(list) => list
                .first()
                .and_then(|e| self.env.eval_u32(e, &mut self.diags)),
            _ => None,
        }
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
