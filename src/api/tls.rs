//! HTTPS for `payctl serve` (`--tls-cert FILE --tls-key FILE`) and a private
//! CA for remote mode (`--ca-cert FILE`), both with the rustls (ring) that
//! the client and the database connection already use.
//!
//! The server does its own accept loop (hyper's connection builder, for the
//! header limits), so the handshake is tokio-rustls's acceptor in front of
//! that builder, each connection in a task of its own, the handshake bounded
//! by `--request-timeout`. It speaks HTTP/1.1 only (ALPN `http/1.1`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper_util::rt::TokioIo;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

use crate::error::{Error, Result};

/// One connection's service: the router with the client's address.
pub type Service = hyper_util::service::TowerToHyperService<
    axum::middleware::AddExtension<axum::Router, ConnectInfo<SocketAddr>>,
>;

/// The service of a connection from `peer` (`ConnectInfo` in each of its
/// requests: `--rate-limit` counts per address without a credential).
pub fn service(router: &axum::Router, peer: SocketAddr) -> Service {
    use tower::Layer;
    let with_peer = axum::Extension(ConnectInfo(peer)).layer(router.clone());
    hyper_util::service::TowerToHyperService::new(with_peer)
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of a PEM text (`-----BEGIN CERTIFICATE-----`), in order.
fn certificates(flag: &str, pem: &[u8]) -> Result<Vec<CertificateDer<'static>>> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| Error::usage(format!("{flag}: is not a readable PEM file ({e})")))?;
    if certs.is_empty() {
        return Err(Error::usage(format!(
            "{flag}: holds no certificate (a PEM file with `-----BEGIN CERTIFICATE-----`)"
        )));
    }
    Ok(certs)
}

/// The server's TLS from the PEM texts of `--tls-cert` (the certificate,
/// then any intermediates) and `--tls-key` (its private key: PKCS#8,
/// PKCS#1 or SEC1). Each refusal names the flag and says why.
pub fn server_config(
    cert_flag: &str,
    cert_pem: &[u8],
    key_flag: &str,
    key_pem: &[u8],
) -> Result<Arc<rustls::ServerConfig>> {
    let chain = certificates(cert_flag, cert_pem)?;
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| {
        Error::usage(format!(
            "{key_flag}: holds no private key (a PEM file with `-----BEGIN PRIVATE KEY-----`, \
             `RSA PRIVATE KEY` or `EC PRIVATE KEY`): {e}"
        ))
    })?;
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::usage(format!("TLS cannot be set up: {e}")))?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .map_err(|e| {
            Error::usage(format!(
                "{key_flag}: is not the private key of the certificate of {cert_flag}, or \
                 cannot be used ({e})"
            ))
        })?;
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(cfg))
}

/// The roots remote mode trusts with `--ca-cert`: the certificates of its
/// PEM file, and only those (as curl's `--cacert`): a service with a
/// private CA is trusted through that CA alone.
pub fn client_roots(flag: &str, pem: &[u8]) -> Result<ureq::tls::RootCerts> {
    let certs = certificates(flag, pem)?;
    Ok(ureq::tls::RootCerts::new_with_certs(
        &certs
            .iter()
            .map(|c| ureq::tls::Certificate::from_der(c.as_ref()).to_owned())
            .collect::<Vec<_>>(),
    ))
}

/// Serve one accepted connection, over TLS when `tls` is set; Err says why
/// a TLS handshake failed (the connection is then closed). A handshake
/// still under way when `stopping` turns true is dropped: its client has
/// sent no request yet, and shutdown does not wait for it.
pub async fn serve_connection(
    stream: tokio::net::TcpStream,
    tls: Option<Arc<rustls::ServerConfig>>,
    http: hyper::server::conn::http1::Builder,
    svc: Service,
    (watcher, mut stopping): (
        hyper_util::server::graceful::Watcher,
        tokio::sync::watch::Receiver<bool>,
    ),
    handshake_within: Duration,
) -> std::result::Result<(), String> {
    match tls {
        None => {
            let _ = watcher
                .watch(http.serve_connection(TokioIo::new(stream), svc))
                .await;
        }
        Some(cfg) => {
            let handshake =
                tokio::time::timeout(handshake_within, TlsAcceptor::from(cfg).accept(stream));
            let accepted = tokio::select! {
                done = handshake => done
                    .map_err(|_| {
                        format!("no TLS handshake within {} s", handshake_within.as_secs_f64())
                    })?
                    .map_err(|e| e.to_string())?,
                _ = stopping.wait_for(|stop| *stop) => return Ok(()),
            };
            let _ = watcher
                .watch(http.serve_connection(TokioIo::new(accepted), svc))
                .await;
        }
    }
    Ok(())
}
