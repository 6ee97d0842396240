//! The Internet checksum of fields followed by the packet's payload
//! ([`crate::ir::Builtin::Csum16WithPayload`]). The fields are summed as
//! any hash's input (a varbit last, zeros past its bytes in use); the
//! payload, from where the parser stopped to the packet's end, word by
//! word in a `bpf_loop` callback (verified once, whatever the length),
//! through the hook's load helper, which reads past the linear part too.
//! When the fields end on an odd byte, each payload word straddles two of
//! the stream's words: its sum is byte-swapped (RFC 1071's byte order
//! independence) before it is added.

use super::helpers::Helper;
use super::Emitter;
use crate::ir::{Expr, Ty};
use p4bpf_layout::Hook;

impl Emitter<'_> {
    /// The C expression of the checksum of `fields` then the payload.
    pub(super) fn csum16_with_payload_call(&self, fields: &[Expr]) -> String {
        let (helper, ctx) = match self.hook {
            Hook::Tc => (Helper::PayloadCsum16Tc, "skb"),
            Hook::Xdp => (Helper::PayloadCsum16Xdp, "ctx"),
        };
        self.use_helper(helper);
        let (body, len) = self.hash_input(fields);
        // The fields' true length: a varbit counts its bytes in use.
        let odd = match fields.last() {
            Some(v) if matches!(v.ty, Ty::Varbit { .. }) => {
                let fixed: u32 = fields.iter().filter_map(|f| f.ty.width()).sum();
                format!("({} + {}.bytes) & 1", fixed / 8, self.lvalue(v))
            }
            _ => (len & 1).to_string(),
        };
        format!("({{ {body}p4bpf_csum16_payload(hash_in, {len}, {odd}, {ctx}, offset); }})")
    }
}

/// The helper for one hook: its context type, how it loads packet bytes
/// and how long the packet is.
macro_rules! payload_helper {
    ($ctx:literal, $load:literal, $len:literal) => {
        concat!(
            "/* The running sum of the payload's 16-bit words (a bpf_loop callback). */
struct p4bpf_payload_sum {
    ",
            $ctx,
            " *ctx;
    u32 at;
    u32 sum;
};

static long p4bpf_payload_word(u32 i, void *c)
{
    struct p4bpf_payload_sum *s = c;
    u8 w[2] = {0};
    if (",
            $load,
            "(s->ctx, s->at + 2 * i, w, 2))
        return 1;
    s->sum += ((u32)w[0] << 8) | w[1];
    return 0;
}

/* The Internet checksum of `n` bytes of fields then of the packet from
 * byte `at` to its end; `odd` when the fields end on an odd byte. */
static __always_inline u64 p4bpf_csum16_payload(const u8 *d, u32 n, u32 odd, ",
            $ctx,
            " *ctx, u32 at)
{
    u32 sum = 0;
    #pragma unroll
    for (u32 i = 0; i < n; i += 2)
        sum += ((u32)d[i] << 8) | (i + 1 < n ? d[i + 1] : 0);
    u32 end = ",
            $len,
            ";
    u32 len = end > at ? end - at : 0;
    struct p4bpf_payload_sum s = { .ctx = ctx, .at = at, .sum = 0 };
    bpf_loop(len / 2, p4bpf_payload_word, &s, 0);
    if (len & 1) {
        u8 last = 0;
        ",
            $load,
            "(ctx, at + len - 1, &last, 1);
        s.sum += (u32)last << 8;
    }
    u32 payload = (s.sum & 0xffff) + (s.sum >> 16);
    payload = (payload & 0xffff) + (payload >> 16);
    if (odd)
        payload = ((payload & 0xff) << 8) | (payload >> 8);
    sum += payload;
    sum = (sum & 0xffff) + (sum >> 16);
    sum = (sum & 0xffff) + (sum >> 16);
    return (u16)~sum;
}
"
        )
    };
}

pub const TC_HELPER: &str = payload_helper!("struct __sk_buff", "bpf_skb_load_bytes", "ctx->len");
pub const XDP_HELPER: &str = payload_helper!(
    "struct xdp_md",
    "bpf_xdp_load_bytes",
    "(u32)(ctx->data_end - ctx->data)"
);
