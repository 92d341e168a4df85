//! Rendering results and errors: the spec's JSON envelope, tables, ids.
//! Sensitive values are masked here, on every path to stdout or stderr.

pub mod kind;
pub use crate::mask;
pub mod spool;
pub mod table;
pub mod ui;

use std::io::{self, Write};

use serde_json::{Value, json};

pub use self::kind::RecordKind;
use crate::core::paging::{Page, Paging};
use crate::error::Error;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Json,
    /// JSON Lines: one record per line (the records of `data`, nothing
    /// else); a failure is still the envelope.
    Jsonl,
    Id,
}

/// What a command answers.
#[derive(Debug, Clone)]
pub enum Response {
    /// A list page: records of a kind, with paging.
    List {
        kind: RecordKind,
        paging: Paging,
        data: Vec<Value>,
    },
    /// Records of a kind without paging (a single record, a summary).
    Records(RecordKind, Vec<Value>),
    /// `data: [{"id": …}]` of a create or an update.
    Id(String),
    /// Text printed as it is in every format (completion scripts).
    Raw(String),
    /// Records too many to hold, read back from a file as they are printed
    /// (see [`spool`]).
    Spooled(spool::Spool),
}

/// How to print: format, pretty JSON, colour.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    pub format: Format,
    pub pretty: bool,
    /// Colour on stderr (error lines).
    pub color: bool,
    /// Colour in tables on stdout.
    pub out_color: bool,
    /// `$COLUMNS`: the width of a terminal that reports none.
    pub columns: Option<u16>,
    /// Tables with their header row and footer (`--no-headers`: rows only).
    pub headers: bool,
}

/// A record as JSON (records always serialize).
pub fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("records serialize")
}

impl Response {
    /// One record of `kind` (a get).
    pub fn one<T: serde::Serialize>(kind: RecordKind, record: &T) -> Response {
        Response::Records(kind, vec![to_json(record)])
    }

    /// A page of records of `kind` (a list).
    pub fn page<T: serde::Serialize>(kind: RecordKind, page: Page<T>) -> Response {
        Response::List {
            kind,
            paging: page.paging,
            data: page.items.iter().map(to_json).collect(),
        }
    }

    /// The records of `kind`, without paging.
    pub fn records<T: serde::Serialize>(kind: RecordKind, records: &[T]) -> Response {
        Response::Records(kind, records.iter().map(to_json).collect())
    }
}

fn envelope(resp: &Response) -> Value {
    match resp {
        Response::List { paging, data, .. } => {
            json!({"paging": paging, "data": data, "errors": null})
        }
        Response::Records(_, data) => {
            json!({"paging": null, "data": data, "errors": null})
        }
        Response::Id(id) => {
            let record = crate::model::reply::IdRecord { id: id.clone() };
            json!({"paging": null, "data": [to_json(&record)], "errors": null})
        }
        Response::Raw(_) => Value::Null,
        // Held whole here: an envelope as a value (a test's; the printer
        // and the server stream it instead).
        Response::Spooled(s) => {
            json!({"paging": null, "data": s.records().unwrap_or_default(), "errors": null})
        }
    }
}

/// Text as a terminal may show it: every character that a stored value may
/// not hold ([`forbidden_char`](crate::core::rules::forbidden_char): control
/// characters, escape sequences' ESC, bidirectional and other invisible
/// format characters) written escaped (`\u{1b}`), so that text from a
/// service (remote mode: records, error messages) cannot recolour, move the
/// cursor or reorder what the screen shows. Local records never hold one
/// (they are refused on the way in), so they print unchanged.
pub fn terminal_text(s: &str) -> std::borrow::Cow<'_, str> {
    use crate::text::forbidden_char;
    if !s.chars().any(|c| forbidden_char(c).is_some()) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if forbidden_char(c).is_some() {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn json_text(v: &Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(v).expect("json")
    } else {
        serde_json::to_string(v).expect("json")
    }
}

