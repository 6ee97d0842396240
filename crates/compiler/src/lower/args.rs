//! Arguments matched to parameters: by position, or all by name; a
//! parameter left out takes its default value (typed by the checker in the
//! callee's declaration), and `_` for an `out` parameter discards it.

use p4bpf_front::ast;

/// What one parameter receives.
#[derive(Clone, Copy)]
pub(super) enum Given<'a> {
    Value(&'a ast::Expr),
    /// `_`, or an optional parameter left out: nothing to copy in or out.
    Nothing,
}

/// The argument of each parameter, in parameter order, or the name of the
/// first parameter nothing is given for.
pub(super) fn match_args<'a>(
    params: &'a [ast::Param],
    args: &'a [ast::Argument],
) -> Result<Vec<Given<'a>>, String> {
    let by_name = args.iter().any(|a| a.name.is_some());
    if !by_name && args.len() > params.len() {
        return Err(format!(
            "{} arguments for {} parameters",
            args.len(),
            params.len()
        ));
    }
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let written = if by_name {
                args.iter()
                    .find(|a| a.name.as_ref().is_some_and(|n| n.name == p.name.name))
            } else {
                args.get(i)
            };
            match (written, &p.default) {
                (Some(a), _) if matches!(a.value.kind, ast::ExprKind::DontCare) => {
                    Ok(Given::Nothing)
                }
                (Some(a), _) => Ok(Given::Value(&a.value)),
                (None, Some(default)) => Ok(Given::Value(default)),
                (None, None) if is_optional(p) => Ok(Given::Nothing),
                (None, None) => Err(format!("no argument for parameter `{}`", p.name.name)),
            }
        })
        .collect()
}

fn is_optional(p: &ast::Param) -> bool {
    p.annotations.iter().any(|a| a.name.name == "optional")
}
