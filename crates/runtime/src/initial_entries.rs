//! A pipeline's initial entries (P4's non-const `entries`), installed in
//! its tables' maps when it loads, kernel or user space: from then on they
//! are the control plane's, to modify or delete like any other.

use crate::control;
use crate::entry::EntrySpec;
use crate::error::{Result, RuntimeError};
use crate::map_source::MapSource;
use p4bpf_layout::Pipeline;

pub fn install(source: &impl MapSource, description: &Pipeline) -> Result<()> {
    for entry in &description.initial_entries {
        let table = description
            .tables
            .iter()
            .find(|t| t.name == entry.table)
            .ok_or_else(|| {
                RuntimeError::BadObject(format!(
                    "an initial entry names table `{}`, which the pipeline lacks",
                    entry.table
                ))
            })?;
        let spec = EntrySpec {
            keys: entry.keys.clone(),
            action: entry.action,
            args: entry.args.iter().cloned().enumerate().collect(),
            priority: entry.priority,
        };
        control::add(source, table, &spec).map_err(|e| {
            RuntimeError::Value(format!(
                "the initial entries of table `{}` do not go in: {e}",
                table.name
            ))
        })?;
    }
    Ok(())
}
