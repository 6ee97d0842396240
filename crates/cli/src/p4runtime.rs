//! `p4bpf p4runtime serve`: the P4Runtime server (`p4bpf_p4runtime`) as a
//! command. Options only; the server does the rest.

use crate::args::{unknown_option, Args, UsageError};
use p4bpf_p4runtime::{serve, ServeOptions, TlsFiles, DEFAULT_ADDRESS};
use p4bpf_runtime::deploy::XdpMode;
use std::process::ExitCode;

pub const USAGE: &str = "\
usage: p4bpf p4runtime serve [--addr HOST:PORT] [--device-id N] [--pipeline NAME]
                             [--xdp-mode native|generic]
                             [--tls-cert FILE --tls-key FILE [--tls-ca FILE]]

Serves P4Runtime v1 (gRPC) for one device. A controller's
SetForwardingPipelineConfig sends the P4Info and, as p4_device_config, the
object `p4bpf compile` wrote (NAME.o); the server loads it as pipeline NAME,
the one `p4bpf pipeline show NAME`, `table` and `counter` work on (a
pipeline already loaded under that name is replaced). Then Write, Read
(table entries, counters) and StreamChannel arbitration: only the primary
controller (highest election id) may write.

options:
  --addr HOST:PORT     where to listen (default 127.0.0.1:9559: this host only)
  --device-id N        the P4Runtime device id (default 1)
  --pipeline NAME      the pipeline to load and serve (default p4runtime)
  --xdp-mode MODE      how `port add` attaches the loaded pipeline (default native)
  --tls-cert FILE      serve TLS with this certificate (PEM) ...
  --tls-key FILE       ... and its private key (PEM)
  --tls-ca FILE        require client certificates signed by this CA (mutual TLS)

Not supported yet: packet-in/out,
digests and idle timeouts (today's architectures have none), action
profiles, meters and replication: each is refused with
UNIMPLEMENTED and a message. Registers are served for the cells the
pipeline keeps (registers with an initial value, of structs or wide
values, indexed by number).
";

pub fn run(mut words: Args) -> ExitCode {
    match options(&mut words) {
        Ok(options) => match serve(&options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(why) => {
                eprintln!("p4bpf: error: {why}");
                ExitCode::FAILURE
            }
        },
        Err(error) => error.report(Some("p4runtime")),
    }
}

fn options(words: &mut Args) -> Result<ServeOptions, UsageError> {
    if words.next_word().as_deref() != Some("serve") {
        return Err(UsageError::new("expected `p4runtime serve`"));
    }
    let mut address = DEFAULT_ADDRESS.to_string();
    let mut device_id = "1".to_string();
    let mut pipeline = "p4runtime".to_string();
    let mut xdp_mode = XdpMode::Native;
    let (mut cert, mut key, mut client_ca) = (None, None, None);
    while let Some(word) = words.next_word() {
        if let Some(value) = words.option(&word, "--addr")? {
            address = value;
        } else if let Some(value) = words.option(&word, "--device-id")? {
            device_id = value;
        } else if let Some(value) = words.option(&word, "--pipeline")? {
            pipeline = value;
        } else if let Some(value) = words.option(&word, "--xdp-mode")? {
            xdp_mode = match value.as_str() {
                "native" => XdpMode::Native,
                "generic" => XdpMode::Generic,
                other => return Err(UsageError::new(format!("unknown XDP mode `{other}`"))),
            };
        } else if let Some(value) = words.option(&word, "--tls-cert")? {
            cert = Some(value.into());
        } else if let Some(value) = words.option(&word, "--tls-key")? {
            key = Some(value.into());
        } else if let Some(value) = words.option(&word, "--tls-ca")? {
            client_ca = Some(value.into());
        } else {
            return Err(unknown_option(&word));
        }
    }
    let tls =
        match (cert, key, client_ca) {
            (None, None, None) => None,
            (Some(cert), Some(key), client_ca) => Some(TlsFiles {
                cert,
                key,
                client_ca,
            }),
            _ => return Err(UsageError::new(
                "TLS needs both `--tls-cert` and `--tls-key` (`--tls-ca` adds client certificates)",
            )),
        };
    Ok(ServeOptions {
        address: address.parse().map_err(|_| {
            UsageError::new(format!(
                "`{address}` is not HOST:PORT (an IP address and a port)"
            ))
        })?,
        device_id: device_id
            .parse()
            .map_err(|_| UsageError::new(format!("bad device id `{device_id}`")))?,
        pipeline,
        xdp_mode,
        tls,
    })
}
