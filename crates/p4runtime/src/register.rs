//! `RegisterEntry` reads and writes (P4Runtime 1.4, "RegisterEntry"): a
//! register's cells by number, each value a `P4Data` shaped as P4Info's
//! `type_spec` says (`bitstring`, `bool`, or `struct_` with its members in
//! P4Info order). Register id 0 reads every register, no index every
//! cell; a MODIFY without index writes every cell; INSERT and DELETE are
//! refused, as the specification has it (cells always exist).
//!
//! Cells are read and written through the runtime's register code, the
//! CLI's, so the initial-value encoding is applied the same way: a cell
//! never written reads as the register's initial value. The description
//! lists every register (`register_initials` for bit strings of at most
//! 64 bits, `composite_registers` for the others) and the pipeline pins
//! their maps; registers indexed by a struct or a bit string wider than
//! 64 bits are refused as UNIMPLEMENTED (P4Runtime numbers cells with an
//! int64). An `int<W>`, a register's value or a struct's field, is a
//! two's-complement bytestring (`signed.rs`), handed to the runtime as a
//! signed number, which keeps it sign-extended as the data path does.

use crate::bytestring;
use crate::failure::{Failure, Outcome};
use crate::proto::p4::config::v1::{
    p4_bitstring_like_type_spec, p4_data_type_spec, P4DataTypeSpec, Register,
};
use crate::proto::p4::v1::{p4_data, update, Entity, Index, P4Data, P4StructLike, RegisterEntry};
use crate::schema::Schema;
use crate::signed;
use p4bpf_layout::Pipeline;
use p4bpf_runtime::deploy::Deployment;
use p4bpf_runtime::int_value::Ints;
use p4bpf_runtime::register_composite;
use p4bpf_runtime::stf::registers;
use tonic::Code;

/// The shape of a register's value: P4Info's type as a tree whose leaves
/// are named as the layout names its fields (`value`, `outer.inner`).
enum Shape {
    /// `signed`: an `int<width>`, a two's-complement bytestring.
    Bits {
        path: String,
        width: u32,
        signed: bool,
    },
    Bool {
        path: String,
    },
    Struct(Vec<Shape>),
}

/// Every cell `wanted` selects, in register then index order.
pub fn read(
    schema: &Schema,
    source: &Deployment,
    wanted: &RegisterEntry,
    found: &mut Vec<Entity>,
) -> Outcome<()> {
    let registers: Vec<&Register> = match wanted.register_id {
        0 => schema.p4info.registers.iter().collect(),
        id => vec![by_id(schema, id)?],
    };
    for register in registers {
        let cell = match Cell::of(schema, register) {
            // A wildcard reads what is served.
            Err(failure) if wanted.register_id == 0 && failure.code == Code::Unimplemented => {
                continue
            }
            cell => cell?,
        };
        if wanted.register_id == 0 && !cell.kept(&schema.pipeline) {
            continue; // a wildcard reads what the pipeline keeps
        }
        for index in cell.indexes(wanted.index.as_ref())? {
            found.push(Entity {
                entity: Some(crate::proto::p4::v1::entity::Entity::RegisterEntry(
                    RegisterEntry {
                        register_id: cell.id,
                        index: Some(Index {
                            index: i64::from(index),
                        }),
                        data: Some(cell.read(schema, source, index)?),
                    },
                )),
            });
        }
    }
    Ok(())
}

/// The cells of one register as they were before a MODIFY, as runtime
/// text, for ROLLBACK_ON_ERROR.
pub struct Undo {
    register: String,
    cells: Vec<(u32, String)>,
}

