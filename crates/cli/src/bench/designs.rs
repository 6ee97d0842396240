//! The ternary design comparison: the same ruleset (130K rules on the IPv4
//! destination, 192 distinct masks) in two hand-written lookups, plain
//! tuple-space search (`c/ternary_tss.c`, one probe per mask) and grouped
//! tuple space (`c/ternary_grouped.c`, one probe per mask group plus a
//! short bucket scan), so the design the emitter should adopt is measured
//! before it is written. This module is their control plane.

use super::fill::RawEntries;

pub const RULES: u32 = 130_000;
pub const MASKS: u32 = 192;
const PACKET_DST: u32 = 0x0a00_0002;
const OTHER_BASE: u32 = 0x0b00_0000;
/// Sizes fixed by the C programs.
const MAX_GROUPS: usize = 8;
const BUCKET_RULES: usize = 8;
const RULE_BYTES: usize = 16;

/// (value, mask, priority, destination MAC).
pub type Rule = (u32, u32, u32, [u8; 6]);

/// Rule `i` of a ruleset with `masks` distinct masks, as the matrix's
/// ternary tables: each rule its own /24, the packet's rule the lowest
/// priority.
pub fn rule(i: u32, masks: u32) -> Rule {
    let mask = 0xffff_ff00 | (i % masks.max(1));
    let value = if i == 0 {
        PACKET_DST
    } else {
        OTHER_BASE + (i << 8)
    } & mask;
    let priority = if i == 0 { 1 } else { 2 + i };
    let b = i.to_be_bytes();
    (value, mask, priority, [2, 0, b[0], b[1], b[2], b[3]])
}

/// Maps of `ternary_tss.c`: mask slots and (slot, bits) -> rule.
pub fn tss() -> Vec<RawEntries> {
    let mut masks = RawEntries {
        map: "tss_masks".into(),
        key_size: 4,
        value_size: 8,
        keys: Vec::new(),
        values: Vec::new(),
    };
    for m in 0..MASKS {
        masks.keys.extend_from_slice(&m.to_ne_bytes());
        masks.values.extend_from_slice(&1u32.to_ne_bytes());
        masks
            .values
            .extend_from_slice(&(0xffff_ff00 | m).to_be_bytes());
    }
    let mut rules = RawEntries {
        map: "tss_rules".into(),
        key_size: 8,
        value_size: 12,
        keys: Vec::new(),
        values: Vec::new(),
    };
    for i in 0..RULES {
        let (value, mask, priority, dmac) = rule(i, MASKS);
        rules.keys.extend_from_slice(&(mask & 0xff).to_ne_bytes());
        rules.keys.extend_from_slice(&value.to_be_bytes());
        rules.values.extend_from_slice(&priority.to_ne_bytes());
        rules.values.extend_from_slice(&dmac);
        rules.values.extend_from_slice(&[0, 0]);
    }
    vec![masks, rules]
}

/// Maps of `ternary_grouped.c`.
pub fn grouped() -> Result<Vec<RawEntries>, String> {
    let rules: Vec<Rule> = (0..RULES).map(|i| rule(i, MASKS)).collect();
    grouped_maps(&rules, "grouped_groups", "grouped_buckets")
}

/// The group map and bucket map of a grouped ternary table holding `rules`.
/// Grouping: one group whose relaxed mask is the AND of every mask; a
/// bucket that would overflow is an error here (the full control plane
/// splits the group instead).
pub fn grouped_maps(
    rules: &[Rule],
    groups_map: &str,
    buckets_map: &str,
) -> Result<Vec<RawEntries>, String> {
    let relaxed = rules.iter().fold(u32::MAX, |all, r| all & r.1);
    let mut buckets: std::collections::BTreeMap<u32, Vec<Rule>> = Default::default();
    for r in rules {
        buckets.entry(r.0 & relaxed).or_default().push(*r);
    }
    let mut groups = RawEntries {
        map: groups_map.into(),
        key_size: 4,
        value_size: 4 + 4 * MAX_GROUPS,
        keys: 0u32.to_ne_bytes().to_vec(),
        values: Vec::new(),
    };
    groups.values.extend_from_slice(&1u32.to_ne_bytes());
    groups.values.extend_from_slice(&relaxed.to_be_bytes());
    groups.values.resize(groups.value_size, 0);
    let value_size = 4 + BUCKET_RULES * RULE_BYTES;
    let mut records = RawEntries {
        map: buckets_map.into(),
        key_size: 8,
        value_size,
        keys: Vec::new(),
        values: Vec::new(),
    };
    for (bits, mut members) in buckets {
        if members.len() > BUCKET_RULES {
            return Err(format!("bucket {bits:#x} holds {} rules, more than {BUCKET_RULES}: the group needs a split", members.len()));
        }
        members.sort_by_key(|rule| std::cmp::Reverse(rule.2));
        records.keys.extend_from_slice(&0u32.to_ne_bytes());
        records.keys.extend_from_slice(&bits.to_be_bytes());
        let start = records.values.len();
        records
            .values
            .extend_from_slice(&(members.len() as u32).to_ne_bytes());
        for (value, mask, priority, dmac) in members {
            records.values.extend_from_slice(&value.to_be_bytes());
            records.values.extend_from_slice(&mask.to_be_bytes());
            records.values.extend_from_slice(&priority.to_ne_bytes());
            records.values.extend_from_slice(&dmac);
            records.values.extend_from_slice(&[0, 0]);
        }
        records.values.resize(start + value_size, 0);
    }
    Ok(vec![groups, records])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_designs_hold_every_rule() {
        let tss = tss();
        assert_eq!(
            tss.get(1).map(|r| r.keys.len() / r.key_size),
            Some(RULES as usize)
        );
        let grouped = grouped().unwrap_or_default();
        let buckets = grouped.get(1).map(|b| {
            b.values
                .chunks(b.value_size)
                .map(|v| v.first().copied().unwrap_or(0) as usize)
                .sum::<usize>()
        });
        assert_eq!(buckets, Some(RULES as usize));
    }
}
