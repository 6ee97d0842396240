//! Sets a meter cell of a loaded pipeline: the rates and bursts of a
//! two-rate three-colour meter (RFC 2698), its buckets full, in the cell
//! layout `p4bpf_layout::Meter` describes.

use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;
use p4bpf_layout::Meter;

/// Billionths of a unit: how the buckets count tokens.
const NANO: u64 = 1_000_000_000;

/// A meter's configuration: rates in units (packets or bytes) per
/// second, bursts in units.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MeterConfig {
    pub pir: u64,
    pub pburst: u64,
    pub cir: u64,
    pub cburst: u64,
}

impl MeterConfig {
    /// RFC 2698 asks PIR >= CIR; bursts must fit the buckets' count of
    /// billionths in 64 bits.
    pub(crate) fn check(&self, meter: &str) -> Result<()> {
        let bad = |why: String| Err(RuntimeError::Value(format!("meter `{meter}`: {why}")));
        if self.pir < self.cir {
            return bad(format!(
                "the peak rate {} is below the committed rate {} (RFC 2698 wants PIR >= CIR)",
                self.pir, self.cir
            ));
        }
        for (what, burst) in [("peak", self.pburst), ("committed", self.cburst)] {
            if burst.checked_mul(NANO).is_none() {
                return bad(format!("the {what} burst {burst} is too large"));
            }
        }
        Ok(())
    }

    /// The cell: lock and padding, the configuration, full buckets, and
    /// a last time of 0 (the first packet finds the buckets full).
    pub(crate) fn cell(&self) -> Vec<u8> {
        let words = [
            self.pir,
            self.pburst,
            self.cir,
            self.cburst,
            self.pburst * NANO,
            self.cburst * NANO,
            0,
        ];
        let mut cell = vec![0u8; 8];
        for word in words {
            cell.extend_from_slice(&word.to_ne_bytes());
        }
        cell
    }
}

/// Sets cell `index` of `meter` to `config`, its buckets full.
pub fn set(
    pipeline: &impl MapSource,
    meter: &Meter,
    index: u32,
    config: MeterConfig,
) -> Result<()> {
    in_range(meter, index)?;
    config.check(&meter.name)?;
    let map = pipeline.map(&meter.map)?;
    map.write(&index.to_ne_bytes(), &config.cell(), Write::Replace)
}

/// The configuration of cell `index` of `meter` (all zero if never set).
pub fn get(pipeline: &impl MapSource, meter: &Meter, index: u32) -> Result<MeterConfig> {
    in_range(meter, index)?;
    let map = pipeline.map(&meter.map)?;
    let cells = map.read(&index.to_ne_bytes())?;
    let cell = cells.first().map(Vec::as_slice).unwrap_or_default();
    Ok(MeterConfig::of_cell(cell))
}

impl MeterConfig {
    /// The configuration a cell holds (zeros where it is short).
    pub(crate) fn of_cell(cell: &[u8]) -> MeterConfig {
        let word = |i: usize| {
            cell.get(8 + 8 * i..16 + 8 * i)
                .and_then(|b| b.try_into().ok())
                .map_or(0, u64::from_ne_bytes)
        };
        MeterConfig {
            pir: word(0),
            pburst: word(1),
            cir: word(2),
            cburst: word(3),
        }
    }
}

fn in_range(meter: &Meter, index: u32) -> Result<()> {
    if index < meter.size {
        return Ok(());
    }
    Err(RuntimeError::Value(format!(
        "meter `{}` has {} cells, index {index} is out of range",
        meter.name, meter.size
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meter() -> Meter {
        Meter {
            name: "In.m".into(),
            map: "In_m".into(),
            bytes: false,
            size: 4,
        }
    }

    #[test]
    fn the_cell_holds_the_configuration_and_full_buckets() {
        let config = MeterConfig {
            pir: 10,
            pburst: 3,
            cir: 5,
            cburst: 2,
        };
        let cell = config.cell();
        assert_eq!(cell.len(), 64);
        let word =
            |i: usize| u64::from_ne_bytes(cell[8 + 8 * i..16 + 8 * i].try_into().expect("8 bytes"));
        assert_eq!([word(0), word(1), word(2), word(3)], [10, 3, 5, 2]);
        assert_eq!([word(4), word(5), word(6)], [3 * NANO, 2 * NANO, 0]);
    }

    #[test]
    fn a_peak_rate_below_the_committed_one_or_a_huge_burst_is_refused() {
        let slow_peak = MeterConfig {
            pir: 1,
            pburst: 1,
            cir: 2,
            cburst: 1,
        };
        let err = match slow_peak.check(&meter().name) {
            Err(e) => e.to_string(),
            Ok(()) => String::new(),
        };
        assert!(err.contains("In.m") && err.contains("PIR >= CIR"), "{err}");
        let huge = MeterConfig {
            pir: 1,
            pburst: u64::MAX / 2,
            cir: 1,
            cburst: 1,
        };
        assert!(huge.check(&meter().name).is_err());
    }
}
