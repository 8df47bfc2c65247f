//! `landspeed serve`: the Open Traffic Generator (OTG) API over HTTP(S),
//! as `snappi` and the OTG test suites speak it, with a Prometheus scrape
//! at `/metrics`.
//!
//! The server runs on its own threads (tokio), never on a DPDK lcore; each
//! traffic start runs the engine as a child process ([`engine`]) on the
//! profile the OTG config maps to ([`otg`]).
//!
//! Security: the loopback address serves plain HTTP unless TLS is asked
//! for; any other address serves HTTPS only (a given certificate, or one
//! generated at start) and only with a bearer token (`--token-file`):
//! requests without it get 401 and start nothing.

pub mod api;
pub mod engine;
pub mod fanout;
pub mod otg;
pub mod peer;
pub mod prom;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use crate::error::{Error, Result};

/// The longest a run may last by default (a `continuous` flow's bound, so
/// a client that vanishes leaves no traffic running for long).
const MAX_DURATION_S: u64 = 600;

/// `landspeed serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on. Other than loopback, it needs a
    /// token (`--token-file`) and serves HTTPS only.
    #[arg(long, default_value = "127.0.0.1:8443")]
    pub listen: SocketAddr,
    /// Serve HTTPS on loopback too (with `--cert`/`--key`, or a
    /// certificate generated at start).
    #[arg(long)]
    pub tls: bool,
    /// The server's certificate chain (PEM); implies `--tls`.
    #[arg(long, requires = "key")]
    pub cert: Option<PathBuf>,
    /// The certificate's private key (PEM).
    #[arg(long, requires = "cert")]
    pub key: Option<PathBuf>,
    /// A file whose first line is the bearer token every request must
    /// carry (`Authorization: Bearer TOKEN`).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// The longest a run may last, in seconds (the bound of a continuous
    /// flow).
    #[arg(long, default_value_t = MAX_DURATION_S)]
    pub max_duration: u64,
    /// The certificates (PEM) of the other hosts' servers a config's
    /// ports may be on (`HOST:PORT;DEVICE`): requests to them go over
    /// HTTPS and trust exactly these. Without it, only a server on
    /// loopback is reached (over HTTP).
    #[arg(long, value_name = "PEM")]
    pub peer_cert: Option<PathBuf>,
    /// A file whose first line is the bearer token sent to the other
    /// hosts' servers.
    #[arg(long, value_name = "FILE")]
    pub peer_token_file: Option<PathBuf>,
    /// How far ahead, in seconds, a start on several hosts is set: every
    /// host's ports must be up by then.
    #[arg(long, default_value_t = 3.0, value_name = "SECONDS")]
    pub fanout_lead: f64,
    /// The error of this host's synchronised clock, declared for the
    /// flows between two hosts (e.g. `0` for two network namespaces of
    /// one kernel, `2us` for a PTP servo watched by other means); without
    /// it the kernel's and the PTP servo's own estimate bound one-way
    /// latency (see docs/two-host.md).
    #[arg(long, value_name = "DURATION")]
    pub clock_error: Option<String>,
}

/// A usage error of `serve`.
fn usage(msg: impl Into<String>) -> Error {
    Error::Serve(msg.into())
}

/// Reads the token file of option `--{option}`: its first line, at least
/// 16 characters.
fn read_token(path: &PathBuf, option: &str) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("--{option} {}: {e}", path.display())))?;
    let token = text.lines().next().unwrap_or("").trim().to_string();
    if token.len() < 16 {
        return Err(usage(format!(
            "--{option} {}: the token on its first line must have at least 16 characters",
            path.display()
        )));
    }
    Ok(token)
}

/// The TLS settings: the given certificate and key, or a self-signed
/// certificate for `localhost` and the listen address made now.
async fn tls_config(args: &ServeArgs) -> Result<axum_server::tls_rustls::RustlsConfig> {
    let (cert, key) = match (&args.cert, &args.key) {
        (Some(c), Some(k)) => {
            let read = |p: &PathBuf, what: &str| {
                std::fs::read(p).map_err(|e| usage(format!("--{what} {}: {e}", p.display())))
            };
            (read(c, "cert")?, read(k, "key")?)
        }
        _ => {
            let names = vec!["localhost".to_string(), args.listen.ip().to_string()];
            let c = rcgen::generate_simple_self_signed(names)
                .map_err(|e| usage(format!("generating a certificate: {e}")))?;
            (
                c.cert.pem().into_bytes(),
                c.signing_key.serialize_pem().into_bytes(),
            )
        }
    };
    axum_server::tls_rustls::RustlsConfig::from_pem(cert, key)
        .await
        .map_err(|e| usage(format!("the certificate and key: {e}")))
}

