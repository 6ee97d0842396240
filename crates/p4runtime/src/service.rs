//! The P4Runtime gRPC service: checks who is asking (device id, primary
//! controller of the role) and hands the work to `config`, `write`, `read`
//! and `stream` (which joins `arbitration`). Map work runs on blocking
//! threads, each request with its own handle on the pinned pipeline
//! (holding its writer lock for a write), so the CLI and this server can
//! work on the same pipeline.

use crate::arbitration::{election, Arbitration};
use crate::config::{self, Step, Verified};
use crate::failure::{batch_status, Failure, Outcome};
use crate::proto::p4::v1::p4_runtime_server::P4Runtime;
use crate::proto::p4::v1::{
    CapabilitiesRequest, CapabilitiesResponse, GetForwardingPipelineConfigRequest,
    GetForwardingPipelineConfigResponse, ReadRequest, ReadResponse,
    SetForwardingPipelineConfigRequest, SetForwardingPipelineConfigResponse, StreamMessageRequest,
    StreamMessageResponse, Uint128, WriteRequest, WriteResponse,
};
use p4bpf_runtime::deploy::{Deployment, XdpMode};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::Stream;
use tonic::{Code, Request, Response, Status, Streaming};

/// The P4Runtime version this server implements (the schema's).
const API_VERSION: &str = "1.4.1";
/// Entities per ReadResponse message.
const READ_CHUNK: usize = 4096;

pub struct Service {
    device_id: u64,
    pipeline: String,
    xdp_mode: XdpMode,
    state: Arc<Mutex<State>>,
    arbitration: Arc<Mutex<Arbitration>>,
    next_stream: AtomicU64,
}

#[derive(Default)]
struct State {
    active: Option<Arc<Verified>>,
    saved: Option<Arc<Verified>>,
}

impl Service {
    pub fn new(device_id: u64, pipeline: String, xdp_mode: XdpMode) -> Service {
        Service {
            device_id,
            pipeline,
            xdp_mode,
            state: Arc::default(),
            arbitration: Arc::default(),
            next_stream: AtomicU64::new(1),
        }
    }

    /// The task telling primary controllers of idle entries (`idle`).
    pub fn idle_notifier(&self) -> impl std::future::Future<Output = ()> + Send + 'static {
        let state = self.state.clone();
        let active = move || lock(&state).active.as_ref().map(|v| v.schema.clone());
        crate::idle::notify(self.pipeline.clone(), active, self.arbitration.clone())
    }

    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    fn check_device(&self, device_id: u64) -> Outcome<()> {
        if device_id != self.device_id {
            return Err(Failure::not_found(format!(
                "unknown device id {device_id} (this server is device {})",
                self.device_id
            )));
        }
        Ok(())
    }

    fn check_primary(&self, role: &str, election_id: Option<&Uint128>) -> Outcome<()> {
        if !lock(&self.arbitration).is_primary(role, election(election_id)) {
            return Err(Failure::new(
                Code::PermissionDenied,
                "only the primary controller may write: open a stream with the highest election id first",
            ));
        }
        Ok(())
    }

    fn active(&self) -> Outcome<Arc<Verified>> {
        self.state().active.clone().ok_or_else(|| {
            Failure::new(
                Code::FailedPrecondition,
                "no forwarding pipeline config: send SetForwardingPipelineConfig first",
            )
        })
    }

    /// Runs `work` on a blocking thread with the pipeline opened.
    async fn with_pipeline<T: Send + 'static>(
        &self,
        for_writing: bool,
        work: impl FnOnce(&Deployment) -> Outcome<T> + Send + 'static,
    ) -> Outcome<T> {
        let name = self.pipeline.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let deployment = if for_writing {
                Deployment::open_for_writing(&name)
            } else {
                Deployment::open(&name)
            };
            work(&deployment?)
        })
        .await;
        joined.map_err(|e| Failure::new(Code::Internal, format!("worker failed: {e}")))?
    }

    async fn set_config(&self, request: SetForwardingPipelineConfigRequest) -> Outcome<()> {
        self.check_device(request.device_id)?;
        self.check_primary(&request.role, request.election_id.as_ref())?;
        let step = config::step(request.action)?;
        let verified = match step {
            Step::CommitSaved => self.state().saved.clone().ok_or_else(|| {
                Failure::new(
                    Code::FailedPrecondition,
                    "COMMIT: no config was saved (VERIFY_AND_SAVE)",
                )
            })?,
            _ => Arc::new(config::verify(request.config)?),
        };
        match step {
            Step::VerifyOnly => {}
            Step::Save => self.state().saved = Some(verified),
            Step::Commit | Step::CommitSaved => {
                let (name, mode, to_load) =
                    (self.pipeline.clone(), self.xdp_mode, verified.clone());
                tokio::task::spawn_blocking(move || config::commit(&name, mode, &to_load))
                    .await
                    .map_err(|e| Failure::new(Code::Internal, format!("worker failed: {e}")))??;
                let mut state = self.state();
                state.active = Some(verified);
                state.saved = None;
            }
        }
        Ok(())
    }

    async fn write_updates(&self, request: WriteRequest) -> Result<(), Status> {
        self.check_device(request.device_id)
            .map_err(Failure::into_status)?;
        self.check_primary(&request.role, request.election_id.as_ref())
            .map_err(Failure::into_status)?;
        let active = self.active().map_err(Failure::into_status)?;
        let atomicity = request.atomicity;
        let updates = request.updates;
        let results = self
            .with_pipeline(true, move |deployment| {
                crate::write::apply(&active.schema, deployment, &updates, atomicity)
            })
            .await
            .map_err(Failure::into_status)?;
        match results.iter().any(|r| r.is_err()) {
            true => Err(batch_status(&results)),
            false => Ok(()),
        }
    }
}

