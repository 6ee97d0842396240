//! Finds a named section in a 64-bit little-endian ELF object (what
//! `clang -target bpf` writes). Only the section table is read; every
//! offset is bounds-checked, so a truncated or hostile file gives an error,
//! never a panic.

use crate::error::{Result, RuntimeError};

const SECTION_HEADER_SIZE: usize = 64;

/// The bytes of section `name` in `image`, or `None` when it has no such
/// section.
pub fn section<'a>(image: &'a [u8], name: &str) -> Result<Option<&'a [u8]>> {
    if image.get(..4) != Some(b"\x7fELF".as_slice()) {
        return Err(bad("not an ELF file"));
    }
    if image.get(4) != Some(&2) || image.get(5) != Some(&1) {
        return Err(bad(
            "not a 64-bit little-endian ELF file (expected a BPF object)",
        ));
    }
    let table_offset = read_u64(image, 0x28)? as usize;
    let entry_size = read_u16(image, 0x3a)? as usize;
    let count = read_u16(image, 0x3c)? as usize;
    let names_index = read_u16(image, 0x3e)? as usize;
    if entry_size != SECTION_HEADER_SIZE {
        return Err(bad("unexpected ELF section header size"));
    }
    let header = |index: usize| -> Result<(u32, &'a [u8])> {
        // Offsets come from the file: saturate rather than overflow.
        let at = table_offset.saturating_add(index.saturating_mul(SECTION_HEADER_SIZE));
        let name_offset = read_u32(image, at)?;
        let offset = read_u64(image, at.saturating_add(0x18))? as usize;
        let size = read_u64(image, at.saturating_add(0x20))? as usize;
        let bytes = image
            .get(offset..offset.saturating_add(size))
            .ok_or_else(|| bad("ELF section extends past the end of the file"))?;
        Ok((name_offset, bytes))
    };
    let (_, names) = header(names_index)?;
    for index in 0..count {
        let (name_offset, bytes) = header(index)?;
        let tail = names.get(name_offset as usize..).unwrap_or_default();
        let this_name = tail.split(|b| *b == 0).next().unwrap_or_default();
        if this_name == name.as_bytes() {
            return Ok(Some(bytes));
        }
    }
    Ok(None)
}

fn bad(why: &str) -> RuntimeError {
    RuntimeError::BadObject(why.to_string())
}

fn read_bytes<const N: usize>(image: &[u8], at: usize) -> Result<[u8; N]> {
    image
        .get(at..at.saturating_add(N))
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| bad("truncated ELF file"))
}

fn read_u16(image: &[u8], at: usize) -> Result<u16> {
    read_bytes(image, at).map(u16::from_le_bytes)
}

fn read_u32(image: &[u8], at: usize) -> Result<u32> {
    read_bytes(image, at).map(u32::from_le_bytes)
}

fn read_u64(image: &[u8], at: usize) -> Result<u64> {
    read_bytes(image, at).map(u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF64 image: null section, `.shstrtab`, `.p4bpf.pipeline`.
    fn image_with(payload: &[u8]) -> Vec<u8> {
        let names = b"\0.shstrtab\0.p4bpf.pipeline\0";
        let mut image = vec![0u8; 64];
        image[..6].copy_from_slice(b"\x7fELF\x02\x01");
        let names_at = image.len();
        image.extend_from_slice(names);
        let payload_at = image.len();
        image.extend_from_slice(payload);
        let table_at = image.len();
        image[0x28..0x30].copy_from_slice(&(table_at as u64).to_le_bytes());
        image[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        image[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        image[0x3e..0x40].copy_from_slice(&1u16.to_le_bytes());
        for (name, at, len) in [
            (0u32, 0usize, 0usize),
            (1, names_at, names.len()),
            (11, payload_at, payload.len()),
        ] {
            let mut header = [0u8; 64];
            header[..4].copy_from_slice(&name.to_le_bytes());
            header[0x18..0x20].copy_from_slice(&(at as u64).to_le_bytes());
            header[0x20..0x28].copy_from_slice(&(len as u64).to_le_bytes());
            image.extend_from_slice(&header);
        }
        image
    }

    #[test]
    fn finds_section_by_name() {
        let image = image_with(b"{}");
        assert_eq!(
            section(&image, ".p4bpf.pipeline"),
            Ok(Some(b"{}".as_slice()))
        );
        assert_eq!(section(&image, ".text"), Ok(None));
    }

    #[test]
    fn truncated_or_foreign_files_are_errors() {
        let image = image_with(b"{}");
        for cut in [3, 40, 70, image.len() - 40] {
            assert!(
                section(&image[..cut], ".p4bpf.pipeline").is_err(),
                "cut at {cut}"
            );
        }
        assert!(section(b"#!/bin/sh", "x").is_err());
        let mut far = image.clone();
        far[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(section(&far, ".p4bpf.pipeline").is_err());
    }
}
