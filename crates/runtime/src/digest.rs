//! Digests from the data plane (`p4bpf_layout::digest`): the records of a
//! pipeline's digest ring, read through libbpf (kernel) or from the
//! user-space host, decoded into the digest's name and its fields by P4
//! name. [`DigestReader`] is the controller's API: `next_batch` for a
//! loop of one's own, `follow` for a callback per digest until stopped.

use crate::control::decode::field_text;
use crate::deploy::Deployment;
use crate::error::{Result, RuntimeError};
use crate::json::json_string;
use crate::map::u32_at;
use crate::map_source::MapSource;
use crate::pipeline::LoadedPipeline;
use crate::trace_ring::TraceRing;
use crate::user::UserHost;
use p4bpf_layout::digest::{Digests, DATA_OFFSET};
use p4bpf_layout::Pipeline;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};

/// One digest as the control plane sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DigestMessage {
    /// The digest's P4Runtime name (`mac_learn_digest_t`, `ingress.d`).
    pub digest: String,
    /// Each field by P4 name, as text the value parser reads back.
    pub fields: Vec<(String, String)>,
}

impl DigestMessage {
    /// The value of field `name`.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn to_json(&self) -> String {
        let fields: Vec<String> = self
            .fields
            .iter()
            .map(|(n, v)| format!("{}:{}", json_string(n), json_string(v)))
            .collect();
        format!(
            "{{\"digest\":{},\"fields\":{{{}}}}}",
            json_string(&self.digest),
            fields.join(",")
        )
    }
}

impl std::fmt::Display for DigestMessage {
    /// `digest NAME: field=value ...`
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "digest {}:", self.digest)?;
        for (name, value) in &self.fields {
            write!(f, " {name}={value}")?;
        }
        Ok(())
    }
}

/// The digest layout of `pipeline`, or why it has none.
pub fn digests(pipeline: &Pipeline) -> Result<&Digests> {
    pipeline.digests.as_ref().ok_or_else(|| {
        RuntimeError::NotSupported(format!(
            "`{}` sends no digests (no `digest` call or `Digest` instance)",
            pipeline.program
        ))
    })
}

/// One record of the ring as a message.
pub fn decode(layout: &Digests, record: &[u8]) -> Result<DigestMessage> {
    let index = u32_at(record, 0);
    let digest = layout.digests.get(index as usize).ok_or_else(|| {
        RuntimeError::BadObject(format!(
            "a digest record names digest {index}, which the description lacks"
        ))
    })?;
    let data = record.get(DATA_OFFSET as usize..).unwrap_or_default();
    if data.len() < digest.size as usize {
        return Err(RuntimeError::BadObject(format!(
            "a record of digest `{}` holds {} bytes of its {}",
            digest.name,
            data.len(),
            digest.size
        )));
    }
    let fields = digest
        .fields
        .iter()
        .map(|f| (f.name.clone(), field_text(data, f)))
        .collect();
    Ok(DigestMessage {
        digest: digest.name.clone(),
        fields,
    })
}

/// Records the ring had no room for, summed over the CPUs.
pub fn lost(maps: &impl MapSource, layout: &Digests) -> Result<u64> {
    let cells = maps.map(&layout.lost)?.read(&0u32.to_ne_bytes())?;
    Ok(cells
        .iter()
        .map(|c| {
            u64::from_ne_bytes(
                c.get(..8)
                    .and_then(|b| b.try_into().ok())
                    .unwrap_or_default(),
            )
        })
        .sum())
}

enum Source {
    Kernel(TraceRing),
    User(Rc<UserHost>),
}

/// A consumer of a pipeline's digests.
pub struct DigestReader {
    layout: Digests,
    source: Source,
}

impl DigestReader {
    /// The digests of a pipeline this process loaded (kernel or user).
    pub fn open(pipeline: &LoadedPipeline) -> Result<DigestReader> {
        let layout = digests(&pipeline.description)?.clone();
        let source = match pipeline.user_host() {
            Some(host) => Source::User(host),
            None => Source::Kernel(TraceRing::open(pipeline.map(&layout.ring)?.fd()?)?),
        };
        Ok(DigestReader { layout, source })
    }

    /// The digests of pipeline `deployment`, pinned by `pipeline load`.
    pub fn open_deployed(deployment: &Deployment) -> Result<DigestReader> {
        let layout = digests(&deployment.description)?.clone();
        let ring = TraceRing::open(deployment.map(&layout.ring)?.fd()?)?;
        Ok(DigestReader {
            layout,
            source: Source::Kernel(ring),
        })
    }

    pub fn layout(&self) -> &Digests {
        &self.layout
    }

    /// Digests sent since the last call, waiting up to `timeout_ms` for
    /// the first in the kernel (0: do not wait).
    pub fn next_batch(&mut self, timeout_ms: i32) -> Result<Vec<DigestMessage>> {
        let records = match &mut self.source {
            Source::Kernel(ring) => ring.take(timeout_ms)?,
            Source::User(host) => host.digest_records()?,
        };
        records.iter().map(|r| decode(&self.layout, r)).collect()
    }

    /// Calls `each` for every digest as it comes, until `stop` is set or
    /// `each` returns false.
    pub fn follow(
        &mut self,
        stop: &AtomicBool,
        mut each: impl FnMut(&DigestMessage) -> Result<bool>,
    ) -> Result<()> {
        while !stop.load(Ordering::Relaxed) {
            for message in self.next_batch(200)? {
                if !each(&message)? {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn note_interrupt(_: std::ffi::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

extern "C" {
    fn signal(signum: std::ffi::c_int, handler: extern "C" fn(std::ffi::c_int)) -> usize;
}

/// A flag Ctrl-C (SIGINT) sets instead of ending the process, so a
/// follower can finish its output and say what it saw.
pub fn interrupt_flag() -> &'static AtomicBool {
    const SIGINT: std::ffi::c_int = 2;
    // SAFETY: the handler only stores into an atomic, which is
    // async-signal safe.
    unsafe { signal(SIGINT, note_interrupt) };
    &INTERRUPTED
}
