//! Listening: the address (localhost by default, so nothing is exposed by
//! accident) and the tokio runtime the service runs on. Two worker
//! threads: the map work itself runs on blocking threads.

use crate::proto::p4::v1::p4_runtime_server::P4RuntimeServer;
use crate::service::Service;
use p4bpf_runtime::deploy::XdpMode;
use std::net::SocketAddr;

pub const DEFAULT_ADDRESS: &str = "127.0.0.1:9559";
/// Largest request accepted (a batch of 100K entries is about 4 MiB).
const MAX_MESSAGE: usize = 64 << 20;

#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub address: SocketAddr,
    pub device_id: u64,
    /// The pipeline (bpffs folder name) the server loads and works on.
    pub pipeline: String,
    pub xdp_mode: XdpMode,
}

/// Serve until the process ends; an error only when it cannot start.
pub fn serve(options: &ServeOptions) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let service = Service::new(
        options.device_id,
        options.pipeline.clone(),
        options.xdp_mode,
    );
    let server = P4RuntimeServer::new(service)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(options.address)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", options.address))?;
        eprintln!(
            "p4runtime: serving device {} (pipeline `{}`) on {}",
            options.device_id, options.pipeline, options.address
        );
        tonic::transport::Server::builder()
            .serve_with_incoming(
                server,
                tokio_stream::wrappers::TcpListenerStream::new(listener),
            )
            .await
            .map_err(|e| format!("server stopped: {e}"))
    })
}
