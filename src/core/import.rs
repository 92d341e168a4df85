//! `profile import`: many profile creates from JSON Lines (ours; CLI.md).
//!
//! Every line is checked before anything is written, with the rules of
//! `profile create` ([`profile::validate_create`]), and the keys against the
//! rest of the file and the store. If any line is refused, nothing is written
//! and every bad line is reported (`line N: <json path>: <rule>`). Otherwise
//! the profiles are created in chunks of [`CHUNK`], each chunk one store
//! transaction: a crash loses at most the chunk in hand, never half of one,
//! and a re-run with `skip_existing` creates exactly the missing profiles.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;

use super::Ctx;
use super::profile::{self, NewProfile};
use crate::error::{ApiError, Error, Result, code};
use crate::model::catalog::Facilitator;
use crate::store::{KeyIndex, Store};

/// Profiles created per store transaction: large enough that the per-commit
/// cost (the journal, one sync of the file system) is spread thin, small
/// enough that the journal stays a few megabytes.
pub const CHUNK: usize = 5000;

/// How the import treats keys already in the store.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Skip lines whose `customer_key` a stored profile already has, instead
    /// of refusing the import (21002).
    pub skip_existing: bool,
}

/// One profile the import created.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Created {
    pub id: String,
    pub customer_key: String,
    /// The line of the file it came from (1-based).
    pub line: usize,
}

/// What an import did.
#[derive(Debug, Clone, Default)]
pub struct Imported {
    pub created: Vec<Created>,
    /// Lines skipped because their key was already in the store (`skip_existing`).
    pub skipped: usize,
}

/// What the import is doing, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Lines checked so far, of the total.
    Checking,
    /// Profiles written so far, of the total to write.
    Writing,
}

/// The lines of `input` that hold something: (1-based line number, text).
/// Blank lines are skipped, a trailing `\r` (CRLF files) and a byte-order
/// mark at the very start are ignored.
fn lines(input: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let input = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(input);
    input
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
}

fn at_line(n: usize, e: ApiError) -> ApiError {
    ApiError {
        code: e.code,
        message: format!("line {n}: {}", e.message),
    }
}

/// Parse one line as a JSON body (the rules of `--body`: UTF-8 JSON).
fn parse_line(n: usize, line: &[u8]) -> std::result::Result<Value, ApiError> {
    let bad = |why: String| ApiError {
        code: code::MALFORMED,
        message: format!("line {n}: body: {why}"),
    };
    let text = std::str::from_utf8(line).map_err(|e| bad(format!("is not valid UTF-8 ({e})")))?;
    // serde_json's syntax messages name a position, never a value.
    let body = serde_json::from_str(text).map_err(|e| bad(format!("is not valid JSON ({e})")))?;
    match super::body::duplicate_key(text) {
        Some(dup) => Err(bad(dup)),
        None => Ok(body),
    }
}

/// What checking one line gave.
struct Checked {
    line: usize,
    /// The `customer_key` the line names, if it is a string at all.
    key: Option<String>,
    result: std::result::Result<NewProfile, Vec<ApiError>>,
    /// Whether a stored profile already has the key (checked for valid lines).
    exists: bool,
}

fn check_line(
    keys: &KeyIndex,
    ctx: &Ctx,
    fac: &Facilitator,
    n: usize,
    line: &[u8],
) -> Result<Checked> {
    let body = match parse_line(n, line) {
        Ok(b) => b,
        Err(e) => {
            return Ok(Checked {
                line: n,
                key: None,
                result: Err(vec![e]),
                exists: false,
            });
        }
    };
    let key = body
        .get("customer_key")
        .and_then(Value::as_str)
        .map(String::from);
    let result = profile::validate_create(&body, ctx, fac)
        .map_err(|e| e.errors.into_iter().map(|e| at_line(n, e)).collect());
    let exists = match &result {
        Ok(new) => keys.owner(&new.customer_key)?.is_some(),
        Err(_) => false,
    };
    Ok(Checked {
        line: n,
        key,
        result,
        exists,
    })
}