/// A MODIFY of one cell, or of every cell when the index is absent; the
/// cells' old values are read first so the batch can take it back.
pub fn update(
    schema: &Schema,
    source: &Deployment,
    kind: update::Type,
    entry: &RegisterEntry,
) -> Outcome<Undo> {
    let register = by_id(schema, entry.register_id)?;
    let cell = Cell::of(schema, register)?;
    cell.check_kept(&schema.pipeline)?;
    if kind != update::Type::Modify {
        return Err(Failure::invalid(format!(
            "register `{}`: cells always exist; only MODIFY writes them",
            cell.name
        )));
    }
    let data = entry.data.as_ref().ok_or_else(|| {
        Failure::invalid(format!("register `{}`: the update has no data", cell.name))
    })?;
    let indexes = cell.indexes(entry.index.as_ref())?;
    let text = cell.text(data, entry.index.as_ref())?;
    let mut old = Vec::with_capacity(indexes.len());
    for index in &indexes {
        let now = cell.read(schema, source, *index)?;
        old.push((*index, cell.text(&now, None)?));
    }
    for index in indexes {
        cell.write(schema, source, index, &text)?;
    }
    Ok(Undo {
        register: cell.name,
        cells: old,
    })
}

/// Writes the cells back as they were before the update.
pub fn undo(schema: &Schema, source: &Deployment, undo: Undo) -> Outcome<()> {
    let register = schema
        .p4info
        .registers
        .iter()
        .find(|r| r.preamble.as_ref().is_some_and(|p| p.name == undo.register))
        .ok_or_else(|| Failure::new(Code::Internal, "rollback: register vanished"))?;
    let cell = Cell::of(schema, register)?;
    for (index, text) in &undo.cells {
        cell.write(schema, source, *index, text)?;
    }
    Ok(())
}

fn by_id(schema: &Schema, id: u32) -> Outcome<&Register> {
    let found = schema
        .p4info
        .registers
        .iter()
        .find(|r| r.preamble.as_ref().is_some_and(|p| p.id == id));
    found.ok_or_else(|| Failure::not_found(format!("no register with id {id} in the P4Info")))
}

/// One register as P4Info describes it.
struct Cell {
    id: u32,
    name: String,
    size: u32,
    shape: Shape,
}

impl Cell {
    fn of(schema: &Schema, register: &Register) -> Outcome<Cell> {
        let preamble = register
            .preamble
            .as_ref()
            .ok_or_else(|| Failure::invalid("P4Info: a register without a preamble"))?;
        let name = preamble.name.clone();
        let shape = shape(schema, &name, register.type_spec.as_ref(), "value", 0)?;
        Ok(Cell {
            id: preamble.id,
            size: u32::try_from(register.size).unwrap_or(0),
            name,
            shape,
        })
    }

    /// Whether the pipeline's description lists this register's numbered
    /// cells (a pipeline compiled before every register was described may
    /// leave some out).
    fn kept(&self, pipeline: &Pipeline) -> bool {
        register_composite::find(pipeline, &self.name).is_some_and(|r| r.index.is_empty())
            || pipeline
                .register_initials
                .iter()
                .any(|r| r.name == self.name)
    }

    /// The cell numbers an (optional) index selects.
    fn indexes(&self, index: Option<&Index>) -> Outcome<Vec<u32>> {
        match index.map(|i| i.index) {
            None => Ok((0..self.size).collect()),
            Some(i) => match u32::try_from(i).ok().filter(|i| *i < self.size) {
                Some(i) => Ok(vec![i]),
                None => Err(Failure::new(
                    Code::OutOfRange,
                    format!(
                        "register `{}`: index {i} is out of range (it has {} cells)",
                        self.name, self.size
                    ),
                )),
            },
        }
    }

    fn read(&self, schema: &Schema, source: &Deployment, index: u32) -> Outcome<P4Data> {
        self.check_kept(&schema.pipeline)?;
        let pipeline = &schema.pipeline;
        let fields = match register_composite::find(pipeline, &self.name) {
            Some(register) => register_composite::read_fields(source, register, &index.to_string()),
            None => registers::read_bits(source, pipeline, &self.name, index)
                .map(|bytes| vec![("value".to_string(), bytes)]),
        };
        let fields = fields.map_err(|e| self.failure(index, e))?;
        data_of(&self.shape, &fields)
    }

