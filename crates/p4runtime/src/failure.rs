//! A refused request: a gRPC status code as the P4Runtime specification
//! assigns it, and a message that names the table, field or id at fault.
//! Batch writes carry one per update as a `p4.v1.Error` in the status
//! details (`grpc-status-details-bin`), which is where P4Runtime clients
//! (p4runtime-shell, ONOS) look for them.

use crate::proto::google::rpc::Status as RpcStatus;
use crate::proto::p4::v1::Error as UpdateError;
use p4bpf_runtime::RuntimeError;
use prost::Message;
use tonic::Code;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub code: Code,
    pub message: String,
}

pub type Outcome<T> = std::result::Result<T, Failure>;

impl Failure {
    pub fn new(code: Code, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::new(Code::InvalidArgument, message)
    }

    pub fn not_found(message: impl Into<String>) -> Failure {
        Failure::new(Code::NotFound, message)
    }

    pub fn unimplemented(message: impl Into<String>) -> Failure {
        Failure::new(Code::Unimplemented, message)
    }

    /// The runtime's error in P4Runtime terms. Table-full and OS errors
    /// have codes of their own; everything else the runtime refuses is a
    /// bad value.
    pub fn from_runtime(error: RuntimeError) -> Failure {
        let code = match &error {
            RuntimeError::KeyNotFound { .. } => Code::NotFound,
            RuntimeError::Value(why) if why.contains("is full") => Code::ResourceExhausted,
            RuntimeError::Value(_) => Code::InvalidArgument,
            RuntimeError::NotSupported(_) => Code::Unimplemented,
            RuntimeError::BadObject(_) | RuntimeError::Verifier { .. } => Code::InvalidArgument,
            RuntimeError::Os { .. } => Code::Internal,
        };
        Failure::new(code, error.to_string())
    }

    pub fn into_status(self) -> tonic::Status {
        tonic::Status::new(self.code, self.message)
    }
}

impl From<RuntimeError> for Failure {
    fn from(error: RuntimeError) -> Failure {
        Failure::from_runtime(error)
    }
}

/// The status of a batch in which some update failed: UNKNOWN, with one
/// `p4.v1.Error` per update in request order (OK for those that took).
pub fn batch_status(results: &[Outcome<()>]) -> tonic::Status {
    let failed = results.iter().filter(|r| r.is_err()).count();
    let details = results
        .iter()
        .map(|result| {
            let error = match result {
                Ok(()) => UpdateError::default(),
                Err(failure) => UpdateError {
                    canonical_code: failure.code as i32,
                    message: failure.message.clone(),
                    ..UpdateError::default()
                },
            };
            prost_types::Any {
                type_url: "type.googleapis.com/p4.v1.Error".into(),
                value: error.encode_to_vec(),
            }
        })
        .collect();
    let message = format!("{failed} of {} updates failed", results.len());
    let status = RpcStatus {
        code: Code::Unknown as i32,
        message: message.clone(),
        details,
    };
    tonic::Status::with_details(Code::Unknown, message, status.encode_to_vec().into())
}
