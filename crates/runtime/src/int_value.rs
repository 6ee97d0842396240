//! Text values of `int<W>` fields and registers: a number in any of
//! `value`'s forms with an optional `-` (`-5`, `-0x5`), in int<W>'s range
//! (-2^(W-1) to 2^(W-1)-1), as two's-complement big-endian bytes; and
//! such bytes shown back as a signed decimal number. Errors are phrases
//! the caller prefixes with the register, table or field they concern.

use crate::value;

/// `text` as `len` big-endian bytes of two's complement (`len` at least
/// `value::byte_len(width)`): the bits above W copy the sign, as a C
/// signed type keeps them.
pub fn parse(text: &str, width: u32, len: usize) -> Result<Vec<u8>, String> {
    let (negative, number) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let outside = || {
        format!(
            "`{text}` is outside int<{width}> ({}..={})",
            show_limit(width, true),
            show_limit(width, false)
        )
    };
    let magnitude = value::parse(number, width).map_err(|_| outside())?;
    let bits = significant_bits(&magnitude);
    // -2^(W-1) is the one negative number with W significant bits.
    let lowest = bits == width && is_power(&magnitude);
    if width == 0 || (bits >= width && !(negative && lowest)) {
        return Err(outside());
    }
    let mut bytes = vec![0u8; len.saturating_sub(magnitude.len())];
    bytes.extend(magnitude.iter().skip(magnitude.len().saturating_sub(len)));
    if negative {
        negate(&mut bytes);
    }
    Ok(bytes)
}

/// How an int's text is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ints {
    /// Only numbers in int<W>'s range (`p4bpf register set`, P4Runtime).
    Strict,
    /// Those, and W bits as they are, as BMv2's STF files write an int
    /// (`9` for an int<4>'s -7).
    BitsToo,
}

/// `text` as a field's bytes: an int<`width`>'s two's complement in `len`
/// bytes, or a bit<`width`>'s bits, which take no `-`.
pub fn parse_either(
    text: &str,
    width: u32,
    signed: bool,
    len: usize,
    ints: Ints,
) -> Result<Vec<u8>, String> {
    let as_bits = !signed || (ints == Ints::BitsToo && !text.starts_with('-'));
    if signed && !as_bits {
        return parse(text, width, len);
    }
    if text.starts_with('-') {
        return Err(format!(
            "`{text}` is negative, and bit<{width}> holds no sign"
        ));
    }
    let bits = value::parse(text, width)?;
    let negative = signed && width > 0 && significant_bits(&bits) == width;
    let mut bytes = vec![if negative { 0xff } else { 0 }; len.saturating_sub(bits.len())];
    bytes.extend(bits);
    if negative {
        // Fill the bits above W in W's top byte too.
        let top = bytes.len().saturating_sub(value::byte_len(width));
        let spare = (8 * value::byte_len(width) as u32).saturating_sub(width);
        if let Some(byte) = bytes.get_mut(top) {
            *byte |= !(0xffu8.checked_shr(spare).unwrap_or(0));
        }
    }
    Ok(bytes)
}

/// A table's key or parameter text as its W bits: a negative number in
/// int<`width`>'s range as its two's complement, `signed` or not a
/// number that fits the W bits as they are (BMv2's STF files write an
/// int's bits, `0xff` for -1).
pub fn parse_bits(text: &str, width: u32, signed: bool) -> Result<Vec<u8>, String> {
    if !(signed && text.starts_with('-')) {
        return parse_either(text, width, false, value::byte_len(width), Ints::Strict);
    }
    let mut bytes = parse(text, width, value::byte_len(width))?;
    let spare = (8 * bytes.len() as u32).saturating_sub(width);
    if let Some(top) = bytes.first_mut() {
        *top &= 0xffu8.checked_shr(spare).unwrap_or(0);
    }
    Ok(bytes)
}