    fn write(&self, schema: &Schema, source: &Deployment, index: u32, text: &str) -> Outcome<()> {
        let pipeline = &schema.pipeline;
        let (at, strict) = (index.to_string(), Ints::Strict);
        registers::write(source, pipeline, &self.name, &at, text, strict)
            .map_err(|e| self.failure(index, e))
    }

    fn check_kept(&self, pipeline: &Pipeline) -> Outcome<()> {
        if register_composite::find(pipeline, &self.name).is_some_and(|r| !r.index.is_empty()) {
            return Err(Failure::unimplemented(format!(
                "register `{}` is indexed by a struct or a bit string wider than 64 bits; \
                 P4Runtime numbers a register's cells with an int64 (use `p4bpf register get/set`)",
                self.name
            )));
        }
        match self.kept(pipeline) {
            true => Ok(()),
            false => Err(Failure::unimplemented(format!(
                "register `{}`: the pipeline's description does not list it \
                 (compile and load the program again)",
                self.name
            ))),
        }
    }

    /// `data` as the runtime's text: the leaves' values in layout order,
    /// comma-separated; `index`, the cell an error names.
    fn text(&self, data: &P4Data, index: Option<&Index>) -> Outcome<String> {
        let mut leaves = Vec::new();
        let at = index.map(|i| format!("[{}]", i.index)).unwrap_or_default();
        let target = Target {
            register: &self.name,
            at: &at,
        };
        leaf_texts(&target, &self.shape, data, &mut leaves)?;
        Ok(leaves.join(","))
    }

    fn failure(&self, index: u32, error: p4bpf_runtime::RuntimeError) -> Failure {
        let failure = Failure::from(error);
        Failure::new(
            failure.code,
            format!("register `{}`[{index}]: {}", self.name, failure.message),
        )
    }
}

/// The shape of P4Info type `spec`, its leaves named from `path`.
fn shape(
    schema: &Schema,
    register: &str,
    spec: Option<&P4DataTypeSpec>,
    path: &str,
    depth: u32,
) -> Outcome<Shape> {
    let unknown = || {
        Failure::unimplemented(format!(
            "register `{register}`: only bit strings, ints, bools and structs of them are served"
        ))
    };
    match spec.and_then(|s| s.type_spec.as_ref()) {
        Some(p4_data_type_spec::TypeSpec::Bitstring(bits)) => match bits.type_spec {
            Some(p4_bitstring_like_type_spec::TypeSpec::Bit(bit)) => Ok(Shape::Bits {
                path: path.to_string(),
                width: u32::try_from(bit.bitwidth).map_err(|_| unknown())?,
                signed: false,
            }),
            Some(p4_bitstring_like_type_spec::TypeSpec::Int(int)) => {
                let width = u32::try_from(int.bitwidth).map_err(|_| unknown())?;
                check_signed(schema, register, path, width)?;
                Ok(Shape::Bits {
                    path: path.to_string(),
                    width,
                    signed: true,
                })
            }
            _ => Err(unknown()),
        },
        Some(p4_data_type_spec::TypeSpec::Bool(_)) => Ok(Shape::Bool {
            path: path.to_string(),
        }),
        Some(p4_data_type_spec::TypeSpec::Struct(named)) if depth < 16 => {
            let info = schema.p4info.type_info.as_ref();
            let spec = info.and_then(|i| i.structs.get(&named.name));
            let spec = spec.ok_or_else(unknown)?;
            let members = spec.members.iter().map(|m| {
                let inner = match depth {
                    0 => m.name.clone(),
                    _ => format!("{path}.{}", m.name),
                };
                shape(schema, register, m.type_spec.as_ref(), &inner, depth + 1)
            });
            Ok(Shape::Struct(members.collect::<Outcome<_>>()?))
        }
        _ => Err(unknown()),
    }
}

