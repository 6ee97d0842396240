//! `int<W>` values as P4Runtime bytestrings: big-endian two's complement,
//! any number of sign-extension bytes in front. A write checks the number
//! is in int<W>'s range and passes it on as the runtime's signed text
//! (`-5`), which the runtime keeps sign-extended to the bits the data path
//! reads (C's s8..s64, or a struct field's C type); a read sign-extends
//! bit W-1 (bits above it ignored) and sends the shortest bytestring that
//! keeps the sign.

use crate::bytestring;
use crate::failure::{Failure, Outcome};
use p4bpf_runtime::{int_value, value};
use tonic::Code;

/// `bytes`, a two's-complement int<`width`>, as the runtime's signed
/// text; `what` names the field for the error.
pub fn to_text(bytes: &[u8], width: u32, what: &dyn Fn() -> String) -> Outcome<String> {
    if bytes.is_empty() {
        return Err(Failure::invalid(format!("{}: empty bytestring", what())));
    }
    let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
    // A negative n needs as many bits as !n = -n-1, plus the sign bit.
    let magnitude: Vec<u8> = match negative {
        true => bytes.iter().map(|b| !b).collect(),
        false => bytes.to_vec(),
    };
    if bytestring::significant_bits(&magnitude) + 1 > width {
        return Err(Failure::new(
            Code::OutOfRange,
            format!(
                "{}: value 0x{} is outside int<{width}>",
                what(),
                // Every byte: a leading 00 or ff is the sign.
                bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
            ),
        ));
    }
    let fill = if negative { 0xff } else { 0 };
    let mut bits = vec![fill; value::byte_len(width).saturating_sub(bytes.len())];
    bits.extend_from_slice(bytes);
    Ok(int_value::show(&bits, width))
}

/// A cell's value (big-endian, at least W bits, bits above W ignored) as
/// the shortest two's-complement bytestring of the int<W> it holds.
pub fn canonical(cell: &[u8], width: u32) -> Vec<u8> {
    let len = value::byte_len(width);
    let mut bits = bytestring::padded(cell, len);
    bits.drain(..bits.len().saturating_sub(len));
    mask_to_width(&mut bits, width);
    let sign = bit_set(&bits, width);
    if sign {
        sign_extend(&mut bits, width);
    }
    let fill = if sign { 0xff } else { 0 };
    // A leading fill byte is redundant when the next byte carries the sign.
    while bits.len() > 1
        && bits.first() == Some(&fill)
        && bits.get(1).is_some_and(|b| (b & 0x80 != 0) == sign)
    {
        bits.remove(0);
    }
    bits
}

/// Whether bit `width - 1` (counted from the right) of `bits` is set.
fn bit_set(bits: &[u8], width: u32) -> bool {
    let position = width.saturating_sub(1);
    let from_end = (position / 8) as usize;
    let byte = bits
        .len()
        .checked_sub(from_end + 1)
        .and_then(|i| bits.get(i));
    byte.is_some_and(|b| b & (1 << (position % 8)) != 0)
}

/// Clears the bits above `width` in the first byte.
fn mask_to_width(bits: &mut [u8], width: u32) {
    let spare = 8 * bits.len() as u32 - width.min(8 * bits.len() as u32);
    if let Some(first) = bits.first_mut() {
        *first &= 0xffu8.checked_shr(spare).unwrap_or(0);
    }
}

/// Sets the bits above `width` in the first byte (a negative number).
fn sign_extend(bits: &mut [u8], width: u32) {
    let spare = 8 * bits.len() as u32 - width.min(8 * bits.len() as u32);
    if let Some(first) = bits.first_mut() {
        *first |= !0xffu8.checked_shr(spare).unwrap_or(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(bytes: &[u8], width: u32) -> Outcome<String> {
        to_text(bytes, width, &|| "r".to_string())
    }

    #[test]
    fn writes_are_signed_numbers_in_range() {
        assert_eq!(text(&[0xff], 8).ok().as_deref(), Some("-1"));
        assert_eq!(text(&[0xff, 0xff, 0x80], 8).ok().as_deref(), Some("-128"));
        assert_eq!(text(&[0x7f], 8).ok().as_deref(), Some("127"));
        assert_eq!(text(&[0xfe], 4).ok().as_deref(), Some("-2"));
        assert_eq!(text(&[0x01, 0x00], 12).ok().as_deref(), Some("256"));
        assert_eq!(text(&[0xfe], 12).ok().as_deref(), Some("-2")); // short: sign-extended
        assert_eq!(text(&[0xf8, 0x00], 12).ok().as_deref(), Some("-2048"));
        assert_eq!(
            text(&[0xff, 0, 0, 0, 0], 33).ok().as_deref(),
            Some("-4294967296")
        );
        assert_eq!(
            text(&[0, 0xff, 0xff, 0xff, 0xff], 33).ok().as_deref(),
            Some("4294967295")
        );
    }

    #[test]
    fn writes_outside_the_range_are_refused() {
        for (bytes, width) in [
            (&[0x80u8][..], 4),
            (&[0x00, 0x80][..], 8),
            (&[0xff, 0x7f][..], 8),
            (&[0x01, 0, 0, 0, 0][..], 33),
            (&[0xfe, 0xff, 0xff, 0xff, 0xff][..], 33),
        ] {
            let error = text(bytes, width).err().map(|f| f.code);
            assert_eq!(error, Some(Code::OutOfRange), "{bytes:x?} int<{width}>");
        }
    }

    #[test]
    fn reads_are_the_shortest_sign_keeping_form() {
        assert_eq!(canonical(&[0xff], 8), vec![0xff]);
        assert_eq!(canonical(&[0x0f, 0xfe], 12), vec![0xfe]); // -2
        assert_eq!(canonical(&[0xff, 0xfe], 12), vec![0xfe]); // bits above W ignored
        assert_eq!(canonical(&[0x00, 0xc8], 16), vec![0x00, 0xc8]); // +200
        assert_eq!(canonical(&[0x80], 8), vec![0x80]); // -128
        assert_eq!(canonical(&[0x00], 8), vec![0x00]);
        assert_eq!(canonical(&[0x08], 4), vec![0xf8]); // -8
    }
}
