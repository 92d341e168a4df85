//! `profile import`: many profile creates from JSON Lines (ours; CLI.md).
//!
//! Every line is checked before anything is written, with the rules of
//! `profile create` ([`profile::validate_create`]), and the keys against the
//! rest of the file and the store. If any line is refused, nothing is written
//! and the bad lines are reported (`line N: <json path>: <rule>`), the first
//! [`REPORTED_LINES`] in detail, then one error counting the rest. Otherwise
//! the profiles are created in chunks of [`CHUNK`] ([`DB_CHUNK`] in a
//! database), each chunk one store transaction: a crash loses at most the chunk in hand, never half of one,
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
//! finding repeated keys needs (each key once, compactly: [`KeySet`]) and
//! the reported errors; each valid line becomes its customer record at once,
//! which goes to a scratch file the caller provides (in the store, so as
//! private as the records) and which the write pass reads back, one chunk
//! at a time, without validating the line again. The created profiles go
//! to a second file as they are committed, for the caller to stream as the
//! answer. So stdin, a pipe and a file are read once, and the lines written
//! are exactly the lines checked.

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

/// Profiles created per store transaction in a JSON directory: large enough
/// that the per-commit cost (the journal, one sync of the file system, and
/// the 2,600 index files a chunk appends to whatever its size: key and
/// field buckets, the shards' logs of packed records) is spread thin, small
/// enough that an import stays under 256 MB with two chunks in memory (the
/// one being committed, the next being read) and a commit holds the store
/// about a second. (10,000 gave 13,800 profiles a second at a million;
/// 20,000 gives 15,800.)
pub const CHUNK: usize = 20_000;

/// Profiles created per transaction in a database: each takes an advisory
/// lock on its key, and 5,000 fit PostgreSQL's default shared lock table
/// (`max_locks_per_transaction` 64 × `max_connections` 100 = 6,400).
pub const DB_CHUNK: usize = 5_000;

/// Bad lines reported in detail; the rest are counted in one last error.
pub const REPORTED_LINES: usize = 100;

/// Errors reported in detail for one line; the rest are counted.
pub const ERRORS_PER_LINE: usize = 20;

/// Lines checked per batch (split among the cores), and the most bytes a
/// batch holds before it is checked: memory for a batch stays a few
/// megabytes however long the file.
const BATCH_LINES: usize = 4096;
const BATCH_BYTES: usize = 8 << 20;

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

/// Where the input was when it stopped being readable line by line.
enum Next {
    /// A line (its bytes are in the caller's buffer, without the line end).
    Line,
    /// A line longer than the cap: reading stops there.
    TooLong,
    End,
}

/// Reads the input's lines, at most [`caps::LINE_BYTES`] each, never holding
/// more than one line: a trailing `\r` (CRLF files) and a byte-order mark at
/// the very start are dropped.
struct Lines<R> {
    input: R,
    /// The number of the line last read (1-based).
    n: usize,
    /// Bytes read so far.
    bytes: u64,
}

impl<R: BufRead> Lines<R> {
    fn new(input: R) -> Self {
        Lines {
            input,
            n: 0,
            bytes: 0,
        }
    }

    /// Append the next line to `buf` (which it clears first).
    fn next(&mut self, buf: &mut Vec<u8>) -> std::io::Result<Next> {
        buf.clear();
        let mut any = false;
        loop {
            let avail = match self.input.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                if !any {
                    return Ok(Next::End);
                }
                break;
            }
            any = true;
            let (part, used, ends) = match avail.iter().position(|&b| b == b'\n') {
                Some(i) => (&avail[..i], i + 1, true),
                None => (avail, avail.len(), false),
            };
            // One byte of slack for the `\r` of a CRLF line end.
            if buf.len() + part.len() > caps::LINE_BYTES + 1 {
                self.n += 1;
                return Ok(Next::TooLong);
            }
            buf.extend_from_slice(part);
            self.input.consume(used);
            self.bytes += used as u64;
            if ends {
                break;
            }
        }
        self.n += 1;
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        if buf.len() > caps::LINE_BYTES {
            return Ok(Next::TooLong);
        }
        if self.n == 1 && buf.starts_with(b"\xEF\xBB\xBF") {
            buf.drain(..3);
        }
        Ok(Next::Line)
    }
}

fn at_line(n: usize, e: ApiError) -> ApiError {
    ApiError {
        message: format!("line {n}: {}", e.message),
        ..e
    }
}

