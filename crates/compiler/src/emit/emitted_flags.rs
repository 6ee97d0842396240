//! The deparser's record of which emit statements ran (a rebuild writes
//! the recorded headers after one resize). A few emits keep a `u8` flag
//! each, which clang holds in registers; beyond that every flag would
//! take a stack slot of its own (a deparser over a 100-element stack
//! needs more than the 512-byte BPF stack), so the flags are the bits of
//! `u64` words, one slot per 64 emits.

/// Emits up to which each flag is a variable of its own.
const OWN_VARIABLES: usize = 8;

/// The flags of a deparser's emits: `recorded[i]` when emit `i` has one
/// (emits whose paths are joined need none).
pub(super) struct EmittedFlags {
    recorded: Vec<bool>,
}

impl EmittedFlags {
    pub(super) fn new(recorded: Vec<bool>) -> EmittedFlags {
        EmittedFlags { recorded }
    }

    fn packed(&self) -> bool {
        self.recorded.iter().filter(|r| **r).count() > OWN_VARIABLES
    }

    /// C declarations of the flags, all clear.
    pub(super) fn declarations(&self) -> Vec<String> {
        if self.packed() {
            let words = self.recorded.len().div_ceil(64);
            return vec![format!("u64 emitted[{words}] = {{0}}")];
        }
        (0..self.recorded.len())
            .filter(|i| self.recorded[*i])
            .map(|i| format!("u8 emitted_{i} = 0"))
            .collect()
    }

    /// C statement setting flag `i`.
    pub(super) fn set(&self, i: usize) -> String {
        match self.packed() {
            true => format!("emitted[{}] |= 1ULL << {}", i / 64, i % 64),
            false => format!("emitted_{i} = 1"),
        }
    }

    /// C condition: is flag `i` set?
    pub(super) fn test(&self, i: usize) -> String {
        match self.packed() {
            true => format!("emitted[{}] & (1ULL << {})", i / 64, i % 64),
            false => format!("emitted_{i}"),
        }
    }
}
