//! The tutorial-style router examples/v1model_router.p4 passes its STF
//! (examples/v1model_router.stf: forwarding with MACs, TTL and checksum
//! rewritten; no route, TTL 1 and non-IPv4 dropped) on the kernel target
//! at XDP and TC and on the user target. Skips, saying why, without
//! root/BPF or clang.

mod common;

#[test]
fn the_v1model_router_forwards_and_drops_as_basic_p4_does() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED v1model router: {why}");
        return;
    }
    let targets: [&[&str]; 3] = [
        &["--target", "kernel", "--hook", "xdp"],
        &["--target", "kernel", "--hook", "tc"],
        &["--target", "user"],
    ];
    for target in targets {
        let mut args = vec![
            "test",
            "../../examples/v1model_router.p4",
            "../../examples/v1model_router.stf",
        ];
        args.extend_from_slice(target);
        let out = common::p4bpf(&args);
        let text = format!("{}{}", common::stdout(&out), common::stderr(&out));
        assert!(out.status.success(), "{target:?}:\n{text}");
        assert!(text.contains("PASS: 4 packets"), "{target:?}:\n{text}");
        assert_eq!(
            text.matches("drop: ok (dropped)").count(),
            3,
            "{target:?}:\n{text}"
        );
    }
}
