//! One BPF map of a loaded object: typed lookups and updates by bytes, with
//! per-CPU maps read and written as one value per possible CPU. The map is
//! in the kernel (a file descriptor) or in the user-space target's host
//! program, which has one CPU; the encoding rules are the same.

use crate::error::{Result, RuntimeError};
use crate::sys;
use crate::user::UserHost;
use std::rc::Rc;

/// `errno` values the map calls turn into typed errors.
const ENOENT: i32 = 2;
const EEXIST: i32 = 17;
/// `BPF_NOEXIST`: insert only.
const FLAG_NO_EXIST: u64 = 1;
/// `BPF_ANY`: insert or replace.
const FLAG_ANY: u64 = 0;
/// `BPF_MAP_TYPE_PERCPU_HASH`, `_PERCPU_ARRAY`, `_LRU_PERCPU_HASH`.
const PER_CPU_TYPES: [i32; 3] = [5, 6, 10];
/// `BPF_MAP_TYPE_ARRAY`: its slots always exist, so inserts replace.
const ARRAY_TYPES: [i32; 2] = [2, 6];

#[derive(Clone, Debug)]
pub struct Map {
    name: String,
    place: Place,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_type: i32,
    /// Table caches a write here makes stale (`crate::table_cache`).
    renews: Vec<crate::table_cache::Renewal>,
}

/// Where the map lives.
#[derive(Clone, Debug)]
enum Place {
    Kernel(i32),
    User(Rc<UserHost>),
}

/// What to do when the key is already present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    Insert,
    Replace,
}

impl Map {
    pub(crate) fn new(
        name: &str,
        fd: i32,
        key_size: u32,
        value_size: u32,
        max_entries: u32,
        map_type: i32,
    ) -> Map {
        Map {
            name: name.to_string(),
            place: Place::Kernel(fd),
            key_size,
            value_size,
            max_entries,
            map_type,
            renews: vec![],
        }
    }

    /// Map `name` of a user-space host program, if it has one.
    pub(crate) fn in_user_host(host: &Rc<UserHost>, name: &str) -> Result<Map> {
        let (map_type, key_size, value_size, max_entries) = host
            .shape(name)?
            .ok_or_else(|| RuntimeError::BadObject(format!("the program has no map `{name}`")))?;
        Ok(Map {
            name: name.to_string(),
            place: Place::User(Rc::clone(host)),
            key_size,
            value_size,
            max_entries,
            map_type,
            renews: vec![],
        })
    }

    fn cpus(&self) -> Result<usize> {
        match (&self.place, self.per_cpu()) {
            (Place::Kernel(_), true) => possible_cpus(),
            _ => Ok(1),
        }
    }

    /// Every key, for a map of the user-space target (`None` for a kernel
    /// map, which is walked with its descriptor).
    pub(crate) fn user_keys(&self) -> Option<Result<Vec<Vec<u8>>>> {
        match &self.place {
            Place::Kernel(_) => None,
            Place::User(host) => Some(host.keys(&self.name)),
        }
    }

