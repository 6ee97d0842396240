//! Evaluation of `main`: the package instance and, recursively, every
//! parser, control and extern instance it is built from, with constructor
//! arguments evaluated to values.
//!
//! Runs after the whole program is checked, reading the facts already
//! recorded (types of declarations, constant values). Instances declared
//! inside a parser or control become that instance's children; their
//! arguments may use the block's constructor parameters, which are bound
//! here to the values and instances the block was built with. Depth is
//! bounded so no input can make it recurse without end.

use super::consteval::{self, Value};
use super::types::{BlockKind, Type, TypeDefKind};
use super::{Checker, RefKind};
use crate::ast::{Argument, Decl, DeclKind, Expr, ExprKind, Program, UnaryOp};
use crate::source::Span;

const MAX_DEPTH: usize = 32;

/// Constructor arguments of the enclosing block, by parameter name.
type Env = [(String, InstanceArg)];

/// One concrete instance.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    /// The instance's name: the declared name, or for an anonymous
    /// instance passed as an argument, the parameter it binds.
    pub name: String,
    /// Its type, specialized.
    pub ty: Type,
    pub kind: InstanceKind,
    /// Constructor arguments by parameter name, in parameter order where
    /// known, else in argument order.
    pub args: Vec<(String, InstanceArg)>,
    /// Instances declared inside a parser or control, in order.
    pub children: Vec<Instance>,
    /// The span of the declaration or expression that created it.
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceKind {
    Package,
    Parser,
    Control,
    Extern,
}

#[derive(Clone, Debug, PartialEq)]
pub enum InstanceArg {
    Instance(Box<Instance>),
    Value(Value),
    /// Not known at compile time (reported where it matters).
    Unknown,
}

