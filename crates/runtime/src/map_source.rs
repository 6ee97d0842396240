//! Where table and counter operations get their maps from: a pipeline this
//! process loaded (`LoadedPipeline`) or one pinned in bpffs by an earlier
//! command (`deploy::Deployment`). The operations are written once against
//! this trait.

use crate::error::{Result, RuntimeError};
use crate::map::Map;
use crate::pipeline::LoadedPipeline;
use std::os::fd::{BorrowedFd, OwnedFd};

pub trait MapSource {
    /// The map the compiler named `name`.
    fn map(&self, name: &str) -> Result<Map>;

    /// The program copies run egress in, for the devmaps of copies at
    /// XDP (whose entries name it), when the source has it at hand.
    fn copy_program(&self) -> Result<Option<OwnedFd>> {
        Ok(None)
    }
}

impl MapSource for LoadedPipeline {
    fn map(&self, name: &str) -> Result<Map> {
        LoadedPipeline::map(self, name)
    }

    fn copy_program(&self) -> Result<Option<OwnedFd>> {
        let Some(fd) = self.egress_program_fd()? else {
            return Ok(None);
        };
        // SAFETY: the descriptor stays open while `self` lives; the
        // duplicate is owned by the caller.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        borrowed.try_clone_to_owned().map(Some).map_err(|e| {
            RuntimeError::Value(format!(
                "cannot duplicate the egress program's descriptor: {e}"
            ))
        })
    }
}
