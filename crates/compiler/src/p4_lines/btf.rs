//! The two parts of BTF this pass touches: the string section of `.BTF`
//! (read, and grown at its end) and the line-info records of `.BTF.ext`
//! (rewritten in place). Layouts from the kernel's `btf.h` and libbpf's
//! `libbpf_internal.h` (`btf_ext_header`, `bpf_line_info`).

use std::collections::HashMap;

const MAGIC: u16 = 0xeb9f;
/// `bpf_line_info`: insn_off, file_name_off, line_off, line_col.
const LINE_INFO_SIZE: usize = 16;
/// `line_col` holds the line above its 10 column bits.
const COLUMN_BITS: u32 = 10;

/// `.BTF` with its string section open for additions.
pub struct Btf {
    bytes: Vec<u8>,
    /// Where the string section starts in `bytes`.
    strings_at: usize,
    added: HashMap<String, u32>,
}

impl Btf {
    /// Reads `.BTF`; its string section must be its last part (as clang
    /// and pahole write it) so that strings can be appended.
    pub fn read(bytes: &[u8]) -> Result<Btf, String> {
        check_magic(bytes, ".BTF")?;
        let header_len = read_u32(bytes, 4)? as usize;
        let strings_at = header_len.saturating_add(read_u32(bytes, 16)? as usize);
        let strings_len = read_u32(bytes, 20)? as usize;
        if strings_at.saturating_add(strings_len) != bytes.len() {
            return Err(".BTF does not end with its string section".into());
        }
        Ok(Btf {
            bytes: bytes.to_vec(),
            strings_at,
            added: HashMap::new(),
        })
    }

    /// The string at offset `at` of the string section.
    pub fn string(&self, at: u32) -> &str {
        let tail = self
            .bytes
            .get(self.strings_at.saturating_add(at as usize)..)
            .unwrap_or_default();
        let text = tail.split(|b| *b == 0).next().unwrap_or_default();
        std::str::from_utf8(text).unwrap_or_default()
    }

    /// The offset of `text` in the string section, appending it once.
    pub fn add(&mut self, text: &str) -> Result<u32, String> {
        if let Some(&at) = self.added.get(text) {
            return Ok(at);
        }
        let at = u32::try_from(self.bytes.len() - self.strings_at)
            .map_err(|_| ".BTF string section too large")?;
        self.bytes.extend(text.bytes().filter(|b| *b != 0));
        self.bytes.push(0);
        let len = u32::try_from(self.bytes.len() - self.strings_at)
            .map_err(|_| ".BTF string section too large")?;
        write_u32(&mut self.bytes, 20, len)?;
        self.added.insert(text.to_string(), at);
        Ok(at)
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// One line-info record's place in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineInfo {
    pub file: u32,
    pub text: u32,
    pub line: u32,
    pub column: u32,
}

/// Calls `relabel` on every line-info record of `.BTF.ext` bytes `ext`,
/// storing what it returns.
pub fn relabel_lines(
    ext: &mut [u8],
    mut relabel: impl FnMut(LineInfo) -> Result<LineInfo, String>,
) -> Result<(), String> {
    check_magic(ext, ".BTF.ext")?;
    let header_len = read_u32(ext, 4)? as usize;
    let start = header_len.saturating_add(read_u32(ext, 16)? as usize);
    let end = start.saturating_add(read_u32(ext, 20)? as usize);
    if end > ext.len() {
        return Err(".BTF.ext line info extends past its section".into());
    }
    if end == start {
        return Ok(());
    }
    let record_size = read_u32(ext, start)? as usize;
    if record_size < LINE_INFO_SIZE {
        return Err(format!(".BTF.ext line-info records of {record_size} bytes"));
    }
    // Blocks of one ELF section each: name offset, count, records.
    let mut at = start + 4;
    while at < end {
        let count = read_u32(ext, at + 4)? as usize;
        at += 8;
        for _ in 0..count {
            let line_col = read_u32(ext, at + 12)?;
            let old = LineInfo {
                file: read_u32(ext, at + 4)?,
                text: read_u32(ext, at + 8)?,
                line: line_col >> COLUMN_BITS,
                column: line_col & ((1 << COLUMN_BITS) - 1),
            };
            let new = relabel(old)?;
            write_u32(ext, at + 4, new.file)?;
            write_u32(ext, at + 8, new.text)?;
            let column = new.column.min((1 << COLUMN_BITS) - 1);
            write_u32(ext, at + 12, (new.line << COLUMN_BITS) | column)?;
            at = at.saturating_add(record_size);
        }
    }
    Ok(())
}

fn check_magic(bytes: &[u8], section: &str) -> Result<(), String> {
    let magic = bytes
        .get(..2)
        .and_then(|b| b.try_into().ok())
        .map(u16::from_le_bytes);
    if magic != Some(MAGIC) {
        return Err(format!("{section} is not little-endian BTF"));
    }
    Ok(())
}

fn read_u32(bytes: &[u8], at: usize) -> Result<u32, String> {
    bytes
        .get(at..at.saturating_add(4))
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or_else(|| "truncated BTF".to_string())
}

fn write_u32(bytes: &mut [u8], at: usize, value: u32) -> Result<(), String> {
    bytes
        .get_mut(at..at.saturating_add(4))
        .ok_or("truncated BTF")?
        .copy_from_slice(&value.to_le_bytes());
    Ok(())
}

#[cfg(test)]
#[allow(clippy::panic)] // a failing test should stop loudly
mod tests {
    use super::*;

