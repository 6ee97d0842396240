//! Where an `#include` finds its file.
//!
//! Rules: `#include "f"` looks in the including file's folder, then in each
//! `-I` folder, then among the built-in architecture files; `#include <f>`
//! skips the including file's folder. A built-in file is named
//! `p4include/NAME`, and its own quoted includes look among the built-ins
//! relative to its folder.

use crate::p4include;
use crate::source::SourceFile;
use std::path::{Path, PathBuf};

/// Folder prefix under which built-in files appear in diagnostics.
pub const BUILTIN_DIR: &str = "p4include";

/// A file found for an `#include`.
pub enum Found {
    Disk(PathBuf),
    Builtin { path: PathBuf, text: &'static str },
}

/// Looks `name` up; on failure returns the places searched, for the note.
pub fn resolve(
    name: &str,
    quoted: bool,
    includer: &SourceFile,
    include_dirs: &[PathBuf],
) -> Result<Found, Vec<String>> {
    let mut searched = Vec::new();
    if quoted {
        let folder = includer.path.parent().unwrap_or(Path::new(""));
        if includer.builtin {
            if let Some(found) = builtin(folder.join(name).strip_prefix(BUILTIN_DIR).ok()) {
                return Ok(found);
            }
        } else if let Some(found) = on_disk(folder, name) {
            return Ok(found);
        }
        searched.push(display_folder(folder));
    }
    for dir in include_dirs {
        if let Some(found) = on_disk(dir, name) {
            return Ok(found);
        }
        searched.push(display_folder(dir));
    }
    if let Some(found) = builtin(Some(Path::new(name))) {
        return Ok(found);
    }
    searched.push("the built-in architecture files".into());
    Err(searched)
}

fn on_disk(folder: &Path, name: &str) -> Option<Found> {
    let path = folder.join(name);
    path.is_file().then_some(Found::Disk(path))
}

fn builtin(name: Option<&Path>) -> Option<Found> {
    let name = name?.to_str()?;
    let text = p4include::find(name)?;
    Some(Found::Builtin {
        path: Path::new(BUILTIN_DIR).join(name),
        text,
    })
}

fn display_folder(folder: &Path) -> String {
    if folder.as_os_str().is_empty() {
        ".".into()
    } else {
        folder.display().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, builtin: bool) -> SourceFile {
        SourceFile::new(path.into(), String::new(), builtin)
    }

    #[test]
    fn angle_includes_skip_the_including_folder() {
        let dir = std::env::temp_dir().join(format!("p4bpf-include-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join("local.p4"), "");
        let main = file(&dir.join("main.p4").to_string_lossy(), false);
        assert!(matches!(
            resolve("local.p4", true, &main, &[]),
            Ok(Found::Disk(_))
        ));
        assert!(resolve("local.p4", false, &main, &[]).is_err());
        assert!(matches!(
            resolve("local.p4", false, &main, std::slice::from_ref(&dir)),
            Ok(Found::Disk(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn builtins_are_found_by_name_and_from_each_other() {
        let main = file("nowhere/main.p4", false);
        let Ok(Found::Builtin { path, .. }) = resolve("core.p4", false, &main, &[]) else {
            unreachable!("core.p4 is built in")
        };
        assert_eq!(path, Path::new("p4include/core.p4"));
        let psa = file("p4include/psa.p4", true);
        assert!(matches!(
            resolve("core.p4", true, &psa, &[]),
            Ok(Found::Builtin { .. })
        ));
    }

    #[test]
    fn a_missing_file_lists_the_search_path() {
        let main = file("src/main.p4", false);
        let Err(searched) = resolve("missing.p4", true, &main, &["inc".into()]) else {
            unreachable!("missing.p4 does not exist")
        };
        assert_eq!(
            searched,
            vec!["src", "inc", "the built-in architecture files"]
        );
    }
}
