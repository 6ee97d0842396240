//! The table matrix of the P4-in-the-kernel evaluation: L3-style lookups on
//! the IPv4 destination (and the words after it for wider keys) with exact,
//! LPM and ternary tables; 1 to 3 tables in sequence; 2 to 130K entries;
//! ternary with 1 to many masks; keys of 4 to 64 bytes. Each point is a P4
//! program generated here, compiled, filled in batches and timed on a packet
//! that hits one entry of every table.

use super::fill::{P4Entry, RawEntries};
use p4bpf_layout::{Pipeline, TableStorage};
use p4bpf_runtime::bench::BenchObject;
use p4bpf_runtime::entry::{encode_entry, EntrySpec};
use p4bpf_runtime::ternary::Classifier;
use std::fmt::Write;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Exact,
    Lpm,
    Ternary,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Exact => "exact",
            Kind::Lpm => "lpm",
            Kind::Ternary => "ternary",
        }
    }
}

/// One point of the matrix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Point {
    pub series: &'static str,
    pub kind: Kind,
    pub tables: u32,
    pub entries: u32,
    /// Distinct ternary masks (1 for other kinds).
    pub masks: u32,
    pub key_bytes: u32,
}

/// The IPv4 destination of the matrix packet, as a number.
pub const PACKET_DST: u32 = 0x0a00_0002;
/// Entries other than the packet's live under 11.0.0.0/8 and up.
pub const OTHER_BASE: u32 = 0x0b00_0000;

pub fn points(max_masks: u32) -> Vec<Point> {
    let mut points = Vec::new();
    let point = |series, kind, tables, entries, masks, key_bytes| Point {
        series,
        kind,
        tables,
        entries,
        masks,
        key_bytes,
    };
    for kind in [Kind::Exact, Kind::Lpm, Kind::Ternary] {
        for tables in 1..=3 {
            points.push(point("tables", kind, tables, 1024, 1, 4));
        }
    }
    for kind in [Kind::Exact, Kind::Lpm, Kind::Ternary] {
        for entries in [2, 1_000, 10_000, 130_000] {
            points.push(point(
                "entries",
                kind,
                1,
                entries,
                if kind == Kind::Ternary {
                    8.min(entries)
                } else {
                    1
                },
                4,
            ));
        }
    }
    for masks in [1, 2, 4, 8, 16, 32, 64, 128, 192]
        .into_iter()
        .filter(|m| *m <= max_masks)
    {
        points.push(point("masks", Kind::Ternary, 1, 130_000, masks, 4));
    }
    for key_bytes in [4, 8, 16, 32, 64] {
        points.push(point("key bytes", Kind::Exact, 1, 1024, 1, key_bytes));
    }
    points
}

/// The bytes after the IPv4 destination the packet carries (key words 1..).
pub fn packet() -> Vec<u8> {
    let mut wire = p4bpf_runtime::bench::packet::udp_packet(p4bpf_runtime::bench::packet::DST_IP);
    wire.resize(128, 0x5a);
    wire
}

/// The `size` of every table of `point`.
pub fn table_size(point: &Point) -> u32 {
    point.entries.next_power_of_two().max(16)
}

/// Word `w` of the matrix packet's key (word 0 is the IPv4 destination).
pub fn key_word(w: u32) -> u32 {
    if w == 0 {
        return PACKET_DST;
    }
    let at = 30 + 4 * w as usize;
    packet()
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map(u32::from_be_bytes)
        .unwrap_or(0)
}

