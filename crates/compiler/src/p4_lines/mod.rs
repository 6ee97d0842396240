//! P4 lines in the object's BTF line info, so that `bpftool prog dump
//! xlated ... linum`, `perf annotate` and the verifier's log name the .p4
//! file and line.
//!
//! Not `#line` directives: clang's BPF back end (measured with clang 14
//! and 16) labels every line-info record with the file of the enclosing
//! function's subprogram and reads the line's text from that file, so a
//! `#line` inside the entry function keeps the C file name, and one before
//! it labels every C line, glue included, as P4. Instead, after clang, each
//! line-info record of the generated C that lies in a source region
//! (section `.p4bpf.lines`) gets the region's P4 file, line and text; the
//! new strings are appended to `.BTF`'s string section. Records outside
//! every region (glue with no P4 line) keep their C line.

mod btf;
mod elf;

use btf::{Btf, LineInfo};
use p4bpf_layout::SourceRegion;
use std::path::Path;

/// The text of line `line` of the P4 file named `file`, when known.
pub type P4Text<'a> = &'a dyn Fn(&str, u32) -> Option<String>;

/// Rewrites `object`'s line info of the C file `c_file` to P4 lines.
pub fn put_into(object: &Path, c_file: &Path, p4_text: P4Text) -> Result<(), String> {
    let cannot = |e: String| format!("cannot put P4 lines into {}: {e}", object.display());
    let image = std::fs::read(object).map_err(|e| cannot(e.to_string()))?;
    let c_name = c_file.file_name().unwrap_or_default().to_string_lossy();
    if let Some(rewritten) = rewrite(&image, &c_name, p4_text).map_err(cannot)? {
        std::fs::write(object, rewritten).map_err(|e| cannot(e.to_string()))?;
    }
    Ok(())
}

/// `image` with the line info of C file `c_name` in P4 terms, or `None`
/// when it has no line info or no source regions.
fn rewrite(image: &[u8], c_name: &str, p4_text: P4Text) -> Result<Option<Vec<u8>>, String> {
    let sections = elf::sections(image)?;
    let find = |name: &str| sections.iter().find(|s| s.name == name);
    let (Some(btf_section), Some(ext_section), Some(lines_section)) = (
        find(".BTF"),
        find(".BTF.ext"),
        find(p4bpf_layout::LINES_SECTION),
    ) else {
        return Ok(None);
    };
    let lines = String::from_utf8_lossy(lines_section.bytes(image)?);
    let regions = SourceRegion::parse_all(lines.trim_end_matches('\0'));
    if regions.is_empty() {
        return Ok(None);
    }
    let mut btf = Btf::read(btf_section.bytes(image)?)?;
    let mut ext = ext_section.bytes(image)?.to_vec();
    btf::relabel_lines(&mut ext, |info| {
        let in_c = file_name(btf.string(info.file)) == c_name;
        match SourceRegion::find(&regions, info.line).filter(|_| in_c) {
            Some(region) => p4_line(&mut btf, region, p4_text).map(|p4| p4.unwrap_or(info)),
            None => Ok(info),
        }
    })?;
    let mut out = image.to_vec();
    elf::replace(&mut out, ext_section, &ext)?;
    elf::replace(&mut out, btf_section, &btf.into_bytes())?;
    Ok(Some(out))
}

/// The line info of `region`'s P4 origin (`file.p4:LINE`).
fn p4_line(
    btf: &mut Btf,
    region: &SourceRegion,
    p4_text: P4Text,
) -> Result<Option<LineInfo>, String> {
    let Some((file, line)) = region.origin.rsplit_once(':') else {
        return Ok(None);
    };
    let Ok(line) = line.parse::<u32>() else {
        return Ok(None);
    };
    let text = p4_text(file, line).unwrap_or_default();
    Ok(Some(LineInfo {
        file: btf.add(file)?,
        text: btf.add(text.trim())?,
        line,
        column: 0,
    }))
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

#[cfg(test)]
#[allow(clippy::panic)] // a failing test should stop loudly
mod tests {
    use super::*;
    use crate::{compile_file, CompileOptions, Hook};

    const PROGRAM: &str = "\
#include <core.p4>
#include <ebpf_model.p4>
header h_t { bit<32> a; }
struct hs { h_t h; }
parser prs(packet_in p, out hs hdr) {
    state start { p.extract(hdr.h); transition accept; }
}
control f(inout hs hdr, out bool pass) {
    action allow() { pass = true; }
    table by_a {
        key = { hdr.h.a: exact; }
        actions = { allow; NoAction; }
        default_action = NoAction();
    }
    apply { pass = false; by_a.apply(); }
}
ebpfFilter(prs(), f()) main;
";

    /// File, line and text of every line-info record of `object`.
    fn line_info(object: &[u8]) -> Vec<(String, u32, String)> {
        let sections = elf::sections(object).unwrap_or_else(|e| panic!("{e}"));
        let bytes = |name: &str| {
            let section = sections.iter().find(|s| s.name == name);
            section
                .and_then(|s| s.bytes(object).ok())
                .unwrap_or_default()
        };
        let strings = Btf::read(bytes(".BTF")).unwrap_or_else(|e| panic!("{e}"));
        let mut out = vec![];
        btf::relabel_lines(&mut bytes(".BTF.ext").to_vec(), |info| {
            let file = strings.string(info.file).to_string();
            out.push((file, info.line, strings.string(info.text).to_string()));
            Ok(info)
        })
        .unwrap_or_else(|e| panic!("{e}"));
        out
    }

    #[test]
    fn the_object_names_p4_lines_with_their_text() {
        if std::process::Command::new("clang")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("SKIPPED the_object_names_p4_lines_with_their_text: clang is not installed");
            return;
        }
        let dir = std::env::temp_dir().join(format!("p4bpf-p4-lines-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let source = dir.join("lines.p4");
        std::fs::write(&source, PROGRAM).unwrap_or_else(|e| panic!("{e}"));
        let options = CompileOptions {
            front: Default::default(),
            hook: Hook::Xdp,
            out_dir: dir.clone(),
            extern_file: None,
            trace: false,
            table_stats: false,
            table_caching: false,
            port_notes: true,
        };
        let compiled = compile_file(&source, &options).unwrap_or_else(|e| panic!("{e:?}"));
        let object = std::fs::read(&compiled.object).unwrap_or_else(|e| panic!("{e}"));
        let _ = std::fs::remove_dir_all(&dir);
        let records = line_info(&object);
        let p4: Vec<_> = records.iter().filter(|(f, _, _)| f == "lines.p4").collect();
        assert!(
            p4.iter()
                .any(|(_, line, text)| *line == 10 && text == "table by_a {"),
            "{records:?}"
        );
        assert!(
            p4.iter()
                .any(|(_, line, text)| *line == 6 && text.starts_with("state start {")),
            "{records:?}"
        );
        for (_, line, text) in &p4 {
            let source_line = PROGRAM.lines().nth(*line as usize - 1).unwrap_or_default();
            assert_eq!(text, source_line.trim(), "line {line}");
        }
        // Glue with no P4 line keeps the generated C's name.
        assert!(
            records.iter().any(|(f, _, _)| f.ends_with("lines.c")),
            "{records:?}"
        );
    }
}
