//! `payctl profile …`: customer profiles.

use clap::{Args, Subcommand};
use clap_complete::ArgValueCompleter;

use super::Global;
use super::args::{BodyArg, DryRunArg, IdempotencyArg, PageArgs, Patch, parse_tag};
use super::complete;
use super::prompt::{self, Dict, DictParser};
use crate::api::endpoints::{Op, Params, Request};
use crate::error::Result;
use crate::model::Tag;
use crate::output::Response;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ProfileCommand {
    /// Create a customer profile (POST /customer-profiles)
    #[command(
        after_help = "Examples:\n  payctl profile create --body profile.json\n  CSP=$(payctl profile create --customer-type-id 1 --customer-key cust-0001 \\\n      --first-name Ada --last-name Lovelace --email ada@example.com \\\n      --date-of-birth 1990-12-10 --mobile-phone +15551234567 -o id)"
    )]
    Create {
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: ProfileFields,
        #[command(flatten)]
        idem: IdempotencyArg,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// List customer profiles, oldest first (GET /customer-profiles)
    #[command(
        after_help = "Filters are exact and answered from indexes (the key index, and the field indexes\nof e-mail, names and tags), so their cost grows with the matches, not with the store.\n\nExamples:\n  payctl profile list --email ada@example.com\n  payctl profile list --page-size 100 --page-number 2"
    )]
    List {
        /// Only profiles with this first name (any case)
        #[arg(long)]
        first_name: Option<String>,
        /// Only profiles with this last name (any case)
        #[arg(long)]
        last_name: Option<String>,
        /// Only profiles with this e-mail address (any case)
        #[arg(long)]
        email: Option<String>,
        /// Only the profile with this customer_key
        #[arg(long)]
        customer_key: Option<String>,
        /// Only profiles with this tag (repeatable; all must match)
        #[arg(long = "tag", value_name = "K=V", value_parser = parse_tag)]
        tags: Vec<Tag>,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one customer profile (GET /customer-profiles/{id})
    #[command(after_help = "Example:\n  payctl profile get csp_0123456789abcdefghij")]
    Get {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
    },
    /// Change a customer profile; only the fields given change (PUT /customer-profiles/{id})
    #[command(
        after_help = "customer_key and customer_profile_tags cannot be updated (10003 when changed).\nssn cannot be updated and is refused whatever its value, the stored one too (10003),\nso that an update never tells whether a guess is right.\n\nExample:\n  payctl profile update csp_0123456789abcdefghij --email new@example.com"
    )]
    Update {
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        fields: ProfileFields,
        #[command(flatten)]
        dry: DryRunArg,
    },
    /// Create many customer profiles from JSON Lines: one `profile create` body per line (ours)
    ///
    /// Every line is checked first with the rules of `profile create`; if any
    /// line is refused, nothing is written and the bad lines are reported
    /// (messages start with `line N:`, exit 1): the first 100 in detail, then
    /// a count of the rest. A line holds at most 1 MiB; a longer one stops the
    /// import there (10005, nothing written). The input is read once, as a
    /// stream, in bounded memory; the lines to write wait in a private scratch
    /// file inside the store until they are written. A customer_key repeated in the
    /// file, or already held by a stored profile, is refused too (21002)
    /// unless --skip-existing is given: then lines whose key a stored profile
    /// has are skipped (their number is noted on stderr), so re-running an
    /// import that was interrupted creates exactly the missing profiles.
    ///
    /// The profiles are written in file order, 20,000 per atomic commit (5,000
    /// on a database); an
    /// interruption keeps the commits already made. The store is locked only
    /// for each commit, so other commands get in between two; a key another
    /// command took meanwhile is refused for its line at the commit (21002;
    /// skipped with --skip-existing) and the other lines are created. Blank lines, CRLF line ends and a leading
    /// byte-order mark are accepted. Every profile of one import has the same
    /// created_datetime (the import's start). The answer lists the new
    /// profiles: data: [{"id", "customer_key", "line"}, …] (`-o id`: the new
    /// ids, one per line). A progress bar is drawn on stderr when it is a
    /// terminal.
    ///
    /// In remote mode (--base-url) each line is a POST /customer-profiles, 8 at
    /// a time, with an Idempotency-Key made of the line's body (the fingerprint
    /// a --idempotency-key is checked against; the file's name and the line's
    /// number play no part): the lines that pass are created, refused lines are
    /// reported (exit 1; a customer_key repeated in the file is refused without
    /// being sent), and running the same lines again, from any file, within 24
    /// hours creates only the missing profiles.
    #[command(
        after_help = "Examples:\n  payctl profile import customers.jsonl -o id > new-ids.txt\n  jq -c '.[]' customers.json | payctl profile import - --skip-existing"
    )]
    Import {
        /// The JSON Lines file, or `-` for stdin
        #[arg(value_name = "FILE|-")]
        file: std::path::PathBuf,
        /// Skip lines whose customer_key a stored profile already has (instead of refusing)
        #[arg(long)]
        skip_existing: bool,
    },
}

