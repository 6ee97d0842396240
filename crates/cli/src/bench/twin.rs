//! The hand-written twin of a table matrix point: `c/matrix.c` built with
//! the point's shape as `-D` defines, and its maps filled with the same
//! entries as the generated program (`matrix::entries`), encoded as the C
//! structs lay them out.

use super::designs::{self, Rule};
use super::fill::RawEntries;
use super::matrix::{self, Kind, Point, OTHER_BASE, PACKET_DST};

/// The clang defines that shape `c/matrix.c` for `point`.
pub fn defines(point: &Point) -> Vec<String> {
    let kind = match point.kind {
        Kind::Exact => 0,
        Kind::Lpm => 1,
        Kind::Ternary => 2,
    };
    vec![
        format!("KIND={kind}"),
        format!("TABLES={}", point.tables),
        format!("KEY_WORDS={}", point.key_bytes / 4),
        format!("SIZE={}", matrix::table_size(point)),
    ]
}

/// The twin's maps for `point`: tables `t0`.. (and `tN_groups` for ternary).
pub fn maps(point: &Point) -> Result<Vec<RawEntries>, String> {
    let mut out = Vec::new();
    for t in 0..point.tables {
        let name = format!("t{t}");
        match point.kind {
            Kind::Ternary => {
                let rules: Vec<Rule> = (0..point.entries)
                    .map(|i| designs::rule(i, point.masks))
                    .collect();
                out.extend(designs::grouped_maps(
                    &rules,
                    &format!("{name}_groups"),
                    &name,
                )?);
            }
            Kind::Exact | Kind::Lpm => out.push(plain_map(point, name)),
        }
    }
    Ok(out)
}

/// An exact (hash) or LPM (trie) table: key words or prefix, then the MAC.
fn plain_map(point: &Point, name: String) -> RawEntries {
    let words = point.key_bytes / 4;
    let mut map = RawEntries {
        map: name,
        key_size: if point.kind == Kind::Lpm {
            8
        } else {
            4 * words as usize
        },
        value_size: 8,
        keys: Vec::new(),
        values: Vec::new(),
    };
    for i in 0..point.entries {
        if point.kind == Kind::Lpm {
            let (prefix, addr) = if i == 0 {
                (8u32, PACKET_DST & 0xff00_0000)
            } else {
                (32, OTHER_BASE + i)
            };
            map.keys.extend_from_slice(&prefix.to_ne_bytes());
            map.keys.extend_from_slice(&addr.to_be_bytes());
        } else {
            let first = if i == 0 { PACKET_DST } else { OTHER_BASE + i };
            map.keys.extend_from_slice(&first.to_be_bytes());
            for w in 1..words {
                map.keys
                    .extend_from_slice(&matrix::key_word(w).to_be_bytes());
            }
        }
        let b = i.to_be_bytes();
        map.values
            .extend_from_slice(&[2, 0, b[0], b[1], b[2], b[3], 0, 0]);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_twin_keys_have_every_word_and_one_record_per_entry() {
        let point = Point {
            series: "key bytes",
            kind: Kind::Exact,
            tables: 2,
            entries: 5,
            masks: 1,
            key_bytes: 16,
        };
        let maps = maps(&point).unwrap_or_default();
        assert_eq!(maps.len(), 2);
        let first = maps
            .first()
            .map(|m| (m.key_size, m.keys.len() / m.key_size));
        assert_eq!(first, Some((16, 5)));
        assert!(defines(&point).contains(&"KEY_WORDS=4".to_string()));
    }

    #[test]
    fn ternary_twin_has_a_group_map_per_table() {
        let point = Point {
            series: "masks",
            kind: Kind::Ternary,
            tables: 1,
            entries: 100,
            masks: 7,
            key_bytes: 4,
        };
        let names: Vec<String> = maps(&point)
            .unwrap_or_default()
            .into_iter()
            .map(|m| m.map)
            .collect();
        assert_eq!(names, ["t0_groups", "t0"]);
    }
}
