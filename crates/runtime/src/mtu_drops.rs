//! The packets a pipeline dropped because its deparser made them longer
//! than the output interface forwards (the compiler's MTU check before
//! a send): the sum over CPUs of the one cell of the description's
//! `mtu_drops` map.

use crate::error::Result;
use crate::map_source::MapSource;
use p4bpf_layout::Pipeline;

/// The count so far, or `None` when the program has no such check (it
/// cannot grow a packet it sends to a port).
pub fn total(source: &impl MapSource, description: &Pipeline) -> Result<Option<u64>> {
    let Some(name) = &description.mtu_drops else {
        return Ok(None);
    };
    let per_cpu = source.map(name)?.read(&0u32.to_ne_bytes())?;
    Ok(Some(
        per_cpu
            .iter()
            .filter_map(|b| b.get(..8)?.try_into().ok().map(u64::from_ne_bytes))
            .sum(),
    ))
}
