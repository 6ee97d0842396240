//! Extern object instances: one map each, and one small C function per
//! operation (`p4bpf_count_<instance>`, `p4bpf_read_<instance>`,
//! `p4bpf_write_<instance>`), so an operation is a call wherever the P4
//! program makes it, statement or expression.

use super::expr::{is_narrow_signed, wrap};
use super::maps::map_def;
use super::Emitter;
use crate::ir::{CounterUnit, Expr, ExternId, ExternInstance, ExternKind, ExternOp, Program, Ty};

impl Emitter<'_> {
    /// The maps and operation functions of every extern instance.
    pub fn extern_definitions(&self) -> String {
        let both = self.prog.externs.iter().any(|x| {
            matches!(
                x.kind,
                ExternKind::Counter {
                    unit: CounterUnit::PacketsAndBytes,
                    ..
                }
            )
        });
        let cell = if both {
            "/* A cell of a counter of packets and bytes (the layout the runtime reads). */\n\
             struct p4bpf_packets_bytes {\n    u64 packets;\n    u64 bytes;\n};\n\n"
        } else {
            ""
        };
        let meters = self
            .prog
            .externs
            .iter()
            .any(|x| matches!(x.kind, ExternKind::Meter { .. }));
        // With direct meters it came before the tables (`direct_prelude`).
        let meter = if meters && !self.has_direct_meters() {
            METER
        } else {
            ""
        };
        let definitions: String = self
            .prog
            .externs
            .iter()
            .map(|x| match &x.kind {
                ExternKind::Counter { sparse, unit } => counter_definition(x, *sparse, *unit),
                ExternKind::Register {
                    value,
                    index,
                    initial_fields,
                    ..
                } if x.kind.is_composite_register() => {
                    self.composite_register_definition(x, value, index, initial_fields)
                }
                ExternKind::Register { value, initial, .. } => {
                    self.register_definition(x, value, *initial)
                }
                ExternKind::Meter { bytes } => meter_definition(x, *bytes),
                // Their cells are in table entries (`super::direct`).
                ExternKind::DirectCounter { .. } | ExternKind::DirectMeter { .. } => String::new(),
            })
            .collect();
        let atomic = self.atomic_definitions();
        format!("{cell}{meter}{definitions}{atomic}")
    }

    /// A register's array map and its read and write functions. A cell
    /// holds its value XOR the initial value, so that a zeroed cell (a new
    /// map, or one the control plane reset) reads as the initial value
    /// with no step at load time on any loader.
    fn register_definition(&self, x: &ExternInstance, value_ty: &Ty, initial: u64) -> String {
        let (name, size) = (&x.c_name, x.size);
        let value = self.declare(value_ty, "");
        let value = value.trim();
        let (start, read, encode) = match initial {
            0 => (
                "0 until written".to_string(),
                "cell ? *cell : 0".to_string(),
                String::new(),
            ),
            n => (
                format!(
                    "{n:#x} until written: a cell holds value ^ {n:#x}, so a zeroed (new or reset) cell reads {n:#x}"
                ),
                format!("(cell ? *cell : 0) ^ {n:#x}ULL"),
                format!("value ^= {n:#x}ULL;\n    "),
            ),
        };
        // The control plane writes a cell's bare bits.
        let read = if is_narrow_signed(value_ty) {
            wrap(value_ty, &read)
        } else {
            read
        };
        format!(
            "/* Register {}: {size} values kept across packets, {start} */\n{}\
             static __always_inline {value} p4bpf_read_{name}(u64 index)\n{{\n    \
             u32 key = (u32)index;\n    {value} *cell = index < {size} ? bpf_map_lookup_elem(&{name}, &key) : 0;\n    \
             return {read};\n}}\n\n\
             static __always_inline void p4bpf_write_{name}(u64 index, {value} value)\n{{\n    \
             u32 key = (u32)index;\n    {encode}if (index < {size})\n        bpf_map_update_elem(&{name}, &key, &value, BPF_ANY);\n}}\n\n",
            x.name,
            map_def("BPF_MAP_TYPE_ARRAY", "u32", value, size, None, name),
        )
    }

    /// The C call of one operation on an extern instance.
    pub fn extern_method(&self, instance: ExternId, op: ExternOp, args: &[Expr]) -> String {
        if let Some(used) = self.direct_use(instance, op) {
            return used;
        }
        if let Some(call) = self.composite_register_call(instance, op, args, None) {
            return call;
        }
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
            ExternOp::Execute => "execute",
        };
        if let Some(locked) = self.atomic_cell_call(instance, op_kind, &args) {
            return locked;
        }
        let call = |args: &[String]| format!("p4bpf_{op}_{name}({})", args.join(", "));
        self.traced_extern(instance, op_kind, &args, &wide, &call)
    }
}

/// Every register of a bit string of at most 64 bits, with its initial
/// value (0 when none), for the control plane to find and pin its map and
/// read and write its cells through the same XOR.
pub fn register_initials(prog: &Program) -> Vec<p4bpf_layout::RegisterInitial> {
    prog.externs
        .iter()
        .filter_map(|x| match x.kind {
            ExternKind::Register {
                initial, ref value, ..
            } if initial != 0 || !x.kind.is_composite_register() => {
                Some(p4bpf_layout::RegisterInitial {
                    name: x.name.clone(),
                    map: x.c_name.clone(),
                    initial,
                    int_width: match value {
                        Ty::Bits {
                            width,
                            signed: true,
                        } => Some(*width),
                        _ => None,
                    },
                })
            }
            _ => None,
        })
        .collect()
}