/// Parse one line as a JSON body (the rules of `--body`: UTF-8 JSON).
fn parse_line(n: usize, line: &[u8]) -> std::result::Result<Value, ApiError> {
    let bad = |why: String| ApiError {
        code: code::MALFORMED,
        message: format!("line {n}: body: {why}"),
        ..Default::default()
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
    /// The `customer_key` the line names, when it could be one (at most 50
    /// key characters): only those are looked for again in the file, so a
    /// file of long bad keys costs no memory.
    key: Option<String>,
    /// The new customer record, serialized, or why the line is refused.
    result: std::result::Result<Vec<u8>, Vec<ApiError>>,
    /// Whether a stored profile already has the key (checked for valid lines).
    exists: bool,
}

fn could_be_key(s: &str) -> bool {
    s.len() <= 50 && s.chars().all(rules::is_key_char)
}

fn validate(
    ctx: &Ctx,
    fac: &Facilitator,
    n: usize,
    line: &[u8],
) -> (
    Option<String>,
    std::result::Result<NewProfile, Vec<ApiError>>,
) {
    let body = match parse_line(n, line) {
        Ok(b) => b,
        Err(e) => return (None, Err(vec![e])),
    };
    let key = body
        .get("customer_key")
        .and_then(Value::as_str)
        .filter(|k| could_be_key(k))
        .map(String::from);
    let result = profile::validate_create(&body, ctx, fac)
        .map_err(|e| e.errors.into_iter().map(|e| at_line(n, e)).collect());
    (key, result)
}

/// Check one line; a line that passes becomes its customer record at once
/// (its id drawn now), serialized: what the scratch file keeps for the write
/// pass, so that no line is validated twice.
fn check_line(ctx: &Ctx, fac: &Facilitator, n: usize, line: &[u8]) -> Result<Checked> {
    let (key, result) = validate(ctx, fac, n, line);
    let result = result.map(|new| {
        let customer = new.into_customer(ctx);
        serde_json::to_vec(&customer).expect("records serialize")
    });
    Ok(Checked {
        line: n,
        key,
        result,
        exists: false,
    })
}

/// The `customer_key`s seen so far in the file, each with its first line,
/// compactly: the keys' bytes one after another in one buffer (a length
/// byte, the key, the line as 4 bytes), found through a table from a 64-bit
/// hash of the key to its place in the buffer. About 30 bytes a key, against
/// some 100 for a map of strings; two keys whose hashes are equal (so rare
/// that it may never happen) are told apart exactly by a second, ordinary
/// map that holds only such keys.
#[derive(Default)]
struct KeySet {
    bytes: Vec<u8>,
    at: HashMap<u64, usize>,
    collided: HashMap<Box<str>, usize>,
    hasher: std::hash::RandomState,
}

impl KeySet {
    fn hash(&self, key: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(key)
    }

    fn key_at(&self, at: usize) -> (&[u8], usize) {
        let len = usize::from(self.bytes[at]);
        let key = &self.bytes[at + 1..at + 1 + len];
        let mut n = [0u8; 4];
        n.copy_from_slice(&self.bytes[at + 1 + len..at + 5 + len]);
        (key, u32::from_le_bytes(n) as usize)
    }

    /// The first line of `key`, if it was seen.
    fn get(&self, key: &str) -> Option<usize> {
        let &at = self.at.get(&self.hash(key))?;
        match self.key_at(at) {
            (k, n) if k == key.as_bytes() => Some(n),
            _ => self.collided.get(key).copied(),
        }
    }

    /// Record `key` (at most 255 bytes: keys are at most 50 characters) as
    /// first seen on line `n`.
    fn insert(&mut self, key: &str, n: usize) {
        let h = self.hash(key);
        if self.at.contains_key(&h) {
            self.collided.insert(key.into(), n);
            return;
        }
        let len = u8::try_from(key.len()).unwrap_or(u8::MAX);
        self.at.insert(h, self.bytes.len());
        self.bytes.push(len);
        self.bytes
            .extend_from_slice(&key.as_bytes()[..usize::from(len)]);
        self.bytes
            .extend_from_slice(&u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes());
    }
}

/// A batch of lines read, checked together.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    /// (line number, range in `bytes`).
    lines: Vec<(usize, std::ops::Range<usize>)>,
}

impl Batch {
    fn clear(&mut self) {
        self.bytes.clear();
        self.lines.clear();
    }
    fn push(&mut self, n: usize, line: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(line);
        self.lines.push((n, start..self.bytes.len()));
    }
    fn full(&self) -> bool {
        self.lines.len() >= BATCH_LINES || self.bytes.len() >= BATCH_BYTES
    }
    fn line(&self, i: usize) -> (usize, &[u8]) {
        let (n, r) = &self.lines[i];
        (*n, &self.bytes[r.clone()])
    }
}

