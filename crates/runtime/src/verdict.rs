//! What a program's return value means for the packet, per hook: dropped,
//! passed to the stack, sent back out (XDP_TX) or redirected to a port.

use p4bpf_layout::Hook;
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Aborted,
    Drop,
    Pass,
    Transmit,
    Redirect,
    /// A return value the hook does not define.
    Unknown(u32),
}

impl Verdict {
    pub fn from_retval(hook: Hook, retval: u32) -> Verdict {
        match hook {
            Hook::Xdp => match retval {
                0 => Verdict::Aborted,
                1 => Verdict::Drop,
                2 => Verdict::Pass,
                3 => Verdict::Transmit,
                4 => Verdict::Redirect,
                other => Verdict::Unknown(other),
            },
            // TC_ACT_UNSPEC (-1) and TC_ACT_OK let the packet go on.
            Hook::Tc => match retval as i32 {
                -1 | 0 => Verdict::Pass,
                2 => Verdict::Drop,
                7 => Verdict::Redirect,
                _ => Verdict::Unknown(retval),
            },
        }
    }

    /// Whether a packet leaves the pipeline at all.
    pub fn delivers(self) -> bool {
        matches!(self, Verdict::Pass | Verdict::Transmit | Verdict::Redirect)
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Aborted => write!(f, "aborted"),
            Verdict::Drop => write!(f, "drop"),
            Verdict::Pass => write!(f, "pass"),
            Verdict::Transmit => write!(f, "tx"),
            Verdict::Redirect => write!(f, "redirect"),
            Verdict::Unknown(code) => write!(f, "unknown verdict {code}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tc_minus_one_passes_and_xdp_codes_map() {
        assert_eq!(Verdict::from_retval(Hook::Tc, u32::MAX), Verdict::Pass);
        assert_eq!(Verdict::from_retval(Hook::Tc, 2), Verdict::Drop);
        assert_eq!(Verdict::from_retval(Hook::Xdp, 4), Verdict::Redirect);
        assert!(!Verdict::from_retval(Hook::Xdp, 0).delivers());
    }
}
