//! A pipeline's ports: P4 port numbers mapped to interfaces through the
//! pipeline's devmap (so `bpf_redirect_map` and output ports find them),
//! and the program attached to each interface by a pinned link (XDP in the
//! chosen mode, or tcx ingress for a TC pipeline). Adding a port attaches
//! first and records the mapping second, undoing the attachment if the
//! second step fails; deleting does the reverse. A pipeline with
//! multicast also gets its egress program at tcx egress of each port: the
//! copies it sends there run egress in it.

use crate::bpffs;
use crate::deploy::Deployment;
use crate::error::{Result, RuntimeError};
use crate::map::{u32_at, Map, Write};
use crate::sys_ops;
use p4bpf_layout::port_slots::{slot_index, slot_key, slot_value};
use p4bpf_layout::Hook;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;

const IF_NAME_SIZE: usize = 16;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Port {
    pub port: u32,
    pub ifindex: u32,
    /// Empty when the interface has gone away since.
    pub interface: String,
}

/// Index of interface `name`.
pub fn ifindex(name: &str) -> Result<u32> {
    let no_such = || RuntimeError::Value(format!("interface `{name}` does not exist"));
    let c_name = std::ffi::CString::new(name).map_err(|_| no_such())?;
    // SAFETY: NUL-terminated name.
    match unsafe { sys_ops::if_nametoindex(c_name.as_ptr()) } {
        0 => Err(no_such()),
        index => Ok(index),
    }
}

fn interface_name(index: u32) -> String {
    let mut buffer = [0u8; IF_NAME_SIZE];
    // SAFETY: the buffer has IF_NAMESIZE bytes.
    let found = unsafe { sys_ops::if_indextoname(index, buffer.as_mut_ptr().cast()) };
    if found.is_null() {
        return String::new();
    }
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(buffer.get(..end).unwrap_or_default()).into_owned()
}

fn devmap(deployment: &Deployment) -> Result<Map> {
    deployment.pinned_map("ports", "ports")
}

/// A port map and the slot array in front of it ([`p4bpf_layout::port_slots`]).
type SlottedMap = (Map, Map);

/// The pinned (ports, slots) and (ingress ports, slots) of `deployment`
/// that have slots.
fn slotted_maps(deployment: &Deployment) -> Result<(Option<SlottedMap>, Option<SlottedMap>)> {
    let (output, ingress) = deployment.description.port_slot_maps();
    let output = match output {
        Some((_, slots)) => Some((devmap(deployment)?, pinned_slots(deployment, &slots)?)),
        None => None,
    };
    let ingress = match ingress {
        Some((map, slots)) => Some((pinned(deployment, &map)?, pinned_slots(deployment, &slots)?)),
        None => None,
    };
    Ok((output, ingress))
}

/// The pinned slot array `name`. A pipeline loaded by a p4bpf from before
/// port slots has none: this binary cannot tell whether its program reads
/// slots it would leave stale, so it asks for a reload.
fn pinned_slots(deployment: &Deployment, name: &str) -> Result<Map> {
    if !deployment.path(&format!("maps/{name}")).exists() {
        return Err(RuntimeError::Value(format!(
            "pipeline {} was loaded by an older p4bpf without port slots: reload it",
            deployment.name
        )));
    }
    pinned(deployment, name)
}

fn pinned(deployment: &Deployment, name: &str) -> Result<Map> {
    deployment.pinned_map(name, &format!("maps/{name}"))
}

/// Put `key -> value` in its slot unless another key holds the slot (that
/// key stays; this one is then read from the hash map alone).
pub fn claim_slot(slots: &Map, key: u32, value: u32) -> Result<()> {
    let index = slot_index(key).to_ne_bytes();
    let held = slots.read(&index)?.first().and_then(|v| slot_key(v));
    if held.is_some_and(|other| other != key) {
        return Ok(());
    }
    slots.write(&index, &slot_value(key, value), Write::Replace)
}

