//! Text values of table keys, action parameters and masks, as an operator
//! or an STF file writes them: decimal, `0x` hex, `0b` binary, P4
//! width-prefixed (`8w5`, `16w0x0800`), IPv4, IPv6 and MAC addresses, with
//! `_` allowed between digits. A value becomes big-endian bytes of its
//! field's width; one that does not fit the width is an error, never
//! truncated. Errors are phrases the caller prefixes with the table and
//! field they concern.

use std::net::{Ipv4Addr, Ipv6Addr};

/// Bytes needed for `bit_width` bits.
pub fn byte_len(bit_width: u32) -> usize {
    (bit_width as usize).div_ceil(8)
}

/// Unused top bits of `length` bytes holding `bit_width` bits (0..=7).
fn spare_bits(length: usize, bit_width: u32) -> u32 {
    (length as u64 * 8).saturating_sub(u64::from(bit_width)) as u32
}

/// `text` as `byte_len(bit_width)` big-endian bytes.
pub fn parse(text: &str, bit_width: u32) -> Result<Vec<u8>, String> {
    let digits = parse_unsized(text)?;
    fit(&digits, bit_width).ok_or_else(|| format!("`{text}` does not fit in bit<{bit_width}>"))
}

/// BMv2's STF form of a ternary key: hex, octal or binary digits where a
/// `*` is a don't-care digit (`0x****0101`, `0b**01`), as (value, mask)
/// of the field's width. Mask digits past the field's width are dropped,
/// as BMv2 drops them.
pub fn parse_wildcard_digits(text: &str, bit_width: u32) -> Result<(Vec<u8>, Vec<u8>), String> {
    let number = text.split_once(['w', 's']).map_or(text, |(_, rest)| rest);
    let radix = number.get(..2).unwrap_or_default();
    let all_ones = match radix {
        "0x" | "0X" => 'f',
        "0o" | "0O" => '7',
        "0b" | "0B" => '1',
        _ => return Err(format!("`{text}`: `*` digits need a 0x, 0o or 0b number")),
    };
    let body = number.get(2..).unwrap_or_default();
    let value_text = format!("{radix}{}", body.replace('*', "0"));
    let mask_body: String = body
        .chars()
        .map(|c| match c {
            '*' => '0',
            '_' => '_',
            _ => all_ones,
        })
        .collect();
    let mask_text = format!("{radix}{mask_body}");
    wildcard_pair(text, &value_text, &mask_text, bit_width)
}

fn wildcard_pair(
    text: &str,
    value_text: &str,
    mask_text: &str,
    bit_width: u32,
) -> Result<(Vec<u8>, Vec<u8>), String> {
    let value = parse(value_text, bit_width)
        .map_err(|_| format!("`{text}` does not fit in bit<{bit_width}>"))?;
    let mask = parse_unsized(mask_text)?;
    let length = byte_len(bit_width);
    let mut low = vec![0u8; length.saturating_sub(mask.len())];
    low.extend(mask.iter().skip(mask.len().saturating_sub(length)));
    Ok((value, and(&low, &prefix_mask(bit_width, bit_width))))
}

/// A number of any size, as minimal big-endian bytes.
fn parse_unsized(text: &str) -> Result<Vec<u8>, String> {
    let not_a_value = || format!("`{text}` is not a number, IPv4, IPv6 or MAC address");
    if let Some(mac) = parse_mac(text) {
        return Ok(mac.to_vec());
    }
    if text.contains(':') {
        return text
            .parse::<Ipv6Addr>()
            .map(|a| a.octets().to_vec())
            .map_err(|_| not_a_value());
    }
    if text.contains('.') {
        return text
            .parse::<Ipv4Addr>()
            .map(|a| a.octets().to_vec())
            .map_err(|_| not_a_value());
    }
    // `8w5`: the width is the field's, so the prefix is only checked for form.
    let number = match text.split_once(['w', 's']) {
        Some((width, rest)) if !width.is_empty() && width.bytes().all(|b| b.is_ascii_digit()) => {
            rest
        }
        _ => text,
    };
    let radix = match number.as_bytes() {
        [b'0', b'x' | b'X', ..] => Some(16),
        [b'0', b'b' | b'B', ..] => Some(2),
        [b'0', b'o' | b'O', ..] => Some(8),
        [b'0', b'd' | b'D', ..] => Some(10),
        _ => None,
    };
    let (radix, body) = match radix {
        Some(radix) => (radix, number.get(2..).unwrap_or_default()),
        None => (10, number),
    };
    digits(body, radix).ok_or_else(not_a_value)
}