    /// The user-space host the map lives in, if it lives in one.
    pub(crate) fn user_host(&self) -> Option<&Rc<UserHost>> {
        match &self.place {
            Place::User(host) => Some(host),
            Place::Kernel(_) => None,
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn max_entries(&self) -> u32 {
        self.max_entries
    }

    /// The kernel map's descriptor; an error for a user-space map, which
    /// pinning and the batch and iteration calls cannot reach.
    pub(crate) fn fd(&self) -> Result<i32> {
        match &self.place {
            Place::Kernel(fd) => Ok(*fd),
            Place::User(_) => Err(RuntimeError::NotSupported(format!(
                "map `{}` lives in a user-space host, not in the kernel",
                self.name
            ))),
        }
    }

    pub(crate) fn value_size(&self) -> u32 {
        self.value_size
    }

    pub(crate) fn key_size(&self) -> u32 {
        self.key_size
    }

    pub(crate) fn per_cpu(&self) -> bool {
        PER_CPU_TYPES.contains(&self.map_type)
    }

    fn check_sizes(&self, key: &[u8], value_len: usize) -> Result<()> {
        if key.len() != self.key_size as usize || value_len != self.value_size as usize {
            return Err(RuntimeError::BadObject(format!(
                "map `{}` has {}-byte keys and {}-byte values, the pipeline description says {} and {}",
                self.name,
                self.key_size,
                self.value_size,
                key.len(),
                value_len
            )));
        }
        Ok(())
    }

    /// Removes `key` (of the map's key size): 0 or a negative errno, as
    /// the kernel's call answers, from either place.
    pub(crate) fn delete_status(&self, key: &[u8]) -> Result<i32> {
        let status = match &self.place {
            // SAFETY: the caller checked the key buffer has the key size.
            Place::Kernel(fd) => unsafe {
                crate::sys_ops::bpf_map_delete_elem(*fd, key.as_ptr().cast())
            },
            Place::User(host) => host.delete(&self.name, key)?,
        };
        self.renew_caches()?;
        Ok(status)
    }

    /// This map's contents changed (or may have: a failed batch can stop
    /// midway): every table cache fed by it gets a fresh generation.
    pub(crate) fn renew_caches(&self) -> Result<()> {
        self.renews
            .iter()
            .try_for_each(crate::table_cache::Renewal::renew)
    }

    /// The same map, renewing `renewal`'s cache after every write.
    pub(crate) fn renewing(mut self, renewal: crate::table_cache::Renewal) -> Map {
        self.renews.push(renewal);
        self
    }

    /// Write `value` under `key` (on every CPU, for a per-CPU map).
    pub fn write(&self, key: &[u8], value: &[u8], mode: Write) -> Result<()> {
        self.check_sizes(key, value.len())?;
        let bytes = if self.per_cpu() {
            self.spread(value)?
        } else {
            value.to_vec()
        };
        let flags = match mode {
            Write::Insert if !ARRAY_TYPES.contains(&self.map_type) => FLAG_NO_EXIST,
            _ => FLAG_ANY,
        };
        let status = match &self.place {
            // SAFETY: key and value buffers have the sizes the map expects.
            Place::Kernel(fd) => unsafe {
                sys::bpf_map_update_elem(*fd, key.as_ptr().cast(), bytes.as_ptr().cast(), flags)
            },
            Place::User(host) => host.update(&self.name, key, value, flags)?,
        };
        self.renew_caches()?;
        match -status {
            0 => Ok(()),
            EEXIST => Err(RuntimeError::Value(format!(
                "map `{}` already has an entry with this key",
                self.name
            ))),
            errno => Err(RuntimeError::os(
                format!("writing map `{}`", self.name),
                errno,
            )),
        }
    }

    /// Delete `key`; a missing key is [`RuntimeError::KeyNotFound`].
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.check_sizes(key, self.value_size as usize)?;
        let status = match &self.place {
            // SAFETY: the key buffer has the map's key size (checked above).
            Place::Kernel(fd) => unsafe {
                crate::sys_ops::bpf_map_delete_elem(*fd, key.as_ptr().cast())
            },
            Place::User(host) => host.delete(&self.name, key)?,
        };
        self.renew_caches()?;
        match -status {
            0 => Ok(()),
            ENOENT => Err(RuntimeError::KeyNotFound {
                map: self.name.clone(),
            }),
            errno => Err(RuntimeError::os(
                format!("deleting from map `{}`", self.name),
                errno,
            )),
        }
    }

    /// The value under `key`; one value per possible CPU for a per-CPU map,
    /// else exactly one.
    pub fn read(&self, key: &[u8]) -> Result<Vec<Vec<u8>>> {
        self.check_sizes(key, self.value_size as usize)?;
        let cpus = self.cpus()?;
        let stride = self.stride();
        let mut bytes = vec![0u8; stride * cpus];
        let status = match &self.place {
            // SAFETY: the buffer holds a value per possible CPU.
            Place::Kernel(fd) => unsafe {
                sys::bpf_map_lookup_elem(*fd, key.as_ptr().cast(), bytes.as_mut_ptr().cast())
            },
            Place::User(host) => match host.lookup(&self.name, key)? {
                Some(value) => {
                    bytes = value;
                    0
                }
                None => -ENOENT,
            },
        };
        match -status {
            0 => Ok(bytes
                .chunks(stride)
                .map(|chunk| {
                    chunk
                        .get(..self.value_size as usize)
                        .unwrap_or_default()
                        .to_vec()
                })
                .collect()),
            ENOENT => Err(RuntimeError::KeyNotFound {
                map: self.name.clone(),
            }),
            errno => Err(RuntimeError::os(
                format!("reading map `{}`", self.name),
                errno,
            )),
        }
    }

    /// Per-CPU values are laid out at 8-byte strides.
    fn stride(&self) -> usize {
        if self.per_cpu() {
            (self.value_size as usize).div_ceil(8) * 8
        } else {
            self.value_size as usize
        }
    }

    fn spread(&self, value: &[u8]) -> Result<Vec<u8>> {
        let stride = self.stride();
        let cpus = self.cpus()?;
        let mut bytes = vec![0u8; stride * cpus];
        for chunk in bytes.chunks_mut(stride) {
            if let Some(slot) = chunk.get_mut(..value.len()) {
                slot.copy_from_slice(value);
            }
        }
        Ok(bytes)
    }
}

/// Number of possible CPUs (what per-CPU maps are sized by).
pub fn possible_cpus() -> Result<usize> {
    // SAFETY: no arguments; reads /sys once and caches.
    let count = unsafe { sys::libbpf_num_possible_cpus() };
    usize::try_from(count).map_err(|_| RuntimeError::os("counting possible CPUs", -count))
}

/// The native-endian u32 at byte `at` of a map key or value: 0 where the
/// bytes end first (a record shorter than its layout reads as empty).
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..at + 4)
        .and_then(|w| w.try_into().ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0)
}
