//! The classic pcap capture format (what tcpdump and Wireshark read and
//! write): a 24-byte file header, then per packet a 16-byte record header
//! (seconds, sub-second part, captured length, original length) and the
//! bytes. Reads either byte order and microsecond or nanosecond files;
//! writes little-endian microsecond Ethernet files.

/// Link type of Ethernet frames.
const LINKTYPE_ETHERNET: u32 = 1;
const MAGIC_MICROS: u32 = 0xa1b2_c3d4;
const MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// Largest packet written whole.
const SNAPLEN: u32 = 262_144;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub seconds: u32,
    pub micros: u32,
    pub data: Vec<u8>,
}

/// The packets of a capture, or why it is not one.
pub fn parse(bytes: &[u8]) -> Result<Vec<Record>, String> {
    let magic_le = word(bytes, 0, false).ok_or("too short for a pcap file header")?;
    let (big_endian, nanos) = match (magic_le, word(bytes, 0, true)) {
        (MAGIC_MICROS, _) => (false, false),
        (MAGIC_NANOS, _) => (false, true),
        (_, Some(MAGIC_MICROS)) => (true, false),
        (_, Some(MAGIC_NANOS)) => (true, true),
        _ => return Err("not a pcap file (unknown magic number; pcapng is not read)".into()),
    };
    let link = word(bytes, 20, big_endian).ok_or("truncated pcap file header")?;
    if link & 0xffff != LINKTYPE_ETHERNET {
        return Err(format!("link type {link} is not Ethernet (1)"));
    }
    let mut records = Vec::new();
    let mut at = 24;
    while at < bytes.len() {
        let field = |i: usize| word(bytes, at + 4 * i, big_endian);
        let (Some(seconds), Some(fraction), Some(captured)) = (field(0), field(1), field(2)) else {
            return Err(format!(
                "packet {} has a truncated record header",
                records.len() + 1
            ));
        };
        let start = at + 16;
        let data = bytes
            .get(start..start + captured as usize)
            .ok_or_else(|| format!("packet {} is cut short", records.len() + 1))?;
        records.push(Record {
            seconds,
            micros: if nanos { fraction / 1000 } else { fraction },
            data: data.to_vec(),
        });
        at = start + captured as usize;
    }
    Ok(records)
}

/// A whole capture file of `records`.
pub fn write(records: &[Record]) -> Vec<u8> {
    let mut out = Vec::new();
    for value in [MAGIC_MICROS, 0x0004_0002, 0, 0, SNAPLEN, LINKTYPE_ETHERNET] {
        // Version 2.4 as two 16-bit halves (minor high); zone and accuracy 0.
        out.extend_from_slice(&value.to_le_bytes());
    }
    for r in records {
        let length = r.data.len().min(SNAPLEN as usize);
        let original = u32::try_from(r.data.len()).unwrap_or(u32::MAX);
        for value in [r.seconds, r.micros, length as u32, original] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(r.data.get(..length).unwrap_or_default());
    }
    out
}

fn word(bytes: &[u8], at: usize, big_endian: bool) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
    Some(if big_endian {
        u32::from_be_bytes(b)
    } else {
        u32::from_le_bytes(b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_captures_read_back() {
        let records = vec![
            Record {
                seconds: 7,
                micros: 9,
                data: vec![1, 2, 3],
            },
            Record {
                seconds: 8,
                micros: 0,
                data: vec![],
            },
        ];
        let file = write(&records);
        assert_eq!(file.get(..4), Some(&[0xd4, 0xc3, 0xb2, 0xa1][..]));
        assert_eq!(file.get(4..8), Some(&[2, 0, 4, 0][..]), "version 2.4");
        assert_eq!(parse(&file), Ok(records));
    }

    #[test]
    fn big_endian_nanosecond_files_read() {
        let mut file = Vec::new();
        for value in [MAGIC_NANOS, 0x0002_0004, 0, 0, 65535, 1, 1, 5000, 2, 2] {
            file.extend_from_slice(&u32::to_be_bytes(value));
        }
        file.extend_from_slice(&[0xaa, 0xbb]);
        let records = parse(&file);
        assert_eq!(
            records,
            Ok(vec![Record {
                seconds: 1,
                micros: 5,
                data: vec![0xaa, 0xbb]
            }])
        );
    }

    #[test]
    fn damaged_captures_are_errors_not_panics() {
        let file = write(&[Record {
            seconds: 1,
            micros: 2,
            data: vec![1; 10],
        }]);
        assert!(parse(file.get(..file.len() - 1).unwrap_or_default()).is_err());
        assert!(parse(file.get(..30).unwrap_or_default()).is_err());
        assert!(parse(b"pcapng?").is_err());
        assert!(parse(&[]).is_err());
    }
}