/// The digits of `body` (`_` allowed between them) as minimal big-endian
/// bytes; numbers up to 128 bits are summed in a machine word.
fn digits(body: &str, radix: u32) -> Option<Vec<u8>> {
    let mut small = 0u128;
    let mut wide: Option<Vec<u8>> = None;
    let mut any_digit = false;
    for c in body.chars() {
        if c == '_' && any_digit {
            continue;
        }
        let digit = c.to_digit(radix)?;
        any_digit = true;
        if let Some(value) = wide.as_mut() {
            multiply_add(value, radix, digit);
            continue;
        }
        match small.checked_mul(u128::from(radix)) {
            Some(shifted) if shifted.checked_add(u128::from(digit)).is_some() => {
                small = shifted + u128::from(digit);
            }
            _ => {
                let mut value = minimal(small);
                multiply_add(&mut value, radix, digit);
                wide = Some(value);
            }
        }
    }
    any_digit.then(|| wide.unwrap_or_else(|| minimal(small)))
}

fn minimal(value: u128) -> Vec<u8> {
    let bytes = value.to_be_bytes();
    let first = bytes.iter().position(|b| *b != 0).unwrap_or(bytes.len());
    bytes.get(first..).unwrap_or_default().to_vec()
}

/// `aa:bb:cc:dd:ee:ff` or with `-`: six groups of one or two hex digits.
fn parse_mac(text: &str) -> Option<[u8; 6]> {
    let separator = if text.contains('-') { '-' } else { ':' };
    if text.split(separator).count() != 6 {
        return None;
    }
    let mut mac = [0u8; 6];
    for (slot, group) in mac.iter_mut().zip(text.split(separator)) {
        if group.is_empty() || group.len() > 2 {
            return None;
        }
        *slot = u8::from_str_radix(group, 16).ok()?;
    }
    Some(mac)
}

/// value = value * radix + digit, on big-endian bytes.
fn multiply_add(value: &mut Vec<u8>, radix: u32, digit: u32) {
    let mut carry = digit;
    for byte in value.iter_mut().rev() {
        let wide = u32::from(*byte) * radix + carry;
        *byte = (wide & 0xff) as u8;
        carry = wide >> 8;
    }
    while carry > 0 {
        value.insert(0, (carry & 0xff) as u8);
        carry >>= 8;
    }
}

/// Pad or trim leading zeros to the width; `None` when a set bit is beyond it.
fn fit(value: &[u8], bit_width: u32) -> Option<Vec<u8>> {
    let length = byte_len(bit_width);
    let first = value.iter().position(|b| *b != 0).unwrap_or(value.len());
    let significant = value.get(first..).unwrap_or_default();
    if significant.len() > length {
        return None;
    }
    let mut bytes = vec![0u8; length];
    bytes
        .get_mut(length - significant.len()..)?
        .copy_from_slice(significant);
    let spare_bits = spare_bits(length, bit_width);
    if spare_bits > 0
        && bytes
            .first()
            .is_some_and(|top| top >> (8 - spare_bits) != 0)
    {
        return None;
    }
    Some(bytes)
}

/// The mask of the top `prefix` bits of a `bit_width`-bit field.
pub fn prefix_mask(prefix: u32, bit_width: u32) -> Vec<u8> {
    let length = byte_len(bit_width);
    let spare = spare_bits(length, bit_width);
    (0..length as u32)
        .map(|index| {
            // Bits of this byte that fall inside [spare, spare + prefix).
            let first = index * 8;
            (0..8u32)
                .filter(|bit| {
                    let position = first + bit;
                    position >= spare && position < spare + prefix
                })
                .fold(0u8, |byte, bit| byte | (0x80 >> bit))
        })
        .collect()
}

