//! Builds what a benchmark loads: a P4 program through the compiler, a
//! hand-written twin or floor through clang with the same flags the
//! compiler uses, each into the run's scratch folder.

use crate::{compile, target};
use p4bpf_compiler::{CompileOptions, Hook};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The object of `p4` (compiled into `out_dir`) and its pipeline.
pub fn p4_object(p4: &Path, out_dir: &Path) -> Result<(Vec<u8>, p4bpf_layout::Pipeline), String> {
    p4_object_at(p4, out_dir, Hook::Xdp)
}

/// The object of `p4` built for `hook`, and its pipeline.
pub fn p4_object_at(
    p4: &Path,
    out_dir: &Path,
    hook: Hook,
) -> Result<(Vec<u8>, p4bpf_layout::Pipeline), String> {
    let options = CompileOptions {
        out_dir: out_dir.to_path_buf(),
        hook,
        // Timed as deployed: without the test harness's port notes.
        port_notes: false,
        ..target::default_compile_options()
    };
    p4_object_with(p4, &options)
}

/// The object of `p4` built with `options`, and its pipeline.
pub fn p4_object_with(
    p4: &Path,
    options: &CompileOptions,
) -> Result<(Vec<u8>, p4bpf_layout::Pipeline), String> {
    let done = p4bpf_compiler::compile_file(p4, options).map_err(compile::error_text)?;
    let image = std::fs::read(&done.object)
        .map_err(|e| format!("cannot read {}: {e}", done.object.display()))?;
    Ok((image, done.pipeline))
}

/// The object of hand-written C file `c` (as `twin_NAME.o` in `out_dir`),
/// with `defines` (`NAME=VALUE`) given to clang as `-D`.
pub fn c_object(c: &Path, out_dir: &Path, defines: &[String]) -> Result<Vec<u8>, String> {
    let stem = c
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let object: PathBuf = out_dir.join(format!("twin_{stem}.o"));
    let output = Command::new("clang")
        .args([
            "-O2",
            "-g",
            "-target",
            "bpf",
            "-I/usr/include/x86_64-linux-gnu",
            "-c",
        ])
        .args(defines.iter().map(|d| format!("-D{d}")))
        .arg(c)
        .arg("-o")
        .arg(&object)
        .output()
        .map_err(|e| format!("cannot run clang: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "clang cannot compile {}:\n{}",
            c.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    std::fs::read(&object).map_err(|e| format!("cannot read {}: {e}", object.display()))
}

/// `clang --version`'s first line, for the report.
pub fn clang_version() -> String {
    Command::new("clang")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "unknown".into())
}