/// Empty `key`'s slot if it holds `key`.
pub fn release_slot(slots: &Map, key: u32) -> Result<()> {
    let index = slot_index(key).to_ne_bytes();
    let held = slots.read(&index)?.first().and_then(|v| slot_key(v));
    match held == Some(key) {
        true => slots.write(&index, &[0u8; 12], Write::Replace),
        false => Ok(()),
    }
}

/// The map the program reads its ingress P4 port from, if it has one.
fn ingress_ports(deployment: &Deployment) -> Result<Option<Map>> {
    match &deployment.description.ingress_port_map {
        Some(name) => deployment
            .pinned_map(name, &format!("maps/{name}"))
            .map(Some),
        None => Ok(None),
    }
}

fn link_pin(deployment: &Deployment, ifindex: u32) -> PathBuf {
    deployment.path(&format!("links/if{ifindex}"))
}

fn egress_link_pin(deployment: &Deployment, ifindex: u32) -> PathBuf {
    deployment.path(&format!("links/if{ifindex}-egress"))
}

/// Attach the pipeline to `interface` as P4 port `port` (default: the
/// interface's index).
pub fn add(deployment: &Deployment, interface: &str, port: Option<u32>) -> Result<Port> {
    let index = ifindex(interface)?;
    let port = port.unwrap_or(index);
    let existing = list(deployment)?;
    if let Some(taken) = existing.iter().find(|p| p.ifindex == index) {
        return Err(RuntimeError::Value(format!(
            "interface `{interface}` is already port {} of pipeline `{}`",
            taken.port, deployment.name
        )));
    }
    if let Some(taken) = existing.iter().find(|p| p.port == port) {
        return Err(RuntimeError::Value(format!(
            "port {port} of pipeline `{}` is already interface `{}`",
            deployment.name, taken.interface
        )));
    }
    // Before attaching: a pipeline without its slot arrays is refused.
    let (output_slots, ingress_slots) = slotted_maps(deployment)?;
    let link = attach(deployment, index, interface)?;
    let pin = link_pin(deployment, index);
    bpffs::pin(link.as_raw_fd(), &pin)?;
    let egress_pin = egress_link_pin(deployment, index);
    // Best effort undo: dropping the pins and our descriptors detaches.
    let detach = || {
        let _ = std::fs::remove_file(&pin);
        let _ = std::fs::remove_file(&egress_pin);
    };
    let egress = attach_egress(deployment, index, interface).and_then(|link| match link {
        Some(link) => bpffs::pin(link.as_raw_fd(), &egress_pin),
        None => Ok(()),
    });
    if let Err(error) = egress {
        detach();
        return Err(error);
    }
    let ports = devmap(deployment)?;
    if let Err(error) = ports.write(&port.to_ne_bytes(), &index.to_ne_bytes(), Write::Insert) {
        detach();
        return Err(error);
    }
    let ingress = ingress_ports(deployment).and_then(|map| match map {
        Some(map) => map.write(&index.to_ne_bytes(), &port.to_ne_bytes(), Write::Replace),
        None => Ok(()),
    });
    if let Err(error) = ingress {
        detach();
        let _ = crate::control::delete_key(&ports, &port.to_ne_bytes());
        return Err(error);
    }
    let slotted = output_slots
        .map_or(Ok(()), |(_, slots)| claim_slot(&slots, port, index))
        .and_then(|()| ingress_slots.map_or(Ok(()), |(_, slots)| claim_slot(&slots, index, port)));
    if let Err(error) = slotted {
        detach();
        let _ = forget(deployment, port, index);
        return Err(error);
    }
    crate::xdp_copies::refresh_every(deployment, &deployment.description)?;
    Ok(Port {
        port,
        ifindex: index,
        interface: interface.to_string(),
    })
}

fn attach(deployment: &Deployment, index: u32, interface: &str) -> Result<OwnedFd> {
    let program = deployment.program()?;
    let (attach_type, flags) = match deployment.description.hook {
        Hook::Xdp => (sys_ops::ATTACH_XDP, deployment.settings.xdp_mode.flags()),
        Hook::Tc => (sys_ops::ATTACH_TCX_INGRESS, 0),
    };
    link(deployment, &program, (attach_type, flags), index, interface)
}

