//! Table caches of a `--table-caching` build (layout:
//! [`p4bpf_layout::table_cache`]). Every map a cached result depends on
//! is handed out renewing its caches ([`with_renewals`]): after each
//! write through it, whoever writes (CLI, P4Runtime, STF, idle timeouts,
//! profile members and groups), the cache's generation becomes a fresh
//! value and the data path ignores every result stored under an older
//! one. [`put`] writes a cache entry by hand, as PSA-eBPF's tests edit
//! its cache maps, so a test can tell a cached result from the table's.

use crate::control;
use crate::entry::encode_action;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::map_source::MapSource;
use crate::value;
use p4bpf_layout::table_cache::{
    TableCache, CACHE_HIT_OFFSET, CACHE_MEMBER_FOUND_OFFSET, CACHE_VALUE_OFFSET,
};
use p4bpf_layout::{Pipeline, Table, TableStorage};
use std::time::{SystemTime, UNIX_EPOCH};

/// A cache to renew: its generations array and slot.
#[derive(Clone, Debug)]
pub struct Renewal {
    generations: Box<Map>,
    slot: u32,
}

impl Renewal {
    /// Writes a generation the slot never held: the clock in nanoseconds,
    /// or one past the current one if that is not later. A clock value
    /// (not merely current + 1) keeps two control planes writing at once
    /// from both writing current + 1, which would leave a result found
    /// between their writes valid after the second.
    pub(crate) fn renew(&self) -> Result<()> {
        let current = generation(&self.generations, self.slot)?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
        let fresh = now.max(current.wrapping_add(1));
        self.generations.write(
            &self.slot.to_ne_bytes(),
            &fresh.to_ne_bytes(),
            Write::Replace,
        )
    }
}

fn generation(generations: &Map, slot: u32) -> Result<u64> {
    let values = generations.read(&slot.to_ne_bytes())?;
    let bytes = values.first().and_then(|v| v.get(..8));
    Ok(bytes
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(0, u64::from_ne_bytes))
}

/// `map` as `open` gave it, renewing every cache of `description` a
/// write to it makes stale.
pub(crate) fn with_renewals(
    map: Map,
    description: &Pipeline,
    open: impl Fn(&str) -> Result<Map>,
) -> Result<Map> {
    let Some(caches) = &description.table_caches else {
        return Ok(map);
    };
    let slots: Vec<u32> = caches.fed_by(map.name()).map(|c| c.slot).collect();
    let mut map = map;
    for slot in slots {
        let generations = Box::new(open(&caches.generations_map)?);
        map = map.renewing(Renewal { generations, slot });
    }
    Ok(map)
}

/// Writes into `table`'s cache the result `words` give:
/// `KEY=VALUE... [selector.N=VALUE...] [hit=0] ACTION [PARAM=VALUE...]`,
/// every key field a plain value (the cache is keyed by the packet's
/// exact key), the action one the table (or, for a selector table, its
/// selector's members) can run; `hit=0`: a miss that runs it (as a
/// default would), so the table's `hit` is false. It stands until the
/// table's next write.
pub fn put(
    source: &impl MapSource,
    description: &Pipeline,
    table: &Table,
    words: &[String],
) -> Result<()> {
    let cache = description
        .table_caches
        .as_ref()
        .and_then(|c| c.of_table(&table.name))
        .ok_or_else(|| {
            RuntimeError::Value(format!(
                "table `{}` has no cache (compile with --table-caching; only ternary, lpm and selector tables are cached)",
                table.name
            ))
        })?;
    let miss = hit_word(table, words)? == Some(false);
    let (selector_words, rest): (Vec<String>, Vec<String>) = words
        .iter()
        .filter(|w| !w.starts_with("hit="))
        .cloned()
        .partition(|w| w.starts_with("selector."));
    if miss && cache.profile.is_some() {
        return Err(RuntimeError::Value(format!(
            "table `{}`: hit=0 is for tables without an action selector (a miss runs the default)",
            table.name
        )));
    }
    let key = cache_key(table, cache, &rest, &selector_words)?;
    let mut value = cache_value(description, table, cache, &rest)?;
    *value
        .get_mut(CACHE_HIT_OFFSET as usize)
        .ok_or_else(|| layout_error(cache))? = u8::from(!miss);
    let current = generation(&source.map(&generations_map(description)?)?, cache.slot)?;
    value
        .get_mut(..8)
        .ok_or_else(|| layout_error(cache))?
        .copy_from_slice(&current.to_ne_bytes());
    source.map(&cache.map)?.write(&key, &value, Write::Replace)
}

/// The `hit=0|1` word, if given.
fn hit_word(table: &Table, words: &[String]) -> Result<Option<bool>> {
    let Some(text) = words.iter().find_map(|w| w.strip_prefix("hit=")) else {
        return Ok(None);
    };
    match text {
        "0" | "false" => Ok(Some(false)),
        "1" | "true" => Ok(Some(true)),
        _ => Err(RuntimeError::Value(format!(
            "table `{}`: `hit={text}` must be 0 or 1",
            table.name
        ))),
    }
}

