//! A select over several keys matched against one value set: the keys
//! fill a zeroed key struct (its padding too, as the map compares bytes)
//! that is looked up in the value set's map.

use super::Emitter;
use crate::ir::ValueSetId;

impl Emitter<'_> {
    /// C condition: is the tuple `values` (the select keys' C values, in
    /// order) an element of value set `id`?
    pub fn value_set_tuple_test(&self, id: ValueSetId, values: &[String]) -> Option<String> {
        let vs = self.prog.value_sets.get(id.index())?;
        if vs.scans() {
            return self.value_set_scan_test(id, values);
        }
        let mut members = vec![];
        self.members(&vs.ty, "k", 0, &mut members);
        let fill: Vec<String> = members
            .iter()
            .zip(values)
            .map(|(m, v)| format!("{} = {v}; ", m.name))
            .collect();
        Some(format!(
            "({{ {}; __builtin_memset(&k, 0, sizeof(k)); {}{}; }})",
            self.declare(&vs.ty, "k"),
            fill.concat(),
            self.value_set_hash_test(id, "&k")?
        ))
    }
}
