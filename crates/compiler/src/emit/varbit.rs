//! `varbit<N>` values: a C struct per maximum width holding up to N/8
//! bytes and how many are in use, in header fields, struct fields and
//! variables alike, so assignment is a struct copy. The bytes past those
//! in use are zero (extract clears them, a reset clears the struct), so
//! `==` compares the sizes, then all the bytes, and a checksum hashes the
//! maximum. A header's trailing `varbit` field: `extract(h, bits)` checks
//! the size (whole bytes, at most the maximum) and copies that many bytes
//! after the fixed fields; emitting the header writes them back, each
//! with one helper call (`bpf_skb_load_bytes` / `bpf_xdp_load_bytes` and
//! the `store` ones), a size the verifier sees bounded by the maximum.

use super::c::{line, CStmt};
use super::helpers::Helper;
use super::types::VALID;
use super::Emitter;
use crate::cstruct::c_ident;
use crate::ir::{Aggregate, Builtin, Expr, ExprKind, Ty, VarbitField};
use crate::midend::visit::{walk_program, Descend, Visitor};
use p4bpf_layout::Hook;

/// Keeps clang from testing a copy of `varbit_bytes` (libbpf's
/// `barrier_var`): the verifier must see the length it checked passed to
/// the helper, which refuses a length that may be zero.
const KEEP_CHECKED: &str = "asm volatile(\"\" : \"+r\"(varbit_bytes))";

/// The C struct holding a `varbit<max_bits>` value.
pub fn varbit_type(max_bits: u32) -> String {
    format!("p4bpf_varbit{max_bits}")
}

/// The comparison of two varbit values, sizes first.
pub const EQ_HELPER: &str = "/* Two varbit values are equal when they hold as many bytes, the same. */
static __always_inline int p4bpf_varbit_eq(const u8 *a, u16 a_bytes, const u8 *b, u16 b_bytes, u32 max)
{
    u8 diff = a_bytes != b_bytes;
    #pragma unroll
    for (u32 i = 0; i < max; i++)
        diff |= a[i] ^ b[i]; /* zero past the bytes in use */
    return !diff;
}
";

