//! `profile import`: many profile creates from JSON Lines (ours; CLI.md).
//!
//! Every line is checked before anything is written, with the rules of
//! `profile create` ([`profile::validate_create`]), and the keys against the
//! rest of the file and the store. If any line is refused, nothing is written
//! and the bad lines are reported (`line N: <json path>: <rule>`), the first
//! [`REPORTED_LINES`] in detail, then one error counting the rest. Otherwise
//! the profiles are created in chunks of [`CHUNK`] (fewer where the store
//! says so: [`Store::max_creates_per_commit`]), each chunk one store transaction: a crash loses at most the chunk in hand, never half of one,
//! and a re-run with `skip_existing` creates exactly the missing profiles.
//!
//! The store is not held for the whole run (issue 17): the input is read
//! and checked outside the store's lock (a shared lock is taken for each
//! batch's key lookups only), and each chunk takes the exclusive lock for
//! its own commit, where its keys are looked up again: a key that another
//! command took meanwhile is refused for its line (21002) and never
//! duplicated, while the other lines are created.
//!
//! Memory stays bounded whatever the input (issues 12 and 17). The input is
//! read as a stream, one batch of lines at a time; a line longer than
//! [`caps::LINE_BYTES`] stops the import at once (a file without line ends,
//! such as `/dev/zero`, is one endless line). The check pass keeps only what
//! finding repeated keys needs (each key once, compactly: `check::KeySet`) and
//! the reported errors; each valid line becomes its customer record at once,
//! which goes to a scratch file the caller provides (in the store, so as
//! private as the records) and which the write pass reads back, one chunk
//! at a time, without validating the line again. The created profiles go
//! to a second file as they are committed, for the caller to stream as the
//! answer. So stdin, a pipe and a file are read once, and the lines written
//! are exactly the lines checked.
//!
//! The input is read in `import/lines.rs`, checked in `import/check.rs`;
//! here, the write pass that commits it chunk by chunk.

mod check;
mod lines;

pub use self::lines::{Lines, Next, unreadable};

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};

use serde_json::Value;

use super::Ctx;
use super::profile::{self, NewProfile};
use super::rules::{self, caps};
use crate::error::{ApiError, Error, Result, code};
use crate::model::Customer;
use crate::model::catalog::Facilitator;
use crate::store::{Mode, Store};

use self::check::{Report, check};
use self::lines::{Batch, each_line};

/// Profiles created per store transaction in a JSON directory: large enough
/// that the per-commit cost (the journal, one sync of the file system, and
/// the 2,600 index files a chunk appends to whatever its size: key and
/// field buckets, the shards' logs of packed records) is spread thin, small
/// enough that an import stays under 256 MB with two chunks in memory (the
/// one being committed, the next being read) and a commit holds the store
/// about a second. (10,000 gave 13,800 profiles a second at a million;
/// 20,000 gave 15,800. With 20,000, an import of 100,000 profiles peaked
/// at 270-308 MB in a third of the runs, from 225-240 MB otherwise; with
/// 15,000 at 172-202 MB in eight runs out of eight.)
pub const CHUNK: usize = 15_000;

/// Bad lines reported in detail; the rest are counted in one last error.
pub const REPORTED_LINES: usize = 100;

/// Errors reported in detail for one line; the rest are counted.
pub const ERRORS_PER_LINE: usize = 20;

/// How the import treats keys already in the store.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Skip lines whose `customer_key` a stored profile already has, instead
    /// of refusing the import (21002).
    pub skip_existing: bool,
}

/// A customer profile that the import created, with the line of the input
/// it came from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "Imported")]
pub struct Created {
    /// The new profile's `customer_profile_id`.
    pub id: String,
    /// Its `customer_key`, as the line gave it.
    pub customer_key: String,
    /// The line of the file it came from (1-based).
    #[schemars(range(min = 1))]
    pub line: usize,
}

/// What an import did (the created profiles themselves went to the
/// caller's `answers`).
#[derive(Debug, Default)]
pub struct Imported {
    /// How many profiles were created.
    pub created: usize,
    /// The last one.
    pub last: Option<Created>,
    /// Lines skipped because their key was already in the store (`skip_existing`).
    pub skipped: usize,
    /// The lines refused at their commit because another command took their
    /// key after the check (21002, `line N: …`), when there are any: the
    /// other lines were created.
    pub taken: Option<Error>,
}