// Per-field flags of a profile body.
#[derive(Debug, Args)]
pub struct ProfileFields {
    /// customer_type_id: an id or a name (1 Individual; see `payctl dict list customer-types`)
    #[arg(long, value_name = "ID|NAME", value_parser = DictParser(Dict::CustomerType), hide_possible_values = true)]
    pub customer_type_id: Option<u32>,
    // The rule's text is core's, as the prompt and the error state it.
    #[arg(long, value_name = "KEY",
          help = format!("customer_key: {} (unique)", crate::core::profile::KEY_RULE))]
    pub customer_key: Option<String>,
    /// A customer_profile_tags entry (repeatable, at most 50)
    #[arg(long = "tag", value_name = "K=V", value_parser = parse_tag)]
    pub tags: Vec<Tag>,
    /// first_name: 1-50 characters (required by a create)
    #[arg(long)]
    pub first_name: Option<String>,
    /// middle_name: 0-50 characters (optional)
    #[arg(long)]
    pub middle_name: Option<String>,
    /// last_name: 1-50 characters (required by a create)
    #[arg(long)]
    pub last_name: Option<String>,
    /// email: an e-mail address, at most 256 characters (required by a create)
    #[arg(long)]
    pub email: Option<String>,
    /// date_of_birth: MM/DD/YYYY or YYYY-MM-DD, within the Facilitator's age limits (required by a create)
    #[arg(long, value_name = "DATE")]
    pub date_of_birth: Option<String>,
    /// ssn: 9 or 4 digits (optional; cannot be updated; shown as its last 4)
    #[arg(long)]
    pub ssn: Option<String>,
    /// mobile_phone: +, a digit 1-9, then 1 to 15 digits (required by a create)
    #[arg(long, value_name = "PHONE")]
    pub mobile_phone: Option<String>,
    /// home_phone: +, a digit 1-9, then 1 to 15 digits (optional)
    #[arg(long, value_name = "PHONE")]
    pub home_phone: Option<String>,
    /// office_phone: +, a digit 1-9, then 1 to 15 digits (optional)
    #[arg(long, value_name = "PHONE")]
    pub office_phone: Option<String>,
}

impl ProfileFields {
    fn over(&self, body: serde_json::Value) -> serde_json::Value {
        let mut p = Patch::new();
        let ind = "customer_profile_individual";
        p.num("customer_type_id", self.customer_type_id)
            .str("customer_key", &self.customer_key)
            .tags("customer_profile_tags", &self.tags)
            .str(&format!("{ind}.first_name"), &self.first_name)
            .str(&format!("{ind}.middle_name"), &self.middle_name)
            .str(&format!("{ind}.last_name"), &self.last_name)
            .str(&format!("{ind}.email"), &self.email)
            .str(&format!("{ind}.date_of_birth"), &self.date_of_birth)
            .str(&format!("{ind}.ssn"), &self.ssn)
            .str(&format!("{ind}.mobile_phone"), &self.mobile_phone)
            .str(&format!("{ind}.home_phone"), &self.home_phone)
            .str(&format!("{ind}.office_phone"), &self.office_phone);
        p.over(body)
    }
}

