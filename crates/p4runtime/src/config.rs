//! SetForwardingPipelineConfig and GetForwardingPipelineConfig: the P4Info
//! and, as `p4_device_config`, the object `p4bpf compile` wrote. Verifying
//! resolves the P4Info against the description inside the object
//! (`Schema`); committing loads the object as the served pipeline, in the
//! same bpffs folder every `p4bpf` command uses, replacing (unloading) the
//! pipeline of that name first, as a new config clears forwarding state.

use crate::failure::{Failure, Outcome};
use crate::proto::p4::v1::{
    forwarding_pipeline_config::Cookie, get_forwarding_pipeline_config_request::ResponseType,
    set_forwarding_pipeline_config_request::Action, ForwardingPipelineConfig,
};
use crate::schema::Schema;
use p4bpf_runtime::deploy::{self, LoadOptions, XdpMode};
use std::sync::Arc;

/// A verified config: what the controller sent and its resolved ids.
pub struct Verified {
    pub config: ForwardingPipelineConfig,
    pub schema: Arc<Schema>,
}

pub fn verify(config: Option<ForwardingPipelineConfig>) -> Outcome<Verified> {
    let config = config.ok_or_else(|| Failure::invalid("the request has no config"))?;
    let p4info = config
        .p4info
        .clone()
        .ok_or_else(|| Failure::invalid("the config has no P4Info"))?;
    if config.p4_device_config.is_empty() {
        return Err(Failure::invalid(
            "the config has no p4_device_config: send the object `p4bpf compile` wrote (NAME.o)",
        ));
    }
    let pipeline = p4bpf_runtime::read_description(&config.p4_device_config)
        .map_err(|e| Failure::invalid(format!("p4_device_config: {e}")))?;
    let schema = Schema::new(p4info, pipeline)?;
    Ok(Verified {
        config,
        schema: Arc::new(schema),
    })
}

/// What the request's action asks of the verified config.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    VerifyOnly,
    Save,
    Commit,
    CommitSaved,
}

pub fn step(action: i32) -> Outcome<Step> {
    match Action::try_from(action) {
        Ok(Action::Verify) => Ok(Step::VerifyOnly),
        Ok(Action::VerifyAndSave) => Ok(Step::Save),
        Ok(Action::VerifyAndCommit) => Ok(Step::Commit),
        Ok(Action::Commit) => Ok(Step::CommitSaved),
        Ok(Action::ReconcileAndCommit) => Err(Failure::unimplemented(
            "RECONCILE_AND_COMMIT: p4bpf cannot carry table state across programs; use VERIFY_AND_COMMIT",
        )),
        _ => Err(Failure::invalid(format!("unknown or unspecified action {action}"))),
    }
}

/// Load the verified object as pipeline `name` (blocking: call it off the
/// async threads).
pub fn commit(name: &str, xdp_mode: XdpMode, verified: &Verified) -> Outcome<()> {
    if deploy::folder(name).is_dir() {
        deploy::unload(name)?;
    }
    let options = LoadOptions {
        name: name.to_string(),
        xdp_mode,
        p4info: None,
    };
    deploy::load(verified.config.p4_device_config.clone(), &options)?;
    Ok(())
}

/// The parts of `config` that `response_type` asks for.
pub fn answer(
    config: &ForwardingPipelineConfig,
    response_type: i32,
) -> Outcome<ForwardingPipelineConfig> {
    let cookie = config.cookie.or(Some(Cookie { cookie: 0 }));
    let kind = ResponseType::try_from(response_type)
        .map_err(|_| Failure::invalid(format!("unknown response type {response_type}")))?;
    let (p4info, device) = match kind {
        ResponseType::All => (true, true),
        ResponseType::CookieOnly => (false, false),
        ResponseType::P4infoAndCookie => (true, false),
        ResponseType::DeviceConfigAndCookie => (false, true),
    };
    Ok(ForwardingPipelineConfig {
        p4info: config.p4info.clone().filter(|_| p4info),
        p4_device_config: if device {
            config.p4_device_config.clone()
        } else {
            Vec::new()
        },
        cookie,
    })
}