fn generations_map(description: &Pipeline) -> Result<String> {
    description
        .table_caches
        .as_ref()
        .map(|c| c.generations_map.clone())
        .ok_or_else(|| RuntimeError::Value("the pipeline has no table caches".into()))
}

fn layout_error(cache: &TableCache) -> RuntimeError {
    RuntimeError::BadObject(format!(
        "the cache of table `{}` is smaller than its layout says",
        cache.table
    ))
}

/// The table's key struct from plain values (an lpm key with every bit
/// counted), then the selector keys as u64s.
fn cache_key(
    table: &Table,
    cache: &TableCache,
    words: &[String],
    selector_words: &[String],
) -> Result<Vec<u8>> {
    let split = control::EntryWords::split(words)?;
    let exact = exact_table(table);
    let keys = control::parse_key(&exact, &key_words(&split), None)?;
    let mut key = crate::entry::encode_entry(&exact, &keys)?.key;
    if table.storage == TableStorage::LpmTrie {
        let mut prefixed = (table.key_size * 8).to_ne_bytes().to_vec();
        prefixed.extend(key);
        key = prefixed;
    }
    key.resize(cache.selector_offset as usize, 0);
    let mut selectors = vec![0u64; cache.selector_keys.len()];
    for word in selector_words {
        let (name, text) = word.split_once('=').unwrap_or((word, ""));
        let (index, sk) = cache
            .selector_keys
            .iter()
            .enumerate()
            .find(|(_, k)| k.name == name)
            .ok_or_else(|| {
                RuntimeError::Value(format!(
                    "table `{}` has no selector key `{name}` (it has {})",
                    table.name,
                    cache.selector_keys.len()
                ))
            })?;
        let bytes = value::parse(text, sk.bit_width).map_err(|why| {
            RuntimeError::Value(format!("table `{}`, `{name}`: {why}", table.name))
        })?;
        if let Some(slot) = selectors.get_mut(index) {
            *slot = bytes.iter().fold(0u64, |acc, b| acc << 8 | u64::from(*b));
        }
    }
    key.extend(selectors.iter().flat_map(|s| s.to_ne_bytes()));
    Ok(key)
}

/// `table` keyed as its cache is, by the packet's key: every field exact.
fn exact_table(table: &Table) -> Table {
    let mut exact = Table {
        storage: TableStorage::Hash,
        ..table.clone()
    };
    for k in &mut exact.keys {
        k.match_kind = p4bpf_layout::MatchKind::Exact;
    }
    exact
}

/// `KEY=VALUE` words back as the entry parser takes them.
fn key_words(split: &control::EntryWords) -> Vec<String> {
    split
        .keys
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect()
}

/// A result running `words`' action: the table's value (a selector
/// table's reference to a member) and, for a selector table, the member.
fn cache_value(
    description: &Pipeline,
    table: &Table,
    cache: &TableCache,
    words: &[String],
) -> Result<Vec<u8>> {
    let split = control::EntryWords::split(words)?;
    let action_words: Vec<String> = split
        .action
        .iter()
        .cloned()
        .chain(split.params.iter().map(|(n, v)| format!("{n}={v}")))
        .collect();
    let mut value = vec![0u8; cache.value_size as usize];
    let (entry, member) = match &cache.profile {
        Some(name) => {
            let profile = crate::profile::find(description, name)?;
            let spec = member_spec(profile, &action_words)?;
            let member = encode_action(&profile.members, spec.action, &spec.args)?;
            let reference = table
                .actions
                .iter()
                .find(|a| a.name == p4bpf_layout::MEMBER_ACTION)
                .ok_or_else(|| layout_error(cache))?;
            (reference.code.to_ne_bytes().to_vec(), Some(member))
        }
        None => {
            let exact = exact_table(table);
            let spec = control::parse_entry(&exact, &with_key(table, &action_words), None)?;
            (encode_action(table, spec.action, &spec.args)?, None)
        }
    };
    place(&mut value, CACHE_VALUE_OFFSET, &entry, cache)?;
    if let Some(member) = member {
        place(&mut value, cache.member_offset, &member, cache)?;
        *value
            .get_mut(CACHE_MEMBER_FOUND_OFFSET as usize)
            .ok_or_else(|| layout_error(cache))? = 1;
    }
    Ok(value)
}

/// The action words after placeholder keys, as `parse_entry` wants a
/// whole entry (only the action and its arguments are used).
fn with_key(table: &Table, action: &[String]) -> Vec<String> {
    let mut words: Vec<String> = table
        .keys
        .iter()
        .map(|k| format!("{}=0", k.field.name))
        .collect();
    words.extend(action.iter().cloned());
    words
}

fn member_spec(
    profile: &p4bpf_layout::ActionProfile,
    action: &[String],
) -> Result<crate::entry::EntrySpec> {
    let mut all = vec!["member_id=0".to_string()];
    all.extend(action.iter().cloned());
    control::parse_entry(&profile.members, &all, None)
}

fn place(value: &mut [u8], offset: u32, bytes: &[u8], cache: &TableCache) -> Result<()> {
    let start = offset as usize;
    value
        .get_mut(start..start + bytes.len())
        .ok_or_else(|| layout_error(cache))?
        .copy_from_slice(bytes);
    Ok(())
}
