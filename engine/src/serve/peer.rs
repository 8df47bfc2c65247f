//! The client side of the fan-out: the OTG requests this server makes of
//! other hosts' `landspeed serve`, over HTTPS with their certificates
//! pinned and the bearer token, or plain HTTP to a server on loopback.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use serde_json::Value;

/// The header a fanned-out traffic start carries: the wall-clock instant
/// (seconds since the Unix epoch) every engine starts at. Without it, a
/// start is an ordinary one.
pub const START_AT: &str = "x-landspeed-start-at";

/// How long one request to another host may take (a traffic start waits
/// for the engine there to start).
const REQUEST_LIMIT: Duration = Duration::from_secs(150);

/// Trusts exactly the certificates given (each peer's own, self-signed or
/// not), whatever name they carry: the server it talks to is the one whose
/// certificate the operator handed over.
#[derive(Debug)]
struct Pinned {
    /// The certificates trusted.
    certs: Vec<CertificateDer<'static>>,
    /// The signature algorithms of the crypto provider.
    algs: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if self.certs.iter().any(|c| c.as_ref() == end_entity.as_ref()) {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::General(
                "the server's certificate is none of --peer-cert's".into(),
            ))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(message, cert, dss, &self.algs)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(message, cert, dss, &self.algs)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algs.supported_schemes()
    }
}

/// The other hosts' servers, as this server reaches them.
#[derive(Clone)]
pub struct Peers {
    /// The HTTP client (TLS with the pinned certificates, when given).
    client: reqwest::Client,
    /// `https` when certificates were given, else `http`.
    scheme: &'static str,
    /// The bearer token sent to them, if any.
    token: Option<String>,
}

/// An error reaching a peer or the OTG error it answered: `HOST:PORT:
/// what`.
pub type PeerError = String;

/// An error and its causes, each after a colon (a TLS refusal's reason
/// is a cause of the request's error).
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let next = c.to_string();
        if !text.contains(&next) {
            text = format!("{text}: {next}");
        }
        cause = c.source();
    }
    text
}

impl Peers {
    /// The client: HTTPS trusting the certificates in the PEM file `certs`
    /// (`--peer-cert`), or plain HTTP without; `token` (`--peer-token-file`)
    /// goes with every request.
    pub fn new(certs: Option<&Path>, token: Option<String>) -> Result<Peers, String> {
        let builder = reqwest::Client::builder().timeout(REQUEST_LIMIT).no_proxy();
        let (builder, scheme) = match certs {
            None => (builder, "http"),
            Some(path) => {
                let at = |e: &dyn std::fmt::Display| format!("--peer-cert {}: {e}", path.display());
                let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
                    .map_err(|e| at(&e))?
                    .collect::<Result<_, _>>()
                    .map_err(|e| at(&e))?;
                if certs.is_empty() {
                    return Err(at(&"holds no certificate"));
                }
                // The provider `serve` installed (ring's, see there).
                #[allow(deprecated)]
                let provider = rustls::crypto::CryptoProvider::get_default()
                    .cloned()
                    .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
                let algs = provider.signature_verification_algorithms;
                let tls = rustls::ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .map_err(|e| at(&e))?
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(Pinned { certs, algs }))
                    .with_no_client_auth();
                (builder.tls_backend_preconfigured(tls), "https")
            }
        };
        let client = builder
            .build()
            .map_err(|e| format!("the client for other hosts: {e}"))?;
        Ok(Peers {
            client,
            scheme,
            token,
        })
    }

    /// Refuses (with the config's `path`) a peer this client cannot reach
    /// safely: one off loopback without `--peer-cert` (its server serves
    /// HTTPS only and needs the token).
    pub fn reachable(&self, addr: &str, path: &str) -> Result<(), String> {
        let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let loopback = host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        if self.scheme == "http" && !loopback {
            return Err(format!(
                "{path}: {addr} is on another host, whose server serves HTTPS only: \
                 start this server with --peer-cert (that server's certificate) and \
                 --peer-token-file"
            ));
        }
        Ok(())
    }

    /// `POST https://addr{path}` with the JSON `body` (and the start
    /// instant, for a traffic start): the JSON answer, or the error.
    pub async fn post(
        &self,
        addr: &str,
        path: &str,
        body: &Value,
        start_at: Option<f64>,
    ) -> Result<Value, PeerError> {
        let mut req = self
            .client
            .post(format!("{}://{addr}{path}", self.scheme))
            .json(body);
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        if let Some(at) = start_at {
            req = req.header(START_AT, format!("{at:.6}"));
        }
        let res = req
            .send()
            .await
            .map_err(|e| format!("{addr}: {}", chain(&e)))?;
        let status = res.status();
        let v: Value = res
            .json()
            .await
            .map_err(|e| format!("{addr}: the answer to {path}: {e}"))?;
        if status.is_success() {
            return Ok(v);
        }
        let errors: Vec<&str> = (v["errors"].as_array().into_iter().flatten())
            .filter_map(Value::as_str)
            .collect();
        Err(format!("{addr}: {} ({status})", errors.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_certificates_only_a_server_on_loopback_is_reached() {
        #[allow(deprecated)]
        let _ = rustls::crypto::ring::default_provider().install_default();
        let p = Peers::new(None, None).unwrap();
        for addr in [
            "127.0.0.1:8443",
            "[::1]:8443",
            "localhost:8443",
            "127.9.9.9:1",
        ] {
            assert_eq!(p.reachable(addr, "ports[1].location"), Ok(()), "{addr}");
        }
        let e = p
            .reachable("192.0.2.2:8443", "ports[1].location")
            .unwrap_err();
        assert!(
            e.starts_with("ports[1].location: 192.0.2.2:8443 is on another host, whose server serves HTTPS only: start this server with --peer-cert"),
            "{e}"
        );
        assert!(p.reachable("[2001:db8::1]:8443", "x").is_err());
    }

    #[test]
    fn a_certificate_file_must_hold_a_certificate() {
        #[allow(deprecated)]
        let _ = rustls::crypto::ring::default_provider().install_default();
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        let e = Peers::new(Some(&empty), None).err().unwrap();
        assert_eq!(
            e,
            format!("--peer-cert {}: holds no certificate", empty.display())
        );
        let e = Peers::new(Some(&dir.path().join("none.pem")), None)
            .err()
            .unwrap();
        assert!(e.starts_with("--peer-cert "), "{e}");
        let c = rcgen::generate_simple_self_signed(vec!["h".to_string()]).unwrap();
        let pem = dir.path().join("c.pem");
        std::fs::write(&pem, c.cert.pem()).unwrap();
        let p = Peers::new(Some(&pem), Some("t".repeat(16))).unwrap();
        assert_eq!(p.reachable("192.0.2.2:8443", "x"), Ok(()));
    }
}
