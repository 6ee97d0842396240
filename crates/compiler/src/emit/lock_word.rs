//! The lock words of `@atomic` domains whose blocks call kernel helpers
//! (a table, another extern, a loop), which a `bpf_spin_lock` forbids
//! while held (`lock_domains.rs` says which domains).
//!
//! A word is a u64 of the array map `p4bpf_lock_words`: 0 when free, else
//! the holding CPU + 1. It is taken by a 64-bit compare-and-swap and
//! given back by an exchange to 0, both BPF_ATOMIC instructions with full
//! ordering (clang emits 64-bit ones for every BPF CPU; the 32-bit ones
//! would need `-mcpu=v3` and change the whole program's code). The
//! verifier needs a bound on the spin: after a first try, a `bpf_loop`
//! callback tries up to `P4BPF_LOCK_TRIES` (2^20, about 10 ms) times.
//! XDP and TC programs run with bottom halves off, so the kernel never
//! deschedules a holder: it holds the word for one block, microseconds,
//! unless its CPU is a VM's that the host stops (seen: one block in 1.6M
//! gave up after 2^16 tries, 0.7 ms, on a loaded 2-vCPU VM). A block
//! that still does not win it is skipped whole, never run unlocked, and
//! counted per CPU in `p4bpf_lock_timeouts` (`pipeline show`); the packet
//! goes on. Skipped, not dropped: a block may sit in an action or a loop
//! round, where nothing can return the program's drop verdict. A block
//! inside an action a locked block calls finds the word held by its own
//! CPU: it runs inside that lock and gives nothing back.

use super::c::{line, CStmt};
use super::maps::map_def;

use p4bpf_layout::{LOCK_TIMEOUTS_MAP as TIMEOUTS, LOCK_WORDS_MAP as WORDS};

/// The maps and functions of `count` lock words.
pub(super) fn definitions(count: u32) -> String {
    let words = map_def("BPF_MAP_TYPE_ARRAY", "u32", "u64", count, None, WORDS);
    let timeouts = map_def("BPF_MAP_TYPE_PERCPU_ARRAY", "u32", "u64", 1, None, TIMEOUTS);
    format!(
        "/* The lock words of `@atomic` blocks that call kernel helpers (a bpf_spin_lock
 * forbids them): one per set of registers, externs and tables used together;
 * 0 when free, else the holding CPU + 1. */
{words}/* Per CPU: the blocks skipped because their word was not won in P4BPF_LOCK_TRIES. */
{timeouts}/* A holder runs one block (microseconds) but its CPU may be a VM's, which the
 * host can stop for milliseconds: a word held for these tries (about 10 ms)
 * is given up. */
#define P4BPF_LOCK_TRIES (1U << 20)
/* What p4bpf_lock_take did. */
#define P4BPF_LOCK_LOST 0
#define P4BPF_LOCK_TAKEN 1
#define P4BPF_LOCK_HELD 2 /* by this CPU already: a block inside a locked block */

struct p4bpf_lock_try {{
    u64 *word;
    u64 me;
    u64 won;
}};

/* One compare-and-swap of the word from free to ours (a bpf_loop callback). */
static long p4bpf_lock_try(u32 round, void *data)
{{
    struct p4bpf_lock_try *t = data;
    t->won = __sync_val_compare_and_swap(t->word, 0, t->me) == 0;
    return t->won;
}}

static __always_inline u64 *p4bpf_lock_word(u32 domain)
{{
    return bpf_map_lookup_elem(&{WORDS}, &domain);
}}

/* Takes `word`: P4BPF_LOCK_TAKEN, P4BPF_LOCK_HELD, or P4BPF_LOCK_LOST (counted). */
static __always_inline int p4bpf_lock_take(u64 *word)
{{
    if (!word)
        return P4BPF_LOCK_LOST;
    u64 me = (u64)bpf_get_smp_processor_id() + 1;
    /* Only this CPU writes `me` there. */
    if (*(volatile u64 *)word == me)
        return P4BPF_LOCK_HELD;
    if (__sync_val_compare_and_swap(word, 0, me) == 0)
        return P4BPF_LOCK_TAKEN;
    struct p4bpf_lock_try t = {{ .word = word, .me = me, .won = 0 }};
    bpf_loop(P4BPF_LOCK_TRIES, p4bpf_lock_try, &t, 0);
    if (t.won)
        return P4BPF_LOCK_TAKEN;
    u32 zero = 0;
    u64 *lost = bpf_map_lookup_elem(&{TIMEOUTS}, &zero);
    if (lost)
        *lost += 1;
    return P4BPF_LOCK_LOST;
}}

/* Gives back a word `p4bpf_lock_take` took, by an ordered exchange. */
static __always_inline void p4bpf_lock_give(u64 *word, int took)
{{
    if (word && took == P4BPF_LOCK_TAKEN)
        __atomic_exchange_n(word, 0, __ATOMIC_SEQ_CST);
}}

"
    )
}

/// Block `k`'s take of lock word `word` (guarding `names`), which skips
/// the block to `atomicK_done` when lost, and its give.
pub(super) fn take_and_give(k: u32, word: u32, names: &[String]) -> (Vec<CStmt>, CStmt) {
    let (w, took) = (format!("atomic{k}_word"), format!("atomic{k}_took"));
    let take = vec![
        CStmt::Comment(format!(
            "@atomic under lock word {word} ({}), which allows helper calls",
            names.join(", ")
        )),
        line(format!("u64 *{w} = p4bpf_lock_word({word})")),
        line(format!("int {took} = p4bpf_lock_take({w})")),
        CStmt::If {
            cond: format!("{took} == P4BPF_LOCK_LOST"),
            then: vec![CStmt::Goto(format!("atomic{k}_done"))],
            other: vec![],
        },
    ];
    (take, line(format!("p4bpf_lock_give({w}, {took})")))
}
