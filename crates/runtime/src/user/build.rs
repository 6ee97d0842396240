//! Builds the host program of the user-space target: the generated C file,
//! a little per-program glue (the map list and the entry call), our
//! runtime files and the driver loop, compiled by clang for the host. The
//! include directory shadows <linux/bpf.h>, <bpf/bpf_helpers.h> and the
//! rest, so the generated C is the same for both targets.

use crate::error::{Result, RuntimeError};
use p4bpf_layout::Hook;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The runtime files, written next to the glue when building.
const FILES: [(&str, &str); 10] = [
    (
        "include/linux/bpf.h",
        include_str!("../../user-c/include/linux/bpf.h"),
    ),
    (
        "include/linux/pkt_cls.h",
        include_str!("../../user-c/include/linux/pkt_cls.h"),
    ),
    (
        "include/bpf/bpf_helpers.h",
        include_str!("../../user-c/include/bpf/bpf_helpers.h"),
    ),
    (
        "include/bpf/bpf_endian.h",
        include_str!("../../user-c/include/bpf/bpf_endian.h"),
    ),
    ("p4u_runtime.h", include_str!("../../user-c/p4u_runtime.h")),
    ("p4u_maps.c", include_str!("../../user-c/p4u_maps.c")),
    ("p4u_packet.c", include_str!("../../user-c/p4u_packet.c")),
    ("p4u_driver.c", include_str!("../../user-c/p4u_driver.c")),
    ("p4u_ring.c", include_str!("../../user-c/p4u_ring.c")),
    ("p4u_copies.c", include_str!("../../user-c/p4u_copies.c")),
];

/// Headers of Debian's multiarch layout (`asm/types.h`).
const MULTIARCH_INCLUDE: &str = "/usr/include/x86_64-linux-gnu";

#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// AddressSanitizer and UBSan (slower; for tests and fuzzing).
    pub sanitize: bool,
    /// The function run on each packet copy (`bpf_clone_redirect` at TC,
    /// the devmap entries' program at XDP), when the program makes copies.
    pub egress_entry: Option<String>,
}

