//! P4Runtime bytestrings (big-endian, any number of leading zero bytes)
//! to and from the runtime's text values. A value wider than its field is
//! OUT_OF_RANGE (never truncated), an empty one INVALID_ARGUMENT; what the
//! server sends back is the canonical form (no leading zero bytes, at
//! least one byte).

use crate::failure::{Failure, Outcome};
use p4bpf_runtime::value;
use tonic::Code;

/// `bytes` as a `0x` hex value of at most `bitwidth` bits; `what` names
/// the field or parameter for the error.
pub fn to_text(bytes: &[u8], bitwidth: u32, what: &dyn Fn() -> String) -> Outcome<String> {
    if bytes.is_empty() {
        return Err(Failure::invalid(format!("{}: empty bytestring", what())));
    }
    let used = significant_bits(bytes);
    if used > bitwidth {
        return Err(Failure::new(
            Code::OutOfRange,
            format!(
                "{}: value 0x{} has {used} bits, the field has {bitwidth}",
                what(),
                hex(bytes)
            ),
        ));
    }
    let mut text = String::with_capacity(2 + 2 * bytes.len());
    text.push_str("0x");
    push_hex(&mut text, bytes);
    Ok(text)
}

/// A runtime text value of `bitwidth` bits as a canonical bytestring.
pub fn from_text(text: &str, bitwidth: u32) -> Outcome<Vec<u8>> {
    let bytes = value::parse(text, bitwidth).map_err(Failure::invalid)?;
    Ok(canonical(&bytes))
}

pub fn canonical(bytes: &[u8]) -> Vec<u8> {
    let first = bytes
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(bytes.len().saturating_sub(1));
    bytes.get(first..).unwrap_or_default().to_vec()
}

/// Bits from the highest set bit down (0 for all zeros).
pub fn significant_bits(bytes: &[u8]) -> u32 {
    match bytes.iter().position(|b| *b != 0) {
        None => 0,
        Some(first) => {
            let rest = (bytes.len() - first - 1) as u32;
            let top = bytes.get(first).copied().unwrap_or(0);
            8 * rest + (8 - top.leading_zeros())
        }
    }
}

/// `value` padded or trimmed (leading zeros only) to `len` bytes.
pub fn padded(value: &[u8], len: usize) -> Vec<u8> {
    let canonical = canonical(value);
    let mut out = vec![0u8; len.saturating_sub(canonical.len())];
    out.extend_from_slice(&canonical);
    out
}

/// Leading one bits of `mask` read as `bitwidth` bits, if the mask is a
/// prefix (ones then zeros).
pub fn prefix_of(mask: &[u8], bitwidth: u32) -> Option<u32> {
    let bits = padded(mask, value::byte_len(bitwidth));
    let spare = 8 * bits.len() as u32 - bitwidth;
    let mut ones = 0u32;
    let mut ended = false;
    for position in spare..8 * bits.len() as u32 {
        let byte = bits.get((position / 8) as usize).copied().unwrap_or(0);
        let set = byte & (0x80 >> (position % 8)) != 0;
        match (set, ended) {
            (true, false) => ones += 1,
            (true, true) => return None,
            (false, _) => ended = true,
        }
    }
    Some(ones)
}

pub fn hex(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(2 * bytes.len());
    push_hex(&mut text, bytes);
    text
}

/// Append the canonical form of `bytes` in lowercase hex, two digits a byte.
fn push_hex(text: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let first = bytes
        .iter()
        .position(|b| *b != 0)
        .unwrap_or(bytes.len().saturating_sub(1));
    for byte in bytes.get(first..).unwrap_or_default() {
        for nibble in [byte >> 4, byte & 0xf] {
            text.push(char::from(DIGITS[usize::from(nibble)]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_checked_without_counting_leading_zeros() {
        let what = || "field `f`".to_string();
        assert_eq!(to_text(&[0, 0, 0x01, 0xff], 9, &what), Ok("0x01ff".into()));
        let wide = to_text(&[0x02, 0x00], 9, &what);
        assert_eq!(wide.map_err(|f| f.code), Err(Code::OutOfRange));
        assert_eq!(
            to_text(&[], 8, &what).map_err(|f| f.code),
            Err(Code::InvalidArgument)
        );
        assert_eq!(to_text(&[0], 1, &what), Ok("0x00".into()));
    }

    #[test]
    fn canonical_keeps_one_byte() {
        assert_eq!(canonical(&[0, 0, 0]), vec![0]);
        assert_eq!(canonical(&[0, 5, 0]), vec![5, 0]);
        assert_eq!(from_text("10.0.0.1", 32), Ok(vec![10, 0, 0, 1]));
        assert_eq!(from_text("0", 48), Ok(vec![0]));
    }

    #[test]
    fn prefixes_from_masks() {
        assert_eq!(prefix_of(&[0xff, 0xf0], 16), Some(12));
        assert_eq!(prefix_of(&[0x01, 0xff], 9), Some(9));
        assert_eq!(prefix_of(&[0xf0, 0x0f], 16), None);
        assert_eq!(prefix_of(&[0], 32), Some(0));
    }
}
