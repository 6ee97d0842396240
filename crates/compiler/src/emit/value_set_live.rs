//! Value sets the control plane replaces whole, atomically for packets:
//! every set holds its members twice, in halves 0 and 1 (a scanned set's
//! array has `2 * size` slots, half `h` from slot `h * size`; a hash set's
//! value has bit `h` set when its key is in half `h`), and
//! `p4bpf_vset_live` holds, per set, the half lookups read. A parser
//! reads the halves of the sets it uses once, as it starts, and hands
//! them to its loop functions in the loop cursor (a function called once
//! per state must not read them again: a flip between two calls would mix
//! halves), so a packet's lookups of one set all read one half. A MODIFY writes the other half whole, then flips the
//! set's word: a packet sees the old members or the new ones, never a mix
//! (the runtime's `value_set` module, which also waits for the packets
//! still reading the old half before writing it again).

use super::c::{line, CStmt};
use super::maps::map_def;
use super::Emitter;
use crate::ir::{Keyset, Parser, Transition, ValueSet, ValueSetId};
use p4bpf_layout::ValueSet as SetLayout;
use std::collections::BTreeSet;

/// The live half of a set, and a hash set's membership test in a half.
const LIVE_HALF: &str = "\
static __always_inline u32 p4bpf_vset_half(u32 set)
{
    u32 *half = bpf_map_lookup_elem(&p4bpf_vset_live, &set);
    return half ? *half & 1 : 0;
}

/* Is a hash set's key, whose value is `halves` (if found), in half `half`? */
static __always_inline int p4bpf_vset_in(const u8 *halves, u32 half)
{
    return halves && ((*halves >> half) & 1);
}

";

/// The C variable holding the half of value set `id` a parse reads.
pub(super) fn half_var(id: ValueSetId) -> String {
    format!("vset_half_{}", id.index())
}

/// The cursor field carrying the half of value set `id` into a parser
/// loop's function.
fn cursor_field(id: ValueSetId) -> String {
    format!("vset_half_{}", id.index())
}

/// The value sets `parser`'s selects look up.
fn sets_of(parser: &Parser) -> BTreeSet<ValueSetId> {
    (parser.states.iter())
        .filter_map(|s| match &s.transition {
            Transition::Select { cases, .. } => Some(cases),
            Transition::Direct(_) => None,
        })
        .flatten()
        .flat_map(|case| &case.keysets)
        .filter_map(|keyset| match keyset {
            Keyset::ValueSet(id) => Some(*id),
            _ => None,
        })
        .collect()
}

/// The reads of the live halves of the value sets `parser` uses, for the
/// start of the C that runs its states.
pub(super) fn read_halves(parser: &Parser) -> Vec<CStmt> {
    (sets_of(parser).into_iter())
        .map(|id| {
            line(format!(
                "u32 {} = p4bpf_vset_half({})",
                half_var(id),
                id.index()
            ))
        })
        .collect()
}

/// In the entry function, once its cursor is declared: the halves the
/// parse read, copied into the cursor `cursor` for the loop functions.
pub(super) fn halves_into_cursor(parser: &Parser, cursor: &str) -> Vec<CStmt> {
    (sets_of(parser).into_iter())
        .map(|id| line(format!("{cursor}.{} = {}", cursor_field(id), half_var(id))))
        .collect()
}

/// In a parser loop's function: the halves the parse read as it
/// started, from the cursor `cursor` points to (masked: the verifier
/// knows nothing of a pointer argument's contents, and a half indexes a
/// scanned set's slots).
pub(super) fn halves_from_cursor(parser: &Parser, cursor: &str) -> Vec<CStmt> {
    (sets_of(parser).into_iter())
        .map(|id| {
            line(format!(
                "u32 {} = {cursor}->{} & 1",
                half_var(id),
                cursor_field(id)
            ))
        })
        .collect()
}

/// The loop cursor's fields carrying the halves of the program's
/// `sets` value sets (any parser's: one cursor type serves them all).
pub(super) fn cursor_fields(sets: usize) -> String {
    (0..sets)
        .map(|i| {
            format!(
                "    u32 {}; /* the half of value set {i} the parse reads */\n",
                cursor_field(ValueSetId(i as u32))
            )
        })
        .collect()
}

impl Emitter<'_> {
    /// The array of live halves and the C reading it, when the program
    /// has value sets.
    pub(super) fn value_set_live(&self) -> String {
        let sets = self.prog.value_sets.len() as u32;
        if sets == 0 {
            return String::new();
        }
        let map = map_def(
            "BPF_MAP_TYPE_ARRAY",
            "u32",
            "u32",
            sets,
            None,
            SetLayout::LIVE_MAP,
        );
        format!("/* each value set's live half (0 or 1), by set, flipped by the control plane */\n{map}{LIVE_HALF}")
    }

    /// C condition: is the key `key_pointer` points to in the half of
    /// hash value set `id` this parse reads?
    pub(super) fn value_set_hash_test(&self, id: ValueSetId, key_pointer: &str) -> Option<String> {
        let vs = self.prog.value_sets.get(id.index())?;
        Some(format!(
            "p4bpf_vset_in(bpf_map_lookup_elem(&{}, {key_pointer}), {})",
            vs.c_name,
            half_var(id)
        ))
    }
}

/// The entries of a set's map: both halves.
pub(super) fn both_halves(v: &ValueSet) -> u32 {
    v.size.max(1).saturating_mul(2)
}
