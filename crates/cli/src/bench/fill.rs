//! Table entries for benchmark runs: P4 entries by P4 name (encoded through
//! the pipeline description, as `p4bpf test` does) and raw key/value
//! records for the hand-written twins' maps; both written in batches.

use p4bpf_layout::port_slots::{slot_index, slot_value};
use p4bpf_layout::Pipeline;
use p4bpf_runtime::bench::{fill, BenchObject};
use p4bpf_runtime::entry::{encode_entry, EntrySpec};
use p4bpf_runtime::names;

/// One entry of a P4 table: key values in key order, action and arguments
/// in parameter order, in the syntax `p4bpf test` reads.
#[derive(Clone, Debug)]
pub struct P4Entry {
    pub table: String,
    pub keys: Vec<String>,
    pub action: String,
    pub args: Vec<String>,
    pub priority: Option<u32>,
}

impl P4Entry {
    pub fn new(table: &str, keys: &[&str], action: &str, args: &[&str]) -> P4Entry {
        P4Entry {
            table: table.into(),
            keys: keys.iter().map(|k| k.to_string()).collect(),
            action: action.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            priority: None,
        }
    }
}

/// Records for one map of a hand-written program.
#[derive(Clone, Debug)]
pub struct RawEntries {
    pub map: String,
    pub key_size: usize,
    pub value_size: usize,
    pub keys: Vec<u8>,
    pub values: Vec<u8>,
}

impl RawEntries {
    pub fn one(map: &str, key: &[u8], value: &[u8]) -> RawEntries {
        RawEntries {
            map: map.into(),
            key_size: key.len(),
            value_size: value.len(),
            keys: key.to_vec(),
            values: value.to_vec(),
        }
    }
}

/// Encode `entries` (all for tables of `pipeline`) and write them,
/// grouped by map.
pub fn write_p4(
    object: &BenchObject,
    pipeline: &Pipeline,
    entries: &[P4Entry],
) -> Result<(), String> {
    let mut grouped: Vec<RawEntries> = Vec::new();
    for entry in entries {
        let table = names::table(pipeline, &entry.table).map_err(|e| e.to_string())?;
        let spec = EntrySpec {
            keys: entry.keys.iter().cloned().enumerate().collect(),
            action: names::action(table, &entry.action).map_err(|e| e.to_string())?,
            args: entry.args.iter().cloned().enumerate().collect(),
            priority: entry.priority,
        };
        let encoded = encode_entry(table, &spec).map_err(|e| e.to_string())?;
        match grouped.iter_mut().find(|g| g.map == table.map) {
            Some(group) => {
                group.keys.extend_from_slice(&encoded.key);
                group.values.extend_from_slice(&encoded.value);
            }
            None => grouped.push(RawEntries {
                map: table.map.clone(),
                key_size: encoded.key.len(),
                value_size: encoded.value.len(),
                keys: encoded.key,
                values: encoded.value,
            }),
        }
    }
    write_raw(object, &grouped)
}

pub fn write_raw(object: &BenchObject, groups: &[RawEntries]) -> Result<(), String> {
    for group in groups {
        let fd = object.map_fd(&group.map).map_err(|e| e.to_string())?;
        fill::write_all(
            fd,
            &group.keys,
            group.key_size,
            &group.values,
            group.value_size,
        )
        .map_err(|e| format!("filling map `{}`: {e}", group.map))?;
    }
    Ok(())
}

/// Pairs of (P4 port, interface index), written as `p4bpf port add`
/// writes them: into the pipeline's port map and, when the program reads
/// its ingress port, its ingress port map, each with its port slots.
pub fn write_ports(
    object: &BenchObject,
    pipeline: &Pipeline,
    ports: &[(u32, u32)],
) -> Result<(), String> {
    if ports.is_empty() {
        return Ok(());
    }
    let Some(out_map) = &pipeline.port_map else {
        return Err("the program has no port map for its ports".into());
    };
    let (out_slots, in_slots) = pipeline.port_slot_maps();
    let mut batches = vec![port_entries(out_map, ports.iter().copied())];
    batches.extend(out_slots.map(|(_, slots)| slot_entries(&slots, ports.iter().copied())));
    if let Some(in_map) = &pipeline.ingress_port_map {
        let reversed = ports.iter().map(|(port, ifindex)| (*ifindex, *port));
        batches.push(port_entries(in_map, reversed.clone()));
        batches.extend(in_slots.map(|(_, slots)| slot_entries(&slots, reversed)));
    }
    write_raw(object, &batches)
}

/// Output ports only: (P4 port, interface index) into the port map `map`
/// of `pipeline` and its port slots.
pub fn write_output_ports(
    object: &BenchObject,
    pipeline: &Pipeline,
    map: &str,
    ports: &[(u32, u32)],
) -> Result<(), String> {
    let mut batches = vec![port_entries(map, ports.iter().copied())];
    let (out_slots, _) = pipeline.port_slot_maps();
    batches.extend(out_slots.map(|(_, slots)| slot_entries(&slots, ports.iter().copied())));
    write_raw(object, &batches)
}

/// `pairs` as u32 keys and values of hash map `map`.
fn port_entries(map: &str, pairs: impl Iterator<Item = (u32, u32)>) -> RawEntries {
    let mut entries = RawEntries::one(map, &[], &[]);
    (entries.key_size, entries.value_size) = (4, 4);
    for (key, value) in pairs {
        entries.keys.extend(key.to_ne_bytes());
        entries.values.extend(value.to_ne_bytes());
    }
    entries
}

/// `pairs` in their port slots of array `slots` (a later pair takes a
/// slot from an earlier one, which the hash map still holds).
fn slot_entries(slots: &str, pairs: impl Iterator<Item = (u32, u32)>) -> RawEntries {
    let mut entries = RawEntries::one(slots, &[], &[]);
    (entries.key_size, entries.value_size) = (4, 12);
    for (key, value) in pairs {
        entries.keys.extend(slot_index(key).to_ne_bytes());
        entries.values.extend(slot_value(key, value));
    }
    entries
}