/// The P4 source of `point`.
pub fn program(point: &Point) -> String {
    let words = point.key_bytes / 4;
    let mut p4 = String::from("#include <core.p4>\n#include <xdp_model.p4>\n\n");
    p4.push_str("header ethernet_h { bit<48> dstAddr; bit<48> srcAddr; bit<16> etherType; }\n");
    p4.push_str(
        "// IPv4 up to its source address, then the destination and what follows as key words.\n",
    );
    p4.push_str("header ipv4_head_h { bit<64> a; bit<32> b; bit<32> srcAddr; }\nheader key_h {");
    for w in 0..words {
        let _ = write!(p4, " bit<32> w{w};");
    }
    p4.push_str(" }\nstruct headers_t { ethernet_h ethernet; ipv4_head_h head; key_h k; }\n\n");
    p4.push_str("parser P(packet_in packet, out headers_t hdr) {\n    state start { packet.extract(hdr.ethernet); packet.extract(hdr.head); packet.extract(hdr.k); transition accept; }\n}\n\n");
    p4.push_str("control C(inout headers_t hdr, in xdp_input imd, out xdp_output omd) {\n");
    p4.push_str("    action forward(bit<48> dmac) { hdr.ethernet.dstAddr = dmac; omd.output_action = xdp_action.XDP_TX; }\n");
    p4.push_str("    action drop() { omd.output_action = xdp_action.XDP_DROP; }\n");
    let size = table_size(point);
    for t in 0..point.tables {
        let _ = write!(p4, "    table t{t} {{\n        key = {{");
        for w in 0..words {
            let kind = match (point.kind, w) {
                (Kind::Lpm, 0) => "lpm",
                (Kind::Ternary, _) => "ternary",
                _ => "exact",
            };
            let _ = write!(p4, " hdr.k.w{w}: {kind};");
        }
        let _ = writeln!(p4, " }}\n        actions = {{ forward; drop; }}\n        default_action = drop();\n        size = {size};\n    }}");
    }
    p4.push_str("    apply {\n        omd.output_port = 0;\n        omd.output_action = xdp_action.XDP_DROP;\n");
    for t in 0..point.tables {
        let _ = writeln!(p4, "        t{t}.apply();");
    }
    p4.push_str("    }\n}\n\ncontrol D(in headers_t hdr, packet_out packet) {\n    apply { packet.emit(hdr.ethernet); packet.emit(hdr.head); packet.emit(hdr.k); }\n}\n\nxdp(P(), C(), D()) main;\n");
    p4
}

/// The entries of every table of `point`: entry 0 is the packet's.
pub fn entries(point: &Point) -> Vec<P4Entry> {
    let mut out = Vec::new();
    for t in 0..point.tables {
        for i in 0..point.entries {
            let mut keys = Vec::new();
            let mut priority = None;
            for w in 0..point.key_bytes / 4 {
                let packet_word = key_word(w);
                keys.push(match (point.kind, w) {
                    (Kind::Lpm, 0) if i == 0 => format!("{:#x}/8", PACKET_DST & 0xff00_0000),
                    (Kind::Lpm, 0) => format!("{:#x}/32", OTHER_BASE + i),
                    (Kind::Ternary, 0) => {
                        // Mask `i % masks`: 0xffffff00 with its low byte set
                        // to the mask number, so every mask differs.
                        let m = i % point.masks;
                        let mask = 0xffff_ff00 | m;
                        // Each entry its own /24: rules overlap as little as in
                        // real ACLs, yet every mask must still be probed.
                        let value = if i == 0 {
                            PACKET_DST
                        } else {
                            OTHER_BASE + (i << 8)
                        };
                        // The packet's entry has the lowest priority: every
                        // mask is searched before it is known to win.
                        priority = Some(if i == 0 { 1 } else { 2 + i });
                        format!("{:#x}&&&{mask:#x}", value & mask)
                    }
                    (Kind::Ternary, _) => format!("{packet_word:#x}&&&0xffffffff"),
                    (_, 0) if i == 0 => format!("{packet_word:#x}"),
                    (_, 0) => format!("{:#x}", OTHER_BASE + i),
                    _ => format!("{packet_word:#x}"),
                });
            }
            out.push(P4Entry {
                table: format!("C.t{t}"),
                keys,
                action: "forward".into(),
                args: vec![format!("{:#x}", 0x0200_0000_0000u64 + u64::from(i))],
                priority,
            });
        }
    }
    out
}

