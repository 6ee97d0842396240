//! Our architecture include files (`p4include/` at the repository root),
//! embedded so that `#include <core.p4>` works without flags or installs.

/// `(name as written in #include, contents)`.
pub const FILES: &[(&str, &str)] = &[];

/// The built-in file an `#include <name>` refers to, if any.
pub fn find(name: &str) -> Option<&'static str> {
    FILES.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}
