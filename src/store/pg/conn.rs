//! Connecting to the database: the URL parsed and shown without its
//! password, connection errors answered as store errors (exit 3) naming the
//! host, and the SQLSTATEs that a retry may cure recognised.

use std::str::FromStr;

use postgres::config::Host;
use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};

use crate::error::{Error, Result, code};

/// How many times a connection is attempted, and a statement that failed
/// for a reason a retry may cure (a serialization failure, a deadlock, a
/// lost connection outside a transaction) is retried.
pub const ATTEMPTS: u32 = 3;

/// A database URL, parsed.
#[derive(Clone)]
pub struct Target {
    pub config: Config,
    /// `postgresql://user@host:port/dbname`: never the password.
    pub shown: String,
}

impl Target {
    pub fn parse(url: &str) -> Result<Target> {
        if !(url.starts_with("postgresql://") || url.starts_with("postgres://")) {
            return Err(Error::usage(
                "--database-url: expected postgresql://user:password@host:port/dbname",
            ));
        }
        let config = Config::from_str(url).map_err(|e| {
            // The parser's message may quote the URL, password included.
            let _ = e;
            Error::usage(
                "--database-url: not a valid PostgreSQL URL \
                 (postgresql://user:password@host:port/dbname[?sslmode=disable])",
            )
        })?;
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
        Ok(Target { config, shown })
    }

    /// A connection, tried [`ATTEMPTS`] times; exit 3 (30016) naming the
    /// host when none can be made.
    pub fn connect(&self) -> Result<Client> {
        let mut last = String::new();
        for attempt in 0..ATTEMPTS {
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(200 << attempt));
            }
            match self.config.connect(NoTls) {
                Ok(c) => return Ok(c),
                Err(e) => {
                    last = reason(&e);
                    // A refused password or an unknown database does not get better.
                    if e.as_db_error().is_some() {
                        break;
                    }
                }
            }
        }
        Err(Error::store(
            code::DB_CONNECT,
            format!("cannot connect to the database {}: {last}", self.shown),
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
    crate::output::mask::mask_text(&text)
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