/// The threads that check lines (one with `PAYCTL_ID_SEED`: the ids are
/// drawn in line order).
fn threads() -> usize {
    if crate::model::id::seeded() {
        return 1;
    }
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 4)
}

/// Run `f` on every line of `batch`, split among the cores; the results in
/// line order.
fn each_line<T: Send>(
    batch: &Batch,
    f: &(dyn Fn(usize, &[u8]) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    let total = batch.lines.len();
    let threads = threads().min(total.div_ceil(256)).max(1);
    if threads == 1 {
        return (0..total)
            .map(|i| {
                let (n, l) = batch.line(i);
                f(n, l)
            })
            .collect();
    }
    let per = total.div_ceil(threads);
    let parts: Vec<Result<Vec<T>>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t * per..((t + 1) * per).min(total))
                        .map(|i| {
                            let (n, l) = batch.line(i);
                            f(n, l)
                        })
                        .collect::<Result<Vec<T>>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("checking thread"))
            .collect()
    });
    let mut out = Vec::with_capacity(total);
    for p in parts {
        out.extend(p?);
    }
    Ok(out)
}

/// The errors of an import, bounded: every error of the first
/// [`REPORTED_LINES`] bad lines (at most [`ERRORS_PER_LINE`] each), then a
/// count of the rest.
#[derive(Default)]
struct Report {
    errors: Vec<ApiError>,
    bad_lines: usize,
    /// The last line counted as bad (a line may be bad for several reasons).
    last_bad: usize,
}

impl Report {
    fn add(&mut self, n: usize, errs: impl IntoIterator<Item = ApiError>) {
        let mut errs = errs.into_iter().peekable();
        if errs.peek().is_none() {
            return;
        }
        if self.last_bad != n {
            self.bad_lines += 1;
            self.last_bad = n;
        }
        if self.bad_lines > REPORTED_LINES {
            return;
        }
        let shown = self
            .errors
            .iter()
            .rev()
            .take_while(|e| e.message.starts_with(&format!("line {n}: ")))
            .count();
        let mut more = 0;
        for (i, e) in errs.enumerate() {
            if shown + i < ERRORS_PER_LINE {
                self.errors.push(e);
            } else {
                more += 1;
            }
        }
        if more > 0 {
            self.errors.push(ApiError {
                code: code::INVALID_VALUE,
                message: format!("line {n}: {more} more error(s) on this line are not shown"),
                ..Default::default()
            });
        }
    }

    fn is_empty(&self) -> bool {
        self.bad_lines == 0
    }

    fn into_error(mut self, tail: Option<ApiError>) -> Error {
        if self.bad_lines > REPORTED_LINES {
            self.errors.push(ApiError {
                code: code::INVALID_VALUE,
                message: format!(
                    "{} more line(s) are refused too (only the first {REPORTED_LINES} bad lines \
                     are shown); nothing was written",
                    thousands(self.bad_lines - REPORTED_LINES)
                ),
                ..Default::default()
            });
        }
        self.errors.extend(tail);
        Error::refused(self.errors)
    }
}

/// `n` with a comma every three digits (a count is no sensitive number, and
/// reads better so).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How the import opens the store for each of its steps: shared for a
/// batch of key lookups, exclusive for a chunk's commit. The store is open
/// (and locked) only for that step, so other commands get in between.
pub type Open<'a> = &'a (dyn Fn(Mode) -> Result<Store> + Sync);

