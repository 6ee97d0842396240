//! The section table of a 64-bit little-endian ELF object (what
//! `clang -target bpf` writes), and replacing one section's bytes. Every
//! offset is bounds-checked: a truncated file is an error, never a panic.

/// Bytes of one section header, and where its fields sit.
const HEADER_SIZE: usize = 64;
const OFFSET_FIELD: usize = 0x18;
const SIZE_FIELD: usize = 0x20;

/// One section: its name, where its header is, where its bytes are.
#[derive(Clone, Debug)]
pub struct Section {
    pub name: String,
    header_at: usize,
    pub offset: usize,
    pub size: usize,
}

impl Section {
    /// The section's bytes within `image`.
    pub fn bytes<'a>(&self, image: &'a [u8]) -> Result<&'a [u8], String> {
        image
            .get(self.offset..self.offset.saturating_add(self.size))
            .ok_or_else(|| "ELF section extends past the end of the file".to_string())
    }
}

/// Every section of `image`.
pub fn sections(image: &[u8]) -> Result<Vec<Section>, String> {
    if image.get(..4) != Some(b"\x7fELF".as_slice()) {
        return Err("not an ELF file".into());
    }
    if image.get(4) != Some(&2) || image.get(5) != Some(&1) {
        return Err("not a 64-bit little-endian ELF file".into());
    }
    let table = read_u64(image, 0x28)? as usize;
    if read_u16(image, 0x3a)? as usize != HEADER_SIZE {
        return Err("unexpected ELF section header size".into());
    }
    let count = read_u16(image, 0x3c)? as usize;
    let names_index = read_u16(image, 0x3e)? as usize;
    let header_at = |index: usize| table.saturating_add(index.saturating_mul(HEADER_SIZE));
    let unnamed = |index: usize| -> Result<Section, String> {
        let at = header_at(index);
        Ok(Section {
            name: String::new(),
            header_at: at,
            offset: read_u64(image, at.saturating_add(OFFSET_FIELD))? as usize,
            size: read_u64(image, at.saturating_add(SIZE_FIELD))? as usize,
        })
    };
    let names = unnamed(names_index)?.bytes(image)?;
    (0..count)
        .map(|index| {
            let mut section = unnamed(index)?;
            let name_at = read_u32(image, section.header_at)? as usize;
            let tail = names.get(name_at..).unwrap_or_default();
            let name = tail.split(|b| *b == 0).next().unwrap_or_default();
            section.name = String::from_utf8_lossy(name).into_owned();
            Ok(section)
        })
        .collect()
}

/// `image` with `section`'s bytes replaced by `bytes`: the same place when
/// they are no longer, else appended at the end (8-aligned) with the
/// header pointing there, so no other section moves.
pub fn replace(image: &mut Vec<u8>, section: &Section, bytes: &[u8]) -> Result<(), String> {
    let offset = if bytes.len() <= section.size {
        section.offset
    } else {
        image.resize(image.len().next_multiple_of(8), 0);
        image.len()
    };
    let end = offset.saturating_add(bytes.len());
    if image.len() < end {
        image.resize(end, 0);
    }
    image
        .get_mut(offset..end)
        .ok_or("ELF section extends past the end of the file")?
        .copy_from_slice(bytes);
    write_u64(
        image,
        section.header_at.saturating_add(OFFSET_FIELD),
        offset as u64,
    )?;
    write_u64(
        image,
        section.header_at.saturating_add(SIZE_FIELD),
        bytes.len() as u64,
    )
}

fn read_bytes<const N: usize>(image: &[u8], at: usize) -> Result<[u8; N], String> {
    image
        .get(at..at.saturating_add(N))
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| "truncated ELF file".to_string())
}

fn read_u16(image: &[u8], at: usize) -> Result<u16, String> {
    read_bytes(image, at).map(u16::from_le_bytes)
}

fn read_u32(image: &[u8], at: usize) -> Result<u32, String> {
    read_bytes(image, at).map(u32::from_le_bytes)
}

fn read_u64(image: &[u8], at: usize) -> Result<u64, String> {
    read_bytes(image, at).map(u64::from_le_bytes)
}

fn write_u64(image: &mut [u8], at: usize, value: u64) -> Result<(), String> {
    image
        .get_mut(at..at.saturating_add(8))
        .ok_or("truncated ELF file")?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}
