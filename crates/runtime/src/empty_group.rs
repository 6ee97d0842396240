//! PSA's `psa_empty_group_action` set by the control plane (PSA 1.2
//! section 7.12: allowed unless the property is `const`): what `p4bpf
//! table empty-group-action` and the STF's
//! `table_indirect_set_empty_group_action` write. The action is encoded
//! as a member of the table's selector and stored at the table's slot of
//! the selector's empty group map (see
//! [`p4bpf_layout::SelectorLayout::empty_group_map`]); the next packet
//! naming an empty group runs it. P4Runtime 1.4 has no message for this.

use crate::control;
use crate::entry::encode_action;
use crate::error::{Result, RuntimeError};
use crate::map::Write;
use crate::map_source::MapSource;
use crate::names;
use p4bpf_layout::{EmptyGroupTable, Pipeline, SelectorLayout, Table};

/// Makes `action` (words as `table default` takes them: `ACTION
/// [PARAM=VALUE...]`) the empty group action of table `table`.
pub fn set(
    source: &impl MapSource,
    description: &Pipeline,
    table: &str,
    action: &[String],
) -> Result<()> {
    let slot = find_slot(description, table)?;
    // `choices` has no key fields: a KEY=VALUE word is refused by name.
    let spec = control::parse_entry(&slot.choices, action, None)?;
    let mut value = encode_action(&slot.choices, spec.action, &spec.args)?;
    let map = source.map(&slot.selector.empty_group_map)?;
    value.resize(map.value_size() as usize, 0);
    map.write(&slot.index.to_ne_bytes(), &value, Write::Replace)
}

/// An action's name and its parameters' names and values, as text.
pub type SetAction = (String, Vec<(String, String)>);

/// `table`'s empty group action as the control plane set it (action
/// name, parameter values), or `None` while it is the program's own.
pub fn get(
    source: &impl MapSource,
    description: &Pipeline,
    table: &str,
) -> Result<Option<SetAction>> {
    let slot = find_slot(description, table)?;
    let map = source.map(&slot.selector.empty_group_map)?;
    // No value at the slot: none was set.
    let Ok(values) = map.read(&slot.index.to_ne_bytes()) else {
        return Ok(None);
    };
    let value = values.into_iter().next().unwrap_or_default();
    control::decode_action(&slot.choices, &value).map(Some)
}

/// The actions `table` may take as its empty group action, as a table
/// named `table` holding them (encoded as its selector's members):
/// errors then name the table and the action or parameter.
pub fn choices(description: &Pipeline, table: &str) -> Result<Table> {
    Ok(find_slot(description, table)?.choices)
}

/// Where a table's empty group action lives.
struct Slot<'d> {
    selector: &'d SelectorLayout,
    index: u32,
    choices: Table,
}

/// `table`'s slot in its selector's empty group map; an error says
/// why there is none.
fn find_slot<'d>(description: &'d Pipeline, table: &str) -> Result<Slot<'d>> {
    let table = &names::table(description, table)?.name;
    let refuse = |why: String| RuntimeError::Value(format!("table `{table}`: {why}"));
    let profile = description
        .profiles
        .iter()
        .find(|p| p.tables.iter().any(|t| t == table))
        .ok_or_else(|| refuse("has no action selector, so no empty group action".into()))?;
    let Some(selector) = &profile.selector else {
        return Err(refuse(format!(
            "`{}` is an action profile without groups, so there is no empty group action",
            profile.name
        )));
    };
    if selector.const_empty_group_tables.iter().any(|t| t == table) {
        return Err(refuse(
            "its `psa_empty_group_action` is `const` and cannot be changed".into(),
        ));
    }
    let (index, EmptyGroupTable { actions, .. }) = selector
        .empty_group_tables
        .iter()
        .enumerate()
        .find(|(_, e)| &e.table == table)
        .ok_or_else(|| {
            refuse(format!(
                "its selector `{}` is not a PSA `psa_implementation`, so it has no `psa_empty_group_action`",
                profile.name
            ))
        })?;
    let mut choices = profile.members.clone();
    choices.name.clone_from(table);
    choices.keys.clear();
    choices.key_size = 0;
    choices.actions.retain(|a| actions.contains(&a.name));
    Ok(Slot {
        selector,
        index: u32::try_from(index).unwrap_or(u32::MAX),
        choices,
    })
}
