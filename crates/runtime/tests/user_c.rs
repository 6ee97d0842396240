//! The user-space target's C stand-ins against the kernel's semantics
//! (`user-c/tests/semantics.c`: map flags and capacities, LPM matching,
//! packet resize limits, redirect verdicts, csum_diff, XDP metadata,
//! LRU eviction, maps of maps, a devmap broadcast's walk and queues), built with
//! AddressSanitizer and UBSan. Skips, saying why, without clang.

use std::path::Path;
use std::process::Command;

#[test]
fn c_stand_ins_keep_the_kernels_semantics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("user-c");
    let binary = std::env::temp_dir().join(format!("p4bpf-user-c-{}", std::process::id()));
    let build = Command::new("clang")
        .args([
            "-g",
            "-std=gnu11",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
        ])
        .arg(format!("-I{}", dir.join("include").display()))
        .arg(format!("-I{}", dir.display()))
        .arg("-I/usr/include/x86_64-linux-gnu")
        .args(
            [
                "tests/semantics.c",
                "p4u_maps.c",
                "p4u_packet.c",
                "p4u_copies.c",
            ]
            .map(|f| dir.join(f)),
        )
        .arg("-o")
        .arg(&binary)
        .output();
    let build = match build {
        Ok(out) => out,
        Err(e) => {
            eprintln!("SKIPPED c_stand_ins_keep_the_kernels_semantics: cannot run clang: {e}");
            return;
        }
    };
    assert!(
        build.status.success(),
        "{}",
        String::from_utf8_lossy(&build.stderr)
    );
    let run = Command::new(&binary).output();
    let _ = std::fs::remove_file(&binary);
    let run = run.map(|o| {
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr),
        )
    });
    let (ok, text) = run.unwrap_or_default();
    assert!(ok && text.contains("all checks hold"), "{text}");
}
