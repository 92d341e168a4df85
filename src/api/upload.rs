//! The streamed body of the import route (`POST
//! /_payctl/customer-profiles/import`, [`Body::ProfileLines`]): JSON Lines
//! read as the import checks them, never held whole, in process (the CLI's
//! file or stdin) and over HTTP alike; and its answer, streamed back from
//! its spool file.
//!
//! Over HTTP the body is `application/x-ndjson` (or `application/jsonl`),
//! of at most [`IMPORT_BODY_BYTES`] whatever `--max-body` says (that limit
//! is for the bodies that are held whole): a task moves its pieces from the
//! connection to the import's blocking reader through a channel of
//! [`PIECES`] pieces, so the server holds a few hundred kilobytes of it at
//! most, the import's own memory aside. `--request-timeout` bounds the wait
//! for each piece, not the whole body, which may take minutes to check. A
//! body that ends early, too slowly or too large is an error of the import
//! (nothing is written: the body is read whole before the first commit),
//! never a shorter import.
//!
//! [`Body::ProfileLines`]: super::endpoints::Body::ProfileLines

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use http_body_util::BodyExt;

use crate::core::import::Stage;
use crate::error::{ApiError, Error, Result, code};
use crate::output::spool::Spool;

/// The largest import body over HTTP: 4 GiB, about four million profiles
/// with every field filled. The body goes through a scratch file in the
/// store (the checked records) before it is written, so this bounds the
/// disk an import takes, not the memory.
pub const IMPORT_BODY_BYTES: u64 = 4 << 30;

/// Pieces of a body in flight between the connection and the import.
const PIECES: usize = 16;

/// The progress hook of an in-process import: its stage, done, of total.
pub type Progress = Box<dyn FnMut(Stage, usize, usize) + Send>;

/// A body to be read once, as a stream.
pub struct Streamed {
    pub read: Box<dyn Read + Send>,
    /// Its size in bytes; 0 when not known (stdin, a request's body).
    pub size: u64,
    /// In process only: told of the import's progress (the CLI's bars).
    pub progress: Option<Progress>,
}

/// The streamed body of a [`super::endpoints::Request`]: the clones of a
/// request share it, and whoever serves it takes it ([`Upload::take`]).
#[derive(Clone, Default)]
pub struct Upload {
    body: Arc<Mutex<Option<Streamed>>>,
    /// Why the server stopped receiving the body (too large, too slow, the
    /// connection lost): the answer says that rather than the import's
    /// "cannot be read".
    failed: Arc<Mutex<Option<Error>>>,
}

impl std::fmt::Debug for Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Upload(..)")
    }
}

impl Upload {
    pub fn new(body: Streamed) -> Upload {
        Upload {
            body: Arc::new(Mutex::new(Some(body))),
            failed: Default::default(),
        }
    }

    /// The body, once.
    pub fn take(&self) -> Option<Streamed> {
        self.body.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// Why the server stopped receiving the body, if it did.
    pub fn failure(&self) -> Option<Error> {
        self.failed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

fn refused(c: u32, detail: impl std::fmt::Display) -> Error {
    Error::refused(vec![ApiError::new(c, detail)])
}

/// The 415 (10005) of an import body that is not JSON Lines.
pub fn not_json_lines(headers: &HeaderMap) -> Option<Error> {
    let media = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| m.trim().to_ascii_lowercase());
    match media.as_deref() {
        Some("application/x-ndjson" | "application/jsonl") => None,
        _ => Some(refused(
            code::MALFORMED,
            "header Content-Type: send the import's body as `Content-Type: \
             application/x-ndjson`: JSON Lines, one profile create body a line",
        )),
    }
}

fn too_large() -> Error {
    refused(
        code::BODY_TOO_LARGE,
        format!(
            "the request body is larger than {} GiB, the most an import takes in one request; \
             split the file (each part is imported whole or not at all)",
            IMPORT_BODY_BYTES >> 30
        ),
    )
}

/// One piece of a body, or how it ended.
enum Piece {
    Data(Bytes),
    End,
    Failed(String),
}

/// The blocking end of the channel: what the import reads.
struct Pipe {
    rx: tokio::sync::mpsc::Receiver<Piece>,
    rest: Bytes,
    ended: bool,
}

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.rest.is_empty() {
            if self.ended {
                return Ok(0);
            }
            match self.rx.blocking_recv() {
                Some(Piece::Data(b)) => self.rest = b,
                Some(Piece::End) => self.ended = true,
                Some(Piece::Failed(why)) => return Err(std::io::Error::other(why)),
                // The task stopped without saying the body ended: never
                // taken for its end (that would import part of it).
                None => return Err(std::io::Error::other("the body stopped")),
            }
        }
        let n = buf.len().min(self.rest.len());
        buf[..n].copy_from_slice(&self.rest.split_to(n));
        Ok(n)
    }
}

