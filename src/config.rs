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

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use toml_edit::{Document, DocumentMut, InlineTable, Item, Table, TableLike, value};

use crate::error::{Error, Result, code};

/// The keys of a context, as the file spells them.
pub const BASE_URL: &str = "base-url";
pub const DATA_DIR: &str = "data-dir";
pub const DATABASE_URL: &str = "database-url";
pub const TOKEN_ENV: &str = "token-env";
pub const KEYS: [&str; 4] = [BASE_URL, DATA_DIR, DATABASE_URL, TOKEN_ENV];

const CURRENT: &str = "current-context";
const CONTEXTS: &str = "contexts";

/// A config file larger than this is refused unread (it holds a few lines).
const MAX_BYTES: u64 = 1 << 20;

/// Longest context name [`check_name`] accepts.
pub const MAX_NAME: usize = 64;

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

/// A problem with the config file at `path`, on `line` when known (exit 2).
fn file_error(path: &Path, line: Option<usize>, detail: impl std::fmt::Display) -> Error {
    let at = line.map(|l| format!(", line {l}")).unwrap_or_default();
    // A parser's message may quote the file, and the file may hold a
    // database URL's password or an account number typed in the wrong place.
    Error::usage(format!(
        "config file {}{at}: {}",
        path.display(),
        crate::output::mask::mask_text(&detail.to_string())
    ))
}

/// The 1-based line of byte `offset` of `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// A context name payctl writes: 1-64 letters, digits, `.`, `_` or `-`,
/// starting with a letter or a digit (it is typed on command lines and
/// completed by shells).
pub fn check_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && name.chars().count() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "a context name is 1-{MAX_NAME} letters, digits, `.`, `_` or `-`, starting with a \
             letter or a digit (is {})",
            crate::error::shown_id(name)
        ))
    }
}

