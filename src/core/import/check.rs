//! The check pass of `profile import`: every line parsed and checked with
//! the rules of `profile create`, its key against the rest of the file and
//! the store, the refused lines reported (bounded), and each valid line's
//! record written to the scratch file for the write pass.

use super::lines::{Lines, Next, unreadable};
use super::*;

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
    match super::super::body::duplicate_key(text) {
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

/// The errors of an import, bounded: every error of the first
/// [`REPORTED_LINES`] bad lines (at most [`ERRORS_PER_LINE`] each), then a
/// count of the rest.
#[derive(Default)]
pub(super) struct Report {
    errors: Vec<ApiError>,
    bad_lines: usize,
    /// The last line counted as bad (a line may be bad for several reasons).
    last_bad: usize,
}

impl Report {
    pub(super) fn add(&mut self, n: usize, errs: impl IntoIterator<Item = ApiError>) {
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

    pub(super) fn is_empty(&self) -> bool {
        self.bad_lines == 0
    }

    pub(super) fn into_error(mut self, tail: Option<ApiError>) -> Error {
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

/// Check every line of `lines`, copying the lines to write to `scratch` as
/// `N <customer record>\n`; the number of lines to write and of lines
/// skipped. Reports `(bytes read, size)` through `progress`. The store is
/// opened (shared) only to look up a batch's keys.
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    open: Open<'_>,
    fac: &Facilitator,
    ctx: &Ctx,
    lines: &mut Lines<'_>,
    size: u64,
    scratch: &mut dyn Write,
    opts: Options,
    progress: &mut dyn FnMut(Stage, usize, usize),
) -> Result<(usize, usize, Option<usize>)> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
