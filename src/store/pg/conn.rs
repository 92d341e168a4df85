//! Connecting to the database: the URL parsed and shown without its
//! password, connection errors answered as store errors (exit 3) naming the
//! host, and the SQLSTATEs that a retry may cure recognised.

use std::str::FromStr;

use std::sync::Arc;

use postgres::config::{Host, SslMode};
use postgres::error::SqlState;
use postgres::{Client, Config};

use crate::error::{Error, Result, code};

/// How many times a connection is attempted, and a statement that failed
/// for a reason a retry may cure (a serialization failure, a deadlock, a
/// lost connection outside a transaction) is retried.
pub const ATTEMPTS: u32 = 3;

/// The URL's `sslmode`, as libpq reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tls {
    /// Plain TCP only.
    Disable,
    /// TLS when the server offers it, the certificate not verified (the default).
    Prefer,
    /// TLS or no connection, the certificate not verified.
    Require,
    /// TLS, the certificate signed by a trusted CA (any host name).
    VerifyCa,
    /// TLS, the certificate signed by a trusted CA and naming the host.
    VerifyFull,
}

impl Tls {
    fn name(self) -> &'static str {
        match self {
            Tls::Disable => "disable",
            Tls::Prefer => "prefer",
            Tls::Require => "require",
            Tls::VerifyCa => "verify-ca",
            Tls::VerifyFull => "verify-full",
        }
    }
}

/// A database URL, parsed.
#[derive(Clone)]
pub struct Target {
    pub config: Config,
    /// `postgresql://user@host:port/dbname`: never the password.
    pub shown: String,
    pub tls: Tls,
    /// `sslrootcert=PATH`: the CA certificates (PEM) that verify-ca and
    /// verify-full trust instead of the Mozilla roots.
    pub root_cert: Option<std::path::PathBuf>,
}

/// `url` without its `sslmode` and `sslrootcert` parameters (read here: the
/// postgres crate knows neither verify-ca nor verify-full), and their values.
fn split_tls(url: &str) -> Result<(String, Tls, Option<std::path::PathBuf>)> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), Tls::Prefer, None));
    };
    let (mut tls, mut root, mut rest) = (Tls::Prefer, None, Vec::new());
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("sslmode", v)) => {
                tls = match v {
                    "disable" => Tls::Disable,
                    "allow" | "prefer" => Tls::Prefer,
                    "require" => Tls::Require,
                    "verify-ca" => Tls::VerifyCa,
                    "verify-full" => Tls::VerifyFull,
                    _ => {
                        return Err(Error::usage(format!(
                            "--database-url: sslmode={v} is not one of disable, allow, prefer, \
                             require, verify-ca, verify-full"
                        )));
                    }
                }
            }
            Some(("sslrootcert", v)) => root = Some(std::path::PathBuf::from(v)),
            _ => rest.push(pair),
        }
    }
    let url = if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", rest.join("&"))
    };
    Ok((url, tls, root))
}

impl Target {
    pub fn parse(url: &str) -> Result<Target> {
        if !(url.starts_with("postgresql://") || url.starts_with("postgres://")) {
            return Err(Error::usage(
                "--database-url: expected postgresql://user:password@host:port/dbname",
            ));
        }
        let (url, tls, root_cert) = split_tls(url)?;
        let mut config = Config::from_str(&url).map_err(|e| {
            // The parser's message may quote the URL, password included.
            let _ = e;
            Error::usage(
                "--database-url: not a valid PostgreSQL URL \
                 (postgresql://user:password@host:port/dbname[?sslmode=require])",
            )
        })?;
        config.ssl_mode(match tls {
            Tls::Disable => SslMode::Disable,
            Tls::Prefer => SslMode::Prefer,
            Tls::Require | Tls::VerifyCa | Tls::VerifyFull => SslMode::Require,
        });
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(h)) => h.clone(),
            Some(Host::Unix(p)) => p.display().to_string(),
            None => "localhost".into(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let user = config.get_user().unwrap_or("");
        let db = config.get_dbname().unwrap_or(user);
        let at = if user.is_empty() {
            String::new()
        } else {
            format!("{user}@")
        };
        let shown = format!("postgresql://{at}{host}:{port}/{db}");
        Ok(Target {
            config,
            shown,
            tls,
            root_cert,
        })
    }

