//! Port slots: a direct-mapped array in front of each port map, so the
//! program finds a port in one array read (which the verifier inlines)
//! instead of a hash lookup. Slot `key & (PORT_SLOTS - 1)` holds one key
//! of the hash map with its value ([`slot_value`]); a key whose slot is
//! empty or holds another key is looked up in the hash map, which stays
//! the whole truth. So a writer that only adds to the hash map is still
//! right (just slower), and a writer that changes or deletes a key must
//! update its slot too ([`Pipeline::port_slot_maps`] names them).

use crate::{Hook, Pipeline};

/// Slots per array: a power of two, so the slot is a mask of the key.
pub const PORT_SLOTS: u32 = 512;

/// The slot array in front of port map `map`.
pub fn port_slots_of(map: &str) -> String {
    format!("{map}_slots")
}

/// The slot `key` belongs in.
pub fn slot_index(key: u32) -> u32 {
    key & (PORT_SLOTS - 1)
}

/// A slot's bytes: the C struct `p4bpf_port_slot { u32 key; u32 value;
/// u32 used; }` in host byte order; all zero is an empty slot.
pub fn slot_value(key: u32, value: u32) -> [u8; 12] {
    let mut bytes = [0u8; 12];
    bytes[..4].copy_from_slice(&key.to_ne_bytes());
    bytes[4..8].copy_from_slice(&value.to_ne_bytes());
    bytes[8..].copy_from_slice(&1u32.to_ne_bytes());
    bytes
}

/// The key a slot's bytes hold, if the slot is used.
pub fn slot_key(bytes: &[u8]) -> Option<u32> {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes)
    };
    (word(8)? != 0).then(|| word(0)).flatten()
}

/// A port map's name and its slot array's.
pub type MapWithSlots = (String, String);

impl Pipeline {
    /// The slot arrays in front of the output port map (at TC only: XDP
    /// redirects through its devmap directly) and the ingress port map,
    /// as (hash map, slot array).
    pub fn port_slot_maps(&self) -> (Option<MapWithSlots>, Option<MapWithSlots>) {
        let with_slots = |map: &String| (map.clone(), port_slots_of(map));
        let output = match self.hook {
            Hook::Tc => self.port_map.as_ref().map(with_slots),
            Hook::Xdp => None,
        };
        (output, self.ingress_port_map.as_ref().map(with_slots))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_reads_back_its_key_and_empty_reads_none() {
        assert_eq!(slot_key(&slot_value(515, 7)), Some(515));
        assert_eq!(slot_key(&slot_value(0, 0)), Some(0));
        assert_eq!(slot_key(&[0u8; 12]), None);
        assert_eq!(slot_index(515), 3);
        assert_eq!(slot_index(0xffff_fffd), 509);
    }
}