/// Check every line of `input`, copying the lines to write to `scratch` as
/// `N <customer record>\n`; the number of lines to write and of lines
/// skipped. Reports `(bytes read, size)` through `progress`. The store is
/// opened (shared) only to look up a batch's keys.
#[allow(clippy::too_many_arguments)]
fn check(
    open: Open<'_>,
    fac: &Facilitator,
    ctx: &Ctx,
    input: &mut dyn Read,
    size: u64,
    scratch: &mut dyn Write,
    opts: Options,
    progress: &mut dyn FnMut(Stage, usize, usize),
) -> Result<(usize, usize, Option<usize>)> {
    let mut lines = Lines::new(BufReader::with_capacity(256 << 10, input));
    let unreadable =
        |e: std::io::Error| Error::one(code::MALFORMED, format!("FILE: cannot be read ({e})"));
    let mut tally = Tally {
        open,
        opts,
        baseline: None,
        report: Report::default(),
        first_line_of: KeySet::default(),
        to_write: 0,
        skipped: 0,
    };
    let mut line = Vec::new();
    let mut too_long = None;
    progress(Stage::Checking, 0, size as usize);
    // Batch k+1 is read and its lines checked on other threads while batch
    // k's keys are looked up and its records copied here: the steps that
    // go in file order do not leave the other cores idle.
    std::thread::scope(|s| -> Result<()> {
        let mut checking: Option<std::thread::ScopedJoinHandle<'_, Result<Vec<Checked>>>> = None;
        loop {
            let mut batch = Batch::default();
            let mut end = false;
            while !batch.full() {
                match lines.next(&mut line).map_err(unreadable)? {
                    Next::Line if line.iter().all(u8::is_ascii_whitespace) => {}
                    Next::Line => batch.push(lines.n, &line),
                    Next::TooLong => {
                        too_long = Some(lines.n);
                        end = true;
                        break;
                    }
                    Next::End => {
                        end = true;
                        break;
                    }
                }
            }
            let next = s.spawn(move || each_line(&batch, &|n, l| check_line(ctx, fac, n, l)));
            if let Some(h) = checking.replace(next) {
                tally.take(h.join().expect("checking thread")?, scratch)?;
                progress(Stage::Checking, lines.bytes as usize, size as usize);
            }
            if end {
                break;
            }
        }
        if let Some(h) = checking.take() {
            tally.take(h.join().expect("checking thread")?, scratch)?;
        }
        progress(Stage::Checking, lines.bytes as usize, size as usize);
        Ok(())
    })?;
    if let Some(n) = too_long {
        let tail = ApiError {
            code: code::MALFORMED,
            message: format!(
                "line {n}: is longer than {} MiB, the most one line may hold; the lines after \
                 it were not checked and nothing was written",
                caps::LINE_BYTES >> 20
            ),
            ..Default::default()
        };
        return Err(tally.report.into_error(Some(tail)));
    }
    if !tally.report.is_empty() {
        return Err(tally.report.into_error(None));
    }
    Ok((tally.to_write, tally.skipped, tally.baseline.flatten()))
}

/// What the check found so far, batch after batch, in file order.
struct Tally<'a> {
    open: Open<'a>,
    opts: Options,
    /// How many customers the store held when the first keys were looked up
    /// (see [`write_chunk`]).
    baseline: Option<Option<usize>>,
    report: Report,
    first_line_of: KeySet,
    to_write: usize,
    skipped: usize,
}

impl Tally<'_> {
    /// Take a batch's checked lines: their keys looked up in the store, the
    /// keys repeated in the file refused, the records to write copied to
    /// `scratch`.
    fn take(&mut self, mut checked: Vec<Checked>, scratch: &mut dyn Write) -> Result<()> {
        // The stored keys of the batch's valid lines: one look at the key
        // index for the batch, under a shared lock taken for it alone.
        let valid: Vec<usize> = (0..checked.len())
            .filter(|&i| checked[i].result.is_ok() && checked[i].key.is_some())
            .collect();
        if !valid.is_empty() {
            let keys: Vec<&str> = valid
                .iter()
                .filter_map(|&i| checked[i].key.as_deref())
                .collect();
            let store = (self.open)(Mode::Shared)?;
            if self.baseline.is_none() {
                self.baseline = Some(store.created_count()?);
            }
            let owners = store.key_owners(&keys)?;
            for (&i, owner) in valid.iter().zip(owners) {
                checked[i].exists = owner.is_some();
            }
        }
        let report = &mut self.report;
        for c in checked {
            let n = c.line;
            // A key repeated in the file is refused whatever else is wrong
            // with either line, so fixing one error does not reveal another.
            let repeated = c.key.and_then(|k| match self.first_line_of.get(&k) {
                Some(first) => Some(first),
                None => {
                    // Past the detailed report a bad line's key is not kept:
                    // nothing will be written, and memory stays bounded.
                    if c.result.is_ok() || report.bad_lines < REPORTED_LINES {
                        self.first_line_of.insert(&k, n);
                    }
                    None
                }
            });
            match c.result {
                Err(e) => report.add(n, e),
                Ok(_) if repeated.is_some() => {}
                Ok(_) if c.exists && self.opts.skip_existing => self.skipped += 1,
                Ok(_) if c.exists => report.add(
                    n,
                    [ApiError {
                        code: code::KEY_IN_USE,
                        message: format!(
                            "line {n}: customer_key: another customer profile already has this \
                             key (--skip-existing skips such lines)"
                        ),
                        ..Default::default()
                    }],
                ),
                Ok(record) => {
                    // Once a line is refused nothing is written: stop copying.
                    if report.is_empty() {
                        let mut rec = Vec::with_capacity(record.len() + 12);
                        write!(rec, "{n} ").expect("write to a Vec");
                        rec.extend_from_slice(&record);
                        rec.push(b'\n');
                        scratch.write_all(&rec).map_err(scratch_error)?;
                    }
                    self.to_write += 1;
                }
            }
            if let Some(first) = repeated {
                report.add(
                    n,
                    [ApiError {
                        code: code::KEY_IN_USE,
                        message: format!(
                            "line {n}: customer_key: repeats the customer_key of line {first}"
                        ),
                        ..Default::default()
                    }],
                );
            }
        }
        Ok(())
    }
}

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
    crate::store::fault::slow("import-chunk");
    let store = open(Mode::Exclusive)?;
    let keys: Vec<&str> = news
        .iter()
        .map(|(_, c, _)| c.profile.customer_key.as_str())
        .collect();
    let owners = match unchanged {
        Some(n) if store.created_count()? == Some(n) => vec![None; keys.len()],
        _ => store.key_owners(&keys)?,
    };
    let mut tx = store.begin();
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

