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
    /// HTTP: the API key's role does not allow this request (403).
    pub const FORBIDDEN: u32 = 10010;
    /// HTTP: a server without keys or token refused what a web page could
    /// send: a foreign `Origin`, or a `Host` that is not loopback (403).
    pub const CROSS_SITE: u32 = 10011;
    /// HTTP: the key's `--rate-limit` is spent (429, `Retry-After`).
    pub const TOO_MANY_REQUESTS: u32 = 10012;
    pub const NOT_FOUND: u32 = 20001;
    /// HTTP: no endpoint has this path (404).
    pub const ROUTE_NOT_FOUND: u32 = 20002;
    pub const ALREADY_ATTACHED: u32 = 21001;
    pub const KEY_IN_USE: u32 = 21002;
    pub const DEFAULT_ADDRESS: u32 = 21003;
    pub const NOT_ATTACHED: u32 = 21004;
    pub const IDEMPOTENCY_CONFLICT: u32 = 21005;
    /// `key create`: another key of the store has this name (revoked ones
    /// keep theirs).
    pub const KEY_NAME_IN_USE: u32 = 21006;
    pub const STORE_BUSY: u32 = 30001;
    pub const STORE_UNREADABLE: u32 = 30002;
    pub const STORE_IO: u32 = 30003;
    pub const STORE_VERSION: u32 = 30004;
    pub const TIMEOUT: u32 = 30005;
    pub const STORE_FINDINGS: u32 = 30006;
    pub const STORE_OTHER_OWNER: u32 = 30009;
    /// A write that would break one of the spec's invariants (a bug of
    /// payctl's; nothing written, exit 3).
    pub const INVARIANT_BROKEN: u32 = 30010;
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
    /// Remote mode: the request was sent and no answer came; it may or may
    /// not have been applied (exit 3). 30007 is for "nothing was sent".
    pub const OUTCOME_UNKNOWN: u32 = 30020;
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
        code::FORBIDDEN => "Forbidden",
        code::CROSS_SITE => "Cross-Site Request Refused",
        code::TOO_MANY_REQUESTS => "Too Many Requests",
        code::NOT_FOUND => "Record Not Found",
        code::ROUTE_NOT_FOUND => "Route Not Found",
        code::ALREADY_ATTACHED => "Customer Profile already attached to the program",
        code::KEY_IN_USE => "Customer key already in use",
        code::DEFAULT_ADDRESS => "Default address cannot be deleted",
        code::NOT_ATTACHED => "Customer Profile not attached to the program",
        code::IDEMPOTENCY_CONFLICT => "Idempotency key reused with another request",
        code::KEY_NAME_IN_USE => "API key name already in use",
        code::STORE_BUSY => "Store busy",
        code::STORE_UNREADABLE => "Store unreadable",
        code::STORE_IO => "Store I/O error",
        code::STORE_VERSION => "Store format not supported",
        code::TIMEOUT => "Timed out",
        code::STORE_FINDINGS => "Store check found problems",
        code::STORE_OTHER_OWNER => "Store owned by another user",
        code::INVARIANT_BROKEN => "Write would break an invariant",
        code::UNREACHABLE => "Service unreachable",
        code::UNEXPECTED_RESPONSE => "Unexpected response",
        code::DB_CONNECT => "Database unreachable",
        code::DB_ERROR => "Database error",
        code::TARGET_NOT_EMPTY => "Migration target not empty",
        code::DB_RETRIES => "Database serialization retries exhausted",
        code::OUTCOME_UNKNOWN => "Outcome Unknown",
        _ => "Error",
    }
}

/// One entry of the envelope's `errors` array.
///
/// Only `code` and `message` are serialized (the envelope is fixed by
/// CLI.md); `path` and `hint` are the same facts as data, for callers that
/// act on an error (the interactive prompts ask again for the field at
/// `path`). The message already says both.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(
    rename = "Error",
    description = "What went wrong: a code and a message. A failure may have several."
)]
pub struct ApiError {
    /// What went wrong, by number: 1xxxx the request, 2xxxx a record, 3xxxx
    /// the store or the service (README "Error codes").
    pub code: u32,
    /// What went wrong and what to do about it, in words; sensitive values
    /// shown by their last 4 digits only.
    pub message: String,
    /// The JSON path of the field the error concerns (`customer_key`,
    /// `customer_profile_individual.email`, `transaction_parameters[0]`).
    #[serde(skip)]
    pub path: Option<String>,
    /// What to do about it, as the end of the message says it
    /// (`see \`payctl program list\``, `did you mean \`zip\`?`).
    #[serde(skip)]
    pub hint: Option<String>,
}

