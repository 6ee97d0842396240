//! The user target makes copies at XDP as the kernel does
//! (`tests/user_xdp`): the same generated C, its ingress planning the
//! copies and broadcasting the frame to a devmap, the host walking the
//! devmap as the kernel does and running the egress program
//! (`xdp/devmap`) on each copy with the plan's number in the frame's
//! metadata. A v1model and a PSA program multicast to several ports
//! (two replicas to one port, egress growing, rewriting or dropping a
//! replica) and clone I2E; each script passes at `--target user --hook
//! xdp` and, where root and BPF are at hand, at `--target kernel --hook
//! xdp` on veth pairs. Needs clang.

mod common;

use std::path::{Path, PathBuf};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/user_xdp")
        .join(name)
}

/// `p4bpf test PROGRAM SCRIPT --target TARGET --hook xdp`: success and output.
fn run(program: &str, script: &Path, target: &str) -> (bool, String) {
    let p4 = file(program);
    let out = common::p4bpf(&[
        "test",
        &p4.to_string_lossy(),
        &script.to_string_lossy(),
        "--target",
        target,
        "--hook",
        "xdp",
    ]);
    (
        out.status.success(),
        common::stdout(&out) + &common::stderr(&out),
    )
}

const PROGRAMS: [(&str, &str); 2] = [
    ("v1_copies.p4", "v1_copies.stf"),
    ("psa_copies.p4", "psa_copies.stf"),
];

#[test]
fn multicast_and_clone_copies_at_xdp_pass_on_the_user_target_as_in_the_kernel() {
    let kernel = common::kernel_unavailable();
    for (program, script) in PROGRAMS {
        let (ok, text) = run(program, &file(script), "user");
        assert!(ok, "{program} user:\n{text}");
        assert!(text.contains("(xdp code"), "{program}: {text}");
        assert!(
            text.contains("PASS: 3 packets, 0 failure(s)"),
            "{program}: {text}"
        );
        let to_port_2 = format!("({script}:15) in port 1: redirect to port 2: ok");
        assert_eq!(text.matches(&to_port_2).count(), 2, "{program}: {text}");
        match &kernel {
            Some(why) => eprintln!("SKIPPED {program} at kernel XDP: {why}"),
            None => {
                let (ok, text) = run(program, &file(script), "kernel");
                assert!(ok, "{program} kernel:\n{text}");
                assert!(text.contains("PASS: 3 packets, 0 failure(s)"), "{text}");
            }
        }
    }
}

#[test]
fn the_user_target_at_xdp_sees_a_wrong_replica_order_and_a_dropped_copy() {
    let dir = common::scratch_dir("user_xdp_wrong");
    for (program, script) in PROGRAMS {
        let text = std::fs::read_to_string(file(script)).expect("script");
        let port_2: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("expect 2 "))
            .collect();
        assert_eq!(port_2.len(), 2, "{script}: two copies to port 2");
        let (first, second) = (port_2[0], port_2[1]);
        let swapped = text.replacen(
            &format!("{first}\n{second}\n"),
            &format!("{second}\n{first}\n"),
            1,
        );
        let (ok, out) = run(program, &common::write(&dir, script, &swapped), "user");
        assert!(!ok, "{program}: {out}");
        assert!(
            out.contains("FAIL: 3 packets, 2 failure(s)"),
            "{program}: {out}"
        );
        // Egress drops instance 9's copy to port 5: expecting it fails.
        let dropped = text.replacen(
            &format!("{second}\n"),
            &format!("{second}\nexpect 5 {}\n", &first["expect 2 ".len()..]),
            1,
        );
        let (ok, out) = run(program, &common::write(&dir, script, &dropped), "user");
        assert!(!ok, "{program}: {out}");
        assert!(
            out.contains("FAIL: 3 packets, 1 failure(s)"),
            "{program}: {out}"
        );
    }
}
