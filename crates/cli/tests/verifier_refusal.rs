//! A program the kernel's verifier refuses is reported in P4 terms: the
//! .p4 file and line, the table involved, the verifier's reason, and its
//! last lines as a note; never the raw megabytes of its log. The refusal
//! comes from an extern function (`--extern-file`) that reads memory at an
//! address computed from a header field. Skips, saying why, without
//! root/BPF or clang.

#![allow(clippy::panic)] // a failing test should stop loudly

mod common;

const PROGRAM: &str = "\
#include <core.p4>
#include <ebpf_model.p4>
header h_t { bit<32> addr; }
struct hs { h_t h; }
extern bit<32> peek(in bit<32> at);
parser prs(packet_in p, out hs hdr) { state start { p.extract(hdr.h); transition accept; } }
control f(inout hs hdr, out bool pass) {
    action look() {
        pass = peek(hdr.h.addr) == 7;
    }
    table lookups {
        key = { hdr.h.addr: exact; }
        actions = { look; NoAction; }
        default_action = look();
    }
    apply { pass = true; lookups.apply(); }
}
ebpfFilter(prs(), f()) main;
";

const PEEK: &str = "\
/* Reads memory at a number: the verifier must refuse it. */
static inline u32 peek(u32 at)
{
    return *(u32 *)(long)at;
}
";

#[test]
fn a_refused_object_is_reported_at_its_p4_line_and_table() {
    if let Some(why) = common::kernel_unavailable() {
        eprintln!("SKIPPED a_refused_object_is_reported_at_its_p4_line_and_table: {why}");
        return;
    }
    let dir = common::scratch_dir("verifier_refusal");
    let program = common::write(&dir, "refused.p4", PROGRAM);
    let peek = common::write(&dir, "peek.c", PEEK);
    for hook in ["xdp", "tc"] {
        let out = dir.join(hook);
        let compiled = common::p4bpf(&[
            "compile",
            &program.to_string_lossy(),
            "--extern-file",
            &peek.to_string_lossy(),
            "--hook",
            hook,
            "-o",
            &out.to_string_lossy(),
        ]);
        assert!(compiled.status.success(), "{}", common::stderr(&compiled));
        let name = format!("refused{}_{hook}", std::process::id());
        let object = out.join("refused.o");
        let loaded = common::p4bpf(&[
            "pipeline",
            "load",
            &object.to_string_lossy(),
            "--name",
            &name,
        ]);
        if loaded.status.success() {
            let _ = common::p4bpf(&["pipeline", "unload", &name]);
            panic!("the verifier accepted a program reading memory at a header field");
        }
        let message = common::stderr(&loaded);
        let first = message.lines().next().unwrap_or_default();
        // The table is declared on line 11; the failing read is in its action.
        assert!(
            first.starts_with("p4bpf: error: refused.p4:11: the kernel verifier rejected program"),
            "{message}"
        );
        assert!(first.contains("in table `f.lookups`"), "{message}");
        assert!(first.contains("invalid mem access"), "{message}");
        assert!(
            message.contains("\nnote: the verifier's last lines:\n"),
            "{message}"
        );
        assert!(
            message.lines().count() < 20,
            "the whole log was printed:\n{message}"
        );
        assert!(
            !std::path::Path::new("/sys/fs/bpf/p4bpf")
                .join(&name)
                .exists(),
            "a refused load left its folder"
        );
    }
}
