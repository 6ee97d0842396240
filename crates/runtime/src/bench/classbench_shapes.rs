//! Rule sets shaped like ClassBench's seed families, generated: the two
//! shared sets are one firewall and one IP-chain seed, and the classifier
//! must hold the others too. Each [`Shape`] draws a rule's prefix lengths,
//! ports and protocol from the mix its family shows (Taylor and Turner,
//! "ClassBench", 2005/2007: port classes WC, HI, LO, AR, EM):
//!
//! - `acl`: the two lengths drawn apart, so hundreds of (source,
//!   destination) length pairs; destination ports mostly exact, source
//!   ports wild; TCP mostly.
//! - `fw`: wildcards in either address for many rules, port ranges on both
//!   sides (1024-65535, arbitrary), any protocol for some.
//! - `ipc`: lengths on /16, /24 and /32 mostly, exact ports, TCP and UDP.
//!
//! Addresses come from a few subnets so rules nest and overlap as real
//! ones do, and rules are listed most specific first, as ClassBench's
//! are (the shared fw1 and ipc1 too). `classbench::random_headers` gives their traces: packets
//! inside rules drawn uniformly (so every group is hit) and some anywhere.

use super::classbench::{AclRule, Random};

/// A family of rule sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Acl,
    Fw,
    Ipc,
}

impl Shape {
    pub const ALL: [Shape; 3] = [Shape::Acl, Shape::Fw, Shape::Ipc];

    pub fn name(self) -> &'static str {
        match self {
            Shape::Acl => "acl",
            Shape::Fw => "fw",
            Shape::Ipc => "ipc",
        }
    }

    /// (weight, shortest, longest) prefix lengths of sources, then of
    /// destinations.
    fn lengths(self) -> [&'static [(u64, u32, u32)]; 2] {
        match self {
            Shape::Acl => [
                &[
                    (20, 0, 0),
                    (5, 8, 15),
                    (15, 16, 23),
                    (35, 24, 31),
                    (25, 32, 32),
                ],
                &[(5, 0, 0), (10, 16, 23), (40, 24, 31), (45, 32, 32)],
            ],
            Shape::Fw => [
                &[
                    (35, 0, 0),
                    (10, 8, 15),
                    (15, 16, 23),
                    (25, 24, 31),
                    (15, 32, 32),
                ],
                &[(25, 0, 0), (15, 16, 23), (30, 24, 31), (30, 32, 32)],
            ],
            Shape::Ipc => [
                &[
                    (10, 0, 0),
                    (20, 16, 16),
                    (35, 24, 24),
                    (25, 32, 32),
                    (10, 8, 31),
                ],
                &[
                    (10, 0, 0),
                    (20, 16, 16),
                    (35, 24, 24),
                    (25, 32, 32),
                    (10, 8, 31),
                ],
            ],
        }
    }

    /// Weights of the port classes WC, HI, LO, AR, EM: source, destination.
    fn ports(self) -> [[u64; 5]; 2] {
        match self {
            Shape::Acl => [[90, 0, 0, 2, 8], [15, 5, 3, 7, 70]],
            Shape::Fw => [[70, 10, 0, 10, 10], [30, 15, 5, 10, 40]],
            Shape::Ipc => [[45, 5, 0, 5, 45], [20, 5, 5, 5, 65]],
        }
    }

    /// Weights of TCP, UDP, ICMP and any protocol.
    fn protocols(self) -> [u64; 4] {
        match self {
            Shape::Acl => [80, 14, 1, 5],
            Shape::Fw => [50, 20, 5, 25],
            Shape::Ipc => [45, 45, 5, 5],
        }
    }
}

/// An index drawn with the given weights.
fn pick(random: &mut Random, weights: &[u64]) -> usize {
    let mut at = random.next_u64() % weights.iter().sum::<u64>().max(1);
    for (i, w) in weights.iter().enumerate() {
        if at < *w {
            return i;
        }
        at -= w;
    }
    0
}

fn length(random: &mut Random, spans: &[(u64, u32, u32)]) -> u32 {
    let weights: Vec<u64> = spans.iter().map(|(w, _, _)| *w).collect();
    let (_, shortest, longest) = spans
        .get(pick(random, &weights))
        .copied()
        .unwrap_or_default();
    shortest + (random.next_u64() % u64::from(longest - shortest + 1)) as u32
}

/// Where a family's addresses live: 8 subnets (/24s) in each of 24
/// sites (/16s).
fn subnets(random: &mut Random) -> Vec<u32> {
    let sites: Vec<u32> = (0..24)
        .map(|_| random.next_u64() as u32 & 0xffff_0000)
        .collect();
    (sites.iter())
        .flat_map(|site| [*site; 8])
        .map(|site| site | (random.next_u64() as u32 & 0xff00))
        .collect()
}

