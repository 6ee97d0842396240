//! Client arbitration (P4Runtime §5): each stream joins a role with an
//! election id; per role the highest id is the primary, the others are
//! backups. Only the primary may write or set the pipeline. Every stream
//! hears the outcome when it joins, and every stream of the role hears it
//! again when the primary changes (a higher id joins, the primary leaves).

use crate::failure::{Failure, Outcome};
use crate::proto::google::rpc::Status as RpcStatus;
use crate::proto::p4::v1::{
    stream_message_response, MasterArbitrationUpdate, Role, StreamMessageResponse, Uint128,
};
use std::collections::HashMap;
use tokio::sync::mpsc::Sender;
use tonic::Code;

pub type Outbox = Sender<Result<StreamMessageResponse, tonic::Status>>;

struct Controller {
    stream: u64,
    election_id: u128,
    outbox: Outbox,
}

#[derive(Default)]
pub struct Arbitration {
    /// Controllers by role name ("" is the default role).
    roles: HashMap<String, Vec<Controller>>,
}

pub fn election(id: Option<&Uint128>) -> u128 {
    id.map_or(0, |id| u128::from(id.high) << 64 | u128::from(id.low))
}

impl Arbitration {
    /// `stream` (new, or re-arbitrating) joins `role` with `election_id`.
    pub fn join(
        &mut self,
        stream: u64,
        device_id: u64,
        role: &str,
        election_id: u128,
        outbox: Outbox,
    ) -> Outcome<()> {
        let members = self.roles.entry(role.to_string()).or_default();
        if election_id != 0
            && members
                .iter()
                .any(|c| c.stream != stream && c.election_id == election_id)
        {
            return Err(Failure::invalid(format!(
                "election id {election_id} is already used by another controller of this role"
            )));
        }
        let before = primary_of(members);
        members.retain(|c| c.stream != stream);
        members.push(Controller {
            stream,
            election_id,
            outbox,
        });
        let after = primary_of(members);
        if before != after {
            self.announce(device_id, role, None);
        } else {
            self.announce(device_id, role, Some(stream));
        }
        Ok(())
    }

    /// `stream` has closed; a new primary is announced if it was the primary.
    pub fn leave(&mut self, stream: u64, device_id: u64) {
        let mut changed = Vec::new();
        for (role, members) in &mut self.roles {
            let before = primary_of(members);
            members.retain(|c| c.stream != stream);
            if before != primary_of(members) {
                changed.push(role.clone());
            }
        }
        for role in changed {
            self.announce(device_id, &role, None);
        }
    }

    /// Whether `election_id` is the primary's of `role`.
    /// The outbox of each role's primary controller.
    pub fn primaries(&self) -> Vec<Outbox> {
        self.roles
            .values()
            .filter_map(|members| {
                let primary = primary_of(members)?;
                members.iter().find(|c| c.election_id == primary)
            })
            .map(|c| c.outbox.clone())
            .collect()
    }

    pub fn is_primary(&self, role: &str, election_id: u128) -> bool {
        let members = self.roles.get(role);
        election_id != 0 && members.and_then(|m| primary_of(m)) == Some(election_id)
    }

    /// Tell `only` (or every controller of `role`) who is primary.
    fn announce(&self, device_id: u64, role: &str, only: Option<u64>) {
        let Some(members) = self.roles.get(role) else {
            return;
        };
        let primary = primary_of(members);
        for controller in members
            .iter()
            .filter(|c| only.is_none_or(|s| s == c.stream))
        {
            let status = match primary {
                Some(id) if id == controller.election_id => RpcStatus {
                    code: Code::Ok as i32,
                    message: "this controller is the primary".into(),
                    details: Vec::new(),
                },
                Some(_) => RpcStatus {
                    code: Code::AlreadyExists as i32,
                    message: "this controller is a backup: another one has a higher election id"
                        .into(),
                    details: Vec::new(),
                },
                None => RpcStatus {
                    code: Code::NotFound as i32,
                    message: "no primary: no controller of this role has an election id".into(),
                    details: Vec::new(),
                },
            };
            let update = MasterArbitrationUpdate {
                device_id,
                role: (!role.is_empty()).then(|| Role {
                    name: role.to_string(),
                    ..Role::default()
                }),
                election_id: primary.map(|id| Uint128 {
                    high: (id >> 64) as u64,
                    low: id as u64,
                }),
                status: Some(status),
            };
            let message = StreamMessageResponse {
                update: Some(stream_message_response::Update::Arbitration(update)),
            };
            // A full or closed outbox belongs to a stream that is going away.
            let _ = controller.outbox.try_send(Ok(message));
        }
    }
}

fn primary_of(members: &[Controller]) -> Option<u128> {
    members
        .iter()
        .map(|c| c.election_id)
        .filter(|id| *id != 0)
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    fn codes(
        receiver: &mut mpsc::Receiver<Result<StreamMessageResponse, tonic::Status>>,
    ) -> Vec<i32> {
        let mut codes = Vec::new();
        while let Ok(Ok(message)) = receiver.try_recv() {
            if let Some(stream_message_response::Update::Arbitration(update)) = message.update {
                codes.push(update.status.map_or(-1, |s| s.code));
            }
        }
        codes
    }

    #[test]
    fn highest_election_id_is_primary_and_takes_over_when_it_leaves() {
        let mut arbitration = Arbitration::default();
        let (first, mut first_rx) = mpsc::channel(8);
        let (second, mut second_rx) = mpsc::channel(8);
        assert!(arbitration.join(1, 1, "", 10, first).is_ok());
        assert_eq!(codes(&mut first_rx), vec![Code::Ok as i32]);
        assert!(arbitration.join(2, 1, "", 5, second.clone()).is_ok());
        assert_eq!(codes(&mut second_rx), vec![Code::AlreadyExists as i32]);
        assert_eq!(codes(&mut first_rx), Vec::<i32>::new());
        assert!(arbitration.is_primary("", 10));
        assert!(!arbitration.is_primary("", 5));
        assert!(!arbitration.is_primary("other", 10));
        assert_eq!(
            arbitration.join(3, 1, "", 10, second).map_err(|f| f.code),
            Err(Code::InvalidArgument)
        );
        arbitration.leave(1, 1);
        assert!(arbitration.is_primary("", 5));
        assert_eq!(codes(&mut second_rx), vec![Code::Ok as i32]);
    }
}
