//! What `pipeline show` reports about a pinned pipeline: program, hook,
//! program id, each table with its entry count and size, counters, ports,
//! the `@atomic` blocks skipped for want of their lock word,
//! and the packets dropped for outgrowing a port's MTU.

use super::Deployment;
use crate::control;
use crate::error::Result;
use crate::ports::{self, Port};
use p4bpf_layout::Hook;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub name: String,
    pub program: String,
    pub hook: Hook,
    pub xdp_mode: &'static str,
    pub program_id: u32,
    pub tables: Vec<TableSummary>,
    pub counters: Vec<String>,
    pub ports: Vec<Port>,
    /// `@atomic` blocks skipped for want of their lock word, summed over
    /// CPUs; `None` without lock words.
    pub skipped_atomic_blocks: Option<u64>,
    /// `None`: the program cannot grow a packet it sends ([`crate::mtu_drops`]).
    pub mtu_drops: Option<u64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableSummary {
    pub name: String,
    pub entries: usize,
    pub size: u32,
}

pub fn summary(deployment: &Deployment) -> Result<Summary> {
    let description = &deployment.description;
    let mut tables = Vec::new();
    for table in &description.tables {
        tables.push(TableSummary {
            name: table.name.clone(),
            entries: control::count_entries(deployment, table)?,
            size: table.size,
        });
    }
    Ok(Summary {
        name: deployment.name.clone(),
        program: description.program.clone(),
        hook: description.hook,
        xdp_mode: deployment.settings.xdp_mode.as_str(),
        program_id: deployment.program_id()?,
        tables,
        counters: description
            .counters
            .iter()
            .map(|c| c.name.clone())
            .collect(),
        ports: ports::list(deployment)?,
        skipped_atomic_blocks: crate::lock_words::skipped_blocks(deployment)?,
        mtu_drops: crate::mtu_drops::total(deployment, description)?,
    })
}
