//! What `p4bpf top` shows of a loaded pipeline: per port the interface's
//! packets and bytes (received and sent), per counter its packets and
//! bytes over every cell, per table its entries and, for a build with
//! table stats (`--table-stats` or `--trace`), its hits and misses, and
//! for a program that can grow packets the ones dropped for outgrowing a
//! port's MTU; two samples make rates.

use crate::control;
use crate::counter::CounterValue;
use crate::deploy::Deployment;
use crate::error::Result;
use crate::map_source::MapSource;
use crate::ports;
use std::time::Instant;

/// Running totals at one moment.
#[derive(Clone, Debug)]
pub struct Sample {
    pub at: Instant,
    pub ports: Vec<PortTotals>,
    /// Counter name, packets, bytes (summed over cells and CPUs).
    pub counters: Vec<(String, u64, u64)>,
    pub tables: Vec<TableTotals>,
    /// Packets dropped for outgrowing a port's MTU ([`crate::mtu_drops`]).
    pub mtu_drops: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortTotals {
    pub port: u32,
    pub interface: String,
    pub rx_packets: u64,
    pub rx_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableTotals {
    pub name: String,
    /// Entries in the table's map (`None`: compiled into code).
    pub entries: Option<usize>,
    /// Hits and misses, known only in a `--table-stats` or `--trace` build.
    pub hits_misses: Option<(u64, u64)>,
}

/// The pipeline's totals now.
pub fn sample(deployment: &Deployment) -> Result<Sample> {
    let description = &deployment.description;
    let ports = ports::list(deployment)?
        .into_iter()
        .map(|p| PortTotals {
            rx_packets: interface_stat(&p.interface, "rx_packets"),
            rx_bytes: interface_stat(&p.interface, "rx_bytes"),
            tx_packets: interface_stat(&p.interface, "tx_packets"),
            tx_bytes: interface_stat(&p.interface, "tx_bytes"),
            port: p.port,
            interface: p.interface,
        })
        .collect();
    let mut counters = vec![];
    for counter in &description.counters {
        let (mut packets, mut bytes) = (0, 0);
        for cell in control::counter_cells(deployment, counter, None)? {
            let CounterValue {
                packets: p,
                bytes: b,
            } = cell.value;
            packets += p.unwrap_or(0);
            bytes += b.unwrap_or(0);
        }
        counters.push((counter.name.clone(), packets, bytes));
    }
    Ok(Sample {
        at: Instant::now(),
        ports,
        counters,
        tables: table_totals(deployment)?,
        mtu_drops: crate::mtu_drops::total(deployment, description)?,
    })
}

fn table_totals(deployment: &Deployment) -> Result<Vec<TableTotals>> {
    let description = &deployment.description;
    let entries = |name: &str| -> Result<Option<usize>> {
        match description.tables.iter().find(|t| t.name == name) {
            Some(table) => control::count_entries(deployment, table).map(Some),
            None => Ok(None),
        }
    };
    let Some(stats) = &description.table_stats else {
        return description
            .tables
            .iter()
            .map(|t| {
                Ok(TableTotals {
                    name: t.name.clone(),
                    entries: entries(&t.name)?,
                    hits_misses: None,
                })
            })
            .collect();
    };
    let map = deployment.map(&stats.map)?;
    let total = |slot: usize| -> Result<u64> {
        let per_cpu = map.read(&(slot as u32).to_ne_bytes())?;
        Ok(per_cpu
            .iter()
            .filter_map(|b| b.get(..8)?.try_into().ok().map(u64::from_ne_bytes))
            .sum())
    };
    stats
        .tables
        .iter()
        .enumerate()
        .map(|(i, name)| {
            Ok(TableTotals {
                name: name.clone(),
                entries: entries(name)?,
                hits_misses: Some((total(2 * i)?, total(2 * i + 1)?)),
            })
        })
        .collect()
}

/// A counter of `/sys/class/net/IF/statistics` (0 when the interface is gone).
fn interface_stat(interface: &str, name: &str) -> u64 {
    std::fs::read_to_string(format!("/sys/class/net/{interface}/statistics/{name}"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// What `top` says when the build does not count table hits and misses.
pub const NO_TABLE_STATS: &str = "table hits/misses: not counted by this build; compile or `pipeline load` it with --table-stats";

/// Per second between two samples of the same pipeline.
pub fn rates(before: &Sample, after: &Sample) -> Vec<String> {
    let seconds = after.at.duration_since(before.at).as_secs_f64().max(1e-9);
    let rate = |a: u64, b: u64| b.saturating_sub(a) as f64 / seconds;
    let mut lines = vec![format!("over {seconds:.2} s")];
    lines.push("port  interface        rx pkt/s     rx B/s   tx pkt/s     tx B/s".into());
    for (b, a) in before.ports.iter().zip(&after.ports) {
        lines.push(format!(
            "{:<5} {:<14} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            a.port,
            a.interface,
            rate(b.rx_packets, a.rx_packets),
            rate(b.rx_bytes, a.rx_bytes),
            rate(b.tx_packets, a.tx_packets),
            rate(b.tx_bytes, a.tx_bytes)
        ));
    }
    for ((name, bp, bb), (_, ap, ab)) in before.counters.iter().zip(&after.counters) {
        lines.push(format!(
            "counter {name}: {:.1} packets/s {:.1} bytes/s",
            rate(*bp, *ap),
            rate(*bb, *ab)
        ));
    }
    for (b, a) in before.tables.iter().zip(&after.tables) {
        let entries = a
            .entries
            .map_or("const".to_string(), |n| format!("{n} entries"));
        match (b.hits_misses, a.hits_misses) {
            (Some((bh, bm)), Some((ah, am))) => lines.push(format!(
                "table {}: {entries}, {:.1} hits/s {:.1} misses/s",
                a.name,
                rate(bh, ah),
                rate(bm, am)
            )),
            _ => lines.push(format!("table {}: {entries}", a.name)),
        }
    }
    if let (Some(b), Some(a)) = (before.mtu_drops, after.mtu_drops) {
        lines.push(format!(
            "mtu drops: {:.1} packets/s grown past the output port's MTU",
            rate(b, a)
        ));
    }
    if after.tables.iter().any(|t| t.hits_misses.is_none()) {
        lines.push(NO_TABLE_STATS.into());
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at: Instant, hits_misses: Option<(u64, u64)>) -> Sample {
        Sample {
            at,
            ports: vec![],
            counters: vec![],
            tables: vec![TableTotals {
                name: "t".into(),
                entries: Some(3),
                hits_misses,
            }],
            mtu_drops: None,
        }
    }

    #[test]
    fn counted_tables_show_rates_and_others_say_how_to_count_them() {
        let t0 = Instant::now();
        let t1 = t0 + std::time::Duration::from_secs(2);
        let counted = rates(&sample(t0, Some((10, 4))), &sample(t1, Some((30, 10))));
        assert!(
            counted.contains(&"table t: 3 entries, 10.0 hits/s 3.0 misses/s".to_string()),
            "{counted:?}"
        );
        assert!(!counted.iter().any(|l| l == NO_TABLE_STATS));
        let plain = rates(&sample(t0, None), &sample(t1, None));
        assert!(
            plain.contains(&"table t: 3 entries".to_string()),
            "{plain:?}"
        );
        assert_eq!(plain.last().map(String::as_str), Some(NO_TABLE_STATS));
    }

    #[test]
    fn mtu_drops_show_as_a_rate_only_when_the_program_counts_them() {
        let t0 = Instant::now();
        let t1 = t0 + std::time::Duration::from_secs(2);
        let with = |at, n| Sample {
            mtu_drops: n,
            ..sample(at, None)
        };
        let counted = rates(&with(t0, Some(2)), &with(t1, Some(8)));
        let line = "mtu drops: 3.0 packets/s grown past the output port's MTU";
        assert!(counted.contains(&line.to_string()), "{counted:?}");
        let plain = rates(&with(t0, None), &with(t1, None));
        assert!(!plain.iter().any(|l| l.starts_with("mtu drops")));
    }
}
