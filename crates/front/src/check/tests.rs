//! End-to-end tests of the checker on small programs.
