//! Runs clang on the generated C to produce the eBPF object.
//!
//! `clang -O2 -g -target bpf`: `-g` gives the BTF that typed maps and
//! `bpftool map dump` need. A missing clang or a failed compilation is an
//! error that says what to do, never a panic.

use std::path::Path;
use std::process::Command;

/// Headers of Debian's multiarch layout (`asm/types.h`).
const MULTIARCH_INCLUDE: &str = "/usr/include/x86_64-linux-gnu";

pub fn compile(c_file: &Path, object: &Path) -> Result<(), String> {
    let output = Command::new("clang")
        .args([
            "-O2",
            "-g",
            "-target",
            "bpf",
            "-Wno-unused-label",
            "-Wno-unused-variable",
        ])
        .arg(format!("-I{MULTIARCH_INCLUDE}"))
        .arg("-c")
        .arg(c_file)
        .arg("-o")
        .arg(object)
        .output();
    match output {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err("clang is not installed: the eBPF target needs clang and libbpf-dev (see scripts/install-deps.sh)".into())
        }
        Err(e) => Err(format!("cannot run clang: {e}")),
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "clang could not compile the generated {} (look at the --extern-file C if one was given; otherwise a p4bpf bug, or libbpf-dev is missing):\n{}",
            c_file.display(),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}
