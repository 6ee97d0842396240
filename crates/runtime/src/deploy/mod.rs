//! A pipeline pinned in bpffs, shared by every later command and process.
//! One folder per pipeline under `/sys/fs/bpf/p4bpf/NAME`:
//!
//! - `program`: the entry program; `maps/MAP`: every map the description
//!   names (tables, defaults, masks, counters, value sets);
//! - `description` and `p4info`: the pipeline description JSON and the
//!   P4Info text, kept as pinned array maps (bpffs holds no plain files);
//! - `settings`: hook and XDP mode chosen at load time;
//! - `ports`: the devmap from P4 port number to ifindex; `links/ifN`: the
//!   attachment to interface index N.
//!
//! Writers take an exclusive `flock` on the folder, so two processes adding
//! entries at once are serialised (ternary groups and buckets are read-modify-write).

mod load;
mod show;

pub use load::{load, unload, LoadOptions, XdpMode};
pub use show::{summary, Summary, TableSummary};

use crate::bpffs;
use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::map_source::MapSource;
use crate::sys_ops;
use p4bpf_layout::Pipeline;
use std::cell::RefCell;
use std::collections::HashMap;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

/// Folder of all pipelines inside bpffs.
const PIPELINES: &str = "p4bpf";

pub struct Deployment {
    pub name: String,
    pub folder: PathBuf,
    pub description: Pipeline,
    pub settings: Settings,
    /// Open pinned maps, closed when the deployment is dropped.
    open_maps: RefCell<HashMap<String, OwnedFd>>,
    _lock: Option<OwnedFd>,
}

/// How the pipeline was loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub xdp_mode: XdpMode,
}

/// The folder pipeline `name` lives in.
pub fn folder(name: &str) -> PathBuf {
    Path::new(bpffs::MOUNT_POINT).join(PIPELINES).join(name)
}

/// Names of every loaded pipeline, sorted.
pub fn list() -> Vec<String> {
    let root = Path::new(bpffs::MOUNT_POINT).join(PIPELINES);
    let mut names: Vec<String> = std::fs::read_dir(root)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

impl Deployment {
    /// Open pipeline `name` for reading.
    pub fn open(name: &str) -> Result<Deployment> {
        Deployment::open_with(name, false)
    }

    /// Open pipeline `name` holding its writer lock until dropped.
    pub fn open_for_writing(name: &str) -> Result<Deployment> {
        Deployment::open_with(name, true)
    }

    /// Open pipeline `name`, holding its writer lock when `writing`.
    pub fn open_with(name: &str, writing: bool) -> Result<Deployment> {
        bpffs::check_name("pipeline", name)?;
        let folder = folder(name);
        if !folder.is_dir() {
            return Err(RuntimeError::Value(format!(
                "unknown pipeline `{name}` (loaded: {})",
                match list().join(", ") {
                    none if none.is_empty() => "none".to_string(),
                    some => some,
                }
            )));
        }
        let lock = if writing {
            Some(lock_folder(&folder)?)
        } else {
            None
        };
        let description = Pipeline::from_json(&bpffs::read_text(&folder.join("description"))?)
            .map_err(RuntimeError::BadObject)?;
        let settings = Settings::parse(&bpffs::read_text(&folder.join("settings"))?);
        Ok(Deployment {
            name: name.to_string(),
            folder,
            description,
            settings,
            open_maps: RefCell::new(HashMap::new()),
            _lock: lock,
        })
    }

    /// The P4Info text kept beside the maps (empty when none was given).
    pub fn p4info(&self) -> Result<String> {
        bpffs::read_text(&self.folder.join("p4info"))
    }

    /// A descriptor of the pinned entry program.
    pub fn program(&self) -> Result<OwnedFd> {
        bpffs::open_pin(&self.folder.join("program"))
    }

    /// The program multicast copies run egress in, if the pipeline has one.
    pub fn egress_program(&self) -> Result<Option<OwnedFd>> {
        match self.description.copy_entry() {
            Some(_) => bpffs::open_pin(&self.folder.join("egress_program")).map(Some),
            None => Ok(None),
        }
    }

    /// Kernel id of the entry program.
    pub fn program_id(&self) -> Result<u32> {
        let fd = self.program()?;
        let [_, id, ..] = bpffs::object_info(std::os::fd::AsRawFd::as_raw_fd(&fd))?;
        Ok(id)
    }

    /// Path of a pinned object inside the folder.
    pub(crate) fn path(&self, relative: &str) -> PathBuf {
        self.folder.join(relative)
    }

    /// The pinned map at `relative` (e.g. `ports`), kept open.
    pub(crate) fn pinned_map(&self, label: &str, relative: &str) -> Result<Map> {
        let mut open = self.open_maps.borrow_mut();
        if let Some(fd) = open.get(relative) {
            return bpffs::map_over(label, fd);
        }
        let fd = bpffs::open_pin(&self.folder.join(relative)).map_err(|_| {
            RuntimeError::BadObject(format!(
                "pipeline `{}` has no pinned map `{label}`",
                self.name
            ))
        })?;
        let map = bpffs::map_over(label, &fd)?;
        open.insert(relative.to_string(), fd);
        Ok(map)
    }
}

impl MapSource for Deployment {
    fn map(&self, name: &str) -> Result<Map> {
        let open = |name: &str| self.pinned_map(name, &format!("maps/{name}"));
        crate::table_cache::with_renewals(open(name)?, &self.description, open)
    }

    fn copy_program(&self) -> Result<Option<OwnedFd>> {
        self.egress_program()
    }
}

impl Settings {
    fn render(&self) -> String {
        format!("xdp_mode {}\n", self.xdp_mode.as_str())
    }

    fn parse(text: &str) -> Settings {
        let generic = text
            .lines()
            .any(|line| line.trim() == format!("xdp_mode {}", XdpMode::Generic.as_str()));
        Settings {
            xdp_mode: if generic {
                XdpMode::Generic
            } else {
                XdpMode::Native
            },
        }
    }
}

fn lock_folder(folder: &Path) -> Result<OwnedFd> {
    let path = bpffs::c_path(folder)?;
    // SAFETY: NUL-terminated path; the descriptor is owned below.
    let fd = unsafe { sys_ops::open(path.as_ptr(), sys_ops::O_RDONLY_DIRECTORY) };
    if fd < 0 {
        return Err(RuntimeError::os(
            format!("opening {}", folder.display()),
            crate::sys::last_errno(),
        ));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    let owned = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: valid descriptor; blocks until the other writer is done.
    if unsafe { sys_ops::flock(fd, sys_ops::LOCK_EX) } != 0 {
        return Err(RuntimeError::os(
            "locking the pipeline",
            crate::sys::last_errno(),
        ));
    }
    Ok(owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip() {
        for mode in [XdpMode::Native, XdpMode::Generic] {
            let settings = Settings { xdp_mode: mode };
            assert_eq!(Settings::parse(&settings.render()), settings);
        }
    }
}