/// What the import is doing, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Bytes of the input checked so far, of its size (0 when unknown: stdin).
    Checking,
    /// Profiles written so far, of the total to write.
    Writing,
}

/// How the import opens the store for each of its steps: shared for a
/// batch of key lookups, exclusive for a chunk's commit. The store is open
/// (and locked) only for that step, so other commands get in between.
pub type Open<'a> = &'a (dyn Fn(Mode) -> Result<Store> + Sync);

fn scratch_error(e: std::io::Error) -> Error {
    Error::one(
        code::MALFORMED,
        format!("profile import: cannot use its scratch file in the store ({e})"),
    )
}

/// What one chunk's commit did.
#[derive(Default)]
struct Chunk {
    created: Vec<Created>,
    skipped: usize,
    /// Lines whose key another command took after the check.
    taken: Vec<usize>,
}

/// Commit one chunk under the store's exclusive lock, taken for it alone:
/// each line's key is looked up again (another command may have taken it
/// since the check), the lines whose key is still free are created in one
/// transaction, and the lock is let go.
///
/// `unchanged` is how many customers the store holds if no other command
/// created one since the check looked the keys up (see
/// [`Store::created_count`]): then none took a key, and the lookup is
/// skipped (at a million customers a chunk's keys are in thousands of
/// small buckets).
fn write_chunk(
    open: Open<'_>,
    news: Vec<(usize, Customer, String)>,
    opts: Options,
    unchanged: Option<usize>,
) -> Result<Chunk> {
    let store = open(Mode::Exclusive)?;
    let keys: Vec<&str> = news
        .iter()
        .map(|(_, c, _)| c.profile.customer_key.as_str())
        .collect();
    let owners = match unchanged {
        Some(n) if store.created_count()? == Some(n) => vec![None; keys.len()],
        _ => store.key_owners(&keys)?,
    };
    // Every new customer of an import carries its actor and time.
    let mut tx = match news.first() {
        Some((_, c, _)) => {
            let audit = &c.profile.audit;
            store.begin_by(&audit.created_by, &audit.created_datetime)
        }
        None => store.begin_without_events(),
    };
    let mut chunk = Chunk::default();
    for ((line, customer, json), owner) in news.into_iter().zip(owners) {
        if owner.is_some() {
            if opts.skip_existing {
                chunk.skipped += 1;
            } else {
                chunk.taken.push(line);
            }
            continue;
        }
        let (mut customer, mut json) = (customer, json);
        if profile::free_id(&mut customer, |id| tx.customer(id).map(|c| c.is_some()))? {
            json = serde_json::to_string(&customer).expect("records serialize");
        }
        chunk.created.push(Created {
            id: customer.profile.customer_profile_id.clone(),
            customer_key: customer.profile.customer_key.clone(),
            line,
        });
        tx.new_customer_serialized(customer, json)?;
    }
    if !tx.is_empty() {
        tx.commit()?;
    }
    Ok(chunk)
}