/// Write `entries`; ternary tables are grouped and bucketed in memory by the
/// runtime's control plane (`p4bpf_runtime::ternary`) and written in batches,
/// everything else goes as is.
pub fn write(object: &BenchObject, pipeline: &Pipeline, entries: &[P4Entry]) -> Result<(), String> {
    let mut plain = Vec::new();
    let mut batches: Vec<(&p4bpf_layout::Table, Classifier)> = Vec::new();
    for entry in entries {
        let table =
            p4bpf_runtime::names::table(pipeline, &entry.table).map_err(|e| e.to_string())?;
        if table.storage != TableStorage::Ternary {
            plain.push(entry.clone());
            continue;
        }
        let spec = EntrySpec {
            keys: entry.keys.iter().cloned().enumerate().collect(),
            action: p4bpf_runtime::names::action(table, &entry.action)
                .map_err(|e| e.to_string())?,
            args: entry.args.iter().cloned().enumerate().collect(),
            priority: entry.priority,
        };
        let encoded = encode_entry(table, &spec).map_err(|e| e.to_string())?;
        let at = match batches.iter().position(|(t, _)| t.map == table.map) {
            Some(at) => at,
            None => {
                batches.push((table, Classifier::default()));
                batches.len() - 1
            }
        };
        if let Some((_, batch)) = batches.get_mut(at) {
            batch.insert(table, &encoded).map_err(|e| e.to_string())?;
        }
    }
    let mut raw = Vec::new();
    for (table, mut batch) in batches {
        let Some(layout) = table.ternary.as_ref() else {
            continue;
        };
        let lists = batch.lists(table).map_err(|e| e.to_string())?;
        let buckets = batch.buckets(table).map_err(|e| e.to_string())?;
        let filters = batch.filters(table).map_err(|e| e.to_string())?;
        raw.push(records(&layout.filters_map, filters));
        raw.push(records(&table.map, buckets));
        raw.push(records(
            &layout.groups_map,
            (lists.into_iter())
                .map(|(p, list)| (p.to_ne_bytes().to_vec(), list))
                .collect(),
        ));
    }
    super::fill::write_p4(object, pipeline, &plain)?;
    super::fill::write_raw(object, &raw)
}

fn records(map: &str, pairs: Vec<(Vec<u8>, Vec<u8>)>) -> RawEntries {
    let key_size = pairs.first().map_or(0, |(k, _)| k.len());
    let value_size = pairs.first().map_or(0, |(_, v)| v.len());
    let mut raw = RawEntries {
        map: map.into(),
        key_size,
        value_size,
        keys: Vec::new(),
        values: Vec::new(),
    };
    for (k, v) in pairs {
        raw.keys.extend_from_slice(&k);
        raw.values.extend_from_slice(&v);
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ternary_entries_use_the_asked_number_of_masks() {
        let point = Point {
            series: "masks",
            kind: Kind::Ternary,
            tables: 1,
            entries: 100,
            masks: 7,
            key_bytes: 4,
        };
        let masks: std::collections::BTreeSet<String> = entries(&point)
            .iter()
            .filter_map(|e| {
                e.keys
                    .first()
                    .and_then(|k| k.split_once("&&&"))
                    .map(|(_, m)| m.to_string())
            })
            .collect();
        assert_eq!(masks.len(), 7);
    }

    #[test]
    fn programs_declare_one_table_per_point_table() {
        let point = Point {
            series: "tables",
            kind: Kind::Lpm,
            tables: 3,
            entries: 2,
            masks: 1,
            key_bytes: 8,
        };
        let text = program(&point);
        assert_eq!(text.matches("table t").count(), 3);
        assert!(text.contains("hdr.k.w0: lpm; hdr.k.w1: exact;"));
    }
}
