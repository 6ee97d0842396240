//! Extern calls in the trace (`--trace`): each call of an extern
//! instance's method writes an `EXTERN` record with its arguments and
//! result (layout: [`p4bpf_layout::trace`]). The call becomes a C statement
//! expression that evaluates each argument once, makes the call, records
//! and yields the result; without `--trace` it is the plain call.

use super::Emitter;
use crate::ir::{ExternId, ExternKind, ExternOp, Program};
use p4bpf_layout::trace::TracedExternCall;

/// Every method the records can name, in record order: each instance's
/// methods in the order of [`methods`].
pub fn extern_calls(prog: &Program) -> Vec<(ExternId, ExternOp, TracedExternCall)> {
    let mut out = vec![];
    for (i, x) in prog.externs.iter().enumerate() {
        for (op, method, params, result) in methods(&x.kind) {
            let call = TracedExternCall {
                name: format!("{}.{method}", x.name),
                params: params.iter().map(|p| p.to_string()).collect(),
                result,
            };
            out.push((ExternId(i as u32), op, call));
        }
    }
    out
}

/// The traced methods of an extern kind: operation, P4 method name,
/// parameters, whether it returns a value.
fn methods(kind: &ExternKind) -> Vec<(ExternOp, &'static str, &'static [&'static str], bool)> {
    match kind {
        ExternKind::Counter { .. } => vec![(ExternOp::Count, "count", &["index", "amount"], false)],
        ExternKind::Register { .. } => vec![
            (ExternOp::Read, "read", &["index"], true),
            (ExternOp::Write, "write", &["index", "value"], false),
        ],
        ExternKind::Meter { .. } => vec![(
            ExternOp::Execute,
            "execute",
            &["index", "colour", "amount"],
            true,
        )],
        ExternKind::DirectCounter { .. } | ExternKind::DirectMeter { .. } => vec![],
    }
}

impl Emitter<'_> {
    /// `call` (made by `make_call` from argument texts) with its `EXTERN`
    /// record; the plain call when untraced. `wide[i]`: argument `i` is
    /// wider than 64 bits (passed as it is, recorded as 0).
    pub fn traced_extern(
        &self,
        instance: ExternId,
        op: ExternOp,
        args: &[String],
        wide: &[bool],
        make_call: &dyn Fn(&[String]) -> String,
    ) -> String {
        let traced = if self.traces() {
            extern_calls(self.prog)
        } else {
            vec![]
        };
        let found = traced
            .iter()
            .enumerate()
            .find(|(_, (x, o, _))| *x == instance && *o == op);
        let Some((index, (_, _, call))) = found else {
            return make_call(args);
        };
        let mut body = String::from("({ ");
        let mut passed = vec![];
        let mut recorded = vec![];
        for (i, arg) in args.iter().enumerate() {
            if wide.get(i).copied().unwrap_or(false) {
                passed.push(arg.clone());
                recorded.push("0".to_string());
            } else {
                body.push_str(&format!("u64 p4bpf_arg{i} = {arg}; "));
                passed.push(format!("p4bpf_arg{i}"));
                recorded.push(format!("p4bpf_arg{i}"));
            }
        }
        let made = make_call(&passed);
        if call.result {
            body.push_str(&format!("__auto_type p4bpf_result = {made}; "));
            recorded.push("(u64)p4bpf_result".into());
        } else {
            body.push_str(&format!("{made}; "));
        }
        body.push_str(&format!(
            "u64 p4bpf_record[] = {{ {} }}; p4bpf_trace_values({index} /* {} */, p4bpf_record, sizeof(p4bpf_record)); ",
            recorded.join(", "),
            call.name
        ));
        if call.result {
            body.push_str("p4bpf_result; ");
        }
        body.push_str("})");
        body
    }
}
