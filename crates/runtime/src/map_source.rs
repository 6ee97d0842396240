//! Where table and counter operations get their maps from: a pipeline this
//! process loaded (`LoadedPipeline`) or one pinned in bpffs by an earlier
//! command (`deploy::Deployment`). The operations are written once against
//! this trait.

use crate::error::Result;
use crate::map::Map;
use crate::pipeline::LoadedPipeline;

pub trait MapSource {
    /// The map the compiler named `name`.
    fn map(&self, name: &str) -> Result<Map>;
}

impl MapSource for LoadedPipeline {
    fn map(&self, name: &str) -> Result<Map> {
        LoadedPipeline::map(self, name)
    }
}
