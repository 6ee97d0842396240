//! Which tables a `--table-caching` build caches (PSA-eBPF's option):
//! those whose search is costly (ternary, range and optional tables, lpm
//! tries, and tables whose action selector hashes to pick a group's
//! member), unless a hit must do more than run its action. A table's
//! `@p4bpf_cache` caches it without the option, `@p4bpf_no_cache` never.
//! The C is in `emit::table_cache`; `p4bpf_layout::table_cache` tells the
//! runtime.

use crate::emit::profile::member_layout;
use crate::ir::{ActionProfile, Program, Storage, Table, TableId};
use crate::map_layout::table_layout;
use p4bpf_front::diag::Diagnostic;
use p4bpf_layout::table_cache::{self as layout, CACHE_VALUE_OFFSET};

/// The cached tables and their slots in the generations array.
#[derive(Clone, Debug, Default)]
pub struct CachePlan {
    cached: Vec<TableId>,
}

impl CachePlan {
    /// The plan for `prog` (`on`: `--table-caching`), with a warning for
    /// each table asked for that is left uncached.
    pub fn of(prog: &Program, on: bool) -> (CachePlan, Vec<Diagnostic>) {
        let mut plan = CachePlan::default();
        let mut warnings = vec![];
        for (index, t) in prog.tables.iter().enumerate() {
            if !t.cache.unwrap_or(on) {
                continue;
            }
            let why = match costly(prog, t) {
                true => refusal(t),
                // Said only to whoever asked for this very table.
                false if t.cache == Some(true) => Some("its search is one exact probe already"),
                false => continue,
            };
            match why {
                Some(why) => warnings.push(Diagnostic::warning(
                    None,
                    format!("table `{}` ({}) is not cached: {why}", t.name, t.origin),
                )),
                None => plan.cached.push(TableId(index as u32)),
            }
        }
        (plan, warnings)
    }

    /// Table `id`'s slot in the generations array, when it is cached.
    pub fn slot(&self, id: TableId) -> Option<u32> {
        self.cached.iter().position(|c| *c == id).map(|i| i as u32)
    }

    pub fn is_empty(&self) -> bool {
        self.cached.is_empty()
    }

    pub fn tables(&self) -> impl Iterator<Item = TableId> + '_ {
        self.cached.iter().copied()
    }

    /// The runtime's view of the caches, with the maps (named in
    /// `pipeline`) whose writes make each one stale.
    pub fn describe(
        &self,
        prog: &Program,
        pipeline: &p4bpf_layout::Pipeline,
    ) -> Option<layout::TableCaches> {
        if self.is_empty() {
            return None;
        }
        let caches = self
            .cached
            .iter()
            .enumerate()
            .filter_map(|(slot, id)| describe_one(prog, pipeline, *id, slot as u32))
            .collect();
        Some(layout::TableCaches {
            generations_map: generations_map(prog),
            caches,
        })
    }
}

/// The array of every cache's generation.
pub fn generations_map(prog: &Program) -> String {
    format!(
        "{}_cache_generations",
        crate::emit::c_identifier(&prog.name)
    )
}

/// The LRU hash of table `t`'s cache.
pub fn cache_map(t: &Table) -> String {
    format!("{}_cache", t.c_name)
}

/// Whether `t` searches more than one exact probe would.
fn costly(prog: &Program, t: &Table) -> bool {
    let selector = t
        .implementation
        .as_ref()
        .and_then(|im| prog.profile(im.profile))
        .is_some_and(|p| p.selector.is_some());
    let searched = matches!(
        t.storage,
        Storage::Ternary | Storage::LpmTrie | Storage::Hash | Storage::Array
    );
    searched && (selector || matches!(t.storage, Storage::Ternary | Storage::LpmTrie))
}

