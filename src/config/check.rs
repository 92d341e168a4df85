//! What a config is: the keys and values a parsed file may hold (a problem
//! is a usage error naming the file's line), and the names payctl accepts
//! for a context and for the variable of `token-env`.

use std::collections::HashMap;
use std::path::Path;

use toml_edit::{Document, TableLike};

use super::{CONTEXTS, CURRENT, KEYS};
use crate::error::{Error, Result};

/// Longest context name [`check_name`] accepts.
pub const MAX_NAME: usize = 64;

/// A problem with the config file at `path`, on `line` when known (exit 2).
pub(super) fn file_error(
    path: &Path,
    line: Option<usize>,
    detail: impl std::fmt::Display,
) -> Error {
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
pub(super) fn line_of(text: &str, offset: usize) -> usize {
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

/// The keys and values of a parsed file are those of a config: a string
/// `current-context`, a table `contexts` of tables whose keys are [`KEYS`]
/// with string values. A misspelt key is refused rather than ignored: a
/// context whose `base_url` were skipped would send its commands to the
/// local store. The line of each context, for later messages.
pub(super) fn check(
    doc: &Document<&str>,
    text: &str,
    path: &Path,
) -> Result<HashMap<String, usize>> {
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
