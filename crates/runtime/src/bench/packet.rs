//! The benchmark packet: 64 bytes of Ethernet, IPv4 and UDP with valid
//! checksums, from 10.0.0.1:1234 to 10.0.0.2:5678, MACs 02:..:01 to
//! 02:..:02. Programs under test see the same bytes as their twins.

pub const LENGTH: usize = 64;
pub const DST_MAC: [u8; 6] = [2, 0, 0, 0, 0, 2];
pub const SRC_MAC: [u8; 6] = [2, 0, 0, 0, 0, 1];
pub const SRC_IP: [u8; 4] = [10, 0, 0, 1];
pub const DST_IP: [u8; 4] = [10, 0, 0, 2];

/// The packet, with `dst_ip` as the IPv4 destination.
pub fn udp_packet(dst_ip: [u8; 4]) -> Vec<u8> {
    let mut p = Vec::with_capacity(LENGTH);
    p.extend_from_slice(&DST_MAC);
    p.extend_from_slice(&SRC_MAC);
    p.extend_from_slice(&[0x08, 0x00]);
    let ip_len = (LENGTH - 14) as u16;
    let mut ip = vec![0x45, 0, 0, 0, 0, 1, 0, 0, 64, 17, 0, 0];
    ip[2..4].copy_from_slice(&ip_len.to_be_bytes());
    ip.extend_from_slice(&SRC_IP);
    ip.extend_from_slice(&dst_ip);
    let check = !ones_complement_sum(&ip);
    ip[10..12].copy_from_slice(&check.to_be_bytes());
    p.extend_from_slice(&ip);
    let udp_len = ip_len - 20;
    let payload: Vec<u8> = (0..udp_len - 8).map(|i| i as u8).collect();
    let mut pseudo = Vec::new();
    pseudo.extend_from_slice(&SRC_IP);
    pseudo.extend_from_slice(&dst_ip);
    pseudo.extend_from_slice(&[0, 17]);
    pseudo.extend_from_slice(&udp_len.to_be_bytes());
    let mut udp = Vec::new();
    udp.extend_from_slice(&1234u16.to_be_bytes());
    udp.extend_from_slice(&5678u16.to_be_bytes());
    udp.extend_from_slice(&udp_len.to_be_bytes());
    udp.extend_from_slice(&[0, 0]);
    udp.extend_from_slice(&payload);
    pseudo.extend_from_slice(&udp);
    let check = !ones_complement_sum(&pseudo);
    udp[6..8].copy_from_slice(&check.to_be_bytes());
    p.extend_from_slice(&udp);
    p
}

/// RFC 1071 sum of 16-bit big-endian words (an odd byte padded with zero).
pub fn ones_complement_sum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes
        .chunks(2)
        .map(|c| u32::from(c[0]) << 8 | u32::from(c.get(1).copied().unwrap_or(0)))
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_is_64_bytes_with_valid_checksums() {
        let p = udp_packet(DST_IP);
        assert_eq!(p.len(), LENGTH);
        assert_eq!(ones_complement_sum(&p[14..34]), 0xffff);
        let mut pseudo = p[26..34].to_vec();
        pseudo.extend_from_slice(&[0, 17, 0, 30]);
        pseudo.extend_from_slice(&p[34..]);
        assert_eq!(ones_complement_sum(&pseudo), 0xffff);
    }
}