impl ProfileCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            ProfileCommand::Create {
                body,
                fields,
                idem,
                dry,
            } => {
                idem.check()?;
                let body = fields.over(body.read()?);
                prompt::create_asking(
                    g,
                    body,
                    || prompt::profile_form(g),
                    |body| {
                        g.call(
                            Request::new(Op::ProfileCreate)
                                .body(body.clone())
                                .idempotency_key(idem.idempotency_key.clone())
                                .dry_run(dry.dry_run),
                        )
                    },
                )
            }
            ProfileCommand::List {
                first_name,
                last_name,
                email,
                customer_key,
                tags,
                page,
            } => {
                let query = Params {
                    page: page.request(),
                    first_name,
                    last_name,
                    email,
                    customer_key,
                    tags,
                    ..Params::default()
                };
                g.list(Request::new(Op::ProfileList).query(query), &page)
            }
            ProfileCommand::Get { csp } => g.call(Request::new(Op::ProfileGet).at([csp])),
            ProfileCommand::Import {
                file,
                skip_existing,
            } => {
                if g.remote.is_some() {
                    return import::exec_remote(g, &file, skip_existing);
                }
                import::exec(g, &file, skip_existing)
            }
            ProfileCommand::Update {
                csp,
                body,
                fields,
                dry,
            } => {
                let body = fields.over(body.read()?);
                let updated = g.call(
                    Request::new(Op::ProfileUpdate)
                        .at([csp.as_str()])
                        .body(body)
                        .dry_run(dry.dry_run),
                )?;
                g.shown(updated, |id| Request::new(Op::ProfileGet).at([id]))
            }
        }
    }
}

/// `profile import`: read the lines, show progress, answer the new ids.
mod import {
    use std::io::{Read, Seek, SeekFrom};
    use std::path::Path;

    use indicatif::ProgressStyle;

    use crate::cli::Global;
    use crate::core::import::{self, Options, Stage};
    use crate::error::{Error, Result, code};
    use crate::output::{RecordKind, Response};
    use crate::store::Mode;

    /// Lines in flight at once in remote mode.
    const IN_FLIGHT: usize = 8;

