//! The one error type of payctl: what went wrong, the API code, and the exit code.
//!
//! Every refusal carries one or more [`ApiError`]s (code + message) that end up in
//! the envelope's `errors` member; the [`ErrorKind`] decides the exit code.

use std::fmt;

/// Stable error codes (CLI.md "Error codes"). The spec's own are 10001 and 21001.
pub mod code {
    pub const USAGE: u32 = 10000;
    pub const INVALID_VALUE: u32 = 10001;
    pub const REQUIRED: u32 = 10002;
    pub const NOT_UPDATABLE: u32 = 10003;
    pub const UNKNOWN_FIELD: u32 = 10004;
    pub const MALFORMED: u32 = 10005;
    pub const CONFIRMATION_REQUIRED: u32 = 10006;
    /// HTTP: no or a wrong `Authorization: Bearer` token (401).
    pub const UNAUTHORIZED: u32 = 10007;
    /// HTTP: the path exists, the method does not (405).
    pub const METHOD_NOT_ALLOWED: u32 = 10008;
    /// HTTP: the request body is larger than `--max-body` (413).
    pub const BODY_TOO_LARGE: u32 = 10009;
    pub const NOT_FOUND: u32 = 20001;
    /// HTTP: no endpoint has this path (404).
    pub const ROUTE_NOT_FOUND: u32 = 20002;
    pub const ALREADY_ATTACHED: u32 = 21001;
    pub const KEY_IN_USE: u32 = 21002;
    pub const DEFAULT_ADDRESS: u32 = 21003;
    pub const NOT_ATTACHED: u32 = 21004;
    pub const IDEMPOTENCY_CONFLICT: u32 = 21005;
    pub const STORE_BUSY: u32 = 30001;
    pub const STORE_UNREADABLE: u32 = 30002;
    pub const STORE_IO: u32 = 30003;
    pub const STORE_VERSION: u32 = 30004;
    pub const TIMEOUT: u32 = 30005;
    pub const STORE_FINDINGS: u32 = 30006;
    pub const STORE_OTHER_OWNER: u32 = 30009;
    /// Remote mode: the service could not be reached (exit 3).
    pub const UNREACHABLE: u32 = 30007;
    /// Remote mode: the service answered something that is not the envelope (exit 3).
    pub const UNEXPECTED_RESPONSE: u32 = 30008;
    /// The database of `--database-url` could not be reached (exit 3).
    pub const DB_CONNECT: u32 = 30016;
    /// A database error, or the connection lost mid-command (exit 3).
    pub const DB_ERROR: u32 = 30017;
    /// `store migrate`: the target already holds a store (exit 1).
    pub const TARGET_NOT_EMPTY: u32 = 30018;
    /// The database could not serialize a change after the retries (exit 3).
    pub const DB_RETRIES: u32 = 30019;
}

/// The short title of a code, used as the start of a message.
pub fn title(c: u32) -> &'static str {
    match c {
        code::USAGE => "Invalid Usage",
        code::INVALID_VALUE => "Invalid Value",
        code::REQUIRED => "Required Value Missing",
        code::NOT_UPDATABLE => "Value Cannot Be Updated",
        code::UNKNOWN_FIELD => "Unknown Field",
        code::MALFORMED => "Malformed Body",
        code::CONFIRMATION_REQUIRED => "Confirmation Required",
        code::UNAUTHORIZED => "Unauthorized",
        code::METHOD_NOT_ALLOWED => "Method Not Allowed",
        code::BODY_TOO_LARGE => "Body Too Large",
        code::NOT_FOUND => "Record Not Found",
        code::ROUTE_NOT_FOUND => "Route Not Found",
        code::ALREADY_ATTACHED => "Customer Profile already attached to the program",
        code::KEY_IN_USE => "Customer key already in use",
        code::DEFAULT_ADDRESS => "Default address cannot be deleted",
        code::NOT_ATTACHED => "Customer Profile not attached to the program",
        code::IDEMPOTENCY_CONFLICT => "Idempotency key reused with another request",
        code::STORE_BUSY => "Store busy",
        code::STORE_UNREADABLE => "Store unreadable",
        code::STORE_IO => "Store I/O error",
        code::STORE_VERSION => "Store format not supported",
        code::TIMEOUT => "Timed out",
        code::STORE_FINDINGS => "Store check found problems",
        code::STORE_OTHER_OWNER => "Store owned by another user",
        code::UNREACHABLE => "Service unreachable",
        code::UNEXPECTED_RESPONSE => "Unexpected response",
        code::DB_CONNECT => "Database unreachable",
        code::DB_ERROR => "Database error",
        code::TARGET_NOT_EMPTY => "Migration target not empty",
        code::DB_RETRIES => "Database serialization retries exhausted",
        _ => "Error",
    }
}

