//! p4bpf's STF commands for table caches and for changing an entry in
//! place: `cache_put TABLE KEY=VALUE... [selector.N=VALUE...] [hit=0]
//! ACTION [PARAM=VALUE...]` writes a result into the table's cache as `p4bpf
//! table cache-put` does (PSA-eBPF's tests edit its cache maps so), and
//! `modify TABLE [PRIORITY] FIELD:VALUE... ACTION(PARAM:VALUE,...)`
//! replaces the action of an existing entry, as `add` spells an entry.

use super::parse::Command;
use crate::error::Result;
use crate::names;
use crate::packet_target::PacketTarget;

pub fn parse_put(rest: &str) -> std::result::Result<Command, String> {
    let mut words = rest.split_whitespace().map(str::to_string);
    let table = words.next().ok_or(
        "usage: cache_put TABLE KEY=VALUE... [selector.N=VALUE...] [hit=0] ACTION [PARAM=VALUE...]",
    )?;
    Ok(Command::CachePut {
        table,
        words: words.collect(),
    })
}

pub fn parse_modify(rest: &str) -> std::result::Result<Command, String> {
    match super::parse::parse_add(rest)? {
        Command::Add {
            table,
            priority,
            keys,
            action,
        } => Ok(Command::Modify {
            table,
            priority,
            keys,
            action,
        }),
        _ => Err("usage: modify TABLE [PRIORITY] FIELD:VALUE... ACTION(PARAM:VALUE,...)".into()),
    }
}

pub fn put(pipeline: &impl PacketTarget, table: &str, words: &[String]) -> Result<()> {
    let description = pipeline.description();
    let found = names::table(description, table)?;
    crate::table_cache::put(pipeline, description, found, words)
}
