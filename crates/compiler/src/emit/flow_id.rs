//! PNA's `allocate_flow_id()`, which the PNA specification declares but
//! leaves to the target (p4lang/p4-spec#1010): ids unique without a lock
//! or an atomic fetch (clang's default BPF CPU has none), from per-CPU
//! counters with disjoint ranges. An id is the CPU's count of its own
//! allocations, from 1, shifted left 8, or'ed with the CPU number: unique
//! while the machine has at most 256 CPUs and each allocates fewer than
//! 2^24 ids, after which they repeat. 0 is never allocated. Ids are not
//! reclaimed.

pub const HELPER: &str = "\
/* PNA's allocate_flow_id(): this CPU's count of its allocations (from 1)
 * << 8 | the CPU, so CPUs never allocate the same id. */
struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __type(key, u32);
    __type(value, u32);
    __uint(max_entries, 1);
} pna_flow_ids SEC(\".maps\");

static __always_inline u32 p4bpf_allocate_flow_id(void)
{
    u32 zero = 0;
    u32 *count = bpf_map_lookup_elem(&pna_flow_ids, &zero);
    if (!count)
        return 0;
    *count = (*count + 1) & 0xffffff;
    if (*count == 0)
        *count = 1;
    return *count << 8 | (bpf_get_smp_processor_id() & 0xff);
}

";