/// The egress program at tcx egress of `index`, if the pipeline has one.
fn attach_egress(deployment: &Deployment, index: u32, interface: &str) -> Result<Option<OwnedFd>> {
    // At XDP the egress program runs from the copies' devmaps instead.
    if deployment.description.hook == Hook::Xdp {
        return Ok(None);
    }
    let Some(program) = deployment.egress_program()? else {
        return Ok(None);
    };
    let at = (sys_ops::ATTACH_TCX_EGRESS, 0);
    link(deployment, &program, at, index, interface).map(Some)
}

fn link(
    deployment: &Deployment,
    program: &OwnedFd,
    (attach_type, flags): (std::ffi::c_int, u32),
    index: u32,
    interface: &str,
) -> Result<OwnedFd> {
    let options = sys_ops::LinkCreateOpts {
        sz: std::mem::size_of::<sys_ops::LinkCreateOpts>(),
        flags,
        _pad: 0,
    };
    // SAFETY: valid program descriptor; options sized by `sz`.
    let fd = unsafe {
        sys_ops::bpf_link_create(program.as_raw_fd(), index as i32, attach_type, &options)
    };
    if fd < 0 {
        let hint = match (deployment.description.hook, -fd) {
            (Hook::Xdp, 95) => " (the driver has no native XDP: try --xdp-mode generic)",
            (_, 16) => " (another program is attached there)",
            _ => "",
        };
        return Err(RuntimeError::Value(format!(
            "cannot attach pipeline `{}` to `{interface}`: {}{hint}",
            deployment.name,
            std::io::Error::from_raw_os_error(-fd)
        )));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Detach the pipeline from `interface` and forget its port.
pub fn delete(deployment: &Deployment, interface: &str) -> Result<()> {
    let index = ifindex(interface)?;
    let Some(port) = list(deployment)?.into_iter().find(|p| p.ifindex == index) else {
        return Err(RuntimeError::Value(format!(
            "interface `{interface}` is not a port of pipeline `{}`",
            deployment.name
        )));
    };
    forget(deployment, port.port, index)?;
    crate::xdp_copies::refresh_every(deployment, &deployment.description)?;
    match std::fs::remove_file(egress_link_pin(deployment, index)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(RuntimeError::Value(format!(
                "cannot detach egress from `{interface}`: {e}"
            )))
        }
        _ => {}
    }
    std::fs::remove_file(link_pin(deployment, index))
        .map_err(|e| RuntimeError::Value(format!("cannot detach `{interface}`: {e}")))
}

/// Remove P4 port `port` (interface `index`) from the port maps and
/// their slots, slots first so no slot outlives its key.
fn forget(deployment: &Deployment, port: u32, index: u32) -> Result<()> {
    let (output, ingress) = slotted_maps(deployment)?;
    if let Some((_, slots)) = output {
        release_slot(&slots, port)?;
    }
    if let Some((_, slots)) = ingress {
        release_slot(&slots, index)?;
    }
    crate::control::delete_key(&devmap(deployment)?, &port.to_ne_bytes())?;
    if let Some(map) = ingress_ports(deployment)? {
        crate::control::delete_key(&map, &index.to_ne_bytes())?;
    }
    Ok(())
}

/// Every port, by port number.
pub fn list(deployment: &Deployment) -> Result<Vec<Port>> {
    let map = devmap(deployment)?;
    let mut ports = Vec::new();
    for key in crate::control::keys(&map)? {
        let port = u32_at(&key, 0);
        let ifindex = map.read(&key)?.first().map(|v| u32_at(v, 0)).unwrap_or(0);
        ports.push(Port {
            port,
            ifindex,
            interface: interface_name(ifindex),
        });
    }
    ports.sort_by_key(|p| p.port);
    Ok(ports)
}