/// One entry of the envelope's `errors` array.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ApiError {
    pub code: u32,
    pub message: String,
}

impl ApiError {
    /// `code` with a message `"<title>: <detail>"`.
    pub fn new(code: u32, detail: impl fmt::Display) -> Self {
        ApiError {
            code,
            message: format!("{}: {}", title(code), detail),
        }
    }
    /// The code's own title as the whole message (e.g. the spec's 21001).
    pub fn bare(code: u32) -> Self {
        ApiError {
            code,
            message: title(code).to_string(),
        }
    }
}

/// What kind of failure: decides the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Validation, not found, conflict: exit 1.
    Refused,
    /// Usage error (bad flag, missing --yes): exit 2.
    Usage,
    /// The store could not be used: exit 3.
    Store,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub errors: Vec<ApiError>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn refused(errors: Vec<ApiError>) -> Self {
        Error {
            kind: ErrorKind::Refused,
            errors,
        }
    }
    pub fn one(code: u32, detail: impl fmt::Display) -> Self {
        Self::refused(vec![ApiError::new(code, detail)])
    }
    /// An identifier that names no record. A hostile id (10 KB, control
    /// characters) is shown shortened and escaped.
    pub fn not_found(what: &str, id: &str) -> Self {
        Self::one(
            code::NOT_FOUND,
            format!("{what} {} does not exist", shown_id(id)),
        )
    }
    pub fn usage(detail: impl fmt::Display) -> Self {
        Error {
            kind: ErrorKind::Usage,
            errors: vec![ApiError::new(code::USAGE, detail)],
        }
    }
    pub fn store(code: u32, detail: impl fmt::Display) -> Self {
        Error {
            kind: ErrorKind::Store,
            errors: vec![ApiError::new(code, detail)],
        }
    }
    /// An I/O error on `path`.
    pub fn io(path: &std::path::Path, err: std::io::Error) -> Self {
        Self::store(code::STORE_IO, format!("{}: {err}", path.display()))
    }
    /// A file that cannot be parsed.
    pub fn corrupt(path: &std::path::Path, detail: impl fmt::Display) -> Self {
        Self::store(
            code::STORE_UNREADABLE,
            format!(
                "{} is corrupt or unreadable ({}); run `payctl store check`",
                path.display(),
                // A parser's message may quote a stored value.
                crate::output::mask::mask_text(&detail.to_string())
            ),
        )
    }
    pub fn exit_code(&self) -> i32 {
        match self.kind {
            ErrorKind::Refused => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Store => 3,
        }
    }
    pub fn has_code(&self, c: u32) -> bool {
        self.errors.iter().any(|e| e.code == c)
    }
}

/// An identifier as a message shows it: escaped, at most 64 characters, a
/// long run of digits (an account number typed in the wrong place) masked.
pub fn shown_id(id: &str) -> String {
    let mut s: String = crate::output::mask::mask_text(id)
        .chars()
        .take(64)
        .collect::<String>()
        .escape_debug()
        .to_string();
    if id.chars().count() > 64 {
        s.push('…');
    }
    s
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "error[{}]: {}", e.code, e.message)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Collects field errors so that validation reports every bad field at once.
#[derive(Debug, Default)]
pub struct Errors(pub Vec<ApiError>);

impl Errors {
    pub fn new() -> Self {
        Self::default()
    }
    /// A field error: the message names the field by its JSON path, then the rule.
    pub fn push(&mut self, code: u32, path: &str, rule: impl fmt::Display) {
        self.0.push(ApiError {
            code,
            message: format!("{path}: {rule}"),
        });
    }
    pub fn invalid(&mut self, path: &str, rule: impl fmt::Display) {
        self.push(code::INVALID_VALUE, path, rule);
    }
    pub fn required(&mut self, path: &str) {
        self.push(code::REQUIRED, path, "is required");
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Ok when nothing was collected, else a refusal carrying everything.
    pub fn finish(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(Error::refused(self.0))
        }
    }
}
