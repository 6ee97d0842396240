//! A compiled p4bpf pipeline in the kernel: the object loaded, its
//! description read from the `.p4bpf.pipeline` section, and packets run
//! through its entry program with the verdict and output port decoded.
//! The same pipeline can instead run in the user-space target's host
//! program (`user`): tables, counters and packets work the same way.

use crate::elf;
use crate::error::{Result, RuntimeError};
use crate::map::{Map, Write};
use crate::object::{LoadedObject, PortNotes, ProgramStats};
use crate::test_run::{self, RunOutput};
use crate::user::UserHost;
use crate::verdict::Verdict;
use p4bpf_layout::{Pipeline, SourceRegion, SAME_PORT, SECTION};
use std::path::Path;
use std::rc::Rc;

/// Value of the output record before the program writes it.
const NO_PORT: u32 = u32::MAX;

pub struct LoadedPipeline {
    pub description: Pipeline,
    executor: Executor,
}

/// What runs the packets.
enum Executor {
    Kernel(LoadedObject),
    User(Rc<UserHost>),
}

/// What happened to one packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PacketOutcome {
    pub verdict: Verdict,
    /// The port the packet leaves by, when it leaves by one.
    pub port: Option<u32>,
    pub packet: Vec<u8>,
    pub retval: u32,
}

/// Read the pipeline description embedded in an object image.
pub fn read_description(image: &[u8]) -> Result<Pipeline> {
    let section = elf::section(image, SECTION)?.ok_or_else(|| {
        RuntimeError::BadObject(format!(
            "no `{SECTION}` section: not compiled by p4bpf compile"
        ))
    })?;
    let text = std::str::from_utf8(section)
        .map_err(|_| RuntimeError::BadObject(format!("`{SECTION}` is not UTF-8 text")))?;
    // The section may be NUL-padded by the linker.
    Pipeline::from_json(text.trim_end_matches('\0')).map_err(RuntimeError::BadObject)
}

impl LoadedPipeline {
    /// Read the object at `path` and load it.
    pub fn open(path: &Path) -> Result<LoadedPipeline> {
        let image = std::fs::read(path)
            .map_err(|e| RuntimeError::BadObject(format!("cannot read {}: {e}", path.display())))?;
        LoadedPipeline::from_image(image)
    }

    pub fn from_image(image: Vec<u8>) -> Result<LoadedPipeline> {
        LoadedPipeline::from_image_with(image, PortNotes::Kept)
    }

    /// [`LoadedPipeline::from_image`], its port notes (the output record
    /// [`LoadedPipeline::run_packet`] reads) kept or turned off.
    pub fn from_image_with(image: Vec<u8>, notes: PortNotes) -> Result<LoadedPipeline> {
        let description = read_description(&image)?;
        let regions = elf::section(&image, p4bpf_layout::LINES_SECTION)?
            .map(|bytes| SourceRegion::parse_all(&String::from_utf8_lossy(bytes)))
            .unwrap_or_default();
        let object = LoadedObject::load_with(image, notes)
            .map_err(|e| in_p4_terms(e, &description, &regions))?;
        object.program_fd(&description.entry)?;
        let pipeline = LoadedPipeline {
            description,
            executor: Executor::Kernel(object),
        };
        crate::initial_entries::install(&pipeline, &pipeline.description)?;
        Ok(pipeline)
    }

    /// The pipeline `description` says, running in a user-space host
    /// program built by [`crate::user::build_host`].
    pub fn in_user_space(description: Pipeline, host: UserHost) -> LoadedPipeline {
        LoadedPipeline {
            description,
            executor: Executor::User(Rc::new(host)),
        }
    }

    /// The user-space host running the pipeline, if it runs in one.
    pub fn user_host(&self) -> Option<Rc<UserHost>> {
        match &self.executor {
            Executor::Kernel(_) => None,
            Executor::User(host) => Some(Rc::clone(host)),
        }
    }

    /// Map `name`, renewing the table caches its writes make stale.
    pub fn map(&self, name: &str) -> Result<Map> {
        let open = |name: &str| match &self.executor {
            Executor::Kernel(object) => object.map(name),
            Executor::User(host) => Map::in_user_host(host, name),
        };
        crate::table_cache::with_renewals(open(name)?, &self.description, open)
    }

