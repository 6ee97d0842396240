//! The architecture's side of lowering: finds `main`'s package in
//! [`crate::arch`], creates the variables its blocks share, resolves its
//! metadata to IR places, lowers top-level actions and each block, and
//! records the pipeline's steps.

use super::Lowerer;
use crate::arch::{self, Architecture, BlockKind, Param};
use crate::ir::{self, Ty, VarId, VarStorage};
use p4bpf_front::ast::{self, DeclKind, ExprKind, TypeRefKind};
use p4bpf_front::source::Span;

/// The shared variable holding the package's headers.
const HEADERS: &str = "headers";

/// The shared variable a block parameter is bound to (none: the packet).
/// `main`'s arguments in the order of the architecture's blocks: named
/// ones (`V1Switch(p = prs(), ig = ingress(), ...)`) by their block's
/// name, when every block is named once; otherwise as written.
fn in_block_order<'x>(args: &'x [ast::Argument], arch: &Architecture) -> Vec<&'x ast::Argument> {
    let named = |role: &str| {
        args.iter()
            .find(|a| a.name.as_ref().is_some_and(|n| n.name == role))
    };
    let ordered: Option<Vec<&ast::Argument>> = arch.blocks.iter().map(|b| named(b.role)).collect();
    match ordered {
        Some(ordered) if ordered.len() == args.len() => ordered,
        _ => args.iter().collect(),
    }
}

fn shared_name(param: Param) -> Option<&'static str> {
    match param {
        Param::Packet => None,
        Param::Headers => Some(HEADERS),
        Param::Shared(name) => Some(name),
    }
}