/// `value & mask`, byte by byte.
pub fn and(value: &[u8], mask: &[u8]) -> Vec<u8> {
    value.iter().zip(mask).map(|(v, m)| v & m).collect()
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;

    #[test]
    fn numbers_in_every_radix() {
        assert_eq!(parse("10", 8), Ok(vec![10]));
        assert_eq!(parse("0x0a01", 16), Ok(vec![0x0a, 0x01]));
        assert_eq!(parse("0b1010", 4), Ok(vec![0x0a]));
        assert_eq!(parse("16w0x0800", 16), Ok(vec![0x08, 0x00]));
        assert_eq!(parse("0x00_ff", 32), Ok(vec![0, 0, 0, 0xff]));
        assert_eq!(parse("0x0000000001", 8), Ok(vec![1]));
        assert_eq!(parse("0XAB", 8), Ok(vec![0xab]));
        assert_eq!(parse("0", 16), Ok(vec![0, 0]));
        // Past 128 bits the digits are summed byte by byte.
        let wide = format!("0x1{}", "0".repeat(32));
        assert_eq!(parse(&wide, 136).map(|v| v[..2].to_vec()), Ok(vec![1, 0]));
        assert_eq!(parse(&wide, 136).map(|v| v.len()), Ok(17));
    }

    #[test]
    fn addresses() {
        assert_eq!(parse("10.1.152.69", 32), Ok(vec![10, 1, 152, 69]));
        assert_eq!(
            parse("00:1b:17:00:01:30", 48),
            Ok(vec![0, 0x1b, 0x17, 0, 1, 0x30])
        );
        let v6 = parse("2001:db8::1", 128).unwrap_or_default();
        assert_eq!(
            (v6.len(), v6.first(), v6.last()),
            (16, Some(&0x20), Some(&1))
        );
    }

    #[test]
    fn widths_are_checked_not_truncated() {
        assert!(parse("0x100", 8).is_err());
        assert!(parse("0x10", 4).is_err());
        assert_eq!(parse("0xf", 4), Ok(vec![0x0f]));
        assert!(parse("10.0.0.1", 16).is_err());
        let wide = parse("340282366920938463463374607431768211455", 128);
        assert_eq!(wide, Ok(vec![0xff; 16]));
        assert!(parse("340282366920938463463374607431768211456", 128).is_err());
    }

    #[test]
    fn junk_is_rejected() {
        for junk in ["", "0x", "12a", "1.2.3", "::g", "0b102", "_1"] {
            assert!(parse(junk, 32).is_err(), "{junk}");
        }
    }

    #[test]
    fn star_digits_are_dont_care_digits() {
        let pair = |text, width| parse_wildcard_digits(text, width);
        assert_eq!(
            pair("0x****0101", 32),
            Ok((vec![0, 0, 1, 1], vec![0, 0, 0xff, 0xff]))
        );
        assert_eq!(pair("0b**01", 4), Ok((vec![1], vec![3])));
        // A mask digit wider than the field loses its top bits.
        assert_eq!(pair("0x*1", 6), Ok((vec![1], vec![0x0f])));
        assert_eq!(pair("8w0x2*", 8), Ok((vec![0x20], vec![0xf0])));
        assert!(pair("12*", 8).is_err());
    }

    #[test]
    fn prefix_masks_skip_spare_top_bits() {
        assert_eq!(prefix_mask(16, 32), vec![0xff, 0xff, 0, 0]);
        assert_eq!(prefix_mask(4, 12), vec![0x0f, 0]);
        assert_eq!(prefix_mask(0, 8), vec![0]);
        assert_eq!(
            and(&[0x0a, 0x01, 0x98, 0x45], &prefix_mask(16, 32)),
            vec![0x0a, 1, 0, 0]
        );
    }
}
