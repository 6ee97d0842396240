//! An `expect` pattern: hex nibbles where `*` matches any nibble, and a
//! trailing `$` demanding the packet end there (otherwise longer packets
//! match on their prefix, as in the reference harness). Also renders a
//! mismatch as the two hex strings with a marker under each differing nibble.

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// `None` for a `*` wildcard.
    pub nibbles: Vec<Option<u8>>,
    pub exact_length: bool,
}

impl Pattern {
    pub fn parse(text: &str) -> Result<Pattern, String> {
        let mut nibbles = Vec::new();
        let mut exact_length = false;
        for c in text.chars().filter(|c| !c.is_whitespace()) {
            if exact_length {
                return Err("`$` must end the expected packet".into());
            }
            match c {
                '*' => nibbles.push(None),
                '$' => exact_length = true,
                _ => nibbles.push(Some(
                    c.to_digit(16)
                        .ok_or_else(|| format!("`{c}` is not a hex digit or `*`"))?
                        as u8,
                )),
            }
        }
        Ok(Pattern {
            nibbles,
            exact_length,
        })
    }

    pub fn matches(&self, packet: &[u8]) -> bool {
        let got = nibbles_of(packet);
        if got.len() < self.nibbles.len() || (self.exact_length && got.len() != self.nibbles.len())
        {
            return false;
        }
        self.nibbles
            .iter()
            .zip(&got)
            .all(|(want, have)| want.is_none_or(|w| w == *have))
    }

    /// Three lines: expected, got, and `^` under every nibble that differs
    /// (including missing or extra ones), grouped by 4 bytes.
    pub fn diff(&self, packet: &[u8]) -> String {
        let got = nibbles_of(packet);
        let shown = if self.exact_length {
            got.len().max(self.nibbles.len())
        } else {
            self.nibbles.len().max(got.len())
        };
        let (mut want_line, mut got_line, mut marks) =
            (String::new(), String::new(), String::new());
        for index in 0..shown {
            if index > 0 && index % 8 == 0 {
                want_line.push(' ');
                got_line.push(' ');
                marks.push(' ');
            }
            let want = self.nibbles.get(index);
            let have = got.get(index);
            want_line.push(match want {
                Some(Some(n)) => hex_digit(*n),
                Some(None) => '*',
                None => ' ',
            });
            got_line.push(have.map_or(' ', |n| hex_digit(*n)));
            let differs = match (want, have) {
                (Some(Some(w)), Some(h)) => w != h,
                (Some(None), Some(_)) => false,
                (None, Some(_)) => self.exact_length,
                (Some(_), None) => true,
                (None, None) => false,
            };
            marks.push(if differs { '^' } else { ' ' });
        }
        let length_note = if self.exact_length {
            ", exact length"
        } else {
            ""
        };
        [
            format!(
                "expected: {} ({} bytes{length_note})",
                want_line.trim_end(),
                self.nibbles.len() / 2
            ),
            format!("got:      {} ({} bytes)", got_line.trim_end(), packet.len()),
            format!("          {}", marks.trim_end()),
        ]
        .join("\n")
    }
}

fn nibbles_of(packet: &[u8]) -> Vec<u8> {
    packet.iter().flat_map(|b| [b >> 4, b & 0x0f]).collect()
}

fn hex_digit(nibble: u8) -> char {
    char::from_digit(u32::from(nibble), 16).unwrap_or('?')
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;

    #[test]
    fn wildcards_and_length() {
        let loose = Pattern::parse("01 **** 02").unwrap_or_else(|e| panic!("{e}"));
        assert!(loose.matches(&[0x01, 0xab, 0xcd, 0x02]));
        assert!(loose.matches(&[0x01, 0xab, 0xcd, 0x02, 0xff]));
        assert!(!loose.matches(&[0x01, 0xab, 0xcd, 0x03]));
        assert!(!loose.matches(&[0x01]));
        let exact = Pattern::parse("01 ** $").unwrap_or_else(|e| panic!("{e}"));
        assert!(exact.matches(&[1, 2]) && !exact.matches(&[1, 2, 3]));
        assert!(Pattern::parse("01 $ 02").is_err());
        assert!(Pattern::parse("0g").is_err());
    }

    #[test]
    fn diff_marks_changed_and_missing_nibbles() {
        let pattern = Pattern::parse("0102 03").unwrap_or_else(|e| panic!("{e}"));
        let diff = pattern.diff(&[0x01, 0x12]);
        let lines: Vec<&str> = diff.lines().collect();
        assert_eq!(lines[0], "expected: 010203 (3 bytes)");
        assert_eq!(lines[1], "got:      0112 (2 bytes)");
        assert_eq!(lines[2], "            ^ ^^");
    }
}
