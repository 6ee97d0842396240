//! Puts a compiled pipeline into bpffs (`load`) and takes it out
//! (`unload`). Loading is all or nothing: on any failure the half-made
//! folder is removed again. Unloading removes the attachments first (their
//! pins are the only references, so the program leaves the interfaces),
//! then every pin and the folder.

use super::{folder, Deployment, Settings};
use crate::bpffs;
use crate::error::{Result, RuntimeError};
use crate::object::PortNotes;
use crate::pipeline::LoadedPipeline;
use crate::sys_ops;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Most ports one pipeline can have.
pub const MAX_PORTS: u32 = 1024;

/// How to attach at XDP: in the driver, or the kernel's generic path for
/// drivers without XDP support.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XdpMode {
    Native,
    Generic,
}

impl XdpMode {
    pub fn as_str(self) -> &'static str {
        match self {
            XdpMode::Native => "native",
            XdpMode::Generic => "generic",
        }
    }

    pub(crate) fn flags(self) -> u32 {
        match self {
            XdpMode::Native => sys_ops::XDP_FLAGS_DRV_MODE,
            XdpMode::Generic => sys_ops::XDP_FLAGS_SKB_MODE,
        }
    }
}

#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub name: String,
    pub xdp_mode: XdpMode,
    /// P4Info text to keep beside the maps.
    pub p4info: Option<String>,
}

/// Load the object `image` and pin it as pipeline `options.name`.
pub fn load(image: Vec<u8>, options: &LoadOptions) -> Result<Deployment> {
    bpffs::check_name("pipeline", &options.name)?;
    bpffs::ensure_mounted()?;
    let target = folder(&options.name);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| RuntimeError::Value(format!("cannot create {}: {e}", parent.display())))?;
    }
    match std::fs::create_dir(&target) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(RuntimeError::Value(format!(
                "pipeline `{}` is already loaded (unload it first)",
                options.name
            )))
        }
        Err(e) => {
            return Err(RuntimeError::Value(format!(
                "cannot create {}: {e}",
                target.display()
            )))
        }
    }
    match pin_everything(image, options, &target) {
        Ok(()) => Deployment::open(&options.name),
        Err(error) => {
            // Best effort: the error that stopped the load matters more.
            let _ = std::fs::remove_dir_all(&target);
            Err(error)
        }
    }
}

fn pin_everything(image: Vec<u8>, options: &LoadOptions, target: &Path) -> Result<()> {
    // A deployed pipeline runs no test: its programs note no ports.
    let pipeline = LoadedPipeline::from_image_with(image, PortNotes::Off)?;
    let description = &pipeline.description;
    let program = pipeline.program_fd()?;
    bpffs::pin(program, &target.join("program"))?;
    if let Some(egress) = pipeline.egress_program_fd()? {
        bpffs::pin(egress, &target.join("egress_program"))?;
    }
    std::fs::create_dir(target.join("maps"))
        .and_then(|()| std::fs::create_dir(target.join("links")))
        .map_err(|e| {
            RuntimeError::Value(format!(
                "cannot create folders in {}: {e}",
                target.display()
            ))
        })?;
    for name in map_names(description) {
        let map = pipeline.map(&name)?;
        bpffs::check_name("map", &name)?;
        bpffs::pin(map.fd()?, &target.join("maps").join(&name))?;
    }
    // A program cut into stages: the kernel empties a program array when no
    // pin or descriptor holds it, and the tail calls would then fail.
    let stages = format!("{}_stages", description.entry);
    if let Ok(map) = pipeline.map(&stages) {
        bpffs::pin(map.fd()?, &target.join("maps").join(&stages))?;
    }
    // The blocks skipped for want of their lock word, for `pipeline show`.
    let skipped = p4bpf_layout::LOCK_TIMEOUTS_MAP;
    if let Ok(map) = pipeline.map(skipped) {
        bpffs::pin(map.fd()?, &target.join("maps").join(skipped))?;
    }
    let ports = &target.join("ports");
    match &description.port_map {
        Some(name) => bpffs::pin(pipeline.map(name)?.fd()?, ports)?,
        None => {
            let devmap = bpffs::create_map(
                sys_ops::MAP_TYPE_DEVMAP_HASH,
                "p4bpf_ports",
                4,
                4,
                MAX_PORTS,
            )?;
            bpffs::pin(devmap.as_raw_fd(), ports)?;
        }
    }
    let settings = Settings {
        xdp_mode: options.xdp_mode,
    };
    bpffs::store_text(&target.join("settings"), &settings.render())?;
    bpffs::store_text(
        &target.join("p4info"),
        options.p4info.as_deref().unwrap_or_default(),
    )?;
    // Written last: a folder with a description is a complete pipeline.
    bpffs::store_text(&target.join("description"), &description.to_json())
}

