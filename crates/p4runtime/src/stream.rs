//! One StreamChannel: arbitration first (device id, role, election id:
//! `arbitration`), then what the controller sends on it. PacketOut and
//! digest acks get a stream error: ebpf_model and xdp_model have no
//! `@controller_header` to carry packets to and from a CPU port, and no
//! digests; both come with PSA and v1model.

use crate::arbitration::{election, Arbitration, Outbox};
use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::{
    stream_error, stream_message_request, stream_message_response, MasterArbitrationUpdate,
    PacketOutError, StreamError, StreamMessageRequest, StreamMessageResponse,
};
use crate::service::lock;
use std::sync::{Arc, Mutex};
use tokio_stream::StreamExt;
use tonic::{Code, Streaming};

const NO_PACKET_IO: &str = "PacketOut needs a @controller_header, which ebpf_model and \
                            xdp_model do not have (it comes with PSA and v1model)";
const NO_DIGESTS: &str = "digests come with PSA and v1model; today's architectures send none";

/// Serve stream number `stream` until the controller closes it; it then
/// leaves the election.
pub async fn serve(
    arbitration: Arc<Mutex<Arbitration>>,
    device_id: u64,
    stream: u64,
    mut incoming: Streaming<StreamMessageRequest>,
    outbox: Outbox,
) {
    let mut joined = false;
    while let Some(Ok(message)) = incoming.next().await {
        let reply = match message.update {
            Some(stream_message_request::Update::Arbitration(update)) => {
                let joining = join(&arbitration, device_id, stream, &update, &outbox);
                if let Err(failure) = joining {
                    let _ = outbox.send(Err(failure.into_status())).await;
                    break;
                }
                joined = true;
                continue;
            }
            Some(stream_message_request::Update::Packet(packet)) => {
                let code = match joined {
                    true => Code::Unimplemented,
                    false => Code::PermissionDenied,
                };
                let details = stream_error::Details::PacketOut(PacketOutError {
                    packet_out: Some(packet),
                });
                refusal(code, NO_PACKET_IO, Some(details))
            }
            Some(stream_message_request::Update::DigestAck(_)) => {
                refusal(Code::Unimplemented, NO_DIGESTS, None)
            }
            Some(stream_message_request::Update::Other(_)) | None => {
                refusal(Code::Unimplemented, "unknown stream message", None)
            }
        };
        if outbox.send(Ok(reply)).await.is_err() {
            break;
        }
    }
    lock(&arbitration).leave(stream, device_id);
}

fn join(
    arbitration: &Mutex<Arbitration>,
    device_id: u64,
    stream: u64,
    update: &MasterArbitrationUpdate,
    outbox: &Outbox,
) -> Outcome<()> {
    if update.device_id != device_id {
        return Err(Failure::not_found(format!(
            "unknown device id {} (this server is device {device_id})",
            update.device_id
        )));
    }
    if update.role.as_ref().is_some_and(|r| r.config.is_some()) {
        return Err(Failure::unimplemented(
            "role configs are not supported: every role has the whole pipeline",
        ));
    }
    let role = update.role.as_ref().map_or("", |r| r.name.as_str());
    let election_id = election(update.election_id.as_ref());
    lock(arbitration).join(stream, device_id, role, election_id, outbox.clone())
}

fn refusal(
    code: Code,
    message: &str,
    details: Option<stream_error::Details>,
) -> StreamMessageResponse {
    StreamMessageResponse {
        update: Some(stream_message_response::Update::Error(StreamError {
            canonical_code: code as i32,
            message: message.to_string(),
            details,
            ..StreamError::default()
        })),
    }
}