/// Flips bit W-1 of big-endian `bytes` holding `width` bits: an int's
/// range bounds and keys are kept so (offset binary), which orders ints
/// as unsigned numbers order (-128 lowest, 127 highest), so that the
/// data path's and the partitions' unsigned comparisons hold for them.
pub fn flip_sign(bytes: &mut [u8], width: u32) {
    let Some(position) = width.checked_sub(1) else {
        return;
    };
    let from_end = (position / 8) as usize;
    let at = bytes.len().checked_sub(from_end + 1);
    if let Some(byte) = at.and_then(|i| bytes.get_mut(i)) {
        *byte ^= 1 << (position % 8);
    }
}

/// Big-endian `bytes` holding an int<`width`> in their low W bits (the
/// bits above ignored), as a signed decimal number (hex past 128 bits).
pub fn show(bytes: &[u8], width: u32) -> String {
    let len = value::byte_len(width);
    let mut low: Vec<u8> = bytes
        .iter()
        .skip(bytes.len().saturating_sub(len))
        .copied()
        .collect();
    let spare = (8 * low.len() as u32).saturating_sub(width);
    if let Some(top) = low.first_mut() {
        *top &= 0xffu8.checked_shr(spare).unwrap_or(0);
    }
    let negative = width > 0 && significant_bits(&low) == width;
    if negative {
        negate(&mut low);
        // The top byte's bits above W were set by the negation: clear them.
        if let Some(top) = low.first_mut() {
            *top &= 0xffu8.checked_shr(spare).unwrap_or(0);
        }
    }
    let sign = if negative { "-" } else { "" };
    format!("{sign}{}", magnitude_text(&low))
}

/// A magnitude as decimal (up to 128 bits) or hex.
fn magnitude_text(bytes: &[u8]) -> String {
    if bytes.len() <= 16 {
        let n = bytes.iter().fold(0u128, |acc, b| acc << 8 | u128::from(*b));
        return n.to_string();
    }
    let digits: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    match digits.trim_start_matches('0') {
        "" => "0".to_string(),
        d => format!("0x{d}"),
    }
}

/// int<W>'s lowest or highest value, for the error.
fn show_limit(width: u32, lowest: bool) -> String {
    let Some(bits) = width.checked_sub(1) else {
        return "0".to_string();
    };
    if bits >= 128 {
        let sign = if lowest { "-" } else { "" };
        let less = if lowest { "" } else { "-1" };
        return format!("{sign}2^{bits}{less}");
    }
    let top = 1u128 << bits;
    match lowest {
        true => format!("-{top}"),
        false => (top - 1).to_string(),
    }
}

/// Two's complement negation in place: invert, add one.
fn negate(bytes: &mut [u8]) {
    let mut carry = true;
    for byte in bytes.iter_mut().rev() {
        let (sum, over) = (!*byte).overflowing_add(u8::from(carry));
        *byte = sum;
        carry = over;
    }
}

/// Whether exactly one bit of `bytes` is set.
fn is_power(bytes: &[u8]) -> bool {
    bytes.iter().map(|b| b.count_ones()).sum::<u32>() == 1
}