/// A counter's map and its `p4bpf_count_<instance>(index, amount)`:
/// `amount` is 1 or the packet's length; a cell of packets and bytes is
/// two u64s, packets first.
fn counter_definition(x: &ExternInstance, sparse: bool, unit: CounterUnit) -> String {
    let name = &x.c_name;
    let (value, what, add, first) = match unit {
        CounterUnit::Packets => ("u64", "packets", "*cell += amount;", "amount"),
        CounterUnit::Bytes => ("u64", "bytes", "*cell += amount;", "amount"),
        CounterUnit::PacketsAndBytes => (
            "struct p4bpf_packets_bytes",
            "packets and bytes",
            "{\n        cell->packets += 1;\n        cell->bytes += amount;\n    }",
            "(struct p4bpf_packets_bytes){ 1, amount }",
        ),
    };
    let (kind, on_missing) = if sparse {
        (
            "BPF_MAP_TYPE_PERCPU_HASH",
            format!(
                "\n    else {{\n        {value} first = {first};\n        bpf_map_update_elem(&{name}, &index, &first, BPF_NOEXIST);\n    }}"
            ),
        )
    } else {
        ("BPF_MAP_TYPE_PERCPU_ARRAY", String::new())
    };
    format!(
        "/* Counter {}: {what} per index */\n{}\
         static __always_inline void p4bpf_count_{name}(u32 index, u64 amount)\n{{\n    \
         {value} *cell = bpf_map_lookup_elem(&{name}, &index);\n    if (cell)\n        {add}{on_missing}\n}}\n\n",
        x.name,
        map_def(kind, "u32", value, x.size, None, name),
    )
}

/// A meter's map and `p4bpf_execute_<instance>(index, colour, amount)`.
fn meter_definition(x: &ExternInstance, bytes: bool) -> String {
    let name = &x.c_name;
    let unit = if bytes { "bytes" } else { "packets" };
    format!(
        "/* Meter {}: two-rate three-colour, of {unit}, per index */\n{}\
         static __always_inline u8 p4bpf_execute_{name}(u32 index, u8 colour, u64 amount)\n{{\n    \
         struct p4bpf_meter *meter = bpf_map_lookup_elem(&{name}, &index);\n    \
         return meter ? p4bpf_meter_colour(meter, colour, amount) : colour;\n}}\n\n",
        x.name,
        map_def(
            "BPF_MAP_TYPE_ARRAY",
            "u32",
            "struct p4bpf_meter",
            x.size,
            None,
            name
        ),
    )
}

/// RFC 2698's two-rate three-colour marker. The control plane sets the
/// rates (units per second) and bursts (units), and fills the buckets;
/// the buckets count billionths of a unit, so slow rates refill between
/// packets. One lock per cell: every CPU meters against the same buckets.
pub(super) const METER: &str =
    "/* A two-rate three-colour meter (RFC 2698): the layout the runtime writes. */
struct p4bpf_meter_buckets {
    u64 pir, pburst, cir, cburst;
    u64 peak, committed; /* tokens, in billionths of a unit */
    u64 last_ns;
};

struct p4bpf_meter {
    struct bpf_spin_lock lock;
    u32 pad;
    struct p4bpf_meter_buckets b;
};

/* `tokens` after `elapsed` ns at `rate` units per second, at most `burst`. */
static __always_inline u64 p4bpf_meter_fill(u64 tokens, u64 rate, u64 burst, u64 elapsed)
{
    u64 full = burst * 1000000000ULL;
    if (tokens >= full || (rate && elapsed >= (full - tokens) / rate))
        return full;
    return tokens + elapsed * rate;
}

/* The colour (0 green, 1 yellow, 2 red) of `amount` units coloured
 * `colour` so far, under `lock` (another cell's where a map value holds
 * several: the kernel allows one lock per value); a meter the control
 * plane never set (all zero) keeps the colour; rates of 0 are a budget
 * of the bursts that never refills. */
static __always_inline u8 p4bpf_meter_under(struct bpf_spin_lock *lock, struct p4bpf_meter_buckets *m,
                                            u8 colour, u64 amount)
{
    u64 now = bpf_ktime_get_ns();
    u64 need = amount * 1000000000ULL;
    bpf_spin_lock(lock);
    if (m->pir || m->cir || m->pburst || m->cburst) {
        u64 elapsed = now - m->last_ns;
        m->last_ns = now;
        m->peak = p4bpf_meter_fill(m->peak, m->pir, m->pburst, elapsed);
        m->committed = p4bpf_meter_fill(m->committed, m->cir, m->cburst, elapsed);
        if (colour == 2 || m->peak < need) {
            colour = 2;
        } else if (colour == 1 || m->committed < need) {
            colour = 1;
            m->peak -= need;
        } else {
            m->peak -= need;
            m->committed -= need;
        }
    }
    bpf_spin_unlock(lock);
    return colour;
}

static __always_inline u8 p4bpf_meter_colour(struct p4bpf_meter *m, u8 colour, u64 amount)
{
    return p4bpf_meter_under(&m->lock, &m->b, colour, amount);
}
";
