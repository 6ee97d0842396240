//! Fuzz target: the whole front end on arbitrary bytes, read as lossy
//! UTF-8 like `p4bpf check` reads a file. Any panic, stack overflow or
//! time-out is a bug.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = p4bpf_front::check_source(
        Path::new("fuzz.p4"),
        &text,
        &p4bpf_front::Options::default(),
    );
});