/// The name of an environment variable (`token-env`): a letter or `_`, then
/// letters, digits or `_`, at most 128 characters.
pub fn check_env_name(name: &str) -> std::result::Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 128
        && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(())
    } else {
        // Not echoed: a token pasted here by mistake would be shown.
        Err(
            "token-env is the NAME of an environment variable that holds the token \
             (letters, digits and `_`, not starting with a digit), never the token itself"
                .to_string(),
        )
    }
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

    /// Create context `name` or change it: each `(key, Some(v))` of
    /// `changes` sets the key, each `(key, None)` removes it; the other keys
    /// are kept. Whether the context is new.
    pub fn set(&mut self, name: &str, changes: &[(&str, Option<String>)]) -> bool {
        let root = self.doc.as_table_mut();
        if root.get(CONTEXTS).and_then(Item::as_table_like).is_none() {
            let mut t = Table::new();
            // `[contexts.NAME]` headers only, no empty `[contexts]`.
            t.set_implicit(true);
            root.insert(CONTEXTS, Item::Table(t));
        }
        // A file that writes `contexts = { … }` gets its new context inline too.
        let inline = matches!(root.get(CONTEXTS), Some(Item::Value(_)));
        let contexts = root
            .get_mut(CONTEXTS)
            .and_then(Item::as_table_like_mut)
            .expect("contexts is a table");
        let created = contexts.get(name).is_none();
        if created {
            let item = if inline {
                Item::Value(InlineTable::new().into())
            } else {
                Item::Table(Table::new())
            };
            contexts.insert(name, item);
        }
        let ctx = contexts
            .get_mut(name)
            .and_then(Item::as_table_like_mut)
            .expect("the context is a table");
        for (key, v) in changes {
            match v {
                Some(v) => match ctx.get_mut(key).and_then(Item::as_value_mut) {
                    // Keep the decoration (a trailing comment) of a value replaced.
                    Some(old) => {
                        let decor = old.decor().clone();
                        *old = v.as_str().into();
                        *old.decor_mut() = decor;
                    }
                    None => {
                        ctx.insert(key, value(v.as_str()));
                    }
                },
                None => {
                    ctx.remove(key);
                }
            }
        }
        created
    }

    /// Make `name` the current context; false when there is no such context.
    pub fn use_context(&mut self, name: &str) -> bool {
        if self.get(name).is_none() {
            return false;
        }
        let root = self.doc.as_table_mut();
        match root.get_mut(CURRENT).and_then(Item::as_value_mut) {
            Some(old) => {
                let decor = old.decor().clone();
                *old = name.into();
                *old.decor_mut() = decor;
            }
            None => {
                // Top-level keys are written before the first table.
                root.insert(CURRENT, value(name));
            }
        }
        true
    }

    /// Delete context `name`: None when there is no such context, else
    /// whether it was the current one (`current-context` is then removed).
    pub fn delete(&mut self, name: &str) -> Option<bool> {
        self.get(name)?;
        let was_current = self.current().as_deref() == Some(name);
        let root = self.doc.as_table_mut();
        if let Some(c) = root.get_mut(CONTEXTS).and_then(Item::as_table_like_mut) {
            c.remove(name);
        }
        if was_current {
            root.remove(CURRENT);
        }
        Some(was_current)
    }

    /// The file's text as it would be written (a context deleted from the
    /// top leaves no blank first line).
    pub fn text(&self) -> String {
        let text = self.doc.to_string();
        text.trim_start_matches('\n').to_string()
    }

    /// Write the file atomically: a temp file beside it (0600), synced,
    /// renamed over it, the directory synced. A missing directory is
    /// created 0700. A link in place of the file is followed: the file it
    /// points to is replaced (dotfile managers link config files).
    fn save(&self) -> Result<()> {
        let target = real_target(&self.path)?;
        let dir = target.parent().unwrap_or(Path::new(".")).to_path_buf();
        let io = |p: &Path, e: std::io::Error| {
            Error::store(
                code::STORE_IO,
                format!("cannot write the config file {}: {e}", p.display()),
            )
        };
        let mut name = target.file_name().unwrap_or_default().to_os_string();
        name.push(".payctl-tmp");
        let tmp = dir.join(name);
        let _ = std::fs::remove_file(&tmp);
        let written = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&tmp)?;
            // Exactly 0600, whatever the umask.
            f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
            f.write_all(self.text().as_bytes())?;
            f.sync_all()?;
            drop(f);
            std::fs::rename(&tmp, &target)?;
            File::open(&dir)?.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io(&target, e));
        }
        Ok(())
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

/// The file a write replaces: `path`, or what it links to.
fn real_target(path: &Path) -> Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            file_error(
                path,
                None,
                format!("is a link that cannot be followed: {e}"),
            )
        }),
        _ => Ok(path.to_path_buf()),
    }
}

/// The text of the file at `path`; None when it does not exist. Only a
/// regular file of at most [`MAX_BYTES`] is read (a FIFO would block).
fn read(path: &Path) -> Result<Option<String>> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(file_error(path, None, format!("cannot be read: {e}"))),
    };
    if !meta.is_file() {
        return Err(file_error(path, None, "is not a regular file"));
    }
    if meta.len() > MAX_BYTES {
        return Err(file_error(
            path,
            None,
            format!("is larger than {} KiB", MAX_BYTES >> 10),
        ));
    }
    let mut bytes = Vec::new();
    File::open(path)
        .and_then(|f| f.take(MAX_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| file_error(path, None, format!("cannot be read: {e}")))?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| file_error(path, None, "is not UTF-8 text"))
}