/// The lock of `mutex`, also after a panic elsewhere: each change to what
/// it guards is one assignment or one call that completes.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl P4Runtime for Service {
    async fn write(
        &self,
        request: Request<WriteRequest>,
    ) -> Result<Response<WriteResponse>, Status> {
        self.write_updates(request.into_inner()).await?;
        Ok(Response::new(WriteResponse {}))
    }

    type ReadStream = BoxStream<ReadResponse>;

    async fn read(
        &self,
        request: Request<ReadRequest>,
    ) -> Result<Response<Self::ReadStream>, Status> {
        let request = request.into_inner();
        self.check_device(request.device_id)
            .map_err(Failure::into_status)?;
        let active = self.active().map_err(Failure::into_status)?;
        let entities = self
            .with_pipeline(false, move |deployment| {
                crate::read::read(&active.schema, deployment, &request.entities)
            })
            .await
            .map_err(Failure::into_status)?;
        let mut responses: Vec<Result<ReadResponse, Status>> = entities
            .chunks(READ_CHUNK)
            .map(|chunk| {
                Ok(ReadResponse {
                    entities: chunk.to_vec(),
                })
            })
            .collect();
        if responses.is_empty() {
            responses.push(Ok(ReadResponse::default()));
        }
        Ok(Response::new(Box::pin(tokio_stream::iter(responses))))
    }

    async fn set_forwarding_pipeline_config(
        &self,
        request: Request<SetForwardingPipelineConfigRequest>,
    ) -> Result<Response<SetForwardingPipelineConfigResponse>, Status> {
        self.set_config(request.into_inner())
            .await
            .map_err(Failure::into_status)?;
        Ok(Response::new(SetForwardingPipelineConfigResponse {}))
    }

    async fn get_forwarding_pipeline_config(
        &self,
        request: Request<GetForwardingPipelineConfigRequest>,
    ) -> Result<Response<GetForwardingPipelineConfigResponse>, Status> {
        let request = request.into_inner();
        self.check_device(request.device_id)
            .map_err(Failure::into_status)?;
        let config = match self.state().active.clone() {
            Some(active) => Some(
                config::answer(&active.config, request.response_type)
                    .map_err(Failure::into_status)?,
            ),
            None => None,
        };
        Ok(Response::new(GetForwardingPipelineConfigResponse {
            config,
        }))
    }

    type StreamChannelStream = BoxStream<StreamMessageResponse>;

    async fn stream_channel(
        &self,
        request: Request<Streaming<StreamMessageRequest>>,
    ) -> Result<Response<Self::StreamChannelStream>, Status> {
        let (outbox, responses) = mpsc::channel(64);
        let stream = self.next_stream.fetch_add(1, Ordering::Relaxed);
        tokio::spawn(crate::stream::serve(
            self.arbitration.clone(),
            self.device_id,
            stream,
            request.into_inner(),
            outbox,
        ));
        Ok(Response::new(Box::pin(ReceiverStream::new(responses))))
    }

    async fn capabilities(
        &self,
        _request: Request<CapabilitiesRequest>,
    ) -> Result<Response<CapabilitiesResponse>, Status> {
        Ok(Response::new(CapabilitiesResponse {
            p4runtime_api_version: API_VERSION.to_string(),
        }))
    }
}
