//! `main` as the checker instantiated it, in one line:
//! `xdp(p = RouterParser(), s = RouterIngress(), d = RouterDeparser())`
//! (type arguments left out: they are long and the program states them),
//! and how many parser, control and extern instances the whole tree holds
//! (instances declared inside parsers and controls included).

use p4bpf_front::check::{BlockKind, Instance, InstanceArg, Type, TypeDefKind, TypeTable, Value};

/// The instance tree of `main`, written like its declaration.
pub fn render(instance: &Instance, types: &TypeTable) -> String {
    let args: Vec<String> = instance
        .args
        .iter()
        .map(|(param, arg)| format!("{param} = {}", render_arg(arg, types)))
        .collect();
    let name = match &instance.ty {
        Type::Named { id, .. } => types.get(*id).map(|def| def.name.clone()),
        _ => None,
    };
    let name = name.unwrap_or_else(|| types.display(&instance.ty).to_string());
    format!("{name}({})", args.join(", "))
}

fn render_arg(arg: &InstanceArg, types: &TypeTable) -> String {
    match arg {
        InstanceArg::Instance(inner) => render(inner, types),
        InstanceArg::Value(value) => render_value(value),
        InstanceArg::Unknown => "?".to_string(),
    }
}

fn render_value(value: &Value) -> String {
    let list = |items: Vec<String>| format!("{{{}}}", items.join(", "));
    match value {
        Value::Int { value, .. } => value.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Member { ty, member } => format!("{ty}.{member}"),
        Value::List(items) => list(items.iter().map(render_value).collect()),
        Value::Struct(fields) => list(
            fields
                .iter()
                .map(|(name, v)| format!("{name} = {}", render_value(v)))
                .collect(),
        ),
    }
}

/// Parser, control and extern instances in the tree under `main`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct InstanceCounts {
    pub parsers: usize,
    pub controls: usize,
    pub externs: usize,
}

impl InstanceCounts {
    pub fn of(main: &Instance, types: &TypeTable) -> InstanceCounts {
        let mut counts = InstanceCounts::default();
        counts.add(main, types);
        counts
    }

    fn add(&mut self, instance: &Instance, types: &TypeTable) {
        match types.kind(&instance.ty) {
            Some(TypeDefKind::Block {
                block: BlockKind::Parser,
                ..
            }) => self.parsers += 1,
            Some(TypeDefKind::Block {
                block: BlockKind::Control,
                ..
            }) => self.controls += 1,
            Some(TypeDefKind::Extern) => self.externs += 1,
            _ => {}
        }
        for (_, arg) in &instance.args {
            if let InstanceArg::Instance(inner) = arg {
                self.add(inner, types);
            }
        }
        for child in &instance.children {
            self.add(child, types);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;

    #[test]
    fn values_are_written_as_in_p4() {
        let value = Value::Struct(vec![
            (
                "n".into(),
                Value::Int {
                    value: BigInt::from(3),
                    ty: Type::InfInt,
                },
            ),
            ("on".into(), Value::Bool(true)),
            (
                "kind".into(),
                Value::Member {
                    ty: "PSA_HashAlgorithm_t".into(),
                    member: "CRC32".into(),
                },
            ),
            ("names".into(), Value::List(vec![Value::String("a".into())])),
        ]);
        assert_eq!(
            render_value(&value),
            "{n = 3, on = true, kind = PSA_HashAlgorithm_t.CRC32, names = {\"a\"}}"
        );
    }
}