/// The keys and values of a parsed file are those of a config: a string
/// `current-context`, a table `contexts` of tables whose keys are [`KEYS`]
/// with string values. A misspelt key is refused rather than ignored: a
/// context whose `base_url` were skipped would send its commands to the
/// local store. The line of each context, for later messages.
fn check(doc: &Document<&str>, text: &str, path: &Path) -> Result<HashMap<String, usize>> {
    let line = |span: Option<std::ops::Range<usize>>| span.map(|s| line_of(text, s.start));
    let key_line = |t: &dyn TableLike, k: &str| line(t.key(k).and_then(|k| k.span()));
    let unknown = |t: &dyn TableLike, k: &str, known: &[&str], what: &str| {
        let hint = match crate::core::body::suggest(k, known) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("the keys are {}", known.join(", ")),
        };
        file_error(
            path,
            key_line(t, k),
            format!("unknown key `{}` {what}; {hint}", crate::error::shown_id(k)),
        )
    };
    let root = doc.as_table();
    let mut lines = HashMap::new();
    for (k, item) in root.iter() {
        match k {
            CURRENT => {
                if item.as_str().is_none() {
                    return Err(file_error(
                        path,
                        line(item.span()).or(key_line(root, k)),
                        format!("{CURRENT} must be a string (the name of a context)"),
                    ));
                }
            }
            CONTEXTS => {
                let Some(contexts) = item.as_table_like() else {
                    return Err(file_error(
                        path,
                        line(item.span()).or(key_line(root, k)),
                        "contexts must be a table: [contexts.NAME]",
                    ));
                };
                for (name, c) in contexts.iter() {
                    let at = key_line(contexts, name).or(line(c.span()));
                    let Some(c) = c.as_table_like() else {
                        return Err(file_error(
                            path,
                            at,
                            format!(
                                "contexts.{} must be a table of {}",
                                crate::error::shown_id(name),
                                KEYS.join(", ")
                            ),
                        ));
                    };
                    if let Some(l) = at {
                        lines.insert(name.to_string(), l);
                    }
                    for (key, v) in c.iter() {
                        if !KEYS.contains(&key) {
                            return Err(unknown(
                                c,
                                key,
                                &KEYS,
                                &format!("in context `{}`", crate::error::shown_id(name)),
                            ));
                        }
                        if v.as_str().is_none() {
                            return Err(file_error(
                                path,
                                key_line(c, key).or(line(v.span())),
                                format!(
                                    "{key} of context `{}` must be a string",
                                    crate::error::shown_id(name)
                                ),
                            ));
                        }
                    }
                }
            }
            other => return Err(unknown(root, other, &[CURRENT, CONTEXTS], "at the top")),
        }
    }
    Ok(lines)
}

/// Read the config file at `path`, change it with `f`, and write it back
/// when `f` succeeds, holding a lock on the file's directory throughout so
/// that two such changes at once take turns and neither is lost. The
/// directory is created 0700 when missing.
pub fn edit<T>(path: &Path, f: impl FnOnce(&mut Config) -> Result<T>) -> Result<T> {
    let target = real_target(path)?;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| {
                Error::store(
                    code::STORE_IO,
                    format!(
                        "cannot create the directory {} of the config file: {e}",
                        dir.display()
                    ),
                )
            })?;
    }
    let _turn = lock_dir(&dir)?;
    let mut config = Config::load(path)?;
    let out = f(&mut config)?;
    config.save()?;
    Ok(out)
}