/// Build the host program for the generated `c_file` into `dir`; `entry`
/// is the program's entry function, `hook` the hook it was generated for.
pub fn build_host(
    c_file: &Path,
    entry: &str,
    hook: Hook,
    dir: &Path,
    options: &BuildOptions,
) -> Result<PathBuf> {
    let io = |e: std::io::Error| {
        RuntimeError::os(
            format!("writing {}", dir.display()),
            e.raw_os_error().unwrap_or(0),
        )
    };
    for (name, text) in FILES {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        std::fs::write(&path, text).map_err(io)?;
    }
    let source = std::fs::read_to_string(c_file).map_err(io)?;
    let glue = dir.join("p4u_glue.c");
    let entries = Entries {
        entry,
        egress: options.egress_entry.as_deref(),
        hook,
    };
    std::fs::write(&glue, glue_text(c_file, &source, &entries)).map_err(io)?;
    let binary = dir.join("p4u_host");
    let mut clang = Command::new("clang");
    clang.args([
        "-g",
        "-O1",
        "-std=gnu11",
        "-Wno-unused-label",
        "-Wno-unused-variable",
    ]);
    if options.sanitize {
        // Unaligned packet loads are what direct packet access does in BPF too.
        clang.args([
            "-fsanitize=address,undefined",
            "-fno-sanitize=alignment",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]);
    }
    clang
        .arg(format!("-I{}", dir.join("include").display()))
        .arg(format!("-I{}", dir.display()))
        .arg(format!("-I{MULTIARCH_INCLUDE}"))
        .arg(&glue)
        .args(
            [
                "p4u_maps.c",
                "p4u_packet.c",
                "p4u_driver.c",
                "p4u_ring.c",
                "p4u_copies.c",
            ]
            .map(|f| dir.join(f)),
        )
        .arg("-o")
        .arg(&binary);
    let output = clang.output().map_err(|e| {
        RuntimeError::NotSupported(format!("cannot run clang for the user-space target: {e}"))
    })?;
    if !output.status.success() {
        return Err(RuntimeError::BadObject(format!(
            "clang could not build {} for the host:\n{}",
            c_file.display(),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(binary)
}

/// The functions the glue calls: the program's entry, at `hook`, and the
/// one run on each copy, if it makes copies.
struct Entries<'a> {
    entry: &'a str,
    egress: Option<&'a str>,
    hook: Hook,
}

/// The glue: the generated file itself, every map it defines registered
/// under its name (so the runtime can fill tables the program has not
/// touched yet), and the entry calls with the hook's context.
fn glue_text(c_file: &Path, source: &str, entries: &Entries) -> String {
    let mut out = format!(
        "#include \"{}\"\n#include \"p4u_runtime.h\"\n\nvoid p4u_register_maps(void)\n{{\n",
        c_file.display()
    );
    for name in map_names(source) {
        out.push_str(&format!(
            "    p4u_map_of(&{name}, P4U_SHAPE(&{name}), \"{name}\");\n"
        ));
    }
    let (context, is_tc) = match entries.hook {
        Hook::Xdp => ("&p4u_xdp", 0),
        Hook::Tc => ("&p4u_skb", 1),
    };
    let entry = entries.entry;
    out.push_str(&format!(
        "}}\n\nint p4u_entry(void)\n{{\n    p4u_hook_is_tc = {is_tc};\n    return {entry}({context});\n}}\n"
    ));
    let egress = match entries.egress {
        Some(egress) => format!("return {egress}({context});"),
        // No egress program at the copy's port (PNA's mirror copies): it
        // leaves as it is, as from the kernel's TC egress with no program.
        None => "return 0; /* TC_ACT_OK */".into(),
    };
    out.push_str(&format!(
        "\nint p4u_egress_entry(void)\n{{\n    {egress}\n}}\n"
    ));
    out
}

/// Names of the maps the generated C defines: `} NAME SEC(".maps");`,
/// but for ring buffers (no keys; p4u_ring.c stands in for them).
fn map_names(source: &str) -> Vec<&str> {
    let mut ring = false;
    source
        .lines()
        .filter_map(|l| {
            if l.starts_with("struct {") {
                ring = false;
            }
            ring |= l.contains("BPF_MAP_TYPE_RINGBUF");
            let name = l.strip_prefix("} ")?.strip_suffix(" SEC(\".maps\");")?;
            (!ring).then_some(name)
        })
        .filter(|name| name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_generated_map_definitions_only() {
        let c = "struct {\n    __uint(type, BPF_MAP_TYPE_HASH);\n} t_1 SEC(\".maps\");\n} x SEC(\"xdp\");\n} a b SEC(\".maps\");\n";
        assert_eq!(map_names(c), ["t_1"]);
        let ring = "struct {\n    __uint(type, BPF_MAP_TYPE_RINGBUF);\n} r SEC(\".maps\");\nstruct {\n} m SEC(\".maps\");\n";
        assert_eq!(map_names(ring), ["m"]);
    }

    #[test]
    fn glue_calls_the_entry_with_the_hooks_context() {
        let entries = Entries {
            entry: "p_tc",
            egress: Some("p_tc_egress"),
            hook: Hook::Tc,
        };
        let glue = glue_text(Path::new("/t/p.c"), "} m SEC(\".maps\");\n", &entries);
        assert!(glue.contains("#include \"/t/p.c\""));
        assert!(glue.contains("p4u_map_of(&m, P4U_SHAPE(&m), \"m\");"));
        assert!(glue.contains("p4u_hook_is_tc = 1;\n    return p_tc(&p4u_skb);"));
        assert!(glue.contains("p4u_egress_entry(void)\n{\n    return p_tc_egress(&p4u_skb);"));
    }
}