fn significant_bits(bytes: &[u8]) -> u32 {
    match bytes.iter().position(|b| *b != 0) {
        None => 0,
        Some(first) => {
            let rest = (bytes.len() - first - 1) as u32;
            let top = bytes.get(first).copied().unwrap_or(0);
            8 * rest + (8 - top.leading_zeros())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negatives_are_twos_complement_filling_the_cell() {
        assert_eq!(parse("-5", 8, 1), Ok(vec![0xfb]));
        assert_eq!(parse("-0x5", 8, 1), Ok(vec![0xfb]));
        assert_eq!(parse("-128", 8, 1), Ok(vec![0x80]));
        assert_eq!(parse("127", 8, 1), Ok(vec![0x7f]));
        assert_eq!(parse("-2", 12, 2), Ok(vec![0xff, 0xfe]));
        assert_eq!(parse("-2048", 12, 2), Ok(vec![0xf8, 0x00]));
        assert_eq!(
            parse("-4294967296", 33, 8),
            Ok(vec![0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0])
        );
        assert_eq!(parse("-0", 8, 1), Ok(vec![0]));
        assert_eq!(parse("0", 33, 8), Ok(vec![0; 8]));
    }

    #[test]
    fn numbers_outside_the_range_are_refused_naming_it() {
        for (text, width) in [
            ("128", 8),
            ("-129", 8),
            ("0xff", 8),
            ("2048", 12),
            ("4294967296", 33),
        ] {
            let error = parse(text, width, 8).expect_err(text);
            assert!(error.contains(&format!("outside int<{width}>")), "{error}");
        }
        let error = parse("-129", 8, 1).expect_err("below");
        assert_eq!(error, "`-129` is outside int<8> (-128..=127)");
        assert!(parse("-x", 8, 1).is_err());
        assert!(parse("--1", 8, 1).is_err());
    }

    #[test]
    fn bit_strings_refuse_a_sign() {
        let error = parse_either("-5", 8, false, 1, Ints::Strict).expect_err("unsigned");
        assert_eq!(error, "`-5` is negative, and bit<8> holds no sign");
        assert_eq!(
            parse_either("0xff", 8, false, 2, Ints::Strict),
            Ok(vec![0, 0xff])
        );
        assert_eq!(
            parse_either("-1", 8, true, 2, Ints::Strict),
            Ok(vec![0xff, 0xff])
        );
    }

    #[test]
    fn bmv2_scripts_may_write_an_ints_bits() {
        let bits = |text: &str, width: u32, len: usize| {
            parse_either(text, width, true, len, Ints::BitsToo)
        };
        assert_eq!(bits("9", 4, 1), Ok(vec![0xf9])); // -7, sign-extended
        assert_eq!(bits("0xffe", 12, 2), Ok(vec![0xff, 0xfe]));
        assert_eq!(bits("0x7ff", 12, 2), Ok(vec![0x07, 0xff]));
        assert_eq!(
            bits("0x80", 8, 8),
            Ok(vec![0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x80])
        );
        assert_eq!(bits("-7", 4, 1), Ok(vec![0xf9]));
        assert!(bits("16", 4, 1).is_err());
        assert!(parse_either("9", 4, true, 1, Ints::Strict).is_err());
    }

    #[test]
    fn table_fields_take_negatives_as_their_w_bits() {
        assert_eq!(parse_bits("-2", 12, true), Ok(vec![0x0f, 0xfe]));
        assert_eq!(parse_bits("-0x80", 8, true), Ok(vec![0x80]));
        assert_eq!(parse_bits("0xfff", 12, true), Ok(vec![0x0f, 0xff]));
        assert!(parse_bits("-2049", 12, true).is_err());
        assert!(parse_bits("-1", 12, false).is_err());
    }

    #[test]
    fn flipping_the_sign_bit_orders_ints_as_unsigned_numbers() {
        let flipped = |text: &str, width: u32| {
            let mut bits = parse_bits(text, width, true).unwrap_or_default();
            flip_sign(&mut bits, width);
            bits
        };
        assert_eq!(flipped("-128", 8), vec![0x00]);
        assert_eq!(flipped("-1", 8), vec![0x7f]);
        assert_eq!(flipped("0", 8), vec![0x80]);
        assert_eq!(flipped("127", 8), vec![0xff]);
        assert_eq!(flipped("-2048", 12), vec![0x00, 0x00]);
        assert_eq!(flipped("5", 12), vec![0x08, 0x05]);
        assert!(flipped("-5", 12) < flipped("5", 12));
    }

    #[test]
    fn cells_show_as_signed_numbers() {
        assert_eq!(show(&[0xfb], 8), "-5");
        assert_eq!(show(&[0x80], 8), "-128");
        assert_eq!(show(&[0x7f], 8), "127");
        assert_eq!(show(&[0xff, 0xfe], 12), "-2");
        assert_eq!(show(&[0x0f, 0xfe], 12), "-2"); // bits above W ignored
        assert_eq!(show(&[0x07, 0xff], 12), "2047");
        assert_eq!(
            show(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0], 33),
            "-4294967296"
        );
        assert_eq!(
            show(&[0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff], 33),
            "4294967295"
        );
        assert_eq!(show(&[0], 8), "0");
    }
}