    /// [`Target::shown`] with the URL's `sslmode` and `sslrootcert` when
    /// they say something (`payctl config view`): still never the password.
    pub fn shown_with_tls(&self) -> String {
        let mut params = Vec::new();
        if self.tls != Tls::Prefer {
            params.push(format!("sslmode={}", self.tls.name()));
        }
        if let Some(root) = &self.root_cert {
            params.push(format!("sslrootcert={}", root.display()));
        }
        if params.is_empty() {
            self.shown.clone()
        } else {
            format!("{}?{}", self.shown, params.join("&"))
        }
    }

    /// The rustls connector for this URL's sslmode.
    fn connector(&self) -> Result<tokio_postgres_rustls::MakeRustlsConnect> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| self.tls_error(e))?;
        let config = match self.tls {
            Tls::Disable | Tls::Prefer | Tls::Require => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verify::Unverified(provider))),
            Tls::VerifyCa | Tls::VerifyFull => {
                let mut roots = rustls::RootCertStore::empty();
                match &self.root_cert {
                    Some(path) => {
                        use rustls::pki_types::pem::PemObject;
                        let certs = rustls::pki_types::CertificateDer::pem_file_iter(path)
                            .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
                            .map_err(|e| {
                                Error::usage(format!(
                                    "--database-url: sslrootcert={}: not a readable PEM \
                                     certificate file ({e})",
                                    path.display()
                                ))
                            })?;
                        roots.add_parsable_certificates(certs);
                    }
                    None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
                }
                let webpki = rustls::client::WebPkiServerVerifier::builder_with_provider(
                    Arc::new(roots),
                    provider,
                )
                .build()
                .map_err(|e| self.tls_error(e))?;
                if self.tls == Tls::VerifyCa {
                    builder
                        .dangerous()
                        .with_custom_certificate_verifier(Arc::new(verify::AnyName(webpki)))
                } else {
                    builder.with_webpki_verifier(webpki)
                }
            }
        };
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(
            config.with_no_client_auth(),
        ))
    }

    fn tls_error(&self, e: impl std::fmt::Display) -> Error {
        Error::store(
            code::DB_CONNECT,
            format!("cannot set up TLS for the database {}: {e}", self.shown),
        )
    }

    /// What to try when a connection failed for its TLS settings.
    fn tls_hint(&self, text: &str) -> &'static str {
        let lower = text.to_lowercase();
        match self.tls {
            Tls::VerifyCa | Tls::VerifyFull if lower.contains("certificate") => {
                "; sslmode=verify-full and verify-ca accept only a server certificate signed by \
                 a trusted CA (the Mozilla roots, or the PEM file given as sslrootcert=PATH), \
                 and verify-full one that names the host"
            }
            Tls::Disable if lower.contains("no encryption") || lower.contains("ssl") => {
                "; the server accepts only TLS connections: use sslmode=require or verify-full"
            }
            Tls::Require | Tls::VerifyCa | Tls::VerifyFull
                if lower.contains("does not support tls") || lower.contains("ssl off") =>
            {
                "; the server does not offer TLS: use sslmode=prefer or disable"
            }
            _ => "",
        }
    }

    /// A connection, tried [`ATTEMPTS`] times; exit 3 (30016) naming the
    /// host when none can be made.
    pub fn connect(&self) -> Result<Client> {
        let tls = self.connector()?;
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(200 << attempt));
            }
            match self.config.connect(tls.clone()) {
                Ok(c) => return Ok(c),
                Err(e) => {
                    last = reason(&e);
                    // A refused password, an unknown database or a refused
                    // certificate does not get better.
                    if e.as_db_error().is_some() || last.to_lowercase().contains("certificate") {
                        break;
                    }
                }
            }
        }
        Err(Error::store(
            code::DB_CONNECT,
            format!(
                "cannot connect to the database {} (sslmode={}): {last}{}",
                self.shown,
                self.tls.name(),
                self.tls_hint(&last)
            ),
        ))
    }
}

/// The text of a database error for a message: the server's message (never
/// its detail, which may quote a stored value), masked.
pub fn reason(e: &postgres::Error) -> String {
    let text = match e.as_db_error() {
        Some(db) => format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        None => {
            let mut s = e.to_string();
            let mut src = std::error::Error::source(e);
            while let Some(inner) = src {
                s = format!("{s}: {inner}");
                src = inner.source();
            }
            s
        }
    };
    crate::mask::mask_text(&text)
}

