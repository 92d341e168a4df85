//! `profile import`: read the lines, show progress, answer the new ids.

use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use indicatif::ProgressStyle;

use crate::cli::Global;
use crate::core::import::{self, Options, Stage};
use crate::error::{Error, Result, code};
use crate::output::{RecordKind, Response};
use crate::store::Mode;

/// `profile import FILE|-`: the lines of one source, read as a stream,
/// imported into the local store, or sent to the service in remote mode.
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
    // Read as a stream while the import checks or sends it: never whole.
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
    let mut lines = import::Lines::new(BufReader::with_capacity(256 << 10, input));
    match &g.remote {
        Some(client) => remote(g, client, &mut lines, skip_existing),
        None => local(g, &mut lines, size, skip_existing),
    }
}

/// Remote mode (see [`crate::api::import`]): the lines that pass are
/// created, every refused line is reported (`line N: …`, exit 1).
fn remote(
    g: &Global,
    client: &crate::api::client::Client,
    lines: &mut import::Lines<'_>,
    skip_existing: bool,
) -> Result<Response> {
    let sent = crate::api::import::import(client, lines, skip_existing)?;
    if sent.skipped > 0 {
        g.ui.err_line(format_args!(
            "note: skipped {} line(s) whose customer_key a stored profile already has",
            sent.skipped
        ));
    }
    if sent.replayed > 0 {
        g.ui.err_line(format_args!(
            "note: {} line(s) were created by an earlier run of this import: answering their ids",
            sent.replayed
        ));
    }
    if let Some(e) = sent.refused {
        g.ui.err_line(format_args!(
            "note: {} line(s) were created; the refused ones were not: fix them and run the same import again (it creates only what is missing)",
            sent.created.len()
        ));
        return Err(e);
    }
    Ok(Response::Records(RecordKind::Imported, sent.created))
}

/// The local store: every line checked, then written in chunks (see
/// [`crate::core::import`]).
fn local(
    g: &Global,
    input: &mut import::Lines<'_>,
    size: u64,
    skip_existing: bool,
) -> Result<Response> {
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
    let unknown_style =
        ProgressStyle::with_template("{msg:9} {spinner} {binary_bytes} read").expect("template");
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
        input,
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
