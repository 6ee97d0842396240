//! `varbit` values and checksums over the payload where the eBPF target
//! cannot take them: a diagnostic located in the program, never a panic or
//! a clang error.

use p4bpf_compiler::{generate, Hook};
use std::path::Path;

/// The first error message for a v1model program whose ingress applies
/// `body`, with `hdr.a.data` a `varbit<24>` after the byte `hdr.a.kind`.
fn first_error(body: &str) -> Option<String> {
    first_error_with(body, "")
}

/// As [`first_error`], `compute` the body of the checksum-computing control.
fn first_error_with(body: &str, compute: &str) -> Option<String> {
    let text = format!(
        "#include <core.p4>
#include <v1model.p4>
header a_t {{ bit<8> kind; varbit<24> data; }}
struct meta_t {{ bit<4> nibble; varbit<24> saved; }}
struct hs {{ a_t a; }}
parser prs(packet_in p, out hs hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    state start {{ p.extract(hdr.a, 16); transition accept; }}
}}
control vc(inout hs hdr, inout meta_t meta) {{ apply {{ }} }}
control ing(inout hs hdr, inout meta_t meta, inout standard_metadata_t sm) {{
    apply {{ {body} }}
}}
control eg(inout hs hdr, inout meta_t meta, inout standard_metadata_t sm) {{ apply {{ }} }}
control cc(inout hs hdr, inout meta_t meta) {{ apply {{ {compute} }} }}
control dep(packet_out p, in hs hdr) {{ apply {{ p.emit(hdr.a); }} }}
V1Switch(prs(), vc(), ing(), eg(), cc(), dep()) main;
"
    );
    let fe = p4bpf_front::check_source(Path::new("test.p4"), &text, &Default::default());
    assert!(
        !fe.has_errors(),
        "front end: {:?}",
        fe.diagnostics.list.first().map(|d| d.message.clone())
    );
    match generate(&fe, "test", Hook::Tc, None) {
        Ok(_) => None,
        Err(d) => {
            let first = d.list.first()?;
            assert!(first.loc.is_some(), "no location: {}", first.message);
            Some(first.message.clone())
        }
    }
}

#[test]
fn a_checksum_over_a_varbit_compiles() {
    let body = "bit<16> c; hash(c, HashAlgorithm.csum16, 16w0, { hdr.a.kind, hdr.a.data }, 16w0);";
    assert_eq!(first_error(body), None);
}

#[test]
fn a_varbit_in_a_struct_after_a_nibble_is_refused() {
    let body = "bit<16> c; meta.saved = hdr.a.data; hash(c, HashAlgorithm.xor16, 16w0, { hdr.a.kind, meta }, 16w0);";
    let message = first_error(body).unwrap_or_default();
    // meta's nibble leaves the varbit off a byte boundary.
    assert!(message.contains("whole bytes"), "{message}");
}

#[test]
fn a_crc_over_a_varbit_is_refused() {
    let body = "bit<32> c; hash(c, HashAlgorithm.crc32, 32w0, { hdr.a.kind, hdr.a.data }, 32w0);";
    let message = first_error(body).unwrap_or_default();
    assert!(message.contains("only by csum16 or xor16"), "{message}");
}

#[test]
fn a_varbit_before_other_fields_of_a_checksum_is_refused() {
    let body = "bit<16> c; hash(c, HashAlgorithm.csum16, 16w0, { hdr.a.data, hdr.a.kind }, 16w0);";
    let message = first_error(body).unwrap_or_default();
    assert!(message.contains("last of the fields"), "{message}");
}

#[test]
fn a_checksum_with_payload_by_csum16_compiles() {
    let compute = "update_checksum_with_payload(true, { hdr.a.kind, hdr.a.data }, meta.nibble, HashAlgorithm.csum16);";
    assert_eq!(first_error_with("", compute), None);
}

#[test]
fn a_checksum_with_payload_by_crc_is_refused() {
    let compute =
        "update_checksum_with_payload(true, { hdr.a.kind }, meta.nibble, HashAlgorithm.crc16);";
    let message = first_error_with("", compute).unwrap_or_default();
    assert!(message.contains("only with csum16"), "{message}");
}

#[test]
fn a_payload_after_fields_not_whole_bytes_is_refused() {
    let compute =
        "update_checksum_with_payload(true, { meta.nibble }, meta.nibble, HashAlgorithm.csum16);";
    let message = first_error_with("", compute).unwrap_or_default();
    assert!(message.contains("not whole bytes"), "{message}");
}