/// Check every line (split among the cores: this is most of an import's
/// computing); the profiles to create with their line numbers, and the
/// number of lines skipped. Reports `(done, total)` lines through `progress`.
fn check(
    store: &Store,
    ctx: &Ctx,
    input: &[u8],
    opts: Options,
    progress: &mut dyn FnMut(Stage, usize, usize),
) -> Result<(Vec<(usize, NewProfile)>, usize)> {
    let fac = store.catalog()?.facilitator;
    let keys = store.key_index()?;
    let all: Vec<(usize, &[u8])> = lines(input).collect();
    let total = all.len();
    progress(Stage::Checking, 0, total);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
        .min(total.div_ceil(1000))
        .max(1);
    let done = AtomicUsize::new(0);
    let per = total.div_ceil(threads).max(1);
    let parts: Vec<Result<Vec<Checked>>> = std::thread::scope(|s| {
        let work = |part: &[(usize, &[u8])]| -> Result<Vec<Checked>> {
            let mut out = Vec::with_capacity(part.len());
            for (i, &(n, line)) in part.iter().enumerate() {
                out.push(check_line(&keys, ctx, &fac, n, line)?);
                if i % 1000 == 999 {
                    done.fetch_add(1000, Ordering::Relaxed);
                }
            }
            Ok(out)
        };
        let handles: Vec<_> = all
            .chunks(per)
            .map(|part| s.spawn(move || work(part)))
            .collect();
        // Progress from this thread while the others work.
        while !handles.iter().all(|h| h.is_finished()) {
            progress(
                Stage::Checking,
                done.load(Ordering::Relaxed).min(total),
                total,
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        handles
            .into_iter()
            .map(|h| h.join().expect("checking thread"))
            .collect()
    });
    progress(Stage::Checking, total, total);
    let mut errors: Vec<ApiError> = Vec::new();
    let mut first_line_of: HashMap<String, usize> = HashMap::new();
    let mut valid: Vec<(usize, NewProfile)> = Vec::new();
    let mut skipped = 0;
    for part in parts {
        for c in part? {
            let n = c.line;
            // A key repeated in the file is refused whatever else is wrong
            // with either line, so fixing one error does not reveal another.
            let repeated = c.key.and_then(|k| match first_line_of.get(&k) {
                Some(&first) => Some(first),
                None => {
                    first_line_of.insert(k, n);
                    None
                }
            });
            match c.result {
                Err(e) => errors.extend(e),
                Ok(_) if repeated.is_some() => {}
                Ok(_) if c.exists && opts.skip_existing => skipped += 1,
                Ok(_) if c.exists => errors.push(ApiError {
                    code: code::KEY_IN_USE,
                    message: format!(
                        "line {n}: customer_key: another customer profile already has this key \
                         (--skip-existing skips such lines)"
                    ),
                }),
                Ok(new) => valid.push((n, new)),
            }
            if let Some(first) = repeated {
                errors.push(ApiError {
                    code: code::KEY_IN_USE,
                    message: format!(
                        "line {n}: customer_key: repeats the customer_key of line {first}"
                    ),
                });
            }
        }
    }
    if !errors.is_empty() {
        return Err(Error::refused(errors));
    }
    Ok((valid, skipped))
}

/// Import the JSON Lines `input`: every line checked first, then the new
/// profiles written [`CHUNK`] per store transaction, in file order. The store
/// must be open for writing; it stays locked throughout, so the keys checked
/// stay free until written. Every profile gets `ctx`'s time and actor.
pub fn import(
    store: &Store,
    ctx: &Ctx,
    input: &[u8],
    opts: Options,
    progress: &mut dyn FnMut(Stage, usize, usize),
) -> Result<Imported> {
    let (valid, skipped) = check(store, ctx, input, opts, progress)?;
    if !valid.is_empty() {
        store.ensure_profile_ids()?;
    }
    let total = valid.len();
    let mut created = Vec::with_capacity(total);
    let mut rest = valid.into_iter().peekable();
    progress(Stage::Writing, 0, total);
    // Profiles of the chunks committed so far: an error answer names them.
    let mut committed = 0;
    // Chunk k is written on another thread while chunk k+1 is built here.
    let written = std::thread::scope(|s| -> Result<()> {
        let mut writing: Option<(std::thread::ScopedJoinHandle<'_, Result<()>>, usize)> = None;
        while rest.peek().is_some() || writing.is_some() {
            let mut tx = store.begin();
            for (line, new) in rest.by_ref().take(CHUNK) {
                let customer = new.into_customer(ctx);
                created.push(Created {
                    id: customer.profile.customer_profile_id.clone(),
                    customer_key: customer.profile.customer_key.clone(),
                    line,
                });
                tx.new_customer(customer)?;
            }
            if let Some((h, upto)) = writing.take() {
                h.join().expect("writer thread")?;
                committed = upto;
                progress(Stage::Writing, upto, total);
            }
            if !tx.is_empty() {
                let prepared = tx.prepare()?;
                writing = Some((s.spawn(move || prepared.commit()), created.len()));
            }
        }
        Ok(())
    });
    if let Err(mut e) = written {
        // A failed answer must not hide the chunks that were committed.
        if let Some(last) = created[..committed].last() {
            let note = format!(
                "(the profiles of the lines up to line {} were created before the failure: \
                 {committed} profile(s), the last {}; re-run the import with --skip-existing \
                 to create the rest)",
                last.line, last.id
            );
            for a in &mut e.errors {
                a.message = format!("{} {note}", a.message);
            }
        }
        return Err(e);
    }
    Ok(Imported { created, skipped })
}