/// The exclusive lock of `dir`, released when the file is dropped.
// The store's locks live in store/lock.rs; this one keeps two `payctl
// config` commands from losing each other's change to the config file,
// which is no store's.
#[allow(clippy::disallowed_methods)]
fn lock_dir(dir: &Path) -> Result<File> {
    let d = File::open(dir).map_err(|e| {
        Error::store(
            code::STORE_IO,
            format!(
                "cannot open the config file's directory {}: {e}",
                dir.display()
            ),
        )
    })?;
    d.lock().map_err(|e| {
        Error::store(
            code::STORE_IO,
            format!(
                "cannot lock the config file's directory {}: {e}",
                dir.display()
            ),
        )
    })?;
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        Config::load(&path)
    }

    #[test]
    fn the_contract_example_reads() {
        let c = parse(
            "current-context = \"staging\"\n[contexts.staging]\nbase-url = \"https://payctl.staging.example\"\ntoken-env = \"STAGING_PAYCTL_TOKEN\"   # never stored\n[contexts.local]\ndata-dir = \"/srv/payctl\"\n",
        )
        .unwrap();
        assert_eq!(c.current().as_deref(), Some("staging"));
        assert_eq!(c.names(), ["staging", "local"]);
        let s = c.get("staging").unwrap();
        assert_eq!(s.token_env.as_deref(), Some("STAGING_PAYCTL_TOKEN"));
        assert_eq!(s.line, Some(2));
        assert_eq!(c.get("local").unwrap().data_dir, Some("/srv/payctl".into()));
    }

    #[test]
    fn a_change_keeps_comments_and_other_keys() {
        let mut c = parse(
            "# mine\ncurrent-context = \"a\"\n[contexts.a]\nbase-url = \"http://x\" # the old one\ntoken-env = \"T\"\n",
        )
        .unwrap();
        c.set("a", &[(BASE_URL, Some("http://y".into()))]);
        c.set("b", &[(DATA_DIR, Some("/d".into()))]);
        let t = c.text();
        assert!(t.starts_with("# mine\n"), "{t}");
        assert!(t.contains("base-url = \"http://y\" # the old one"), "{t}");
        assert!(t.contains("token-env = \"T\""), "{t}");
        assert!(t.contains("[contexts.b]\ndata-dir = \"/d\""), "{t}");
        assert!(!t.contains("[contexts]\n"), "{t}");
    }

    #[test]
    fn a_fresh_file_names_its_current_context_first() {
        let mut c = parse("").unwrap();
        c.set("a", &[(DATA_DIR, Some("/d".into()))]);
        assert!(c.use_context("a"));
        assert!(!c.use_context("b"));
        let t = c.text();
        assert!(t.starts_with("current-context = \"a\"\n"), "{t}");
        assert_eq!(c.delete("a"), Some(true));
        assert_eq!(c.current(), None);
        assert_eq!(c.delete("a"), None);
    }

    #[test]
    fn inline_and_dotted_contexts_read_and_change() {
        let mut c = parse("contexts = { a = { data-dir = \"/a\" } }\n").unwrap();
        c.set("b", &[(DATA_DIR, Some("/b".into()))]);
        assert_eq!(c.names(), ["a", "b"]);
        let reread = parse(&c.text()).unwrap();
        assert_eq!(reread.get("b").unwrap().data_dir, Some("/b".into()));
        let c = parse("contexts.a.data-dir = \"/a\"\n").unwrap();
        assert_eq!(c.get("a").unwrap().data_dir, Some("/a".into()));
    }

    #[test]
    fn problems_name_the_line() {
        let msg = |text: &str| {
            parse(text).err().expect("refused").errors[0]
                .message
                .clone()
        };
        let m = msg("[contexts.a]\ndata-dir = \"/a\"\nbase-url = \n");
        assert!(m.contains("line 3") && m.contains("not valid TOML"), "{m}");
        let m = msg("[contexts.a]\n\nbase_url = \"http://x\"\n");
        assert!(
            m.contains("line 3") && m.contains("did you mean `base-url`"),
            "{m}"
        );
        let m = msg("current-context = 3\n");
        assert!(m.contains("line 1") && m.contains("string"), "{m}");
        let m = msg("[contexts.a]\ndata-dir = 7\n");
        assert!(m.contains("line 2"), "{m}");
        let m = msg("contexts = 1\n");
        assert!(m.contains("must be a table"), "{m}");
        let m = msg("current_context = \"a\"\n");
        assert!(m.contains("did you mean `current-context`"), "{m}");
    }

    #[test]
    fn relative_data_dirs_are_the_files_neighbours() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "[contexts.a]\ndata-dir = \"store\"\n").unwrap();
        let c = Config::load(&path).unwrap();
        assert_eq!(c.get("a").unwrap().data_dir, Some(dir.path().join("store")));
    }

    #[test]
    fn names_and_variables_are_checked() {
        assert!(check_name("staging-2.eu_west").is_ok());
        for bad in ["", "-x", "a b", "a/b", &"x".repeat(65)] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
        assert!(check_env_name("STAGING_TOKEN").is_ok());
        assert!(check_env_name("_T1").is_ok());
        for bad in ["", "1X", "ghp-abc.def", "A B"] {
            assert!(check_env_name(bad).is_err(), "{bad}");
        }
    }
}
