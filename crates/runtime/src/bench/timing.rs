//! Plain `BPF_PROG_TEST_RUN` timing: the kernel runs the program `repeat`
//! times on one packet buffer and reports the average ns per run. A program
//! that grows the packet runs out of headroom after a few repeats here (the
//! buffer is reused), so such programs are timed with `live` instead.

use crate::error::{Result, RuntimeError};
use crate::test_run;

/// Average ns per run of program `fd` over `repeat` runs, and its verdict.
pub fn time_plain(fd: i32, packet: &[u8], repeat: u32) -> Result<(f64, u32)> {
    let output = test_run::run(fd, packet, repeat)?;
    if output.duration_ns == 0 {
        return Err(RuntimeError::NotSupported(
            "the kernel reported 0 ns: the timer is not available".into(),
        ));
    }
    Ok((f64::from(output.duration_ns), output.retval))
}

/// Median of `samples` (mean of the two middle ones for an even count);
/// `None` when empty.
pub fn median(samples: &[f64]) -> Option<f64> {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 1 => sorted.get(middle).copied(),
        _ => Some((sorted.get(middle - 1)? + sorted.get(middle)?) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_even_and_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
