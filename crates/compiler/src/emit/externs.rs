//! Extern object instances: one map each, and one small C function per
//! operation (`p4bpf_count_<instance>`, `p4bpf_read_<instance>`,
//! `p4bpf_write_<instance>`), so an operation is a call wherever the P4
//! program makes it, statement or expression.

use super::maps::map_def;
use super::Emitter;
use crate::ir::{Expr, ExternId, ExternInstance, ExternKind, ExternOp};

impl Emitter<'_> {
    /// The maps and operation functions of every extern instance.
    pub fn extern_definitions(&self) -> String {
        self.prog
            .externs
            .iter()
            .map(|x| match &x.kind {
                ExternKind::Counter { sparse } => counter_definition(x, *sparse),
                ExternKind::Register { value, .. } => {
                    self.register_definition(x, self.declare(value, "").trim())
                }
            })
            .collect()
    }

    fn register_definition(&self, x: &ExternInstance, value: &str) -> String {
        let (name, size) = (&x.c_name, x.size);
        format!(
            "/* Register {}: {size} values kept across packets, 0 until written */\n{}\
             static __always_inline {value} p4bpf_read_{name}(u64 index)\n{{\n    \
             u32 key = (u32)index;\n    {value} *cell = index < {size} ? bpf_map_lookup_elem(&{name}, &key) : 0;\n    \
             return cell ? *cell : 0;\n}}\n\n\
             static __always_inline void p4bpf_write_{name}(u64 index, {value} value)\n{{\n    \
             u32 key = (u32)index;\n    if (index < {size})\n        bpf_map_update_elem(&{name}, &key, &value, BPF_ANY);\n}}\n\n",
            x.name,
            map_def("BPF_MAP_TYPE_ARRAY", "u32", value, size, None, name),
        )
    }

    /// The C call of one operation on an extern instance.
    pub fn extern_method(&self, instance: ExternId, op: ExternOp, args: &[Expr]) -> String {
        let name = self
            .prog
            .extern_instance(instance)
            .map(|x| x.c_name.as_str())
            .unwrap_or_default();
        let mut wide: Vec<bool> = args
            .iter()
            .map(|a| a.ty.width().unwrap_or(0) > 64)
            .collect();
        let mut args: Vec<String> = args.iter().map(|a| self.expr(a)).collect();
        let op_kind = op;
        let op = match op {
            ExternOp::Count => {
                if args.len() < 2 {
                    args.push("1".into());
                    wide.push(false);
                }
                "count"
            }
            ExternOp::Read => "read",
            ExternOp::Write => "write",
        };
        let call = |args: &[String]| format!("p4bpf_{op}_{name}({})", args.join(", "));
        self.traced_extern(instance, op_kind, &args, &wide, &call)
    }
}

fn counter_definition(x: &ExternInstance, sparse: bool) -> String {
    let (kind, on_missing) = if sparse {
        (
            "BPF_MAP_TYPE_PERCPU_HASH",
            format!(
                "\n    else\n        bpf_map_update_elem(&{}, &index, &amount, BPF_NOEXIST);",
                x.c_name
            ),
        )
    } else {
        ("BPF_MAP_TYPE_PERCPU_ARRAY", String::new())
    };
    format!(
        "/* CounterArray {}: packets per index */\n{}\
         static __always_inline void p4bpf_count_{name}(u32 index, u64 amount)\n{{\n    \
         u64 *cell = bpf_map_lookup_elem(&{name}, &index);\n    if (cell)\n        *cell += amount;{on_missing}\n}}\n\n",
        x.name,
        map_def(kind, "u32", "u64", x.size, None, &x.c_name),
        name = x.c_name,
    )
}
