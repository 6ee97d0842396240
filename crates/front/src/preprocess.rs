//! The C-preprocessor subset P4 programs use. (Stub: copies the main file.)

use crate::diag::Diagnostics;
use crate::source::{Segment, SegmentKind, SourceFile, SourceMap, TranslationUnit};
use crate::Options;
use std::path::Path;

/// Preprocesses `path` into one translation unit.
pub fn preprocess(
    path: &Path,
    _options: &Options,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> TranslationUnit {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            diags.error(None, format!("cannot read {}: {e}", path.display()));
            return TranslationUnit::default();
        }
    };
    let file = sources.add(SourceFile::new(path.to_path_buf(), text.clone(), false));
    TranslationUnit {
        segments: vec![Segment { out_start: 0, file, src_start: 0, kind: SegmentKind::Copied }],
        text,
    }
}