impl<'a, 'u> Lowerer<'a, 'u> {
    /// Lowers the program `main` instantiates: the declaration the
    /// checker's instance tree starts from.
    pub(super) fn program(&mut self, program: &'a ast::Program) {
        let main_span = self.env.checked.main.as_ref().map(|m| m.span);
        let Some(main) = program.decls.iter().find(|d| Some(d.span) == main_span) else {
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
        let Some(arch) = crate::arch::find_with_blocks(package, args.len()) else {
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
        let mut blocks = vec![];
        let mut ctor_args = vec![];
        for arg in in_block_order(args, arch) {
            if !self.package_blocks(&arg.value, &mut blocks, &mut ctor_args) {
                return;
            }
        }
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
        self.architecture(arch, &blocks, &ctor_args, program);
    }

    /// Lowers the package's blocks in order, each bound to the variables
    /// the architecture shares between them, then its steps and metadata.
    fn architecture(
        &mut self,
        arch: &'static Architecture,
        decls: &[&'a ast::Decl],
        ctor_args: &[&'a [ast::Argument]],
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
        for (name, width) in arch.internal_vars() {
            let var = self.new_var(name.to_string(), Ty::bits(*width), VarStorage::State);
            self.shared.insert(*name, var);
        }
        if let Some(headers) = self.shared.get(HEADERS) {
            self.prog.headers = *headers;
        }
        let span = decls.first().map(|d| d.span).unwrap_or_default();
        let Some(intrinsics) = self.intrinsics(&arch.intrinsics, span) else {
            return;
        };
        self.prog.intrinsics = intrinsics;
        self.arch_inputs(arch, span);
        // Extern instances declared at the top level, shared by every block.
        for decl in &program.decls {
            if let DeclKind::Instance { ty, args, name, .. } = &decl.kind {
                let object = match &ty.kind {
                    TypeRefKind::Named { path, .. } => path.name.name.as_str(),
                    _ => "",
                };
                if arch.object(object).is_some() {
                    self.extern_instance(object, args, name, decl);
                }
            }
        }
        // Top-level actions may call externs that set the metadata.
        for decl in &program.decls {
            if let DeclKind::Action { .. } = decl.kind {
                self.action(decl);
            }
        }
        let mut lowered = Vec::with_capacity(decls.len());
        for (i, (block, decl)) in arch.blocks.iter().zip(decls).enumerate() {
            self.block_ctor_args = ctor_args.get(i).copied().unwrap_or_default();
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
        let mut pipeline = Vec::with_capacity(arch.steps.len());
        for step in arch.steps {
            pipeline.push(match *step {
                arch::Step::Parse(i) => ir::Step::Parse(at(i)),
                arch::Step::ParseKeepingError(i, place) => {
                    if let Some(place) = self.arch_place(&place, span) {
                        self.prog.intrinsics.parser_errors.push((at(i), place));
                    }
                    ir::Step::ParseKeepingError(at(i))
                }
                arch::Step::Control(i) => ir::Step::Control(at(i)),
                arch::Step::Deparse(i) => ir::Step::Deparse(at(i)),
                arch::Step::Checkpoint => ir::Step::Checkpoint,
            });
        }
        self.prog.pipeline = pipeline;
        self.check_entry_requests();
        self.check_tc_types(program);
        self.check_p4tc_rules(arch.blocks, decls);
        if arch.arch == ir::Arch::Psa {
            self.psa_multicast(decls.get(1).map_or(span, |d| d.span));
            self.psa_clone(
                decls.get(1).map_or(span, |d| d.span),
                decls.get(4).map_or(span, |d| d.span),
            );
            self.psa_class_of_service(decls.get(1).map_or(span, |d| d.span));
            self.psa_resubmit(decls.get(1).map_or(span, |d| d.span));
            self.psa_recirculate(span);
            self.psa_egress(decls.get(3..).unwrap_or_default());
        }
        self.ipsec_fails_closed();
        if arch.arch == ir::Arch::Pna {
            self.pna_recirculate(span);
        }
        if arch.arch == ir::Arch::V1Model {
            // Ingress is where a group takes effect: point there.
            let ingress = decls.get(2).map_or(span, |d| d.span);
            self.v1model_multicast(ingress);
            let egress = decls.get(3).map_or(span, |d| d.span);
            self.v1model_passes_and_clones(program, ingress, egress);
            self.v1model_priority(ingress);
        }
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
        let mut place = |p: &arch::Place| self.arch_place(p, span);
        let ingress_port = named.ingress_port.as_ref().and_then(&mut place);
        let packet_length = named.packet_length.as_ref().and_then(&mut place);
        let output_port = named.output_port.as_ref().and_then(&mut place);
        let verdict = match &named.verdict {
            arch::Verdict::Accept(p) => ir::VerdictRule::Accept(place(p)?),
            arch::Verdict::Code { place: p, outcomes } => ir::VerdictRule::Code {
                place: place(p)?,
                outcomes: outcomes.to_vec(),
            },
            arch::Verdict::Port { place: p, drop } => ir::VerdictRule::Port {
                place: place(p)?,
                drop: *drop,
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
            parser_errors: Vec::new(),
            truncate: None,
            defaults,
            replication: None,
            clone_i2e: None,
            clone_e2e: None,
            resubmit: None,
            recirculate: None,
            mirror: None,
            class_of_service: None,
            sets_class_of_service: false,
        })
    }

    /// An architecture's place (`std.output_port`) as an expression.
    pub(super) fn arch_place(&mut self, place: &arch::Place, span: Span) -> Option<ir::Expr> {
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

    /// Appends the blocks a package argument stands for: a parser or
    /// control, or, for a package nested in `main`'s (PSA's
    /// `IngressPipeline`, inline or a named instance), its own blocks in
    /// order. Extern objects (PSA's `PacketReplicationEngine`) are the
    /// architecture's fixed functions, not blocks. False after an error.
    fn package_blocks(
        &mut self,
        arg: &'a ast::Expr,
        blocks: &mut Vec<&'a ast::Decl>,
        ctor_args: &mut Vec<&'a [ast::Argument]>,
    ) -> bool {
        let (name, args) = match &arg.kind {
            ExprKind::Call { callee, args, .. } => match &callee.kind {
                ExprKind::Path(p) => (p.name.name.as_str(), Some(args)),
                _ => ("", None),
            },
            ExprKind::Path(p) => (p.name.name.as_str(), None),
            _ => ("", None),
        };
        let (kind, args) = match (self.env.decl(name).map(|d| &d.kind), args) {
            (
                Some(DeclKind::Instance {
                    ty:
                        ast::TypeRef {
                            kind: TypeRefKind::Named { path, .. },
                            ..
                        },
                    args,
                    ..
                }),
                None,
            ) => (self.env.decl(&path.name.name).map(|d| &d.kind), Some(args)),
            (kind, args) => (kind, args),
        };
        match (kind, args) {
            (Some(DeclKind::ExternType { .. }), _) => true,
            (Some(DeclKind::PackageType { .. }), Some(args)) => args
                .iter()
                .all(|a| self.package_blocks(&a.value, blocks, ctor_args)),
            _ => match self.block_decl(arg) {
                Some((decl, args)) => {
                    blocks.push(decl);
                    ctor_args.push(args);
                    true
                }
                None => false,
            },
        }
    }

    /// The parser or control declaration an argument of `main` instantiates,
    /// with the constructor arguments it is given (bound when it is lowered).
    fn block_decl(&mut self, arg: &'a ast::Expr) -> Option<(&'a ast::Decl, &'a [ast::Argument])> {
        let (name, args) = match &arg.kind {
            ExprKind::Call { callee, args, .. } => match &callee.kind {
                ExprKind::Path(p) => (Some(&p.name.name), args.as_slice()),
                _ => (None, &[][..]),
            },
            _ => (None, &[][..]),
        };
        match name.and_then(|n| self.env.decl(n)) {
            Some(
                d @ ast::Decl {
                    kind: DeclKind::Parser { .. } | DeclKind::Control { .. },
                    ..
                },
            ) => Some((d, args)),
            _ => {
                self.diags.error(
                    arg.span,
                    "expected a parser or control instantiation, like `prs()`",
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
        let ty = self.env.decl_ty(&param.name, &mut self.diags)?;
        Some(self.new_var(name.to_string(), ty, VarStorage::State))
    }
}
