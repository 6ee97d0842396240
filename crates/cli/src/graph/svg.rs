//! DOT to SVG through Graphviz's `dot`, the layout engine p4c's graphs
//! back end leaves its users to run.

use std::io::Write;
use std::process::{Command, Stdio};

/// Lays `dot_text` out as SVG.
pub fn render(dot_text: &str) -> Result<String, String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!("cannot run Graphviz's `dot` ({e}): install the `graphviz` package for SVG (the DOT files are written)")
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(dot_text.as_bytes())
            .map_err(|e| format!("cannot write to `dot`: {e}"))?;
    }
    let output = child
        .wait_with_output()
        .map_err(|e| format!("`dot` did not finish: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "`dot` failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8(output.stdout).map_err(|_| "`dot` wrote SVG that is not UTF-8".to_string())
}