/// The identifier of a record: the id field of its kind. An answer that is
/// not a record (the worker's counts, the summary of `store check`) has
/// none, and `-o id` prints nothing for it.
fn record_id(kind: RecordKind, v: &Value) -> Option<String> {
    match v.get(kind.id_field()?.as_ref())? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The envelope of a success, masked: what `-o json` prints and what
/// `payctl serve` answers.
pub fn success_envelope(resp: &Response) -> Value {
    envelope(&masked(resp))
}

/// The envelope of a failure, masked (`-o json` and `payctl serve`).
pub fn error_envelope(err: &Error) -> Value {
    let errors: Vec<Value> = err
        .errors
        .iter()
        .map(|e| {
            to_json(&crate::error::ApiError {
                message: mask::message(&e.message),
                ..e.clone()
            })
        })
        .collect();
    json!({"paging": null, "data": null, "errors": errors})
}

fn masked(resp: &Response) -> Response {
    let mut resp = resp.clone();
    if let Response::List { data, .. } | Response::Records(_, data) = &mut resp {
        data.iter_mut().for_each(mask::mask)
    }
    resp
}

/// Print a success to stdout.
pub fn print(out: &mut impl Write, style: Style, resp: &Response) -> io::Result<()> {
    let resp = masked(resp);
    if let Response::Raw(text) = &resp {
        return out.write_all(text.as_bytes());
    }
    if let Response::Spooled(s) = &resp {
        return Ok(spool::print(out, style, s)?);
    }
    match style.format {
        Format::Json => writeln!(out, "{}", json_text(&envelope(&resp), style.pretty)),
        Format::Jsonl => match &resp {
            Response::Id(id) => writeln!(out, "{}", json!({"id": id})),
            Response::Raw(_) | Response::Spooled(_) => Ok(()),
            Response::List { data, .. } | Response::Records(_, data) => {
                for v in data {
                    writeln!(out, "{}", json_text(v, false))?;
                }
                Ok(())
            }
        },
        Format::Id => match &resp {
            Response::Id(id) => writeln!(out, "{}", terminal_text(id)),
            Response::Raw(_) | Response::Spooled(_) => Ok(()),
            Response::List { kind, data, .. } | Response::Records(kind, data) => {
                for v in data {
                    if let Some(id) = record_id(*kind, v) {
                        writeln!(out, "{}", terminal_text(&id))?;
                    }
                }
                Ok(())
            }
        },
        Format::Table => table::print(out, style, &resp),
    }
}

/// Print a failure: the envelope on stdout in json format, `error[CODE]: message` lines on stderr otherwise.
pub fn print_error(
    out: &mut impl Write,
    err_out: &mut impl Write,
    style: Style,
    err: &Error,
) -> io::Result<()> {
    match style.format {
        Format::Json => writeln!(out, "{}", json_text(&error_envelope(err), style.pretty)),
        Format::Jsonl => writeln!(out, "{}", json_text(&error_envelope(err), false)),
        Format::Table | Format::Id => {
            for e in &err.errors {
                let line = format!(
                    "error[{}]: {}",
                    e.code,
                    terminal_text(&mask::message(&e.message))
                );
                if style.color {
                    writeln!(err_out, "\x1b[31m{line}\x1b[0m")?;
                } else {
                    writeln!(err_out, "{line}")?;
                }
            }
            Ok(())
        }
    }
}

/// The records of a list printed page by page as they come (`--all`), in
/// bounded memory: JSON Lines and ids line by line, a table per page, and
/// one JSON envelope whose `data` holds every record, opened at the first
/// page and closed by [`Stream::finish`] (or by [`Stream::fail`], whose
/// envelope then carries the error after the records already printed).
pub struct Stream {
    style: Style,
    /// Records printed so far.
    count: usize,
    /// The JSON envelope is open (`{"data":[` written).
    open: bool,
}

impl Stream {
    pub fn new(style: Style) -> Stream {
        Stream {
            style,
            count: 0,
            open: false,
        }
    }

    /// Print one page (a `Response::List`) as it came.
    pub fn page(&mut self, out: &mut impl Write, page: &Response) -> io::Result<()> {
        let page = masked(page);
        let Response::List { data, .. } = &page else {
            return print(out, self.style, &page);
        };
        match self.style.format {
            Format::Json => {
                for v in data {
                    let sep = if self.open {
                        ","
                    } else {
                        self.open = true;
                        "{\"data\":["
                    };
                    write!(out, "{sep}{}", json_text(v, false))?;
                    self.count += 1;
                }
                Ok(())
            }
            Format::Table if data.is_empty() && self.count > 0 => Ok(()),
            Format::Table => {
                self.count += data.len();
                table::print_rows(out, self.style, &page, false)
            }
            _ => {
                self.count += data.len();
                print(out, self.style, &page)
            }
        }
    }

    /// Whether a JSON envelope is open on stdout (an error must close it).
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The end of a list printed whole: `paging` counts every record.
    pub fn finish(&mut self, out: &mut impl Write, total_count: usize) -> io::Result<()> {
        if self.style.format == Format::Table {
            if !self.style.headers {
                return Ok(());
            }
            return writeln!(out, "{} records, every page", self.count);
        }
        if self.style.format != Format::Json {
            return Ok(());
        }
        if !self.open {
            write!(out, "{{\"data\":[")?;
        }
        self.open = false;
        let paging = json!({
            "page_size": self.count,
            "page_number": 1,
            "total_count": total_count,
            "last_evaluated_key": null,
        });
        writeln!(out, "],\"paging\":{paging},\"errors\":null}}")
    }

    /// Close an open JSON envelope with `err` after the records printed.
    pub fn fail(&mut self, out: &mut impl Write, err: &Error) -> io::Result<()> {
        self.open = false;
        let errors = &error_envelope(err)["errors"];
        writeln!(out, "],\"paging\":null,\"errors\":{errors}}}")
    }
}
