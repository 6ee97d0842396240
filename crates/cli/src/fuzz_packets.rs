//! Packets for differential fuzzing: a small seeded generator (xorshift64*,
//! so a seed replays the same run) making random frames and mutations of
//! the seed packets: truncated headers, wrong lengths, flipped and random
//! bytes, appended junk. Seeds are the STF file's packets; without them,
//! Ethernet + IPv4 + UDP/TCP frames with random fields.

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // Zero is xorshift's fixed point.
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..bound` (0 when `bound` is 0).
    pub fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            0
        } else {
            (self.next() % bound as u64) as usize
        }
    }

    fn byte(&mut self) -> u8 {
        self.next() as u8
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.byte()).collect()
    }
}

/// One packet seen by the program: its input port and bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Packet {
    pub port: u32,
    pub data: Vec<u8>,
}

/// The next fuzz packet: mostly mutated seeds, some wholly random.
pub fn next_packet(rng: &mut Rng, seeds: &[Packet]) -> Packet {
    let base = match rng.below(8) {
        0 => Packet {
            port: rng.below(4) as u32,
            data: {
                let n = 14 + rng.below(120);
                rng.bytes(n)
            },
        },
        1 | 2 => ipv4_frame(rng),
        _ => match seeds.get(rng.below(seeds.len())) {
            Some(seed) => seed.clone(),
            None => ipv4_frame(rng),
        },
    };
    let mutations = rng.below(4);
    (0..mutations).fold(base, |p, _| mutate(rng, p))
}

fn ipv4_frame(rng: &mut Rng) -> Packet {
    let mut data = rng.bytes(12);
    data.extend_from_slice(&[0x08, 0x00]);
    let payload = rng.below(40);
    let protocol = [6u8, 17, 1, rng.byte()][rng.below(4)];
    let total = (20 + 8 + payload) as u16;
    data.extend_from_slice(&[0x45, rng.byte()]);
    data.extend_from_slice(&total.to_be_bytes());
    data.extend(rng.bytes(4));
    data.extend_from_slice(&[rng.byte(), protocol, 0, 0]);
    data.extend(rng.bytes(8 + 8 + payload));
    Packet {
        port: rng.below(4) as u32,
        data,
    }
}

fn mutate(rng: &mut Rng, mut p: Packet) -> Packet {
    let len = p.data.len();
    match rng.below(6) {
        // A truncated header (never below the kernel's 14-byte minimum).
        0 if len > 14 => p.data.truncate(14 + rng.below(len - 14)),
        1 => {
            if let Some(b) = p.data.get_mut(rng.below(len)) {
                *b ^= 1 << rng.below(8);
            }
        }
        2 => {
            if let Some(b) = p.data.get_mut(rng.below(len)) {
                *b = rng.next() as u8;
            }
        }
        // A wrong length or type field: a 16-bit word at an even offset.
        3 => {
            let at = rng.below(len / 2) * 2;
            let word = [
                0u16,
                1,
                0xffff,
                20,
                0x0800,
                0x86dd,
                0x8100,
                rng.next() as u16,
            ];
            let value = word[rng.below(word.len())].to_be_bytes();
            if let Some(slot) = p.data.get_mut(at..at + 2) {
                slot.copy_from_slice(&value);
            }
        }
        4 => {
            let extra = 1 + rng.below(64);
            p.data.extend(rng.bytes(extra));
        }
        _ => p.port = rng.below(4) as u32,
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_replays_the_same_packets() {
        let seeds = [Packet {
            port: 1,
            data: vec![7; 40],
        }];
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..50)
                .map(|_| next_packet(&mut rng, &seeds))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    #[test]
    fn packets_keep_the_kernels_minimum_and_vary() {
        let mut rng = Rng::new(0);
        let packets: Vec<Packet> = (0..2000).map(|_| next_packet(&mut rng, &[])).collect();
        assert!(packets.iter().all(|p| p.data.len() >= 14));
        let lengths: std::collections::BTreeSet<usize> =
            packets.iter().map(|p| p.data.len()).collect();
        assert!(lengths.len() > 50);
        assert!(packets.iter().any(|p| p.data.get(12..14) == Some(&[8, 0])));
    }
}