/// The server's state from its options: the engine binary, the host,
/// the token, and the fan-out's client, lead and declared clock error
/// (each checked).
fn served(args: &ServeArgs, token: Option<String>) -> Result<api::Served> {
    let exe = std::env::current_exe().map_err(|e| usage(format!("this program's path: {e}")))?;
    if !(args.fanout_lead.is_finite() && (0.5..=600.0).contains(&args.fanout_lead)) {
        return Err(usage(format!(
            "--fanout-lead {}: from 0.5 to 600 seconds",
            args.fanout_lead
        )));
    }
    if let Some(e) = &args.clock_error {
        crate::units::parse_duration(e)
            .map_err(|why| usage(format!("--clock-error {e}: {why}")))?;
    }
    let peer_token = (args.peer_token_file.as_ref())
        .map(|p| read_token(p, "peer-token-file"))
        .transpose()?;
    // ring, not aws-lc: no C toolchain beyond the one DPDK needs. Its
    // provider lacks post-quantum key exchange, which rustls marks as
    // deprecated; a lab's control API does not need it.
    #[allow(deprecated)]
    let _ = rustls::crypto::ring::default_provider().install_default();
    Ok(api::Served {
        exe,
        host: otg::Host {
            cpus: crate::runtime::online_cpus(),
            max_duration_s: args.max_duration.max(1),
            clock_error: args.clock_error.clone(),
        },
        token,
        peers: peer::Peers::new(args.peer_cert.as_deref(), peer_token).map_err(usage)?,
        lead: std::time::Duration::from_secs_f64(args.fanout_lead),
        now: Default::default(),
    })
}

/// `landspeed serve`: serves until SIGINT or SIGTERM, then stops a
/// running engine and returns.
pub fn serve(args: &ServeArgs) -> Result<u8> {
    let loopback = args.listen.ip().is_loopback();
    let token = (args.token_file.as_ref())
        .map(|p| read_token(p, "token-file"))
        .transpose()?;
    if !loopback && token.is_none() {
        return Err(usage(format!(
            "--listen {}: an address other than loopback needs --token-file (and serves HTTPS only)",
            args.listen
        )));
    }
    let tls_wanted = !loopback || args.tls || args.cert.is_some();
    let state = Arc::new(served(args, token)?);
    let app = api::router(state.clone());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| usage(format!("tokio: {e}")))?;
    rt.block_on(async move {
        let tls = match tls_wanted {
            true => Some(tls_config(args).await?),
            false => None,
        };
        let std_listener = std::net::TcpListener::bind(args.listen)
            .map_err(|e| usage(format!("--listen {}: {e}", args.listen)))?;
        std_listener.set_nonblocking(true).map_err(|e| usage(format!("--listen: {e}")))?;
        let handle = axum_server::Handle::new();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let addr = std_listener.local_addr().map_err(|e| usage(format!("--listen: {e}")))?;
        eprintln!("landspeed serve: OTG API on {scheme}://{addr}");
        let h = handle.clone();
        let st = state.clone();
        tokio::spawn(async move {
            let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
            }
            if let Some(r) = &st.now.lock().await.run {
                let _ = r.stop(std::time::Duration::from_secs(30)).await;
            }
            h.graceful_shutdown(Some(std::time::Duration::from_secs(5)));
        });
        let served = match tls {
            Some(cfg) => {
                axum_server::from_tcp_rustls(std_listener, cfg)
                    .map_err(|e| usage(format!("--listen: {e}")))?
                    .handle(handle)
                    .serve(app.into_make_service())
                    .await
            }
            None => {
                axum_server::from_tcp(std_listener)
                    .map_err(|e| usage(format!("--listen: {e}")))?
                    .handle(handle)
                    .serve(app.into_make_service())
                    .await
            }
        };
        served.map_err(|e| usage(format!("serving: {e}")))?;
        Ok(0)
    })
}