/// Every map the description names, once each.
fn map_names(description: &p4bpf_layout::Pipeline) -> Vec<String> {
    let mut names = Vec::new();
    for table in &description.tables {
        names.extend(table.entry_map().map(str::to_string));
        names.extend(table.default_map.clone());
        if let Some(t) = &table.ternary {
            names.extend([t.groups_map.clone(), t.filters_map.clone()]);
            names.extend(t.cells.as_ref().map(|c| c.map.clone()));
        }
    }
    names.extend(description.counters.iter().map(|c| c.map.clone()));
    names.extend(description.meters.iter().map(|m| m.map.clone()));
    names.extend(description.value_sets.iter().map(|v| v.map.clone()));
    if !description.value_sets.is_empty() {
        names.push(p4bpf_layout::ValueSet::LIVE_MAP.to_string());
    }
    names.extend(
        description
            .composite_registers
            .iter()
            .map(|r| r.map.clone()),
    );
    names.extend(description.register_initials.iter().map(|r| r.map.clone()));
    names.extend(description.output_record.clone());
    names.extend(description.ingress_port_map.clone());
    let (output_slots, ingress_slots) = description.port_slot_maps();
    names.extend(
        output_slots
            .into_iter()
            .chain(ingress_slots)
            .map(|(_, slots)| slots),
    );
    names.extend(
        description
            .replication
            .as_ref()
            .map(|r| r.groups_map.clone()),
    );
    for p in &description.profiles {
        names.push(p.members.map.clone());
        names.extend(p.selector.as_ref().map(|s| s.groups_map.clone()));
        let empty_groups = p.selector.as_ref().map(|s| &s.empty_group_map);
        names.extend(empty_groups.filter(|m| !m.is_empty()).cloned());
    }
    names.extend(
        description
            .replication
            .as_ref()
            .and_then(|r| r.clone_sessions_map.clone()),
    );
    names.extend(description.mirror_sessions.as_ref().map(|m| m.map.clone()));
    // Copies at XDP: their devmaps, and the ports map their entries come from.
    if let Some(copies) = description.copy_ports_map() {
        names.push(copies.to_string());
        names.extend(description.port_map.clone());
    }
    names.extend(description.trace.as_ref().map(|t| t.ring.clone()));
    names.extend(description.table_stats.as_ref().map(|s| s.map.clone()));
    names.extend(description.mtu_drops.clone());
    if let Some(d) = &description.digests {
        names.extend([d.ring.clone(), d.lost.clone()]);
    }
    if !description.idle_timers.is_empty() {
        names.push(p4bpf_layout::IdleTimer::PROFILES_MAP.to_string());
    }
    if let Some(caches) = &description.table_caches {
        names.push(caches.generations_map.clone());
        names.extend(caches.caches.iter().map(|c| c.map.clone()));
    }
    names.sort();
    names.dedup();
    names
}

/// Detach pipeline `name` from every interface and remove all its pins.
/// A folder left half-made (a load killed midway) is removed as well.
pub fn unload(name: &str) -> Result<()> {
    // Opening checks the name and that the pipeline exists; the lock keeps
    // a concurrent writer from seeing half a pipeline.
    let deployment = match Deployment::open_for_writing(name) {
        Ok(deployment) => Some(deployment),
        Err(_) if folder(name).is_dir() => None,
        Err(error) => return Err(error),
    };
    let target = folder(name);
    if let Ok(entries) = std::fs::read_dir(target.join("links")) {
        for entry in entries.flatten() {
            std::fs::remove_file(entry.path()).map_err(|e| {
                RuntimeError::Value(format!("cannot detach {}: {e}", entry.path().display()))
            })?;
        }
    }
    drop(deployment);
    std::fs::remove_dir_all(&target)
        .map_err(|e| RuntimeError::Value(format!("cannot remove {}: {e}", target.display())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use p4bpf_layout::{Architecture, Counter, CounterKind, Hook, Pipeline, FORMAT_VERSION};

    #[test]
    fn every_named_map_is_pinned_once() {
        let counter = |map: &str| Counter {
            name: map.into(),
            map: map.into(),
            kind: CounterKind::Packets,
            size: 1,
            sparse: false,
            value_size: 8,
        };
        let description = Pipeline {
            format_version: FORMAT_VERSION,
            program: "p".into(),
            architecture: Architecture::XdpModel,
            hook: Hook::Xdp,
            entry: "p_xdp".into(),
            p4tc: false,
            tables: vec![],
            counters: vec![counter("c"), counter("c"), counter("a")],
            meters: vec![],
            value_sets: vec![],
            port_map: None,
            output_record: Some("out".into()),
            ingress_port_map: None,
            mtu_drops: None,
            trace: None,
            table_stats: None,
            table_acls: vec![],
            replication: None,
            mirror_sessions: None,
            profiles: vec![],
            direct: vec![],
            digests: None,
            register_initials: vec![],
            initial_entries: vec![],
            composite_registers: vec![],
            idle_timers: vec![],
            table_caches: None,
        };
        assert_eq!(map_names(&description), ["a", "c", "out"]);
    }
}
