//! 5-tuple ACL workloads for the classifier (`bench/classbench/acl.p4`):
//! ClassBench rule sets and header traces read from their text format, a
//! generator of rule sets with unrelated masks and ranges (to test shapes
//! no shared set has), the linear scan that is the right answer, and the
//! table entries and packets that put them through a loaded program.

use crate::entry::EntrySpec;

/// One ACL rule; the first matching rule of a list wins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AclRule {
    /// (value, mask): any mask, not only a prefix.
    pub src: (u32, u32),
    pub dst: (u32, u32),
    /// Inclusive ranges.
    pub sport: (u16, u16),
    pub dport: (u16, u16),
    pub proto: (u8, u8),
}

/// The header fields the ACL reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    pub src: u32,
    pub dst: u32,
    pub sport: u16,
    pub dport: u16,
    pub proto: u8,
}

impl AclRule {
    pub fn matches(&self, h: &Header) -> bool {
        h.src & self.src.1 == self.src.0
            && h.dst & self.dst.1 == self.dst.0
            && (self.sport.0..=self.sport.1).contains(&h.sport)
            && (self.dport.0..=self.dport.1).contains(&h.dport)
            && h.proto & self.proto.1 == self.proto.0
    }

    /// The table entry of rule `index` of `count`: action `hit(rule =
    /// index + 1)`, priority `count - index` (P4Runtime: higher wins, and
    /// the list's first rule wins).
    pub fn entry(&self, index: usize, count: usize) -> EntrySpec {
        let ip = |(v, m): (u32, u32)| {
            format!(
                "{}&&&{}",
                std::net::Ipv4Addr::from(v),
                std::net::Ipv4Addr::from(m)
            )
        };
        EntrySpec {
            keys: vec![
                (0, ip(self.src)),
                (1, ip(self.dst)),
                (2, format!("{}..{}", self.sport.0, self.sport.1)),
                (3, format!("{}..{}", self.dport.0, self.dport.1)),
                (4, format!("{}&&&{}", self.proto.0, self.proto.1)),
            ],
            action: 0,
            args: vec![(0, (index + 1).to_string())],
            priority: Some((count - index) as u32),
        }
    }
}

impl Header {
    /// An Ethernet/IPv4 frame with the ports after the IPv4 header; the
    /// destination MAC is all ones (a hit overwrites it with the rule).
    pub fn packet(&self) -> Vec<u8> {
        let mut p = vec![0xff; 6];
        p.extend_from_slice(&[0x02, 0, 0, 0, 0, 1, 0x08, 0x00]);
        p.extend_from_slice(&[0x45, 0, 0, 40, 0, 0, 0, 0, 64, self.proto, 0, 0]);
        p.extend_from_slice(&self.src.to_be_bytes());
        p.extend_from_slice(&self.dst.to_be_bytes());
        p.extend_from_slice(&self.sport.to_be_bytes());
        p.extend_from_slice(&self.dport.to_be_bytes());
        p.resize(14 + 40, 0);
        p
    }

    /// The exact-table entry keyed by this header (action `hit(rule)`).
    pub fn exact_entry(&self, rule: usize) -> EntrySpec {
        EntrySpec {
            keys: vec![
                (0, std::net::Ipv4Addr::from(self.src).to_string()),
                (1, std::net::Ipv4Addr::from(self.dst).to_string()),
                (2, self.sport.to_string()),
                (3, self.dport.to_string()),
                (4, self.proto.to_string()),
            ],
            action: 0,
            args: vec![(0, rule.to_string())],
            priority: None,
        }
    }
}

/// The rule a packet's output names (the destination MAC a hit writes),
/// 1-based, or `None` for a packet left as it came (a miss).
pub fn rule_of_output(packet: &[u8]) -> Option<usize> {
    let mac = packet.get(..6)?;
    if mac.iter().all(|b| *b == 0xff) {
        return None;
    }
    Some(mac.iter().fold(0usize, |n, b| n << 8 | usize::from(*b)))
}

/// The first rule of `rules` that `h` matches (0-based).
pub fn first_match(rules: &[AclRule], h: &Header) -> Option<usize> {
    rules.iter().position(|r| r.matches(h))
}

fn prefix(len: u32) -> u32 {
    u32::MAX.checked_shl(32 - len.min(32)).unwrap_or(0)
}

fn number<T: std::str::FromStr>(text: &str, line: usize) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("line {line}: `{text}` is not a number"))
}

fn hex_u8(text: &str, line: usize) -> Result<u8, String> {
    u8::from_str_radix(text.trim().trim_start_matches("0x"), 16)
        .map_err(|_| format!("line {line}: `{text}` is not a hex byte"))
}

fn address(text: &str, line: usize) -> Result<(u32, u32), String> {
    let (addr, len) = text
        .split_once('/')
        .ok_or_else(|| format!("line {line}: `{text}` is not ADDRESS/LENGTH"))?;
    let addr: std::net::Ipv4Addr = number(addr, line)?;
    let mask = prefix(number(len, line)?);
    Ok((u32::from(addr) & mask, mask))
}

fn range(text: &str, line: usize) -> Result<(u16, u16), String> {
    let (lo, hi) = text
        .split_once(':')
        .ok_or_else(|| format!("line {line}: `{text}` is not LO : HI"))?;
    Ok((number(lo, line)?, number(hi, line)?))
}