    /// Descriptor of the entry program (valid while `self` lives).
    pub fn program_fd(&self) -> Result<i32> {
        match &self.executor {
            Executor::Kernel(object) => object.program_fd(&self.description.entry),
            Executor::User(_) => Err(RuntimeError::NotSupported(
                "a user-space pipeline has no kernel program to attach".into(),
            )),
        }
    }

    /// The program multicast copies run egress in, if the pipeline has one.
    pub fn egress_program_fd(&self) -> Result<Option<i32>> {
        let Some(entry) = self.description.copy_entry() else {
            return Ok(None);
        };
        match &self.executor {
            Executor::Kernel(object) => object.program_fd(entry).map(Some),
            Executor::User(_) => Ok(None),
        }
    }

    pub fn stats(&self) -> Result<ProgramStats> {
        match &self.executor {
            Executor::Kernel(object) => object.program_stats(&self.description.entry),
            Executor::User(_) => Err(RuntimeError::NotSupported(
                "instruction counts exist only in the kernel".into(),
            )),
        }
    }

    /// Run one packet that arrived on `input_port`.
    pub fn run_packet(&self, input_port: u32, packet: &[u8]) -> Result<PacketOutcome> {
        let record = match &self.description.output_record {
            Some(name) => Some(self.map(name)?),
            None => None,
        };
        if let Some(record) = &record {
            record.write(&0u32.to_ne_bytes(), &NO_PORT.to_ne_bytes(), Write::Replace)?;
            // The program's ingress port: the P4 port, not the test interface.
            if self.description.ingress_port_map.is_some() {
                let noted = input_port.wrapping_add(1);
                record.write(&1u32.to_ne_bytes(), &noted.to_ne_bytes(), Write::Replace)?;
            }
        }
        let (retval, packet) = match &self.executor {
            // Packets test-run refuses take a real hook on a TUN device.
            Executor::Kernel(_) if test_run::refusal(self.description.hook, packet).is_some() => {
                crate::tun::run(self, packet)?
            }
            Executor::Kernel(object) => {
                let fd = object.program_fd(&self.description.entry)?;
                let RunOutput { retval, packet, .. } = test_run::run(fd, packet, 1)?;
                (retval, packet)
            }
            Executor::User(host) => host.run(packet)?,
        };
        let verdict = Verdict::from_retval(self.description.hook, retval);
        let recorded = match &record {
            Some(record) => recorded_port(record)?,
            None => None,
        };
        // SAME_PORT: an XDP_TX run at TC, a redirect to the receiving port.
        let recorded = recorded.map(|port| if port == SAME_PORT { input_port } else { port });
        let port = match verdict {
            Verdict::Pass => Some(input_port),
            Verdict::Transmit => Some(recorded.unwrap_or(input_port)),
            Verdict::Redirect => recorded,
            _ => None,
        };
        Ok(PacketOutcome {
            verdict,
            port,
            packet,
            retval,
        })
    }
}

fn recorded_port(record: &Map) -> Result<Option<u32>> {
    let per_cpu = record.read(&0u32.to_ne_bytes())?;
    Ok(per_cpu
        .iter()
        .filter_map(|bytes| {
            bytes
                .get(..4)
                .and_then(|b| b.try_into().ok())
                .map(u32::from_ne_bytes)
        })
        .find(|port| *port != NO_PORT))
}

/// A verifier refusal with its P4 line and the action or table involved,
/// when the log and the object's source regions tell.
fn in_p4_terms(
    error: RuntimeError,
    description: &Pipeline,
    regions: &[SourceRegion],
) -> RuntimeError {
    match error {
        RuntimeError::Verifier { program, log, .. } => {
            let refusal = crate::verifier_log::read(&log);
            let place = crate::verifier_log::place(&refusal, description, regions);
            RuntimeError::Verifier {
                program,
                log,
                at: place.at,
                involving: place.involving,
            }
        }
        other => other,
    }
}