/// Whether a retry of the whole transaction may cure `e`.
pub fn retryable(e: &postgres::Error) -> bool {
    matches!(
        e.code(),
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE || *c == SqlState::T_R_DEADLOCK_DETECTED
    ) || e.is_closed()
}

/// A database error as a store error (exit 3) naming the database. A lost
/// connection or a serialization failure before the commit is retryable
/// (30019: nothing of the command was written; see [`crate::store::retrying`]).
pub fn db_error(shown: &str, e: &postgres::Error) -> Error {
    if e.is_closed() {
        return Error::store(
            code::DB_RETRIES,
            format!(
                "lost the connection to the database {shown}: {}; nothing of this command's \
                 uncommitted change was written",
                reason(e)
            ),
        );
    }
    // A table or a column of the schema is missing: the database is not in
    // the state a payctl left it (answered like a corrupt store).
    if matches!(
        e.code(),
        Some(c) if *c == SqlState::UNDEFINED_TABLE || *c == SqlState::UNDEFINED_COLUMN
    ) {
        return Error::store(
            code::STORE_UNREADABLE,
            format!(
                "the database {shown} is corrupt or unreadable ({}): its payctl schema is \
                 incomplete; restore it from a backup or migrate the store again",
                reason(e)
            ),
        );
    }
    if retryable(e) {
        return Error::store(
            code::DB_RETRIES,
            format!(
                "the database {shown} could not serialize this change: {}; nothing was written",
                reason(e)
            ),
        );
    }
    Error::store(
        code::DB_ERROR,
        format!("database error on {shown}: {}", reason(e)),
    )
}

/// The failure of a `COMMIT`: a lost connection there leaves the outcome
/// unknown (the server may have committed), so it is never retried.
pub fn commit_error(shown: &str, e: &postgres::Error) -> Error {
    if e.is_closed() {
        return Error::store(
            code::DB_ERROR,
            format!(
                "lost the connection to the database {shown} while committing: {}; the change \
                 may or may not have been written (look it up before running the command again, \
                 or repeat it with the same --idempotency-key)",
                reason(e)
            ),
        );
    }
    db_error(shown, e)
}

/// The certificate verifiers of sslmode prefer/require (none: the
/// connection is encrypted, the server not authenticated, as libpq does)
/// and verify-ca (the chain, not the name).
mod verify {
    use std::sync::Arc;

    use rustls::client::WebPkiServerVerifier;
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    use rustls::crypto::CryptoProvider;
    use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
    use rustls::{DigitallySignedStruct, SignatureScheme};

    #[derive(Debug)]
    pub struct Unverified(pub Arc<CryptoProvider>);

    impl ServerCertVerifier for Unverified {
        fn verify_server_cert(
            &self,
            _end_entity: &CertificateDer<'_>,
            _intermediates: &[CertificateDer<'_>],
            _server_name: &ServerName<'_>,
            _ocsp: &[u8],
            _now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls12_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            rustls::crypto::verify_tls13_signature(
                message,
                cert,
                dss,
                &self.0.signature_verification_algorithms,
            )
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.signature_verification_algorithms.supported_schemes()
        }
    }

    #[derive(Debug)]
    pub struct AnyName(pub Arc<WebPkiServerVerifier>);

    impl ServerCertVerifier for AnyName {
        fn verify_server_cert(
            &self,
            end_entity: &CertificateDer<'_>,
            intermediates: &[CertificateDer<'_>],
            server_name: &ServerName<'_>,
            ocsp: &[u8],
            now: UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            match self
                .0
                .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
            {
                Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForName,
                ))
                | Err(rustls::Error::InvalidCertificate(
                    rustls::CertificateError::NotValidForNameContext { .. },
                )) => Ok(ServerCertVerified::assertion()),
                other => other,
            }
        }
        fn verify_tls12_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.0.verify_tls12_signature(message, cert, dss)
        }
        fn verify_tls13_signature(
            &self,
            message: &[u8],
            cert: &CertificateDer<'_>,
            dss: &DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            self.0.verify_tls13_signature(message, cert, dss)
        }
        fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
            self.0.supported_verify_schemes()
        }
    }
}