/// Import the JSON Lines of `lines` (`size` bytes, 0 when unknown): every line
/// checked first, then the new profiles written [`CHUNK`] per store
/// transaction, in file order.
///
/// The store is never held for the whole run: the check reads and checks
/// the input without any lock (a shared one is taken for each batch's key
/// lookups), and each chunk takes the exclusive lock for its commit alone,
/// while the next chunk is prepared outside it. So other commands get in
/// between two chunks. A key that another command took after the check is
/// refused for its line at the commit (21002, reported in
/// [`Imported::taken`]; skipped with `skip_existing`), never duplicated.
///
/// `scratch` is an empty private file (see [`Store::scratch_file`]) that
/// holds the records to write between the two passes; `answers` receives
/// one JSON line per created profile ([`Created`]), in file order, so that
/// the answer of a million lines is not held in memory. Every profile gets
/// `ctx`'s time and actor.
#[allow(clippy::too_many_arguments)]
pub fn import<S: Read + Write + Seek>(
    open: Open<'_>,
    ctx: &Ctx,
    lines: &mut Lines<'_>,
    size: u64,
    scratch: &mut S,
    answers: &mut dyn Write,
    opts: Options,
    progress: &mut dyn FnMut(Stage, usize, usize),
) -> Result<Imported> {
    let (fac, chunk_size) = {
        let store = open(Mode::Shared)?;
        let size = store
            .max_creates_per_commit()
            .map_or(CHUNK, |most| most.min(CHUNK));
        (store.catalog()?.facilitator, size)
    };
    let (total, skipped, baseline) = {
        let mut w = std::io::BufWriter::with_capacity(256 << 10, &mut *scratch);
        let counts = check(open, &fac, ctx, lines, size, &mut w, opts, progress)?;
        w.flush().map_err(scratch_error)?;
        counts
    };
    scratch.seek(SeekFrom::Start(0)).map_err(scratch_error)?;
    let mut rest = BufReader::with_capacity(256 << 10, &mut *scratch);
    let mut answers = std::io::BufWriter::with_capacity(64 << 10, answers);
    let mut done = Imported {
        skipped,
        ..Imported::default()
    };
    let mut taken = Report::default();
    let mut batch = Batch::default();
    let mut rec = Vec::new();
    let mut written = 0;
    progress(Stage::Writing, 0, total);
    // Chunk k is committed on another thread (holding the lock) while chunk
    // k+1 is read back and parsed here (without it).
    let result = std::thread::scope(|s| -> Result<()> {
        let mut writing: Option<std::thread::ScopedJoinHandle<'_, Result<Chunk>>> = None;
        loop {
            batch.clear();
            while batch.lines.len() < chunk_size {
                rec.clear();
                if rest.read_until(b'\n', &mut rec).map_err(scratch_error)? == 0 {
                    break;
                }
                let text = rec.strip_suffix(b"\n").unwrap_or(&rec);
                let (n, record) = split_record(text)?;
                batch.push(n, record);
            }
            // Each record with its text, which the store writes as it is
            // (it was serialized from the checked line).
            let news = each_line(&batch, &|n, l| {
                let text = std::str::from_utf8(l).map_err(|_| changed_scratch())?;
                serde_json::from_str::<Customer>(text)
                    .map(|c| (n, c, text.to_string()))
                    .map_err(|_| changed_scratch())
            })?;
            if let Some(h) = writing.take() {
                let chunk = h.join().expect("writer thread")?;
                written += chunk.created.len() + chunk.skipped + chunk.taken.len();
                done.skipped += chunk.skipped;
                for n in chunk.taken {
                    taken.add(
                        n,
                        [ApiError {
                            code: code::KEY_IN_USE,
                            message: format!(
                                "line {n}: customer_key: another customer profile took this key \
                                 while the import ran; the line was not written \
                                 (--skip-existing skips such lines)"
                            ),
                            ..Default::default()
                        }],
                    );
                }
                for c in chunk.created {
                    serde_json::to_writer(&mut answers, &c).map_err(|e| scratch_error(e.into()))?;
                    answers.write_all(b"\n").map_err(scratch_error)?;
                    done.created += 1;
                    done.last = Some(c);
                }
                progress(Stage::Writing, written, total);
            }
            if news.is_empty() {
                break;
            }
            let unchanged = baseline.map(|b| b + done.created);
            writing = Some(s.spawn(move || write_chunk(open, news, opts, unchanged)));
        }
        Ok(())
    });
    if let Err(mut e) = result {
        // A failed answer must not hide the chunks that were committed.
        if let Some(last) = &done.last {
            let note = format!(
                "(the profiles of the lines up to line {} were created before the failure: \
                 {} profile(s), the last {}; re-run the import with --skip-existing \
                 to create the rest)",
                last.line, done.created, last.id
            );
            for a in &mut e.errors {
                a.message = format!("{} {note}", a.message);
            }
        }
        return Err(e);
    }
    answers.flush().map_err(scratch_error)?;
    if !taken.is_empty() {
        done.taken = Some(taken.into_error(None));
    }
    Ok(done)
}

fn changed_scratch() -> Error {
    Error::one(
        code::MALFORMED,
        "profile import: its scratch file in the store was changed during the import",
    )
}

/// `N <json>` of the scratch file.
fn split_record(text: &[u8]) -> Result<(usize, &[u8])> {
    let space = text.iter().position(|&b| b == b' ');
    space
        .and_then(|i| {
            let n = std::str::from_utf8(&text[..i]).ok()?.parse().ok()?;
            Some((n, &text[i + 1..]))
        })
        .ok_or_else(changed_scratch)
}
