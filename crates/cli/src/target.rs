//! The execution targets `test`, `run` and `fuzz` share: compiling a P4
//! program (or reading an object) and getting a [`LoadedPipeline`] that
//! runs either in the kernel (`BPF_PROG_TEST_RUN`) or in user space (the
//! same generated C built for the host, with AddressSanitizer and UBSan);
//! the compile options they share, and table entries from an STF file.

use crate::args::{self, Args, UsageError};
use p4bpf_compiler::{CompileOptions, Hook};
use p4bpf_runtime::test_ports::map_test_ports;
use p4bpf_runtime::user::{build_host, BuildOptions, UserHost};
use p4bpf_runtime::{check_bpf_available, read_description, stf, LoadedPipeline};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Kernel,
    User,
    /// Real interfaces: veth pairs in a private namespace (`p4bpf test` only).
    Veth,
}

impl Target {
    pub fn parse(word: &str) -> Result<Target, String> {
        match word {
            "kernel" => Ok(Target::Kernel),
            "user" => Ok(Target::User),
            "veth" => Ok(Target::Veth),
            _ => Err(format!(
                "unknown target `{word}` (supported: kernel, user, veth)"
            )),
        }
    }
}

/// A temporary folder removed when dropped (best effort: a leftover is harmless).
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(purpose: &str) -> Scratch {
        static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Scratch(std::env::temp_dir().join(format!("p4bpf-{purpose}-{}-{n}", std::process::id())))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `program` (P4 source, or for the kernel an object) running on `target`,
/// its output ports mapped to an interface (`test_ports`).
pub fn load(
    program: &Path,
    compile: &CompileOptions,
    target: Target,
) -> Result<LoadedPipeline, String> {
    let (image, compiled) = object_image(program, compile)?;
    load_image(image, compiled, target)
}

/// The object `image` (with its generated C, which the user target
/// builds) running on `target`, as [`load`] gives it.
pub fn load_image(
    image: Vec<u8>,
    compiled: Option<GeneratedC>,
    target: Target,
) -> Result<LoadedPipeline, String> {
    match target {
        Target::Veth => Err("the veth target runs whole STF files: use `p4bpf test`".into()),
        Target::Kernel => {
            check_bpf_available()
                .map_err(|e| format!("cannot run kernel tests on this machine: {e}"))?;
            let pipeline = LoadedPipeline::from_image(image).map_err(|e| e.to_string())?;
            map_test_ports(&pipeline).map_err(|e| e.to_string())?;
            Ok(pipeline)
        }
        Target::User => {
            let (c_file, scratch) = compiled.ok_or_else(|| {
                "the user target builds the generated C: give the P4 program, not an object"
                    .to_string()
            })?;
            let description = read_description(&image).map_err(|e| e.to_string())?;
            let options = BuildOptions {
                sanitize: true,
                egress_entry: description.copy_entry().map(str::to_string),
            };
            let binary = build_host(
                &c_file,
                &description.entry,
                description.hook,
                &scratch.0,
                &options,
            )
            .map_err(|e| e.to_string())?;
            let host = UserHost::start(&binary).map_err(|e| e.to_string())?;
            let pipeline = LoadedPipeline::in_user_space(description, host);
            map_test_ports(&pipeline).map_err(|e| e.to_string())?;
            p4bpf_runtime::initial_entries::install(&pipeline, &pipeline.description)
                .map_err(|e| e.to_string())?;
            Ok(pipeline)
        }
    }
}

/// The generated C file and the scratch folder that holds it.
pub type GeneratedC = (PathBuf, Scratch);

/// The BPF object of `program`: read as is, or compiled first when it is P4
/// source, in which case the generated C (in a scratch folder that lives as
/// long as the returned [`Scratch`]) comes with it.
pub fn object_image(
    program: &Path,
    compile: &CompileOptions,
) -> Result<(Vec<u8>, Option<GeneratedC>), String> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    if program.extension().is_none_or(|e| e != "p4") {
        return Ok((read(program)?, None));
    }
    let scratch = Scratch::new("load");
    let options = CompileOptions {
        out_dir: scratch.0.clone(),
        ..compile.clone()
    };
    let done =
        p4bpf_compiler::compile_file(program, &options).map_err(crate::compile::error_text)?;
    Ok((read(&done.object)?, Some((done.c_file, scratch))))
}

/// Takes `word` (and its value) if it is one of the compile options every
/// running subcommand shares: `--hook`, `-I`, `-D`, `--extern-file`,
/// `--trace`, `--table-stats`, `--table-caching`.
pub fn compile_option(
    words: &mut Args,
    word: &str,
    compile: &mut CompileOptions,
) -> Result<bool, UsageError> {
    if let Some(hook) = words.option(word, "--hook")? {
        compile.hook = match hook.as_str() {
            "xdp" => Hook::Xdp,
            "tc" => Hook::Tc,
            _ => {
                return Err(UsageError::new(format!(
                    "unknown hook `{hook}` (expected `xdp` or `tc`)"
                )))
            }
        };
    } else if let Some(dir) = words.option(word, "-I")? {
        compile.front.include_dirs.push(dir.into());
    } else if let Some(define) = words.option(word, "-D")? {
        compile.front.defines.push(args::parse_define(&define)?);
    } else if let Some(file) = words.option(word, "--extern-file")? {
        compile.extern_file = Some(file.into());
    } else if word == "--trace" {
        compile.trace = true;
    } else if word == "--table-stats" {
        compile.table_stats = true;
    } else if word == "--table-caching" {
        compile.table_caching = true;
    } else {
        return Ok(false);
    }
    Ok(true)
}

/// Compile options before the command line adds to them (XDP, no includes).
pub fn default_compile_options() -> CompileOptions {
    CompileOptions {
        front: Default::default(),
        hook: Hook::Xdp,
        out_dir: PathBuf::new(),
        extern_file: None,
        trace: false,
        table_stats: false,
        table_caching: false,
        port_notes: true,
    }
}

/// The STF file at `path`, its errors (each `file:line: ...`) one per line.
pub fn read_stf(path: &Path) -> Result<Vec<stf::Line>, String> {
    stf::parse_file(path).map_err(|errors| {
        errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// The table commands (`add`, `setdefault`, and the action profile ones)
/// of the STF file at `path`, the rest of it ignored.
pub fn table_commands(path: &Path) -> Result<Vec<stf::Line>, String> {
    let script = read_stf(path)?;
    Ok(script
        .into_iter()
        .filter(|l| {
            matches!(
                l.command,
                stf::Command::Add { .. }
                    | stf::Command::SetDefault { .. }
                    | stf::Command::Profile(_)
            )
        })
        .collect())
}

/// Write the table commands `entries` (from `path`) into `pipeline`.
pub fn install_entries(
    pipeline: &LoadedPipeline,
    path: &Path,
    entries: &[stf::Line],
) -> Result<(), String> {
    let outcome = stf::run(pipeline, path, entries);
    if outcome.failures == 0 {
        Ok(())
    } else {
        Err(outcome.lines.join("\n"))
    }
}