    /// A `.BTF` with no types and strings "\0a.c\0".
    fn btf_bytes() -> Vec<u8> {
        let strings = b"\0a.c\0";
        let mut b = vec![0x9f, 0xeb, 1, 0];
        for v in [24u32, 0, 0, 0, strings.len() as u32] {
            b.extend(v.to_le_bytes());
        }
        b.extend(strings);
        b
    }

    /// A `.BTF.ext` with one section block of two line-info records.
    fn ext_bytes() -> Vec<u8> {
        let mut b = vec![0x9f, 0xeb, 1, 0];
        for v in [24u32, 0, 0, 0, 4 + 8 + 32] {
            b.extend(v.to_le_bytes());
        }
        for v in [16u32, 0, 2, 0, 1, 0, (7 << 10) | 3, 8, 1, 0, 9 << 10] {
            b.extend(v.to_le_bytes());
        }
        b
    }

    #[test]
    fn strings_are_appended_once_and_records_rewritten_in_place() {
        let mut btf = Btf::read(&btf_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(btf.string(1), "a.c");
        let mut ext = ext_bytes();
        let mut seen = vec![];
        relabel_lines(&mut ext, |info| {
            seen.push(info);
            let file = btf.add("p.p4")?;
            Ok(LineInfo {
                file,
                text: btf.add("x = 1;")?,
                line: info.line + 100,
                column: 0,
            })
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            seen[0],
            LineInfo {
                file: 1,
                text: 0,
                line: 7,
                column: 3
            }
        );
        assert_eq!(seen[1].line, 9);
        let bytes = btf.into_bytes();
        assert_eq!(&bytes[24..], b"\0a.c\0p.p4\0x = 1;\0");
        assert_eq!(read_u32(&bytes, 20), Ok(17));
        let again = Btf::read(&bytes).unwrap_or_else(|e| panic!("{e}"));
        let mut after = vec![];
        relabel_lines(&mut ext, |info| {
            after.push((again.string(info.file).to_string(), info.line));
            Ok(info)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            after,
            [("p.p4".to_string(), 107), ("p.p4".to_string(), 109)]
        );
    }

    #[test]
    fn malformed_sections_are_errors() {
        let mut short = btf_bytes();
        short.pop();
        assert!(Btf::read(&short).is_err());
        let mut ext = ext_bytes();
        ext.truncate(40);
        assert!(relabel_lines(&mut ext, Ok).is_err());
        assert!(relabel_lines(&mut [0u8; 4], Ok).is_err());
    }
}