/// The body of an import request as an [`Upload`], received by a task of
/// its own as the import reads it; each piece must come within `idle`.
/// Once the import stops reading (it refused a line that is too long), the
/// task reads the rest and drops it, so that the client, still sending,
/// gets to read the answer.
pub fn receive(headers: &HeaderMap, body: Body, idle: Duration) -> Result<Upload> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > IMPORT_BODY_BYTES) {
        return Err(too_large());
    }
    let (tx, rx) = tokio::sync::mpsc::channel(PIECES);
    let upload = Upload::new(Streamed {
        read: Box::new(Pipe {
            rx,
            rest: Bytes::new(),
            ended: false,
        }),
        size: 0,
        progress: None,
    });
    let failed = upload.failed.clone();
    tokio::spawn(async move {
        let mut body = body;
        let mut seen = 0u64;
        let mut reading = true;
        let end = loop {
            let frame = match tokio::time::timeout(idle, body.frame()).await {
                Err(_) => {
                    break Err(refused(
                        code::MALFORMED,
                        format!(
                            "body: no part of it came within {} s (--request-timeout)",
                            idle.as_secs_f64()
                        ),
                    ));
                }
                Ok(None) => break Ok(()),
                Ok(Some(Err(e))) => {
                    break Err(refused(
                        code::MALFORMED,
                        format!("body: could not be read ({e})"),
                    ));
                }
                Ok(Some(Ok(frame))) => frame,
            };
            let Ok(data) = frame.into_data() else {
                continue;
            };
            seen += data.len() as u64;
            if seen > IMPORT_BODY_BYTES {
                break Err(too_large());
            }
            if reading && tx.send(Piece::Data(data)).await.is_err() {
                reading = false;
            }
        };
        match end {
            Ok(()) => {
                let _ = tx.send(Piece::End).await;
            }
            Err(e) => {
                let why = e.errors.first().map(|a| a.message.clone());
                *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                let _ = tx.send(Piece::Failed(why.unwrap_or_default())).await;
            }
        }
    });
    Ok(upload)
}

/// A body sent as it is produced.
struct Chunks(tokio::sync::mpsc::Receiver<std::io::Result<Bytes>>);

impl hyper::body::Body for Chunks {
    type Data = Bytes;
    type Error = std::io::Error;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<std::result::Result<hyper::body::Frame<Bytes>, Self::Error>>> {
        self.0
            .poll_recv(cx)
            .map(|piece| piece.map(|r| r.map(hyper::body::Frame::data)))
    }
}

/// What goes into a channel of [`Chunks`], 64 KiB at a time.
struct Sender {
    tx: tokio::sync::mpsc::Sender<std::io::Result<Bytes>>,
    buf: Vec<u8>,
}

impl std::io::Write for Sender {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= 64 << 10 {
            self.flush()?;
        }
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let piece = Bytes::from(std::mem::take(&mut self.buf));
        self.tx
            .blocking_send(Ok(piece))
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
    }
}

/// The answer of an import: its created records as the envelope, streamed
/// from the spool (200), or the refusal of the lines whose key was taken
/// meanwhile as `refusal` answers it (409); either with `Payctl-Created`
/// and `Payctl-Skipped`, the counts of profiles created and lines skipped.
pub fn reply(
    spool: Spool,
    refusal: impl FnOnce(&Error) -> axum::response::Response,
) -> axum::response::Response {
    let counts = |r: &mut axum::response::Response, spool: &Spool| {
        let h = r.headers_mut();
        h.insert("payctl-created", HeaderValue::from(spool.count as u64));
        h.insert("payctl-skipped", HeaderValue::from(spool.skipped as u64));
    };
    if let Some(e) = &spool.refused {
        let mut r = refusal(e);
        counts(&mut r, &spool);
        return r;
    }
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut r = axum::response::Response::new(Body::new(Chunks(rx)));
    *r.status_mut() = StatusCode::OK;
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    counts(&mut r, &spool);
    tokio::task::spawn_blocking(move || {
        let style = crate::output::Style {
            format: crate::output::Format::Json,
            pretty: false,
            color: false,
            out_color: false,
            columns: None,
            headers: true,
        };
        let mut out = Sender {
            tx: tx.clone(),
            buf: Vec::with_capacity(80 << 10),
        };
        let sent = crate::output::spool::print(&mut out, style, &spool)
            .map_err(std::io::Error::from)
            .and_then(|()| std::io::Write::flush(&mut out));
        // A spool that cannot be read back ends the answer short: the
        // client sees a broken body, never a shorter list.
        if let Err(e) = sent
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            let _ = tx.blocking_send(Err(e));
        }
    });
    r
}