/// A prefix of `len` bits inside one of `subnets`, as (value, mask).
fn prefix(random: &mut Random, subnets: &[u32], len: u32) -> (u32, u32) {
    let subnet = subnets
        .get((random.next_u64() % subnets.len().max(1) as u64) as usize)
        .copied()
        .unwrap_or_default();
    let address = subnet | (random.next_u64() as u32 & 0xff);
    let mask = u32::MAX.checked_shl(32 - len.min(32)).unwrap_or(0);
    (address & mask, mask)
}

/// A port range of class WC, HI, LO, AR or EM.
fn port_range(random: &mut Random, weights: &[u64; 5]) -> (u16, u16) {
    const WELL_KNOWN: [u16; 8] = [21, 22, 25, 53, 80, 123, 443, 8080];
    let known = WELL_KNOWN[(random.next_u64() % 8) as usize];
    match pick(random, weights) {
        0 => (0, u16::MAX),
        1 => (1024, u16::MAX),
        2 => (0, 1023),
        3 => {
            let lo = random.next_u64() as u16;
            (lo, lo.saturating_add(random.next_u64() as u16 % 2048))
        }
        _ if random.next_u64().is_multiple_of(2) => (known, known),
        _ => {
            let port = random.next_u64() as u16;
            (port, port)
        }
    }
}

/// `count` distinct rules of `shape`, from `seed`.
pub fn shaped_rules(shape: Shape, seed: u64, count: usize) -> Vec<AclRule> {
    let mut random = Random::new(seed);
    let (sources, destinations) = (subnets(&mut random), subnets(&mut random));
    let [src_lengths, dst_lengths] = shape.lengths();
    let [sport, dport] = shape.ports();
    let mut seen = std::collections::HashSet::new();
    let mut rules = Vec::with_capacity(count);
    while rules.len() < count {
        let (src, dst) = (
            length(&mut random, src_lengths),
            length(&mut random, dst_lengths),
        );
        let proto = match pick(&mut random, &shape.protocols()) {
            0 => (6, 0xff),
            1 => (17, 0xff),
            2 => (1, 0xff),
            _ => (0, 0),
        };
        let rule = AclRule {
            src: prefix(&mut random, &sources, src),
            dst: prefix(&mut random, &destinations, dst),
            sport: port_range(&mut random, &sport),
            dport: port_range(&mut random, &dport),
            proto,
        };
        if seen.insert(format!("{rule:?}")) {
            rules.push(rule);
        }
    }
    // As ClassBench lists them: the more address bits fixed, the earlier.
    rules.sort_by_key(|r| std::cmp::Reverse(r.src.1.count_ones() + r.dst.1.count_ones()));
    rules
}

#[cfg(test)]
#[allow(clippy::panic, clippy::unwrap_used)] // a failing test should stop loudly
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn length_pairs(rules: &[AclRule]) -> usize {
        let pairs: HashSet<(u32, u32)> = (rules.iter())
            .map(|r| (r.src.1.count_ones(), r.dst.1.count_ones()))
            .collect();
        pairs.len()
    }

    #[test]
    fn each_shape_has_its_family_mix() {
        let acl = shaped_rules(Shape::Acl, 1, 10_000);
        let fw = shaped_rules(Shape::Fw, 1, 10_000);
        let ipc = shaped_rules(Shape::Ipc, 1, 10_000);
        assert!(length_pairs(&acl) > 200, "acl: {}", length_pairs(&acl));
        assert!(length_pairs(&ipc) < length_pairs(&acl));
        let wild = |rules: &[AclRule]| {
            rules
                .iter()
                .filter(|r| r.src.1 == 0 || r.dst.1 == 0)
                .count()
        };
        assert!(
            wild(&fw) > 4000 && wild(&acl) < wild(&fw),
            "{} {}",
            wild(&fw),
            wild(&acl)
        );
        let exact_dport =
            |rules: &[AclRule]| rules.iter().filter(|r| r.dport.0 == r.dport.1).count();
        assert!(exact_dport(&acl) > 6000 && exact_dport(&fw) < exact_dport(&acl));
        // Most specific first; reproducible from the seed, another seed
        // another set.
        let fixed = |r: &AclRule| r.src.1.count_ones() + r.dst.1.count_ones();
        assert!(fw.windows(2).all(|w| fixed(&w[0]) >= fixed(&w[1])));
        assert_eq!(shaped_rules(Shape::Fw, 1, 10_000), fw);
        assert_ne!(shaped_rules(Shape::Fw, 2, 10_000), fw);
    }
}
