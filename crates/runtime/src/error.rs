//! The runtime's typed errors. Each variant says what failed in terms the
//! operator can act on: an unsupported machine, a verifier rejection (with
//! its log), a missing entry, a bad value (naming the table and field).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeError {
    /// This machine cannot do it: no BPF permission, an old kernel, a
    /// program type or map the pipeline does not have.
    NotSupported(String),
    /// The object is not a usable p4bpf pipeline (no description, bad ELF).
    BadObject(String),
    /// The kernel verifier rejected the program; `log` is its output, `at`
    /// the P4 line (`file.p4:LINE`) and `involving` the action or table it
    /// was verifying, when the log and the object tell.
    Verifier {
        program: String,
        log: String,
        at: Option<String>,
        involving: Option<String>,
    },
    /// A lookup found no entry for the key.
    KeyNotFound { map: String },
    /// A name, value or width the pipeline does not accept.
    Value(String),
    /// A system call or libbpf call failed with `errno`.
    Os { operation: String, errno: i32 },
}

impl RuntimeError {
    pub fn os(operation: impl Into<String>, errno: i32) -> RuntimeError {
        RuntimeError::Os {
            operation: operation.into(),
            errno,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuntimeError::NotSupported(why) => write!(f, "not supported here: {why}"),
            RuntimeError::BadObject(why) => write!(f, "bad pipeline object: {why}"),
            RuntimeError::Verifier {
                program,
                log,
                at,
                involving,
            } => {
                // The log can be megabytes: its reason and last lines.
                let refusal = crate::verifier_log::read(log);
                if let Some(at) = at {
                    write!(f, "{at}: ")?;
                }
                write!(f, "the kernel verifier rejected program `{program}`")?;
                if let Some(involving) = involving {
                    write!(f, " in {involving}")?;
                }
                write!(f, ": {}\nnote: the verifier's last lines:", refusal.reason)?;
                for line in &refusal.tail {
                    write!(f, "\n    {line}")?;
                }
                Ok(())
            }
            RuntimeError::KeyNotFound { map } => write!(f, "no entry for this key in map `{map}`"),
            RuntimeError::Value(why) => write!(f, "{why}"),
            RuntimeError::Os { operation, errno } => {
                let text = std::io::Error::from_raw_os_error(*errno);
                write!(f, "{operation} failed: {text}")
            }
        }
    }
}

impl std::error::Error for RuntimeError {}

pub type Result<T> = std::result::Result<T, RuntimeError>;