/// Import the JSON Lines `input` (`size` bytes, 0 when unknown): every line
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
    input: &mut dyn Read,
    size: u64,
    scratch: &mut S,
    answers: &mut dyn Write,
    opts: Options,
    progress: &mut dyn FnMut(Stage, usize, usize),
) -> Result<Imported> {
    let (fac, chunk_size) = {
        let store = open(Mode::Shared)?;
        let size = match store {
            crate::store::Store::Pg(_) => DB_CHUNK,
            _ => CHUNK,
        };
        (store.catalog()?.facilitator, size)
    };
    let (total, skipped, baseline) = {
        let mut w = std::io::BufWriter::with_capacity(256 << 10, &mut *scratch);
        let counts = check(open, &fac, ctx, input, size, &mut w, opts, progress)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8]) -> Vec<std::result::Result<(usize, Vec<u8>), usize>> {
        let mut l = Lines::new(BufReader::with_capacity(16, input));
        let mut buf = Vec::new();
        let mut out = Vec::new();
        loop {
            match l.next(&mut buf).unwrap() {
                Next::Line => out.push(Ok((l.n, buf.clone()))),
                Next::TooLong => {
                    out.push(Err(l.n));
                    break;
                }
                Next::End => break,
            }
        }
        out
    }

    #[test]
    fn lines_drop_crlf_and_a_leading_bom() {
        let got = all(b"\xEF\xBB\xBF{}\r\n\n[1]\nlast");
        let want: Vec<std::result::Result<(usize, Vec<u8>), usize>> = vec![
            Ok((1, b"{}".to_vec())),
            Ok((2, b"".to_vec())),
            Ok((3, b"[1]".to_vec())),
            Ok((4, b"last".to_vec())),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn a_line_past_the_cap_stops_reading_without_holding_it() {
        let mut input = b"{}\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', caps::LINE_BYTES));
        input.extend(b"\n");
        input.extend(std::iter::repeat_n(b'y', caps::LINE_BYTES + 2));
        input.extend(b"\n{}\n");
        let got = all(&input);
        assert_eq!(got.len(), 3);
        assert_eq!(
            got[1].as_ref().map(|(n, l)| (*n, l.len())),
            Ok((2, caps::LINE_BYTES))
        );
        assert_eq!(got[2], Err(3));
        // An endless line (/dev/zero) ends the same way.
        let mut l = Lines::new(BufReader::new(std::io::repeat(0)));
        let mut buf = Vec::new();
        assert!(matches!(l.next(&mut buf).unwrap(), Next::TooLong));
        assert!(buf.capacity() <= 2 * caps::LINE_BYTES + (256 << 10));
    }

    #[test]
    fn the_report_is_bounded() {
        let mut r = Report::default();
        for n in 1..=1000 {
            let errs = (0..30).map(move |i| ApiError {
                code: code::INVALID_VALUE,
                message: format!("line {n}: e{i}"),
                ..Default::default()
            });
            r.add(n, errs);
        }
        let e = r.into_error(None);
        // 100 lines × (20 shown + 1 "more"), then the count of the rest.
        assert_eq!(e.errors.len(), REPORTED_LINES * (ERRORS_PER_LINE + 1) + 1);
        let last = &e.errors.last().unwrap().message;
        assert!(last.starts_with("900 more line(s) are refused"), "{last}");
        assert_eq!(thousands(199_900), "199,900");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(thousands(7), "7");
    }
}