impl Checker<'_> {
    pub(super) fn instantiate_main(&mut self, program: &Program) -> Option<Instance> {
        let main = program
            .decls
            .iter()
            .find(|d| matches!(&d.kind, DeclKind::Instance { name, .. } if name.name == "main"))?;
        let inst = self.instance_of_decl(program, main, &[], 0);
        if let Some(i) = &inst {
            if i.kind != InstanceKind::Package {
                self.error(i.span, "`main` must be an instance of a package");
            }
        }
        inst
    }

    fn instance_of_decl(
        &self,
        program: &Program,
        decl: &Decl,
        env: &Env,
        depth: usize,
    ) -> Option<Instance> {
        let DeclKind::Instance { args, name, .. } = &decl.kind else {
            return None;
        };
        let ty = self
            .decl_types
            .get(&name.span)
            .cloned()
            .unwrap_or(Type::Unknown);
        self.build(program, &name.name, ty, args, decl.span, env, depth)
    }

    /// One instance; `env` holds the constructor arguments of the block
    /// the arguments are written in.
    #[allow(clippy::too_many_arguments)]
    fn build(
        &self,
        program: &Program,
        name: &str,
        ty: Type,
        args: &[Argument],
        span: Span,
        env: &Env,
        depth: usize,
    ) -> Option<Instance> {
        if depth > MAX_DEPTH {
            return None;
        }
        let elem = match &ty {
            Type::Stack(elem, _) => (**elem).clone(),
            _ => ty.clone(),
        };
        let Type::Named { id, .. } = &elem else {
            return None;
        };
        let def = self.types.get(*id)?;
        let (kind, params) = match &def.kind {
            TypeDefKind::Extern => (InstanceKind::Extern, Vec::new()),
            TypeDefKind::Block {
                block: BlockKind::Package,
                ..
            } => (InstanceKind::Package, def.params.clone()),
            TypeDefKind::Block {
                block: BlockKind::Parser,
                ..
            } => (InstanceKind::Parser, def.ctor_params.clone()),
            TypeDefKind::Block {
                block: BlockKind::Control,
                ..
            } => (InstanceKind::Control, def.ctor_params.clone()),
            _ => return None,
        };
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let param = match &a.name {
                Some(n) => n.name.clone(),
                None => params
                    .get(i)
                    .map_or_else(|| format!("arg{i}"), |p| p.name.clone()),
            };
            let value = self.argument(program, &param, &a.value, env, depth);
            out.push((param, value));
        }
        let children = match kind {
            InstanceKind::Parser | InstanceKind::Control => {
                self.children(program, &def.name, &out, depth)
            }
            _ => Vec::new(),
        };
        Some(Instance {
            name: name.to_string(),
            ty,
            kind,
            args: out,
            children,
            span,
        })
    }

    fn argument(
        &self,
        program: &Program,
        param: &str,
        e: &Expr,
        env: &Env,
        depth: usize,
    ) -> InstanceArg {
        let ty = self.type_of(e.id);
        match &e.kind {
            ExprKind::Call { args, .. } if matches!(ty, Type::Named { .. }) => {
                if let Some(i) =
                    self.build(program, param, ty.clone(), args, e.span, env, depth + 1)
                {
                    return InstanceArg::Instance(Box::new(i));
                }
            }
            ExprKind::Path(p)
                if matches!(
                    self.refs.get(&e.id).map(|r| r.kind),
                    Some(RefKind::BoundParameter)
                ) =>
            {
                if let Some((_, bound)) = env.iter().find(|(n, _)| *n == p.name.name) {
                    return bound.clone();
                }
            }
            ExprKind::Path(p) => {
                let decl = program
                    .decls
                    .iter()
                    .find(|d| matches!(&d.kind, DeclKind::Instance { name, .. } if name.name == p.name.name));
                if let Some(i) =
                    decl.and_then(|d| self.instance_of_decl(program, d, &[], depth + 1))
                {
                    return InstanceArg::Instance(Box::new(i));
                }
            }
            _ => {}
        }
        self.evaluate(e, env)
            .map_or(InstanceArg::Unknown, InstanceArg::Value)
    }

    /// The value of a constructor argument, reading the enclosing block's
    /// constructor parameters from `env` (the checker could not know them).
    fn evaluate(&self, e: &Expr, env: &Env) -> Option<Value> {
        if let Some(v) = self.values.get(&e.id) {
            return Some(v.clone());
        }
        let ty = self.type_of(e.id);
        match &e.kind {
            ExprKind::Path(p) => env
                .iter()
                .find(|(n, _)| *n == p.name.name)
                .and_then(|(_, a)| match a {
                    InstanceArg::Value(v) => Some(v.clone()),
                    _ => None,
                }),
            ExprKind::Binary { op, lhs, rhs } => {
                let a = self.evaluate(lhs, env)?;
                let b = self.evaluate(rhs, env)?;
                let operand_ty = self.type_of(lhs.id);
                let folded = consteval::int_binary(*op, a.int()?, b.int()?, &operand_ty).ok()?;
                Some(consteval::int_value(folded, &ty))
            }
            ExprKind::Unary {
                op: UnaryOp::Neg,
                operand,
            } => {
                let v = self.evaluate(operand, env)?;
                Some(consteval::int_value(-v.int()?.clone(), &ty))
            }
            ExprKind::Cast { expr, .. } => consteval::cast(&self.evaluate(expr, env)?, &ty),
            _ => None,
        }
    }

    /// Instances declared among the locals of the parser or control `name`,
    /// whose arguments may read its constructor arguments `env`.
    fn children(&self, program: &Program, name: &str, env: &Env, depth: usize) -> Vec<Instance> {
        let locals = program.decls.iter().find_map(|d| match &d.kind {
            DeclKind::Parser { sig, locals, .. } | DeclKind::Control { sig, locals, .. }
                if sig.name.name == name =>
            {
                Some(locals)
            }
            _ => None,
        });
        locals
            .into_iter()
            .flatten()
            .filter_map(|l| self.instance_of_decl(program, l, env, depth + 1))
            .collect()
    }
}