/// Why a hit of `t` must see the entry itself, not a copy of its result.
fn refusal(t: &Table) -> Option<&'static str> {
    if !t.direct.is_empty() {
        Some("its direct counters and meters live in the entry, which a cached hit would not reach")
    } else if t.entry_timer.is_some() {
        Some("its entries' idle timers restart on every hit, which a cached hit would not do")
    } else if t.add_on_miss {
        Some("its misses add entries")
    } else if t.implementation.as_ref().is_some_and(|im| {
        im.selector_keys
            .iter()
            .any(|k| k.ty.width().is_none_or(|w| w > 64))
    }) {
        Some("a selector key wider than 64 bits")
    } else {
        None
    }
}

/// Size of the cache key: the table's key struct (an lpm trie's with its
/// prefix length), then, 8-aligned, a u64 per selector key.
pub fn key_layout(prog: &Program, t: &Table) -> (u32, u32) {
    let l = table_layout(prog, t);
    let table_key = l.key.size() + if l.lpm { 4 } else { 0 };
    let selectors = selector_count(t);
    if selectors == 0 {
        return (table_key, table_key);
    }
    let offset = table_key.div_ceil(8) * 8;
    (offset, offset + 8 * selectors)
}

pub fn selector_count(t: &Table) -> u32 {
    t.implementation
        .as_ref()
        .map_or(0, |im| im.selector_keys.len() as u32)
}

/// The action selector of `t`, whose member a cached hit keeps (an
/// action profile's member is read at each packet, as uncached).
fn selector_profile<'p>(prog: &'p Program, t: &Table) -> Option<&'p ActionProfile> {
    let p = prog.profile(t.implementation.as_ref()?.profile)?;
    p.selector.as_ref().map(|_| p)
}

/// Offsets of the member and the whole size of the cache value.
pub fn value_layout(prog: &Program, t: &Table) -> (u32, u32) {
    let l = table_layout(prog, t);
    let member_offset = (CACHE_VALUE_OFFSET + l.value_size).div_ceil(8) * 8;
    let member = selector_profile(prog, t)
        .and_then(|p| member_layout(prog, p))
        .map_or(0, |m| m.value_size);
    (member_offset, (member_offset + member).div_ceil(8) * 8)
}

fn describe_one(
    prog: &Program,
    pipeline: &p4bpf_layout::Pipeline,
    id: TableId,
    slot: u32,
) -> Option<layout::TableCache> {
    let t = prog.table(id)?;
    let described = pipeline.tables.iter().find(|d| d.name == t.name)?;
    // Every table's runtime default shares one map: a write to any of
    // them renews this cache too (a miss's result holds its default).
    let mut sources = vec![described.map.clone()];
    sources.extend(described.default_map.clone());
    if let Some(ternary) = &described.ternary {
        sources.extend([ternary.groups_map.clone(), ternary.filters_map.clone()]);
    }
    let profile = t
        .implementation
        .as_ref()
        .and_then(|im| prog.profile(im.profile));
    let selector = selector_profile(prog, t);
    let described_profile =
        profile.and_then(|p| pipeline.profiles.iter().find(|d| d.name == p.name));
    if let Some(p) = described_profile {
        sources.push(p.members.map.clone());
        if let Some(s) = &p.selector {
            sources.push(s.groups_map.clone());
            sources.extend(Some(s.empty_group_map.clone()).filter(|m| !m.is_empty()));
        }
    }
    let (selector_offset, key_size) = key_layout(prog, t);
    let (member_offset, value_size) = value_layout(prog, t);
    let selector_keys = t.implementation.as_ref().map_or(vec![], |im| {
        im.selector_keys
            .iter()
            .enumerate()
            .map(|(i, k)| layout::SelectorKey {
                name: format!("selector.{i}"),
                bit_width: k.ty.width().unwrap_or(64),
            })
            .collect()
    });
    Some(layout::TableCache {
        table: t.name.clone(),
        map: cache_map(t),
        slot,
        entries: t.size.max(1),
        key_size,
        value_size,
        selector_keys,
        selector_offset,
        profile: selector.map(|p| p.name.clone()),
        member_offset,
        sources,
    })
}