impl Emitter<'_> {
    /// One C struct per varbit width the program uses, before the
    /// aggregates that hold them.
    pub fn varbit_definitions(&self) -> String {
        let mut widths: Vec<u32> = self
            .prog
            .aggregates
            .iter()
            .flat_map(|a| {
                let fields = a.fields.iter().filter_map(|f| varbit_width(&f.ty));
                fields.chain(a.varbit.as_ref().map(|v| v.max_bits))
            })
            .collect();
        widths.extend(self.prog.vars.iter().filter_map(|v| varbit_width(&v.ty)));
        widths.sort_unstable();
        widths.dedup();
        widths
            .iter()
            .map(|w| {
                format!(
                    "/* varbit<{w}>: up to {} bytes, `bytes` of them in use */\nstruct {} {{\n    u8 data[{}];\n    u16 bytes;\n}};\n\n",
                    w.div_ceil(8),
                    varbit_type(*w),
                    w.div_ceil(8)
                )
            })
            .collect()
    }

    /// The stack the hash inputs holding a varbit take: buffers sized for
    /// the maximum, which clang keeps apart, so the state leaves room.
    pub fn varbit_hash_bytes(&self) -> u32 {
        let mut buffers = VarbitHashBytes(0);
        walk_program(&mut buffers, self.prog);
        buffers.0
    }

    /// `l == r` of two varbit places.
    pub fn varbit_eq(&self, l: &Expr, r: &Expr) -> String {
        self.use_helper(Helper::VarbitEq);
        let max = varbit_width(&l.ty).unwrap_or(0).div_ceil(8);
        let (a, b) = (self.lvalue(l), self.lvalue(r));
        format!("p4bpf_varbit_eq({a}.data, {a}.bytes, {b}.data, {b}.bytes, {max})")
    }

    fn error_code(&self, name: &str, fallback: usize) -> usize {
        self.prog
            .errors
            .iter()
            .position(|e| e == name)
            .unwrap_or(fallback)
    }

    /// After the fixed fields of `a` were read at `hdr_start`: the varbit
    /// bytes into `place`, then `offset` moved past them. A failure leaves
    /// the header invalid, as BMv2 does (the fixed part was read already).
    pub fn extract_varbit(&self, a: &Aggregate, place: &str, bits: &Expr) -> Vec<CStmt> {
        let Some(v) = &a.varbit else {
            return vec![];
        };
        let fixed = a.wire_bits / 8;
        let max = v.max_bits / 8;
        let invalid = self.error_code("ParserInvalidArgument", 6);
        let too_long = self.error_code("HeaderTooShort", 4);
        let short = self.error_code("PacketTooShort", 1);
        let fail = |code: usize, name: &str| {
            vec![
                line(format!("{place}.{VALID} = 0")),
                line(format!("parser_error = {code} /* {name} */")),
                CStmt::Goto("reject".into()),
            ]
        };
        let field = c_ident(&v.name);
        vec![CStmt::Block(vec![
            line(format!("u32 varbit_bits = (u32){}", self.expr(bits))),
            CStmt::If {
                cond: "varbit_bits % 8 != 0".into(),
                then: fail(invalid, "ParserInvalidArgument"),
                other: vec![],
            },
            line("u64 varbit_bytes = varbit_bits / 8"),
            line(KEEP_CHECKED),
            // Checked on the bytes themselves: the verifier must see the
            // helper's length bounded.
            CStmt::If {
                cond: format!("varbit_bytes > {max}"),
                then: fail(too_long, "HeaderTooShort"),
                other: vec![],
            },
            CStmt::If {
                cond: format!("pkt + offset + {fixed} + varbit_bytes > pkt_end"),
                then: fail(short, "PacketTooShort"),
                other: vec![],
            },
            // Zeros past the bytes in use: checksums hash the maximum.
            line(format!("__builtin_memset({place}.{field}.data, 0, {max})")),
            // One helper call: a byte loop multiplies the verifier's paths
            // by the possible sizes.
            CStmt::If {
                cond: "varbit_bytes > 0".into(),
                then: vec![CStmt::If {
                    cond: format!(
                        "{}({}, offset + {fixed}, {place}.{field}.data, varbit_bytes)",
                        self.hook_helper("load"),
                        self.hook_ctx()
                    ),
                    then: fail(short, "PacketTooShort"),
                    other: vec![],
                }],
                other: vec![],
            },
            line(format!("{place}.{field}.bytes = varbit_bytes")),
            line("offset += varbit_bytes"),
        ])]
    }

    /// `bpf_skb_load_bytes` at TC, `bpf_xdp_load_bytes` at XDP (`op`
    /// "load" or "store").
    fn hook_helper(&self, op: &str) -> String {
        match self.hook {
            Hook::Tc => format!("bpf_skb_{op}_bytes"),
            Hook::Xdp => format!("bpf_xdp_{op}_bytes"),
        }
    }

    /// The program's context argument.
    fn hook_ctx(&self) -> &'static str {
        match self.hook {
            Hook::Tc => "skb",
            Hook::Xdp => "ctx",
        }
    }

    /// The varbit bytes of `place` written after its fixed part at `out`.
    pub fn emit_varbit(&self, v: &VarbitField, fixed: u32, place: &str) -> Vec<CStmt> {
        let field = c_ident(&v.name);
        let max = v.max_bits / 8;
        let store = format!(
            "{}({}, out + {fixed}, {place}.{field}.data, varbit_bytes{})",
            self.hook_helper("store"),
            self.hook_ctx(),
            if self.hook == Hook::Tc { ", 0" } else { "" }
        );
        vec![
            // Bounded again so the verifier knows how far `out` can move.
            line(format!(
                "u64 varbit_bytes = {place}.{field}.bytes < {max} ? {place}.{field}.bytes : {max}"
            )),
            line(KEEP_CHECKED),
            CStmt::If {
                cond: "varbit_bytes > 0".into(),
                then: vec![CStmt::If {
                    cond: store,
                    then: vec![CStmt::Goto(super::DEPARSE_FAILED.into())],
                    other: vec![],
                }],
                other: vec![],
            },
            // The helper may move the packet.
            line(format!("pkt = (u8 *)(long){}->data", self.hook_ctx())),
            line(format!(
                "pkt_end = (u8 *)(long){}->data_end",
                self.hook_ctx()
            )),
            line("out += varbit_bytes"),
        ]
    }
}

/// The maximum width of a varbit type.
fn varbit_width(ty: &Ty) -> Option<u32> {
    match ty {
        Ty::Varbit { max_bits } => Some(*max_bits),
        _ => None,
    }
}

/// Sums the input bytes of the hashes over a varbit.
struct VarbitHashBytes(u32);

impl Visitor for VarbitHashBytes {
    fn expr(&mut self, e: &Expr) -> Descend {
        if let ExprKind::Builtin {
            func: Builtin::Hash(_) | Builtin::Csum16WithPayload,
            args,
        } = &e.kind
        {
            if args.iter().any(|a| varbit_width(&a.ty).is_some()) {
                let bits: u32 = args
                    .iter()
                    .map(|a| varbit_width(&a.ty).or(a.ty.width()).unwrap_or(0))
                    .sum();
                self.0 += bits.div_ceil(8);
            }
        }
        Descend::Yes
    }
}
