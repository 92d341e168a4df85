//! The one way a store is opened: from where it is (a JSON directory, or
//! the database of `--database-url`) and by whom (a command, or `payctl
//! serve`, which keeps what it can from one request to the next). The
//! command line and the server both open through [`open`], so that a store
//! is found, created with the built-in catalog, upgraded and recovered the
//! same way whoever asks.

use std::path::Path;
use std::sync::Mutex;

use super::{JsonStore, Known, Mode, Opened, Store, lock};
use crate::model::catalog::Catalog;

/// Where a store is: the global options `--data-dir` and `--database-url`.
#[derive(Debug, Clone, Copy)]
pub struct Place<'a> {
    pub data_dir: &'a Path,
    /// The store is this database, not `data_dir`.
    pub database_url: Option<&'a str>,
}

/// A database's pool of connections, kept by `payctl serve` (see
/// [`By::Server`]).
pub type DbPool = super::pg::pool::Pool;

/// Who opens the store, and so what may be kept between two opens.
#[derive(Debug, Clone, Copy)]
pub enum By<'a> {
    /// A command: the store is opened in full each time (found or created,
    /// upgraded, a pending journal completed), a database on a connection
    /// of its own.
    Command,
    /// `store check`, as [`By::Command`]: the one command that opens a
    /// directory whose rebuild was interrupted, to report it and to finish
    /// it (see [`JsonStore::open_to_check`]).
    Check,
    /// `payctl serve`, once per request: a database on a connection of the
    /// server's `pool` (at most [`super::pg::pool::POOL_SIZE`], a request
    /// waiting up to the lock's timeout for one; without a pool, one of its
    /// own); a directory reopened with what `known` remembers of it (see
    /// [`JsonStore::reopen`]), or opened in full without it.
    Server {
        known: Option<&'a Mutex<Option<Known>>>,
        pool: Option<&'a std::sync::Arc<DbPool>>,
    },
}

/// The built-in catalog, its audit times now: what a store that does not
/// exist yet is created with.
fn builtin_catalog() -> Catalog {
    let now = chrono::Utc::now()
        .naive_utc()
        .format(crate::model::limits::TIME_FORMAT)
        .to_string();
    crate::catalog::builtin(crate::model::status::SYSTEM, &now)
}

/// Open the store at `place` for reading ([`Mode::Shared`]) or for a
/// read-modify-write ([`Mode::Exclusive`]), waiting for its lock as `wait`
/// says. A store that does not exist yet is created with the built-in
/// catalog (answered [`Opened::Created`] to a command, so that it can say
/// so); one of an earlier format is upgraded, after `upgrading(from)` is
/// told (a JSON directory opened in full).
pub fn open(
    place: Place<'_>,
    mode: Mode,
    wait: lock::Wait,
    by: By<'_>,
    upgrading: impl FnOnce(u32),
) -> crate::error::Result<(Store, Opened)> {
    match (place.database_url, by) {
        (Some(url), By::Command | By::Check | By::Server { pool: None, .. }) => {
            Store::open_database(url, mode, builtin_catalog)
        }
        (
            Some(_),
            By::Server {
                pool: Some(pool), ..
            },
        ) => Store::open_database_pooled(pool, mode, wait.timeout, builtin_catalog)
            .map(|s| (s, Opened::Existing)),
        (
            None,
            By::Server {
                known: Some(known), ..
            },
        ) => JsonStore::reopen(place.data_dir, mode, wait, known, builtin_catalog)
            .map(|s| (Store::Json(s), Opened::Existing)),
        (None, by) => {
            let open = match by {
                By::Check => JsonStore::open_to_check,
                _ => JsonStore::open,
            };
            open(place.data_dir, mode, wait, builtin_catalog, upgrading)
                .map(|(s, o)| (Store::Json(s), o))
        }
    }
}
