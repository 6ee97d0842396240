//! Plain `BPF_PROG_TEST_RUN` timing: the kernel runs the program `repeat`
//! times on one packet buffer and reports the average ns per run. A program
//! that grows the packet runs out of headroom after a few repeats here (the
//! buffer is reused), so such programs are timed with `live` instead.

use crate::error::{Result, RuntimeError};
use crate::test_run;

/// One timed call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// The kernel's average ns per run (whole nanoseconds, truncated).
    pub kernel_ns: f64,
    /// This thread's CPU time for the whole call divided by `repeat`:
    /// fractional, so ratios of ~27 ns programs are not quantised to 4%
    /// steps. CPU time, not wall time: on a shared machine the kernel
    /// reschedules inside long test runs, and wall time would count the
    /// other processes (the kernel's own timer pauses there too). The
    /// call's fixed cost (about a microsecond) is spread over the repeats.
    pub cpu_ns: f64,
    pub verdict: u32,
}

/// Time `repeat` runs of program `fd` on `packet`.
pub fn time_plain(fd: i32, packet: &[u8], repeat: u32) -> Result<Timing> {
    let start = thread_cpu_ns();
    let output = test_run::run(fd, packet, repeat)?;
    let spent = thread_cpu_ns().saturating_sub(start);
    if output.duration_ns == 0 {
        return Err(RuntimeError::NotSupported(
            "the kernel reported 0 ns: the timer is not available".into(),
        ));
    }
    Ok(Timing {
        kernel_ns: f64::from(output.duration_ns),
        cpu_ns: spent as f64 / f64::from(repeat.max(1)),
        verdict: output.retval,
    })
}

/// `timespec` of `clock_gettime`.
#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

/// `CLOCK_THREAD_CPUTIME_ID`.
const THREAD_CPU_CLOCK: i32 = 3;

extern "C" {
    fn clock_gettime(clock: i32, time: *mut Timespec) -> i32;
}

/// CPU time this thread has used, in ns (0 if the clock cannot be read).
fn thread_cpu_ns() -> u64 {
    let mut time = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    // SAFETY: writes one timespec we own.
    if unsafe { clock_gettime(THREAD_CPU_CLOCK, &mut time) } != 0 {
        return 0;
    }
    (time.seconds as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(time.nanoseconds as u64)
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