/// That the pipeline's description marks the int<`width`> at `path`
/// signed, so the runtime keeps it sign-extended as the data path reads
/// it (a description from before signed fields does not).
fn check_signed(schema: &Schema, register: &str, path: &str, width: u32) -> Outcome<()> {
    let pipeline = &schema.pipeline;
    let marked = match register_composite::find(pipeline, register) {
        Some(composite) => composite.value.iter().any(|f| f.name == path && f.signed),
        None => pipeline
            .register_initials
            .iter()
            .any(|r| r.name == register && r.int_width == Some(width)),
    };
    match marked {
        true => Ok(()),
        false => Err(Failure::unimplemented(format!(
            "register `{register}`: the pipeline's description does not mark int<{width}> \
             `{path}` signed (compile and load the program again)"
        ))),
    }
}

/// The `P4Data` of `shape` from the cell's fields (name, big-endian bytes).
fn data_of(shape: &Shape, fields: &[(String, Vec<u8>)]) -> Outcome<P4Data> {
    let field = |path: &str| {
        let found = fields.iter().find(|(name, _)| name == path);
        found.map(|(_, bytes)| bytes.as_slice()).ok_or_else(|| {
            Failure::new(
                Code::Internal,
                format!("the register's layout has no field `{path}`"),
            )
        })
    };
    let data = match shape {
        Shape::Bits {
            path,
            width,
            signed: true,
        } => p4_data::Data::Bitstring(signed::canonical(field(path)?, *width)),
        Shape::Bits { path, .. } => p4_data::Data::Bitstring(bytestring::canonical(field(path)?)),
        Shape::Bool { path } => p4_data::Data::Bool(field(path)?.iter().any(|b| *b != 0)),
        Shape::Struct(members) => p4_data::Data::Struct(P4StructLike {
            members: members
                .iter()
                .map(|m| data_of(m, fields))
                .collect::<Outcome<_>>()?,
        }),
    };
    Ok(P4Data { data: Some(data) })
}

/// The register and the cell (`[3]`, or empty for every cell) an update
/// writes, for its errors.
struct Target<'a> {
    register: &'a str,
    at: &'a str,
}

/// The leaves of `data`, checked against `shape`, as runtime text values.
fn leaf_texts(target: &Target, shape: &Shape, data: &P4Data, out: &mut Vec<String>) -> Outcome<()> {
    let register = target.register;
    match (shape, data.data.as_ref()) {
        (
            Shape::Bits {
                path,
                width,
                signed,
            },
            Some(p4_data::Data::Bitstring(bytes)),
        ) => {
            let what = || format!("register `{register}`{}, field `{path}`", target.at);
            out.push(match signed {
                true => signed::to_text(bytes, *width, &what)?,
                false => bytestring::to_text(bytes, *width, &what)?,
            });
        }
        (Shape::Bool { .. }, Some(p4_data::Data::Bool(flag))) => {
            out.push(u8::from(*flag).to_string())
        }
        (Shape::Struct(members), Some(p4_data::Data::Struct(given)))
            if members.len() == given.members.len() =>
        {
            for (member, value) in members.iter().zip(&given.members) {
                leaf_texts(target, member, value, out)?;
            }
        }
        (expected, given) => {
            return Err(Failure::invalid(format!(
                "register `{register}`: the value is {}, the register holds {}",
                given_shape(given),
                expected_shape(expected)
            )))
        }
    }
    Ok(())
}

fn expected_shape(shape: &Shape) -> String {
    match shape {
        Shape::Bits {
            path,
            width,
            signed,
        } => match signed {
            true => format!("int<{width}> (`{path}`)"),
            false => format!("bit<{width}> (`{path}`)"),
        },
        Shape::Bool { path } => format!("a bool (`{path}`)"),
        Shape::Struct(members) => format!("a struct of {} members", members.len()),
    }
}

fn given_shape(data: Option<&p4_data::Data>) -> String {
    match data {
        Some(p4_data::Data::Bitstring(bytes)) => format!("bitstring 0x{}", bytestring::hex(bytes)),
        Some(p4_data::Data::Bool(flag)) => format!("bool {flag}"),
        Some(p4_data::Data::Struct(s)) => format!("a struct of {} members", s.members.len()),
        Some(_) => "a kind of P4Data registers do not hold".to_string(),
        None => "empty".to_string(),
    }
}
