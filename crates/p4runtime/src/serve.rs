//! Listening: the address (localhost by default, so nothing is exposed by
//! accident), TLS when asked (a certificate and key; with a CA, client
//! certificates signed by it are required: mutual TLS), and the tokio
//! runtime the service runs on. Two worker threads: the map work itself
//! runs on blocking threads.

use crate::proto::p4::v1::p4_runtime_server::P4RuntimeServer;
use crate::service::Service;
use p4bpf_runtime::deploy::XdpMode;
use std::net::SocketAddr;
use std::path::PathBuf;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, ServerTlsConfig};

pub const DEFAULT_ADDRESS: &str = "127.0.0.1:9559";
/// Largest request accepted (a batch of 100K entries is about 4 MiB).
const MAX_MESSAGE: usize = 64 << 20;
/// HTTP/2 flow-control window: a batch request (10K updates, about
/// 400 KiB) goes in without waiting for window updates (the default
/// 64 KiB window took seven round trips a request).
const WINDOW: u32 = 8 << 20;

#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub address: SocketAddr,
    pub device_id: u64,
    /// The pipeline (bpffs folder name) the server loads and works on.
    pub pipeline: String,
    pub xdp_mode: XdpMode,
    pub tls: Option<TlsFiles>,
}

/// PEM files: the server's certificate and key, and the CA that signs
/// client certificates (mutual TLS) if any.
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
    pub client_ca: Option<PathBuf>,
}

/// Serve until the process ends; an error only when it cannot start.
pub fn serve(options: &ServeOptions) -> Result<(), String> {
    keep_freed_memory();
    let mut builder = tonic::transport::Server::builder()
        .initial_stream_window_size(WINDOW)
        .initial_connection_window_size(WINDOW);
    if let Some(files) = &options.tls {
        builder = builder
            .tls_config(tls_config(files)?)
            .map_err(|e| format!("TLS: {e}"))?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let service = Service::new(
        options.device_id,
        options.pipeline.clone(),
        options.xdp_mode,
    );
    let idle_notifier = service.idle_notifier();
    let server = P4RuntimeServer::new(service)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    runtime.block_on(async {
        tokio::spawn(idle_notifier);
        let listener = tokio::net::TcpListener::bind(options.address)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", options.address))?;
        eprintln!(
            "p4runtime: serving device {} (pipeline `{}`) on {}{}",
            options.device_id,
            options.pipeline,
            options.address,
            match &options.tls {
                Some(TlsFiles {
                    client_ca: Some(_), ..
                }) => " with mutual TLS",
                Some(_) => " with TLS",
                None => " without TLS",
            }
        );
        builder
            .serve_with_incoming(server, TcpIncoming::from(listener).with_nodelay(Some(true)))
            .await
            .map_err(|e| format!("server stopped: {e}"))
    })
}

fn tls_config(files: &TlsFiles) -> Result<ServerTlsConfig, String> {
    let read = |path: &PathBuf| {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let identity = Identity::from_pem(read(&files.cert)?, read(&files.key)?);
    let mut config = ServerTlsConfig::new().identity(identity);
    if let Some(ca) = &files.client_ca {
        config = config.client_ca_root(Certificate::from_pem(read(ca)?));
    }
    Ok(config)
}

/// glibc hands a freed block of a request's size back to the kernel at
/// once (a 10K-update batch decodes to megabytes) and faults it in again
/// for the next request: a tenth of the server's time in page faults and
/// madvise, measured by `bench/p4runtime`. Keeping freed memory (bounded
/// by the largest request) for reuse takes that away.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    use std::ffi::c_int;
    extern "C" {
        fn mallopt(param: c_int, value: c_int) -> c_int;
    }
    const M_TRIM_THRESHOLD: c_int = -1;
    const M_TOP_PAD: c_int = -2;
    const M_MMAP_THRESHOLD: c_int = -3;
    // glibc's largest mmap threshold on 64-bit targets.
    const MMAP_THRESHOLD_MAX: c_int = 32 << 20;
    for (param, value) in [
        (M_MMAP_THRESHOLD, MMAP_THRESHOLD_MAX),
        (M_TRIM_THRESHOLD, MAX_MESSAGE as c_int * 2),
        (M_TOP_PAD, 16 << 20),
    ] {
        // SAFETY: mallopt only sets allocator tunables; it is called before
        // any thread of the server starts. A refused setting (0) leaves
        // glibc's default, which is slower but correct.
        unsafe { mallopt(param, value) };
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed_memory() {}