    /// Remote mode: each line is a `POST /customer-profiles` with an
    /// `Idempotency-Key` derived from the line's body (its fingerprint), at most
    /// [`IN_FLIGHT`] at once. Not atomic as the local import is: the lines
    /// that pass are created, every refused line is reported (`line N: …`,
    /// exit 1), and running the same file again creates exactly the missing
    /// profiles (the created ones answer their first id, for 24 hours).
    pub fn exec_remote(g: &Global, file: &Path, skip_existing: bool) -> Result<Response> {
        use std::sync::Mutex;
        use std::sync::atomic::{AtomicUsize, Ordering};

        use crate::api::client::Note;
        use crate::api::endpoints::{Op, Request};
        use crate::error::{ApiError, ErrorKind};

        let Some(client) = &g.remote else {
            return exec(g, file, skip_existing);
        };
        let mut input = Vec::new();
        let read = if file.as_os_str() == "-" {
            std::io::stdin().read_to_end(&mut input)
        } else {
            std::fs::File::open(file).and_then(|mut f| f.read_to_end(&mut input))
        };
        read.map_err(|e| {
            Error::one(
                code::MALFORMED,
                format!(
                    "FILE: cannot read {}: {e}",
                    crate::output::mask::mask_text(&file.display().to_string())
                ),
            )
        })?;
        let text = input.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&input);
        let lines: Vec<(usize, &[u8])> = text
            .split(|&b| b == b'\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
            .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
            .collect();
        // Each line's body, or why it is refused before it is sent: a
        // customer_key repeated in the file is refused as the local import
        // refuses it (the first line with it is sent).
        let mut first_of: std::collections::HashMap<String, usize> = Default::default();
        let mut check = |n: usize, line: &[u8]| -> Result<serde_json::Value> {
            let body = crate::cli::args::parse_body(line)?;
            let key = body.get("customer_key").and_then(|k| k.as_str());
            if let Some(key) = key {
                if let Some(first) = first_of.get(key) {
                    return Err(Error::refused(vec![ApiError::message(
                        code::KEY_IN_USE,
                        format!("customer_key: repeats the customer_key of line {first}"),
                    )]));
                }
                first_of.insert(key.to_string(), n);
            }
            Ok(body)
        };
        let lines: Vec<(usize, Result<serde_json::Value>)> = lines
            .into_iter()
            .map(|(n, line)| (n, check(n, line)))
            .collect();
        let next = AtomicUsize::new(0);
        let results = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..IN_FLIGHT.min(lines.len()) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some((n, line)) = lines.get(i) else {
                            break;
                        };
                        let n = *n;
                        let sent = line.clone().and_then(|body| {
                            let key = body
                                .get("customer_key")
                                .and_then(|k| k.as_str())
                                .unwrap_or_default()
                                .to_string();
                            // The key is the request's own fingerprint (that of
                            // a local --idempotency-key): the same line answers
                            // its first id again, any other line is a request
                            // of its own, whatever file it came from.
                            let fp = crate::core::idempotency::fingerprint(
                                "POST /customer-profiles",
                                &[],
                                &body,
                            );
                            let req = Request::new(Op::ProfileCreate)
                                .body(body)
                                .idempotency_key(Some(format!("import-{fp}")));
                            client
                                .call_noted(&req)
                                .map(|(r, note)| (r, note == Some(Note::Replayed), key))
                        });
                        if let Ok(mut r) = results.lock() {
                            r.push((n, sent));
                        }
                    }
                });
            }
        });
        let mut results = results.into_inner().unwrap_or_default();
        results.sort_by_key(|(n, _)| *n);
        let (mut created, mut errors, mut replayed, mut skipped) = (Vec::new(), Vec::new(), 0, 0);
        let mut kind = ErrorKind::Refused;
        for (n, r) in results {
            match r {
                Ok((Response::Id(id), again, key)) => {
                    replayed += usize::from(again);
                    created.push(serde_json::json!({"id": id, "customer_key": key, "line": n}));
                }
                Ok(_) => {}
                Err(e) if skip_existing && e.has_code(code::KEY_IN_USE) => skipped += 1,
                Err(e) => {
                    if e.kind == ErrorKind::Store {
                        kind = ErrorKind::Store;
                    }
                    errors.extend(e.errors.into_iter().map(|a| ApiError {
                        message: format!("line {n}: {}", a.message),
                        ..a
                    }));
                }
            }
        }
        if skipped > 0 {
            g.ui.err_line(format_args!(
                "note: skipped {skipped} line(s) whose customer_key a stored profile already has"
            ));
        }
        if replayed > 0 {
            g.ui.err_line(format_args!(
                "note: {replayed} line(s) were created by an earlier run of this import: answering their ids"
            ));
        }
        if !errors.is_empty() {
            g.ui.err_line(format_args!(
                "note: {} line(s) were created; the refused ones were not: fix them and run the same import again (it creates only what is missing)",
                created.len()
            ));
            return Err(Error { kind, errors });
        }
        Ok(Response::Records(RecordKind::Imported, created))
    }

    pub fn exec(g: &Global, file: &Path, skip_existing: bool) -> Result<Response> {
        let cannot = |e: std::io::Error| {
            Error::one(
                code::MALFORMED,
                format!(
                    "FILE: cannot read {}: {e}",
                    crate::output::mask::mask_text(&file.display().to_string())
                ),
            )
        };
        // Read as a stream while the import checks it: never whole.
        let stdin;
        let opened;
        let (input, size): (Box<dyn Read>, u64) = if file.as_os_str() == "-" {
            stdin = std::io::stdin();
            (Box::new(stdin.lock()), 0)
        } else {
            opened = std::fs::File::open(file).map_err(cannot)?;
            let meta = opened.metadata().map_err(cannot)?;
            if meta.is_dir() {
                return Err(cannot(std::io::Error::other("is a directory")));
            }
            let size = if meta.is_file() { meta.len() } else { 0 };
            (Box::new(&opened), size)
        };
        let mut input = input;
        // Opened (created, upgraded, a journal replayed) once here; the
        // import then opens it again for each step, never holding it between.
        let (mut scratch, mut answers) = {
            let store = g.write()?;
            (store.scratch_file()?, store.scratch_file()?)
        };
        let open = |mode: Mode| match mode {
            Mode::Shared => g.read(),
            // Each chunk's commit (the import's only exclusive opening):
            // tests widen the gap between chunks here (`PAYCTL_SLOW`).
            Mode::Exclusive => {
                crate::store::fault::slow("import-chunk");
                g.write()
            }
        };
        // One bar per stage, each with its own honest count: checking counts
        // bytes of the input (a spinner and the bytes read when its size is
        // unknown, as from stdin), writing counts profiles. A stage's bar
        // stays on the screen, finished, when the next one starts.
        let count_style =
            ProgressStyle::with_template("{msg:9} [{bar:40}] {human_pos}/{human_len} ({eta} left)")
                .expect("template")
                .progress_chars("=> ");
        let bytes_style = ProgressStyle::with_template(
            "{msg:9} [{bar:40}] {binary_bytes}/{binary_total_bytes} ({eta} left)",
        )
        .expect("template")
        .progress_chars("=> ");
        let unknown_style = ProgressStyle::with_template("{msg:9} {spinner} {binary_bytes} read")
            .expect("template");
        let mut bar: Option<(Stage, indicatif::ProgressBar)> = None;
        let mut progress = |stage: Stage, done: usize, total: usize| {
            if bar.as_ref().is_none_or(|(s, _)| *s != stage) {
                if let Some((_, b)) = bar.take() {
                    b.finish();
                }
                // Nothing to write (every line skipped): no empty bar.
                if stage == Stage::Writing && total == 0 {
                    return;
                }
                let b = g.ui.progress_bar();
                b.set_message(match stage {
                    Stage::Checking => "checking",
                    Stage::Writing => "writing",
                });
                b.set_style(match (stage, total) {
                    (Stage::Checking, 0) => unknown_style.clone(),
                    (Stage::Checking, _) => bytes_style.clone(),
                    (Stage::Writing, _) => count_style.clone(),
                });
                if total > 0 {
                    b.set_length(total as u64);
                }
                bar = Some((stage, b));
            }
            if let Some((_, b)) = &bar {
                b.set_position(done as u64);
                if total == 0 {
                    b.tick();
                }
            }
        };
        let result = import::import(
            &open,
            &g.ctx(),
            &mut input,
            size,
            &mut scratch,
            &mut answers,
            Options { skip_existing },
            &mut progress,
        );
        if let Some((_, b)) = bar {
            b.finish();
        }
        drop(scratch);
        let done = result?;
        if done.skipped > 0 {
            g.ui.err_line(format_args!(
                "note: skipped {} line(s) whose customer_key a stored profile already has",
                done.skipped
            ));
        }
        if let Some(e) = done.taken {
            g.ui.err_line(format_args!(
                "note: {} line(s) were created; the refused ones were not (their key was \
                 taken by another command during the import): fix them and run the same \
                 import again with --skip-existing (it creates only what is missing)",
                done.created
            ));
            return Err(e);
        }
        answers
            .seek(SeekFrom::Start(0))
            .map_err(|e| Error::io(g.data_dir.as_path(), e))?;
        answer(g, &mut answers)
    }

    /// The answer of a local import: its created profiles, read back from
    /// `answers` (one JSON record a line). In JSON and id formats they are
    /// streamed to stdout as they are read (a million of them are not held in
    /// memory), exactly as the ordinary printer would have printed them; a
    /// table is built in memory.
    fn answer(g: &Global, answers: &mut std::fs::File) -> Result<Response> {
        use std::io::{BufRead, BufReader};

        use crate::output::{Format, mask};

        let unreadable = |e: std::io::Error| {
            Error::one(
                code::MALFORMED,
                format!("profile import: cannot read back its answer in the store ({e})"),
            )
        };
        let mut lines = BufReader::with_capacity(64 << 10, answers);
        let mut next = move || -> Result<Option<serde_json::Value>> {
            let mut line = String::new();
            if lines.read_line(&mut line).map_err(unreadable)? == 0 {
                return Ok(None);
            }
            let mut v: serde_json::Value =
                serde_json::from_str(&line).map_err(|e| unreadable(std::io::Error::other(e)))?;
            mask::mask(&mut v);
            Ok(Some(v))
        };
        if g.ui.format() == Format::Table {
            let mut all = Vec::new();
            while let Some(v) = next()? {
                all.push(v);
            }
            return Ok(Response::Records(RecordKind::Imported, all));
        }
        let pretty = g.ui.style().pretty;
        // Written through the one owner of stdout, 64 KiB at a time.
        struct Out<'a> {
            g: &'a Global,
            buf: String,
        }
        impl Out<'_> {
            fn put(&mut self, text: &str) -> std::io::Result<()> {
                self.buf.push_str(text);
                if self.buf.len() >= 64 << 10 {
                    self.flush()?;
                }
                Ok(())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                let r = self.g.ui.out_text(&self.buf);
                self.buf.clear();
                r
            }
        }
        let mut out = Out {
            g,
            buf: String::with_capacity(80 << 10),
        };
        let mut count = 0usize;
        let written = (|| -> Result<std::io::Result<()>> {
            if g.ui.format() == Format::Id {
                while let Some(v) = next()? {
                    count += 1;
                    if let Some(id) = v.get("id").and_then(|i| i.as_str())
                        && let Err(e) = out.put(&format!("{id}\n"))
                    {
                        return Ok(Err(e));
                    }
                }
                return Ok(out.flush());
            }
            if g.ui.format() == Format::Jsonl {
                while let Some(v) = next()? {
                    count += 1;
                    let line = format!("{}\n", serde_json::to_string(&v).expect("json"));
                    if let Err(e) = out.put(&line) {
                        return Ok(Err(e));
                    }
                }
                return Ok(out.flush());
            }
            // The envelope as `serde_json` prints it, compact or pretty.
            let (head, tail) = if pretty {
                (
                    "{\n  \"paging\": null,\n  \"data\": [",
                    "\n  ],\n  \"errors\": null\n}\n",
                )
            } else {
                ("{\"paging\":null,\"data\":[", "],\"errors\":null}\n")
            };
            if let Err(e) = out.put(head) {
                return Ok(Err(e));
            }
            while let Some(v) = next()? {
                let mut text = String::from(if count > 0 { "," } else { "" });
                if pretty {
                    let body = serde_json::to_string_pretty(&v).expect("json");
                    text.push_str("\n    ");
                    text.push_str(&body.replace('\n', "\n    "));
                } else {
                    text.push_str(&serde_json::to_string(&v).expect("json"));
                }
                count += 1;
                if let Err(e) = out.put(&text) {
                    return Ok(Err(e));
                }
            }
            // An empty list prints `[]` on one line, pretty or not.
            let tail = if count == 0 && pretty {
                "],\n  \"errors\": null\n}\n"
            } else {
                tail
            };
            Ok(out.put(tail).and_then(|()| out.flush()))
        })()?;
        match written {
            Ok(()) => Ok(Response::Raw(String::new())),
            // A closed pipe or a full disk: the profiles are created all
            // the same; say so (exit 3, as for any answer lost after a change).
            Err(e) => Err(Error::one(
                code::MALFORMED,
                format!(
                    "writing output: {e}; the import was committed: {count} or more profile(s) \
                     were created (`payctl profile list` shows them; a re-run with \
                     --skip-existing creates nothing again)"
                ),
            )),
        }
    }
}
