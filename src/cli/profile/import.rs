//! `profile import`: read the lines, show progress, answer the new ids.
//!
//! Local and remote alike, the import is one request of the endpoint table
//! (`POST /_payctl/customer-profiles/import`, see [`crate::api::import`]):
//! its body is the file or stdin, read as a stream while the import checks
//! it (or while it is sent), never whole. So a remote import is what a
//! local one is: every line checked first, nothing written if one is
//! refused.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};

use indicatif::ProgressStyle;

use crate::api::endpoints::{Op, Request};
use crate::api::upload::{Progress, Streamed, Upload};
use crate::cli::Global;
use crate::core::import::Stage;
use crate::error::{Error, Result, code};
use crate::output::spool::{self, Failed, Spool};
use crate::output::{Format, RecordKind, Response};

/// `profile import FILE|-`: the lines of one source, read as a stream,
/// imported into the local store or by the service in remote mode.
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
    let (read, size): (Box<dyn Read + Send>, u64) = if file.as_os_str() == "-" {
        (Box::new(std::io::stdin()), 0)
    } else {
        let opened = std::fs::File::open(file).map_err(cannot)?;
        let meta = opened.metadata().map_err(cannot)?;
        if meta.is_dir() {
            return Err(cannot(std::io::Error::other("is a directory")));
        }
        let size = if meta.is_file() { meta.len() } else { 0 };
        (Box::new(opened), size)
    };
    // The bars of the import's stages, in process only.
    let bar: Bar = Arc::default();
    let progress = g.remote.is_none().then(|| bars(g, bar.clone()));
    let mut req = Request::new(Op::ProfileImport).upload(Upload::new(Streamed {
        read,
        size,
        progress,
    }));
    req.query.skip_existing = skip_existing;
    let result = g.call(req);
    if let Some((_, b)) = bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
        b.finish();
    }
    let spool = match result? {
        Response::Spooled(spool) => spool,
        other => return Ok(other),
    };
    if spool.skipped > 0 {
        g.ui.err_line(format_args!(
            "note: skipped {} line(s) whose customer_key a stored profile already has",
            spool.skipped
        ));
    }
    if let Some(e) = spool.refused {
        g.ui.err_line(format_args!(
            "note: {} line(s) were created; the refused ones were not (their key was \
             taken by another command during the import): fix them and run the same \
             import again with --skip-existing (it creates only what is missing)",
            spool.count
        ));
        return Err(e);
    }
    answer(g, &spool)
}

/// The bar of the stage in hand.
type Bar = Arc<Mutex<Option<(Stage, indicatif::ProgressBar)>>>;

/// One bar per stage, each with its own honest count: checking counts
/// bytes of the input (a spinner and the bytes read when its size is
/// unknown, as from stdin), writing counts profiles. A stage's bar stays on
/// the screen, finished, when the next one starts.
fn bars(g: &Global, bar: Bar) -> Progress {
    let ui = g.ui;
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
    Box::new(move |stage: Stage, done: usize, total: usize| {
        let mut bar = bar.lock().unwrap_or_else(|e| e.into_inner());
        if bar.as_ref().is_none_or(|(s, _)| *s != stage) {
            if let Some((_, b)) = bar.take() {
                b.finish();
            }
            // Nothing to write (every line skipped): no empty bar.
            if stage == Stage::Writing && total == 0 {
                return;
            }
            let b = ui.progress_bar();
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
            *bar = Some((stage, b));
        }
        if let Some((_, b)) = &*bar {
            b.set_position(done as u64);
            if total == 0 {
                b.tick();
            }
        }
    })
}

/// The answer of an import: its created profiles, read back from their
/// spool file. In JSON and id formats they are streamed to stdout as they
/// are read (a million of them are not held in memory), exactly as the
/// ordinary printer would have printed them; a table is built in memory.
fn answer(g: &Global, spool: &Spool) -> Result<Response> {
    let unreadable = |e: std::io::Error| {
        Error::one(
            code::MALFORMED,
            format!("profile import: cannot read back its answer in the store ({e})"),
        )
    };
    if g.ui.format() == Format::Table {
        let all = spool.records().map_err(unreadable)?;
        return Ok(Response::Records(RecordKind::Imported, all));
    }
    let style = g.ui.style();
    let count = spool.count;
    let mut lost = None;
    let written = g.ui.with_stdout(|out| {
        let mut out = std::io::BufWriter::with_capacity(64 << 10, out);
        match spool::print(&mut out, style, spool) {
            Ok(()) => out.flush(),
            Err(Failed::Writing(e)) => Err(e),
            Err(Failed::Reading(e)) => {
                lost = Some(e);
                out.flush()
            }
        }
    });
    if let Some(e) = lost {
        return Err(unreadable(e));
    }
    match written {
        Ok(()) => Ok(Response::Raw(String::new())),
        // A closed pipe or a full disk: the profiles are created all
        // the same; say so (exit 3, as for any answer lost after a change).
        Err(e) => Err(Error::one(
            code::MALFORMED,
            format!(
                "writing output: {e}; the import was committed: {count} profile(s) \
                 were created (`payctl profile list` shows them; a re-run with \
                 --skip-existing creates nothing again)"
            ),
        )),
    }
}
