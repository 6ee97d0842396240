//! p4bpf's STF command `expire_profile PROFILE NANOSECONDS`: how long an
//! entry of a PNA table with idle timeouts may go without its timer
//! being restarted, for the entries of expire-time profile PROFILE (0:
//! never expires). The compiler keeps the timeouts in one array map,
//! `pna_expire_profiles`, a u64 per profile in host byte order.

use super::parse::Command;
use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;

/// The map the compiler keeps the profiles' timeouts in.
const PROFILES_MAP: &str = "pna_expire_profiles";

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

/// Sets profile `profile`'s timeout.
pub fn set(pipeline: &impl MapSource, profile: u32, nanoseconds: u64) -> Result<()> {
    let map = pipeline
        .map(PROFILES_MAP)
        .map_err(|_| RuntimeError::Value("the program has no table with idle timeouts".into()))?;
    if profile >= map.max_entries() {
        return Err(RuntimeError::Value(format!(
            "expire-time profile {profile} is out of range (0 to {})",
            map.max_entries().saturating_sub(1)
        )));
    }
    map.write(
        &profile.to_ne_bytes(),
        &nanoseconds.to_ne_bytes(),
        Write::Replace,
    )
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
}