impl ApiError {
    /// `code` with a message `"<title>: <detail>"`.
    pub fn new(code: u32, detail: impl fmt::Display) -> Self {
        Self::message(code, format!("{}: {}", title(code), detail))
    }
    /// The code's own title as the whole message (e.g. the spec's 21001).
    pub fn bare(code: u32) -> Self {
        Self::message(code, title(code))
    }
    /// `code` with `message` as it is, about no field.
    pub fn message(code: u32, message: impl Into<String>) -> Self {
        ApiError {
            code,
            message: message.into(),
            path: None,
            hint: None,
        }
    }
    /// An error as an envelope carried it (remote mode). The envelope has no
    /// path; it is read back from the start of the message (`path: rule`,
    /// possibly after the code's title), where that start is a JSON path.
    pub fn from_envelope(code: u32, message: &str) -> Self {
        let rest = message
            .strip_prefix(title(code))
            .and_then(|r| r.strip_prefix(": "))
            .unwrap_or(message);
        let path = rest.split_once(": ").map(|(p, _)| p).filter(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.[]@".contains(c))
        });
        ApiError {
            path: path.map(str::to_string),
            ..Self::message(code, message)
        }
    }
    /// An error about the field at `path`: the message is `"<path>: <rule>"`.
    pub fn at(code: u32, path: &str, rule: impl fmt::Display) -> Self {
        ApiError {
            path: Some(path.to_string()),
            ..Self::message(code, format!("{path}: {rule}"))
        }
    }
    /// The same error about the field at `path`; the message must already name it.
    pub fn with_path(mut self, path: &str) -> Self {
        self.path = Some(path.to_string());
        self
    }
    /// The same error with `hint` kept as data; the message must already say it.
    pub fn hinted(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
    /// Whether the error concerns the field at `path` or something inside it
    /// (`payment_instrument_tags` covers `payment_instrument_tags[0].key`).
    pub fn is_at(&self, path: &str) -> bool {
        self.path.as_deref().is_some_and(|p| {
            p.strip_prefix(path)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['[', '.']))
        })
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
    /// The message of its first error ("" when it has none): what a warning
    /// about it quotes.
    pub fn first_message(&self) -> String {
        self.errors
            .first()
            .map_or(String::new(), |e| e.message.clone())
    }

    pub fn refused(errors: Vec<ApiError>) -> Self {
        Error {
            kind: ErrorKind::Refused,
            errors,
        }
    }
    pub fn one(code: u32, detail: impl fmt::Display) -> Self {
        Self::refused(vec![ApiError::new(code, detail)])
    }
    /// A refusal about the field at `path`: `"<title>: <path>: <rule>"`.
    pub fn at(code: u32, path: &str, rule: impl fmt::Display) -> Self {
        Self::refused(vec![
            ApiError::new(code, format!("{path}: {rule}")).with_path(path),
        ])
    }
    /// An identifier that names no record. A hostile id (10 KB, control
    /// characters) is shown shortened and escaped.
    pub fn not_found(what: &str, id: &str) -> Self {
        Self::one(
            code::NOT_FOUND,
            format!(
                "{what} {} does not exist{}",
                shown_id(id),
                other_kind(what, id)
            ),
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
                crate::mask::mask_text(&detail.to_string())
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

/// What an id of another kind than `what` is (`cpa_…` where a customer
/// profile id was expected): `; cpa_… is an address id …`, else nothing.
fn other_kind(what: &str, id: &str) -> String {
    use crate::model::id;
    const KINDS: [(&str, &str); 9] = [
        (id::CUSTOMER, "customer profile"),
        (id::ADDRESS, "address"),
        (id::INSTRUMENT, "payment instrument"),
        (id::PROGRAM, "program"),
        (id::APPLICATION, "application"),
        (id::TEMPLATE, "transaction template"),
        (id::TEMPLATE_STEP, "transaction template step"),
        (id::TRANSACTION, "transaction"),
        (id::STEP, "transaction step"),
    ];
    let Some((prefix, _)) = id.split_once('_') else {
        return String::new();
    };
    let expected = KINDS.iter().find(|(_, name)| *name == what);
    match KINDS.iter().find(|(p, _)| *p == prefix) {
        Some((_, name)) if *name != what => {
            let a = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            match expected {
                Some((want, _)) => format!(
                    "; {prefix}_… is the prefix of {a} {name} id (a {what} id starts with {want}_)"
                ),
                None => format!("; {prefix}_… is the prefix of {a} {name} id"),
            }
        }
        _ => String::new(),
    }
}

/// An identifier as a message shows it: escaped, at most 64 characters, a
/// long run of digits (an account number typed in the wrong place) masked.
pub fn shown_id(id: &str) -> String {
    let mut s: String = crate::mask::mask_text(id)
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
pub struct Errors(Vec<ApiError>);

/// How many errors were collected at some point (see [`Errors::mark`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark(usize);

impl Errors {
    pub fn new() -> Self {
        Self::default()
    }
    /// A field error: the message names the field by its JSON path, then the rule.
    pub fn push(&mut self, code: u32, path: &str, rule: impl fmt::Display) {
        self.0.push(ApiError::at(code, path, rule));
    }
    /// A field error ending with what to do about it: `path: rule (hint)`.
    pub fn push_hinted(&mut self, code: u32, path: &str, rule: impl fmt::Display, hint: &str) {
        self.0
            .push(ApiError::at(code, path, format!("{rule} ({hint})")).hinted(hint));
    }
    /// An error built elsewhere (one that is not `path: rule`).
    pub fn add(&mut self, e: ApiError) {
        self.0.push(e);
    }
    pub fn invalid(&mut self, path: &str, rule: impl fmt::Display) {
        self.push(code::INVALID_VALUE, path, rule);
    }
    /// 10001 with a hint: `path: rule (hint)`.
    pub fn invalid_hinted(&mut self, path: &str, rule: impl fmt::Display, hint: &str) {
        self.push_hinted(code::INVALID_VALUE, path, rule, hint);
    }
    pub fn required(&mut self, path: &str) {
        self.push(code::REQUIRED, path, "is required");
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Where the collection stands now; [`Errors::clean_since`] then tells
    /// whether anything was added after.
    pub fn mark(&self) -> Mark {
        Mark(self.0.len())
    }
    /// No error was added since `m`.
    pub fn clean_since(&self, m: Mark) -> bool {
        self.0.len() == m.0
    }
    /// Run the checks of `rule`; true when they added no error.
    pub fn check(&mut self, rule: impl FnOnce(&mut Errors)) -> bool {
        let m = self.mark();
        rule(self);
        self.clean_since(m)
    }
    /// The errors collected, in order.
    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = &ApiError> {
        self.0.iter()
    }
    /// The errors collected, in order.
    pub fn into_vec(self) -> Vec<ApiError> {
        self.0
    }
    /// The refusal carrying everything collected.
    pub fn into_error(self) -> Error {
        Error::refused(self.0)
    }
    /// Ok when nothing was collected, else a refusal carrying everything.
    pub fn finish(self) -> Result<()> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.into_error())
        }
    }
    /// The validated value (`valid` gathers its parts) when nothing was
    /// collected, else a refusal carrying everything. Validation leaves a part
    /// `None` only with an error that says why; a `None` without one would be
    /// a bug, answered as a refusal rather than a panic.
    pub fn into_result<T>(self, valid: impl FnOnce() -> Option<T>) -> Result<T> {
        self.finish()?;
        valid().ok_or_else(|| {
            Error::one(
                code::INVALID_VALUE,
                "the request was refused without a reason (a bug: please report it)",
            )
        })
    }
}

/// The refusal of a create whose `customer_key` another profile holds.
pub fn key_in_use() -> Error {
    Error::at(
        code::KEY_IN_USE,
        "customer_key",
        "another customer profile already has this key",
    )
}

/// 21006: another key holds `name`.
pub fn name_in_use(name: &str) -> Error {
    Error::one(
        code::KEY_NAME_IN_USE,
        format!(
            "a key named `{name}` exists already (revoked keys keep their names: the audit \
             fields of their writes name them); see `payctl key list`"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_error_keeps_its_path_and_hint_as_data_and_renders_as_before() {
        let mut errs = Errors::new();
        errs.invalid_hinted(
            "program_id",
            "is not a program",
            "see `payctl program list`",
        );
        errs.required("customer_profile_individual.email");
        let e = errs.into_vec();
        assert_eq!(
            e[0].message,
            "program_id: is not a program (see `payctl program list`)"
        );
        assert_eq!(e[0].path.as_deref(), Some("program_id"));
        assert_eq!(e[0].hint.as_deref(), Some("see `payctl program list`"));
        assert!(e[1].is_at("customer_profile_individual"));
        assert!(e[1].is_at("customer_profile_individual.email"));
        assert!(!e[1].is_at("customer_profile_individual.e"));
        // The envelope carries code and message only.
        assert_eq!(
            serde_json::to_string(&e[0]).unwrap(),
            r#"{"code":10001,"message":"program_id: is not a program (see `payctl program list`)"}"#
        );
    }

    #[test]
    fn an_envelope_error_gets_its_path_back_from_the_message() {
        let e = ApiError::from_envelope(21002, "Customer key already in use: customer_key: taken");
        assert_eq!(e.path.as_deref(), Some("customer_key"));
        let e = ApiError::from_envelope(10002, "transaction_parameters[0].x: is required");
        assert_eq!(e.path.as_deref(), Some("transaction_parameters[0].x"));
        let e = ApiError::from_envelope(10001, "line 3: customer_key: bad");
        assert_eq!(e.path, None);
        assert_eq!(Error::at(21002, "customer_key", "taken").errors[0], {
            let mut a = ApiError::new(21002, "customer_key: taken");
            a.path = Some("customer_key".into());
            a
        });
    }

    #[test]
    fn into_result_refuses_instead_of_panicking() {
        let errs = Errors::new();
        let r: Result<u32> = errs.into_result(|| None);
        assert_eq!(r.unwrap_err().kind, ErrorKind::Refused);
        let mut errs = Errors::new();
        assert!(!errs.check(|e| e.required("a")));
        assert!(errs.check(|_| {}));
        assert!(errs.finish().is_err());
    }
}
