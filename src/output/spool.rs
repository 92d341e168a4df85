//! An answer too large to hold in memory: the records of one kind spooled
//! to a file, one JSON record a line, in order (a `profile import` of a
//! million lines answers a million records). It is printed, and sent by
//! `payctl serve`, as it is read back, exactly as the ordinary printer
//! would print the same records held in memory.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Format, RecordKind, Response, Style, mask, terminal_text};
use crate::error::Error;

/// The records of an answer in a file (see the module's note).
#[derive(Debug, Clone)]
pub struct Spool {
    pub kind: RecordKind,
    /// Shared by the clones of the answer; read from its start each time.
    file: Arc<Mutex<File>>,
    /// How many records the file holds.
    pub count: usize,
    /// Lines of the request answered by no record: those the import skipped
    /// (`skip_existing`). The CLI says so on stderr, `payctl serve` in the
    /// `Payctl-Skipped` header.
    pub skipped: usize,
    /// Lines refused after the others were committed (a key that another
    /// command took while the import ran): the answer is then this error;
    /// the file holds what the other lines created.
    pub refused: Option<Error>,
}

/// Why a spool could not be printed.
#[derive(Debug)]
pub enum Failed {
    /// Its file could not be read back.
    Reading(io::Error),
    /// The output could not be written (a closed pipe, a full disk).
    Writing(io::Error),
}

impl From<Failed> for io::Error {
    fn from(f: Failed) -> io::Error {
        match f {
            Failed::Reading(e) | Failed::Writing(e) => e,
        }
    }
}

impl Spool {
    /// `count` records of `kind` in `file`, one JSON record a line.
    pub fn new(kind: RecordKind, file: File, count: usize) -> Spool {
        Spool {
            kind,
            file: Arc::new(Mutex::new(file)),
            count,
            skipped: 0,
            refused: None,
        }
    }

    /// Each record, masked, in order, handed to `f` (whose error is a
    /// failure to write).
    pub fn each(&self, f: &mut dyn FnMut(Value) -> io::Result<()>) -> Result<(), Failed> {
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        file.seek(SeekFrom::Start(0)).map_err(Failed::Reading)?;
        let mut lines = BufReader::with_capacity(64 << 10, &mut *file);
        let mut line = String::new();
        loop {
            line.clear();
            if lines.read_line(&mut line).map_err(Failed::Reading)? == 0 {
                return Ok(());
            }
            let mut v: Value = serde_json::from_str(&line)
                .map_err(|e| Failed::Reading(io::Error::new(io::ErrorKind::InvalidData, e)))?;
            mask::mask(&mut v);
            f(v).map_err(Failed::Writing)?;
        }
    }

    /// Every record, masked, in memory (for a caller that needs them all).
    pub fn records(&self) -> io::Result<Vec<Value>> {
        let mut all = Vec::new();
        self.each(&mut |v| {
            all.push(v);
            Ok(())
        })?;
        Ok(all)
    }
}

/// Print `spool` as [`super::print`] prints the same records: JSON Lines,
/// ids and the JSON envelope (compact or pretty, as `serde_json` writes
/// them) record by record; a table from every record in memory.
pub fn print(out: &mut dyn Write, style: Style, spool: &Spool) -> Result<(), Failed> {
    let w = |r: io::Result<()>| r.map_err(Failed::Writing);
    match style.format {
        Format::Table => {
            let all = spool.records().map_err(Failed::Reading)?;
            let mut out = out;
            w(super::table::print(
                &mut out,
                style,
                &Response::Records(spool.kind, all),
            ))
        }
        Format::Id => spool.each(&mut |v| match super::record_id(spool.kind, &v) {
            Some(id) => writeln!(out, "{}", terminal_text(&id)),
            None => Ok(()),
        }),
        Format::Jsonl => spool.each(&mut |v| writeln!(out, "{}", super::json_text(&v, false))),
        Format::Json => {
            let pretty = style.pretty;
            let (head, tail) = if pretty {
                (
                    "{\n  \"paging\": null,\n  \"data\": [",
                    "\n  ],\n  \"errors\": null\n}\n",
                )
            } else {
                ("{\"paging\":null,\"data\":[", "],\"errors\":null}\n")
            };
            w(out.write_all(head.as_bytes()))?;
            let mut count = 0usize;
            spool.each(&mut |v| {
                if count > 0 {
                    out.write_all(b",")?;
                }
                count += 1;
                if pretty {
                    let body = super::json_text(&v, true);
                    write!(out, "\n    {}", body.replace('\n', "\n    "))
                } else {
                    out.write_all(super::json_text(&v, false).as_bytes())
                }
            })?;
            // An empty list prints `[]` on one line, pretty or not.
            let tail = if count == 0 && pretty {
                "],\n  \"errors\": null\n}\n"
            } else {
                tail
            };
            w(out.write_all(tail.as_bytes()))
        }
    }
}
