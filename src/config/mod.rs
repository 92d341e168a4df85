//! The config file: named contexts, each a set of store or service settings,
//! and the current one (CLI.md "Contexts").
//!
//! ```toml
//! current-context = "staging"
//! [contexts.staging]
//! base-url = "https://payctl.staging.example"
//! token-env = "STAGING_PAYCTL_TOKEN"   # the token is read from this variable
//! [contexts.local]
//! data-dir = "/srv/payctl"
//! ```
//!
//! The file is the user's: it is edited with `toml_edit`, so that a change
//! made by `payctl config set-context` keeps the comments, the order and the
//! layout of a hand-written file. A token is never a key of it (`token-env`
//! names the variable the token is read from). A file that cannot be read
//! or is not a config is a usage error (exit 2) naming the file and the
//! line: the file is configuration the user wrote, not a store; one that
//! cannot be written is an I/O error (30003, exit 3). It is replaced atomically
//! (temp file, sync, rename, fsync of the directory), mode 0600; a directory
//! payctl creates for it is 0700. Two `payctl config` commands that change it
//! at once take turns (a lock on its directory), so neither change is lost.
//!
//! The caller finds the file (the environment is read in cli/ only) and
//! decides what a context means for a command (`cli::config`).
//!
//! This file holds a context and the file as read; [`change`] changes its
//! contexts, [`check`](mod@check) says what a config and a context name are, and
//! [`file`] reads, writes and locks the file on disk.

mod change;
mod check;
mod file;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml_edit::{Document, DocumentMut, Item, TableLike};

use crate::error::Result;
use check::{check, file_error, line_of};
use file::read;

pub use check::{check_env_name, check_name};
pub use file::edit;

/// The keys of a context, as the file spells them.
pub const BASE_URL: &str = "base-url";
pub const DATA_DIR: &str = "data-dir";
pub const DATABASE_URL: &str = "database-url";
pub const TOKEN_ENV: &str = "token-env";
pub const KEYS: [&str; 4] = [BASE_URL, DATA_DIR, DATABASE_URL, TOKEN_ENV];

const CURRENT: &str = "current-context";
const CONTEXTS: &str = "contexts";

/// One context as the file holds it (`data_dir` resolved: see [`Config::contexts`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    pub name: String,
    pub base_url: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub database_url: Option<String>,
    pub token_env: Option<String>,
    /// The line of the file where the context starts (for messages); None
    /// for a context made in this run.
    pub line: Option<usize>,
}

impl Context {
    /// Whether the context says where the store is (a service, a database
    /// or a directory); an empty context leaves the defaults.
    pub fn names_a_store(&self) -> bool {
        self.base_url.is_some() || self.database_url.is_some() || self.data_dir.is_some()
    }
}

/// The config file, read.
pub struct Config {
    path: PathBuf,
    doc: DocumentMut,
    exists: bool,
    /// The line of each context in the file as read.
    lines: HashMap<String, usize>,
}

impl Config {
    /// Read the config file at `path`; a file that does not exist is an
    /// empty config. A file that is not TOML, or whose keys or values are
    /// not those of a config, is refused (exit 2) naming its line.
    pub fn load(path: &Path) -> Result<Config> {
        let text = match read(path)? {
            Some(t) => t,
            None => {
                return Ok(Config {
                    path: path.to_path_buf(),
                    doc: DocumentMut::new(),
                    exists: false,
                    lines: HashMap::new(),
                });
            }
        };
        let parsed = Document::parse(text.as_str()).map_err(|e| {
            let line = e.span().map(|s| line_of(&text, s.start));
            let msg = e
                .message()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("; ");
            file_error(path, line, format!("not valid TOML: {msg}"))
        })?;
        let lines = check(&parsed, &text, path)?;
        Ok(Config {
            path: path.to_path_buf(),
            doc: parsed.into_mut(),
            exists: true,
            lines,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the file exists (else this is an empty config).
    pub fn exists(&self) -> bool {
        self.exists
    }

    /// `current-context`, as the file says it (it may name no context).
    pub fn current(&self) -> Option<String> {
        self.doc
            .get(CURRENT)
            .and_then(Item::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    }

    fn table(&self) -> Option<&dyn TableLike> {
        self.doc.get(CONTEXTS).and_then(Item::as_table_like)
    }

    /// The contexts, in the file's order. A relative `data-dir` is taken
    /// relative to the file's directory (as kubectl reads its file), a
    /// leading `~/` as the home directory.
    pub fn contexts(&self) -> Vec<Context> {
        let Some(t) = self.table() else {
            return Vec::new();
        };
        let base = self.path.parent().unwrap_or(Path::new("."));
        t.iter()
            .filter_map(|(name, item)| {
                let c = item.as_table_like()?;
                let text = |k: &str| {
                    c.get(k)
                        .and_then(Item::as_str)
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                };
                Some(Context {
                    name: name.to_string(),
                    base_url: text(BASE_URL),
                    data_dir: text(DATA_DIR).map(|d| resolve_dir(base, &d)),
                    database_url: text(DATABASE_URL),
                    token_env: text(TOKEN_ENV),
                    line: self.lines.get(name).copied(),
                })
            })
            .collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.contexts().into_iter().map(|c| c.name).collect()
    }

    pub fn get(&self, name: &str) -> Option<Context> {
        self.contexts().into_iter().find(|c| c.name == name)
    }
}

/// `dir` as a context means it: `~/…` under the home directory, a relative
/// path under `base` (the config file's directory).
fn resolve_dir(base: &Path, dir: &str) -> PathBuf {
    if let Some(rest) = dir.strip_prefix("~/")
        && let Some(home) = directories::BaseDirs::new()
    {
        return home.home_dir().join(rest);
    }
    let p = Path::new(dir);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        base.join(p)
    }
}
