//! v1model clones (`tests/v1model_clone`): I2E and E2E, with and without
//! a field list, through BMv2's `mirroring_add`, live on veth pairs at
//! TC, the only target that sees every copy (the kernel target goes
//! there too), and in the kernel at XDP (more at XDP: `xdp_copies.rs`);
//! a field list index that is no constant is an error at the annotation.

mod common;

use std::path::{Path, PathBuf};

fn files() -> (PathBuf, PathBuf) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/v1model_clone");
    (dir.join("clones.p4"), dir.join("clones.stf"))
}

#[test]
fn clones_pass_live_at_tc() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED clones_pass_live_at_tc: {why}");
        return;
    }
    let (p4, stf) = files();
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    let out = common::p4bpf(&["test", &p4, &stf, "--target", "veth", "--hook", "tc"]);
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("PASS: 5 packets, 0 failure(s)"), "{text}");
    // The first packet leaves twice: the original and its I2E clone.
    assert_eq!(
        text.matches("(clones.stf:8) in port 0").count(),
        2,
        "{text}"
    );
    // One test run returns one packet: the kernel target plays the
    // script on live ports instead.
    let out = common::p4bpf(&["test", &p4, &stf, "--target", "kernel", "--hook", "tc"]);
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("PASS: 5 packets, 0 failure(s)"), "{text}");
}

#[test]
fn clones_pass_in_the_kernel_at_xdp_too() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED clones_pass_in_the_kernel_at_xdp_too: {why}");
        return;
    }
    let (p4, stf) = files();
    let (p4, stf) = (p4.to_string_lossy(), stf.to_string_lossy());
    let out = common::p4bpf(&["test", &p4, &stf, "--target", "kernel", "--hook", "xdp"]);
    let text = common::stdout(&out);
    assert!(out.status.success(), "{text}{}", common::stderr(&out));
    assert!(text.contains("PASS: 5 packets, 0 failure(s)"), "{text}");
    assert_eq!(
        text.matches("(clones.stf:8) in port 0").count(),
        2,
        "{text}"
    );
}

#[test]
fn field_list_mistakes_name_their_place() {
    let dir = common::scratch_dir("v1model_clone_mistakes");
    let program = common::write(
        &dir,
        "mistakes.p4",
        "#include <core.p4>\n\
         #include <v1model.p4>\n\
         header h_t { bit<8> f; }\n\
         struct headers_t { h_t h; }\n\
         struct meta_t {\n\
             @field_list(300) bit<8> big;\n\
             @field_list(nowhere) bit<8> unknown;\n\
         }\n\
         parser P(packet_in p, out headers_t h, inout meta_t m, inout standard_metadata_t s) {\n\
             state start { p.extract(h.h); transition accept; }\n\
         }\n\
         control V(inout headers_t h, inout meta_t m) { apply { } }\n\
         control I(inout headers_t h, inout meta_t m, inout standard_metadata_t s) {\n\
             apply { resubmit_preserving_field_list(0); }\n\
         }\n\
         control E(inout headers_t h, inout meta_t m, inout standard_metadata_t s) { apply { } }\n\
         control C(inout headers_t h, inout meta_t m) { apply { } }\n\
         control D(packet_out p, in headers_t h) { apply { p.emit(h.h); } }\n\
         V1Switch(P(), V(), I(), E(), C(), D()) main;\n",
    );
    let out = common::p4bpf(&[
        "compile",
        &program.to_string_lossy(),
        "-o",
        &dir.join("out").to_string_lossy(),
    ]);
    assert!(!out.status.success());
    let text = common::stderr(&out);
    for at in ["mistakes.p4:6:13: error", "mistakes.p4:7:13: error"] {
        assert!(
            text.contains(&format!(
                "{at}: a field list index is a constant from 0 to 255"
            )),
            "{text}"
        );
    }
}