/// A ClassBench rule file: `@SRC/LEN DST/LEN LO : HI LO : HI PROTO/MASK
/// FLAGS/MASK` a line, tab-separated, best first (flags ignored).
pub fn parse_rules(text: &str) -> Result<Vec<AclRule>, String> {
    let mut rules = vec![];
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let n = i + 1;
        let fields: Vec<&str> = line.trim_start_matches('@').split('\t').collect();
        let [src, dst, sport, dport, proto, ..] = fields.as_slice() else {
            return Err(format!("line {n}: fewer than five fields"));
        };
        let (value, mask) = proto
            .split_once('/')
            .ok_or_else(|| format!("line {n}: `{proto}` is not PROTO/MASK"))?;
        let mask = hex_u8(mask, n)?;
        rules.push(AclRule {
            src: address(src, n)?,
            dst: address(dst, n)?,
            sport: range(sport, n)?,
            dport: range(dport, n)?,
            proto: (hex_u8(value, n)? & mask, mask),
        });
    }
    Ok(rules)
}

/// A ClassBench trace: `SRC DST SPORT DPORT PROTO ...` a line, decimal.
pub fn parse_trace(text: &str) -> Result<Vec<Header>, String> {
    let mut headers = vec![];
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let n = i + 1;
        let words: Vec<&str> = line.split_whitespace().collect();
        let [src, dst, sport, dport, proto, ..] = words.as_slice() else {
            return Err(format!("line {n}: fewer than five fields"));
        };
        headers.push(Header {
            src: number(src, n)?,
            dst: number(dst, n)?,
            sport: number(sport, n)?,
            dport: number(dport, n)?,
            proto: number(proto, n)?,
        });
    }
    Ok(headers)
}

/// xorshift64*: reproducible test data without a dependency.
pub struct Random(u64);

impl Random {
    pub fn new(seed: u64) -> Random {
        Random(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// A mask of one of the shapes ACLs and adversaries write: a prefix,
    /// a prefix with holes, arbitrary bits, none, all.
    fn mask(&mut self) -> u32 {
        let bits = self.next_u64() as u32;
        match self.below(5) {
            0 => prefix(self.below(33) as u32),
            1 => prefix(self.below(33) as u32) & (bits | bits >> 7),
            2 => bits,
            3 => 0,
            _ => u32::MAX,
        }
    }

    fn port_range(&mut self) -> (u16, u16) {
        let a = self.next_u64() as u16;
        match self.below(4) {
            0 => (0, u16::MAX),
            1 => (a, a),
            2 => (a.min(1024), a.max(1024)),
            _ => {
                let b = self.next_u64() as u16;
                (a.min(b), a.max(b))
            }
        }
    }
}

/// `count` distinct rules of unrelated masks and ranges: no two masks
/// need nest.
pub fn random_rules(seed: u64, count: usize) -> Vec<AclRule> {
    let mut r = Random::new(seed);
    let mut seen = std::collections::HashSet::new();
    let mut rules = Vec::with_capacity(count);
    while rules.len() < count {
        let (sm, dm) = (r.mask(), r.mask());
        let proto_mask = [0, 0xff, 0x0f][r.below(3) as usize];
        let rule = AclRule {
            src: (r.next_u64() as u32 & sm, sm),
            dst: (r.next_u64() as u32 & dm, dm),
            sport: r.port_range(),
            dport: r.port_range(),
            proto: (r.next_u64() as u8 & proto_mask, proto_mask),
        };
        if seen.insert(format!("{rule:?}")) {
            rules.push(rule);
        }
    }
    rules
}

/// `count` headers: most drawn inside a random rule (so rules overlap and
/// priorities decide), the rest anywhere.
pub fn random_headers(seed: u64, rules: &[AclRule], count: usize) -> Vec<Header> {
    let mut r = Random::new(seed);
    let inside = |value: u32, mask: u32, noise: u32| value | (noise & !mask);
    let in_range =
        |(lo, hi): (u16, u16), noise: u64| lo + (noise % (u64::from(hi - lo) + 1)) as u16;
    (0..count)
        .map(|_| {
            let free = Header {
                src: r.next_u64() as u32,
                dst: r.next_u64() as u32,
                sport: r.next_u64() as u16,
                dport: r.next_u64() as u16,
                proto: r.next_u64() as u8,
            };
            match rules.get(r.below(rules.len() as u64) as usize) {
                Some(rule) if r.below(4) > 0 => Header {
                    src: inside(rule.src.0, rule.src.1, free.src),
                    dst: inside(rule.dst.0, rule.dst.1, free.dst),
                    sport: in_range(rule.sport, r.next_u64()),
                    dport: in_range(rule.dport, r.next_u64()),
                    proto: rule.proto.0 | (free.proto & !rule.proto.1),
                },
                _ => free,
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;

    #[test]
    fn classbench_lines_parse_into_rules_and_headers() {
        let rules = parse_rules(
            "@169.2.247.192/29\t169.2.241.72/29\t161 : 161\t0 : 65535\t0x11/0xFF\t0x0000/0x0000\t\n",
        )
        .unwrap();
        assert_eq!(rules[0].src, (0xa902f7c0, 0xfffffff8));
        assert_eq!(rules[0].sport, (161, 161));
        assert_eq!(rules[0].proto, (17, 0xff));
        let trace = parse_trace("2835544001\t2835542345\t161\t22\t17\t0\t1\n").unwrap();
        assert!(rules[0].matches(&trace[0]));
        assert!(parse_rules("@1.2.3.4/8\tbad\n").is_err());
    }

    #[test]
    fn drawn_headers_match_the_rule_they_come_from() {
        let rules = random_rules(7, 50);
        let headers = random_headers(8, &rules, 400);
        let hits = headers
            .iter()
            .filter(|h| first_match(&rules, h).is_some())
            .count();
        assert!(hits > 200, "{hits} of 400");
        assert_eq!(rule_of_output(&[0, 0, 0, 0, 1, 2]), Some(258));
        assert_eq!(rule_of_output(&headers[0].packet()), None);
    }
}
