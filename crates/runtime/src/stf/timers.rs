//! p4bpf's STF command `expire_profile PROFILE NANOSECONDS`: how long an
//! entry of a PNA table with idle timeouts may go without its timer
//! being restarted, for the entries of expire-time profile PROFILE (0:
//! never expires). The compiler keeps the timeouts in one array map,
//! `pna_expire_profiles`, a u64 per profile in host byte order. And
//! `idle_sweep COUNT`: the control plane's sweep ([`crate::idle`]) finds
//! COUNT idle entries (deleting those of `AUTO_DELETE` tables).

use super::parse::Command;
use crate::error::{Result, RuntimeError};
use crate::idle::IdleEntry;
use crate::map_source::MapSource;
use crate::packet_target::PacketTarget;

pub fn parse(rest: &str) -> std::result::Result<Command, String> {
    let usage = "usage: expire_profile PROFILE NANOSECONDS";
    let [profile, nanoseconds] = rest.split_whitespace().collect::<Vec<_>>()[..] else {
        return Err(usage.into());
    };
    Ok(Command::ExpireProfile {
        profile: profile
            .parse()
            .map_err(|_| format!("bad expire-time profile `{profile}`: {usage}"))?,
        nanoseconds: nanoseconds
            .parse()
            .map_err(|_| format!("bad timeout `{nanoseconds}`: {usage}"))?,
    })
}

pub fn parse_sweep(rest: &str) -> std::result::Result<Command, String> {
    let expected = rest
        .trim()
        .parse()
        .map_err(|_| format!("bad count `{}`: usage: idle_sweep COUNT", rest.trim()))?;
    Ok(Command::IdleSweep { expected })
}

/// A sweep, which must find `expected` idle entries: what it found.
pub fn sweep(pipeline: &impl PacketTarget, expected: usize) -> Result<Vec<IdleEntry>> {
    let found = crate::idle::sweep(pipeline, pipeline.description())?;
    if found.len() != expected {
        let list: Vec<String> = found.iter().map(ToString::to_string).collect();
        return Err(RuntimeError::Value(format!(
            "the idle sweep found {} idle entries, expected {expected}: {}",
            found.len(),
            list.join("; ")
        )));
    }
    Ok(found)
}

/// Sets profile `profile`'s timeout.
pub fn set(pipeline: &impl MapSource, profile: u32, nanoseconds: u64) -> Result<()> {
    crate::idle::set_profile(pipeline, profile, nanoseconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expire_profile_takes_a_profile_and_nanoseconds() {
        assert_eq!(
            parse("3 1500"),
            Ok(Command::ExpireProfile {
                profile: 3,
                nanoseconds: 1500
            })
        );
        assert!(parse("3").is_err());
        assert!(parse("x 1").is_err_and(|e| e.contains("bad expire-time profile `x`")));
        assert!(parse("1 -5").is_err_and(|e| e.contains("bad timeout `-5`")));
    }

    #[test]
    fn idle_sweep_takes_a_count() {
        assert_eq!(parse_sweep(" 2 "), Ok(Command::IdleSweep { expected: 2 }));
        assert!(parse_sweep("").is_err_and(|e| e.contains("usage: idle_sweep COUNT")));
        assert!(parse_sweep("two").is_err_and(|e| e.contains("bad count `two`")));
    }
}
