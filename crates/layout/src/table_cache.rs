//! Table caches of a `--table-caching` build (PSA-eBPF's option of that
//! name): for a table whose search is costly (ternary, range, optional,
//! lpm, or an action selector's group pick), an LRU hash from the exact
//! key the packet looked up (and the selector keys) to the search's
//! result, so a repeated flow skips the search.
//!
//! Invalidation is by generation: each cache has a u64 in
//! [`TableCaches::generations_map`] (a BPF array, at [`TableCache::slot`]).
//! A packet reads it before it searches and stores it with the result; a
//! cached result counts only while its generation is the current one. The
//! control plane writes a fresh generation after every write to one of
//! [`TableCache::sources`], so a result found before that write is never
//! used after it, whatever packets were in flight meanwhile.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCaches {
    /// BPF array of u64 generations (host order), one per cache.
    pub generations_map: String,
    pub caches: Vec<TableCache>,
}

/// One table's cache: key = the table's key struct (as [`crate::Table`]
/// lays it out; an lpm table's with its u32 prefix length first, always
/// every bit) then, at `selector_offset`, the selector keys as u64s in
/// host order. Value = u64 generation at 0, u8 hit at 8 (1: an entry
/// matched), u8 member found at 9, u8 empty group at 10, the table's value
/// struct at [`CACHE_VALUE_OFFSET`], and for a selector table the member's
/// value (action code, parameters as the profile lays them out) at
/// `member_offset`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableCache {
    /// Dotted P4 name of the table.
    pub table: String,
    /// The LRU hash map.
    pub map: String,
    pub slot: u32,
    pub entries: u32,
    pub key_size: u32,
    pub value_size: u32,
    /// Where the selector keys start in the cache key, with their names
    /// and widths (each a u64); empty for a table without a selector.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selector_keys: Vec<SelectorKey>,
    pub selector_offset: u32,
    /// The action selector whose member a hit caches, if any (an action
    /// profile's member is not cached: `sources` renews on its writes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    pub member_offset: u32,
    /// Every map a write to which can change what the search finds: the
    /// table's own, its profile's members, groups and empty-group actions.
    pub sources: Vec<String>,
}

/// One selector key in a cache key: `selector.N`, the Nth of the table's
/// `selector` keys (a concatenation counted as its parts), and its width.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectorKey {
    pub name: String,
    pub bit_width: u32,
}

/// Offset of the table's value struct in a cache value.
pub const CACHE_VALUE_OFFSET: u32 = 16;
/// Offsets of the flags in a cache value.
pub const CACHE_HIT_OFFSET: u32 = 8;
pub const CACHE_MEMBER_FOUND_OFFSET: u32 = 9;

impl TableCaches {
    /// The cache whose generation a write to map `map` must renew.
    pub fn fed_by<'a>(&'a self, map: &'a str) -> impl Iterator<Item = &'a TableCache> + 'a {
        self.caches
            .iter()
            .filter(move |c| c.sources.iter().any(|s| s == map))
    }

    pub fn of_table(&self, table: &str) -> Option<&TableCache> {
        self.caches.iter().find(|c| c.table == table)
    }
}
