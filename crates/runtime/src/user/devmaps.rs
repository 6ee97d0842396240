//! The devmaps of copies at XDP in the user-space target: built as
//! [`crate::xdp_copies`] builds them in the kernel (a fresh DEVMAP_HASH,
//! one entry per interface in order, its id stored in the map of maps),
//! in the host program, whose broadcast then walks them as the kernel
//! does. The host has one program to run on copies, the pipeline's
//! egress entry: an entry names it with any positive program number.

use super::host::UserHost;
use crate::error::Result;
use crate::map::{Map, Write};
use crate::sys_ops::MAP_TYPE_DEVMAP_HASH;
use std::rc::Rc;

/// The program number a devmap entry holds: the host's egress entry.
const EGRESS_PROGRAM: i32 = 1;

/// Stores under `key` of `outer` a new devmap sending to `interfaces`.
pub(crate) fn refresh(
    host: &Rc<UserHost>,
    outer: &Map,
    key: u64,
    interfaces: &[u32],
) -> Result<()> {
    let size = u32::try_from(interfaces.len().max(1)).unwrap_or(u32::MAX);
    let name = host.create_map((MAP_TYPE_DEVMAP_HASH, 4, 8, size))?;
    let devmap = Map::in_user_host(host, &name)?;
    for (slot, ifindex) in (0u32..).zip(interfaces) {
        let mut value = ifindex.to_ne_bytes().to_vec();
        value.extend(EGRESS_PROGRAM.to_ne_bytes());
        devmap.write(&slot.to_ne_bytes(), &value, Write::Replace)?;
    }
    let id: u32 = name.trim_start_matches('#').parse().unwrap_or(u32::MAX);
    outer.write(&key.to_ne_bytes(), &id.to_ne_bytes(), Write::Replace)
}
