//! The execution targets `test`, `run` and `fuzz` share: compiling a P4
//! program (or reading an object) and getting a [`LoadedPipeline`] that
//! runs either in the kernel (`BPF_PROG_TEST_RUN`) or in user space (the
//! same generated C built for the host, with AddressSanitizer and UBSan).

use p4bpf_compiler::{CompileError, CompileOptions};
use p4bpf_runtime::user::{build_host, BuildOptions, UserHost};
use p4bpf_runtime::{check_bpf_available, read_description, LoadedPipeline};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Kernel,
    User,
}

impl Target {
    pub fn parse(word: &str) -> Result<Target, String> {
        match word {
            "kernel" => Ok(Target::Kernel),
            "user" => Ok(Target::User),
            _ => Err(format!("unknown target `{word}` (supported: kernel, user)")),
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

/// `program` (P4 source, or for the kernel an object) running on `target`.
pub fn load(
    program: &Path,
    compile: &CompileOptions,
    target: Target,
) -> Result<LoadedPipeline, String> {
    let is_source = program.extension().is_some_and(|e| e == "p4");
    let scratch = Scratch::new("load");
    let (object, c_file) = if is_source {
        let options = CompileOptions {
            out_dir: scratch.0.clone(),
            ..compile.clone()
        };
        let done = p4bpf_compiler::compile_file(program, &options).map_err(compile_error)?;
        (done.object, Some(done.c_file))
    } else {
        (program.to_path_buf(), None)
    };
    let image =
        std::fs::read(&object).map_err(|e| format!("cannot read {}: {e}", object.display()))?;
    match target {
        Target::Kernel => {
            check_bpf_available()
                .map_err(|e| format!("cannot run kernel tests on this machine: {e}"))?;
            LoadedPipeline::from_image(image).map_err(|e| e.to_string())
        }
        Target::User => {
            let c_file = c_file.ok_or_else(|| {
                "the user target builds the generated C: give the P4 program, not an object"
                    .to_string()
            })?;
            let description = read_description(&image).map_err(|e| e.to_string())?;
            let options = BuildOptions { sanitize: true };
            let binary = build_host(
                &c_file,
                &description.entry,
                description.hook,
                &scratch.0,
                &options,
            )
            .map_err(|e| e.to_string())?;
            let host = UserHost::start(&binary).map_err(|e| e.to_string())?;
            Ok(LoadedPipeline::in_user_space(description, host))
        }
    }
}

fn compile_error(error: CompileError) -> String {
    match error {
        CompileError::Program {
            sources,
            diagnostics,
        } => diagnostics
            .list
            .iter()
            .map(|d| d.render(&sources))
            .collect::<String>()
            .trim_end()
            .to_string(),
        CompileError::Tool(message) => message,
    }
}
