//! The BPF filesystem as the pipelines' shared store: mounting it when it
//! is not, checking names it can hold (no `.`), pinning and opening pins,
//! and small text files kept as pinned array maps, since bpffs holds only
//! BPF objects and folders. A text blob is split into fixed chunks, one per
//! array slot, and read back up to the first NUL.

use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::sys_ops;
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::Path;

/// Where the kernel's bpffs normally lives.
pub const MOUNT_POINT: &str = "/sys/fs/bpf";
/// Bytes per slot of a text blob map.
const BLOB_CHUNK: u32 = 4096;
const NAME_MAX: usize = 64;

/// Mount bpffs at [`MOUNT_POINT`] unless something is mounted there.
pub fn ensure_mounted() -> Result<()> {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let mounted = mounts
        .lines()
        .any(|line| line.split_whitespace().nth(1) == Some(MOUNT_POINT));
    if mounted {
        return Ok(());
    }
    let point = c_path(Path::new(MOUNT_POINT))?;
    let bpf = c_path(Path::new("bpf"))?;
    // SAFETY: NUL-terminated strings; no mount data.
    let status = unsafe {
        sys_ops::mount(
            bpf.as_ptr(),
            point.as_ptr(),
            bpf.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if status != 0 {
        return Err(RuntimeError::os(
            format!("mounting bpffs at {MOUNT_POINT}"),
            crate::sys::last_errno(),
        ));
    }
    Ok(())
}

/// A name that can be a pin or folder name: letters, digits, `_`, `-`.
pub fn check_name(kind: &str, name: &str) -> Result<()> {
    let fits = !name.is_empty()
        && name.len() <= NAME_MAX
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if fits {
        Ok(())
    } else {
        Err(RuntimeError::Value(format!(
            "bad {kind} name `{name}`: use at most {NAME_MAX} letters, digits, `_` and `-` (bpffs rejects `.`)"
        )))
    }
}

pub fn c_path(path: &Path) -> Result<CString> {
    CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|_| RuntimeError::Value(format!("path {} contains a NUL byte", path.display())))
}

/// Pin the object behind `fd` at `path`.
pub fn pin(fd: i32, path: &Path) -> Result<()> {
    let c = c_path(path)?;
    // SAFETY: valid fd and NUL-terminated path.
    let status = unsafe { sys_ops::bpf_obj_pin(fd, c.as_ptr()) };
    if status < 0 {
        return Err(RuntimeError::os(
            format!("pinning {}", path.display()),
            -status,
        ));
    }
    Ok(())
}

/// Open the object pinned at `path`.
pub fn open_pin(path: &Path) -> Result<OwnedFd> {
    let c = c_path(path)?;
    // SAFETY: NUL-terminated path.
    let fd = unsafe { sys_ops::bpf_obj_get(c.as_ptr()) };
    if fd < 0 {
        return Err(RuntimeError::os(format!("opening {}", path.display()), -fd));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Kernel-side facts of a map or program: (type, id) and, for a map, key
/// size, value size and capacity.
pub fn object_info(fd: i32) -> Result<[u32; 5]> {
    let mut info = [0u8; sys_ops::MAP_INFO_SIZE];
    let mut length = info.len() as u32;
    // SAFETY: the kernel writes at most `length` bytes into `info`.
    let status =
        unsafe { crate::sys::bpf_obj_get_info_by_fd(fd, info.as_mut_ptr().cast(), &mut length) };
    if status < 0 {
        return Err(RuntimeError::os("reading object info", -status));
    }
    let word = |at: usize| {
        info.get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_ne_bytes)
            .unwrap_or(0)
    };
    Ok([
        word(sys_ops::INFO_TYPE),
        word(sys_ops::INFO_ID),
        word(sys_ops::MAP_INFO_KEY_SIZE),
        word(sys_ops::MAP_INFO_VALUE_SIZE),
        word(sys_ops::MAP_INFO_MAX_ENTRIES),
    ])
}

/// A [`Map`] over a pinned map's descriptor (which the caller keeps open).
pub fn map_over(name: &str, fd: &OwnedFd) -> Result<Map> {
    let [map_type, _, key_size, value_size, max_entries] = object_info(fd.as_raw_fd())?;
    Ok(Map::new(
        name,
        fd.as_raw_fd(),
        key_size,
        value_size,
        max_entries,
        map_type as i32,
    ))
}

/// Create a map; the descriptor closes when dropped.
pub fn create_map(
    map_type: i32,
    name: &str,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
) -> Result<OwnedFd> {
    let c_name = c_path(Path::new(name))?;
    // SAFETY: NUL-terminated name, no options.
    let fd = unsafe {
        sys_ops::bpf_map_create(
            map_type,
            c_name.as_ptr(),
            key_size,
            value_size,
            max_entries,
            std::ptr::null(),
        )
    };
    if fd < 0 {
        return Err(RuntimeError::os(format!("creating map `{name}`"), -fd));
    }
    // SAFETY: a fresh descriptor nobody else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Keep `text` pinned at `path`.
pub fn store_text(path: &Path, text: &str) -> Result<()> {
    let bytes = text.as_bytes();
    let chunks = (bytes.len() as u32).div_ceil(BLOB_CHUNK).max(1);
    let fd = create_map(sys_ops::MAP_TYPE_ARRAY, "p4bpf_text", 4, BLOB_CHUNK, chunks)?;
    let map = map_over("p4bpf_text", &fd)?;
    for (slot, chunk) in bytes.chunks(BLOB_CHUNK as usize).enumerate() {
        let mut value = chunk.to_vec();
        value.resize(BLOB_CHUNK as usize, 0);
        map.write(
            &(slot as u32).to_ne_bytes(),
            &value,
            crate::map::Write::Replace,
        )?;
    }
    pin(fd.as_raw_fd(), path)
}

/// The text pinned at `path` by [`store_text`].
pub fn read_text(path: &Path) -> Result<String> {
    let fd = open_pin(path)?;
    let map = map_over("p4bpf_text", &fd)?;
    let mut bytes = Vec::new();
    for slot in 0..map.max_entries() {
        for value in map.read(&slot.to_ne_bytes())? {
            bytes.extend(value);
        }
    }
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    bytes.truncate(end);
    String::from_utf8(bytes)
        .map_err(|_| RuntimeError::BadObject(format!("{} is not UTF-8 text", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_bpffs_can_hold() {
        assert!(check_name("pipeline", "router-1_a").is_ok());
        for bad in ["", "a.b", "a/b", "..", &"x".repeat(65)] {
            let error = check_name("pipeline", bad).err().map(|e| e.to_string());
            assert!(
                error.is_some_and(|e| e.contains("bad pipeline name")),
                "{bad}"
            );
        }
    }
}
