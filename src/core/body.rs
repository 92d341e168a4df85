//! Reading request bodies field by field, so that every problem is reported at
//! once with its JSON path: unknown fields (10004, with the right name
//! suggested), wrong JSON types (10005). Values are never echoed in messages,
//! since a body may hold an account number or an SSN.

use serde_json::{Map, Value};

use crate::error::{ApiError, Errors, code};
pub use crate::text::{duplicate_key, join};

/// Spellings users reach for, mostly from the spec's interface tables, and the
/// field the request really has.
const ALIASES: &[(&str, &str)] = &[
    ("state", "state_id"),
    ("country", "country_id"),
    ("address_type", "address_type_id"),
    ("customer_type", "customer_type_id"),
    ("payment_instrument_id", "payment_instrument_type_id"),
    ("payment_instrument_type", "payment_instrument_type_id"),
    ("payment_method", "payment_method_id"),
    ("ach_type_id", "payment_instrument_ach_type_id"),
    ("tags", "customer_profile_tags"),
    ("reason", "customer_profile_program_status_reason"),
    ("individual", "customer_profile_individual"),
    ("dob", "date_of_birth"),
    ("phone", "mobile_phone"),
    ("zip_code", "zip"),
    ("postal_code", "zip"),
    ("parameters", "transaction_parameters"),
    ("template_id", "transaction_template_id"),
];

/// A JSON object being read, with its path for messages.
#[derive(Clone, Copy)]
pub struct Obj<'a> {
    pub path: &'a str,
    pub map: &'a Map<String, Value>,
}

pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `value` as an object at `path`, or a 10005 error.
pub fn as_object<'a>(value: &'a Value, path: &'a str, errs: &mut Errors) -> Option<Obj<'a>> {
    match value {
        Value::Object(map) => Some(Obj { path, map }),
        other => {
            let at = if path.is_empty() { "body" } else { path };
            errs.push(
                code::MALFORMED,
                at,
                format!("must be a JSON object, not {}", type_name(other)),
            );
            None
        }
    }
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The known field a user probably meant by `name`.
pub fn suggest<'k>(name: &str, known: &[&'k str]) -> Option<&'k str> {
    if let Some((_, to)) = ALIASES.iter().find(|(from, _)| *from == name)
        && let Some(k) = known.iter().find(|k| *k == to)
    {
        return Some(k);
    }
    if let Some(k) = known.iter().find(|k| **k == format!("{name}_id")) {
        return Some(k);
    }
    // A distance of at most 2 needs lengths within 2 of each other; checking
    // that first keeps a hostile multi-megabyte field name from costing
    // seconds of edit-distance work.
    let len = name.chars().take(1024).count();
    known
        .iter()
        .filter(|k| len.abs_diff(k.chars().count()) <= 2)
        .map(|k| (distance(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

/// A JSON number written with a fraction of zeros (`38.0`): an integer by
/// JSON Schema's reading, so taken as one where an integer is asked.
fn integral(text: &str) -> Option<u64> {
    let (whole, fraction) = text.split_once('.')?;
    if whole.is_empty() || fraction.is_empty() || !fraction.bytes().all(|b| b == b'0') {
        return None;
    }
    whole.parse().ok()
}

impl<'a> Obj<'a> {
    pub fn at(&self, name: &str) -> String {
        join(self.path, name)
    }

    /// Report every field that is not in `known` (10004).
    pub fn known(&self, known: &[&str], errs: &mut Errors) {
        for name in self.map.keys() {
            if known.contains(&name.as_str()) {
                continue;
            }
            // Never echo a hostile name whole: it is a key from the body
            // (escaped, shortened, a long digit run masked).
            let shown = crate::error::shown_id(name);
            let hint = match suggest(name, known) {
                Some(k) => format!("did you mean `{}`?", join(self.path, k)),
                None => format!("the fields here are: {}", known.join(", ")),
            };
            errs.add(
                ApiError::at(
                    code::UNKNOWN_FIELD,
                    &join(self.path, &shown),
                    format!("is not a field of this request; {hint}"),
                )
                .hinted(hint),
            );
        }
    }

    /// The value of `name`; absent and null are the same.
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    fn wrong(&self, name: &str, want: &str, got: &Value, errs: &mut Errors) {
        errs.push(
            code::MALFORMED,
            &self.at(name),
            format!("must be {want}, not {}", type_name(got)),
        );
    }

    /// A string field. Control characters (NUL, newline, tab, escape, DEL,
    /// C1), line and paragraph separators, bidirectional overrides and other
    /// invisible format characters, and non-characters are refused in every
    /// field, "any symbols" ones too ([`rules::clean_text`]): they are no
    /// one's name or address, and stored they would reach terminals (escape
    /// sequences, text that reads otherwise than it is) and downstream
    /// systems (NUL) through every output.
    pub fn string(&self, name: &str, errs: &mut Errors) -> Option<&'a str> {
        match self.get(name)? {
            Value::String(s) => match super::rules::clean_text(s) {
                Ok(()) => Some(s),
                Err(rule) => {
                    errs.invalid(&self.at(name), rule);
                    None
                }
            },
            other => {
                self.wrong(name, "a string", other, errs);
                None
            }
        }
    }

    /// A non-negative integer that fits in u32.
    pub fn uint(&self, name: &str, errs: &mut Errors) -> Option<u32> {
        match self.get(name)? {
            Value::Number(n) => match n
                .as_u64()
                .or_else(|| integral(&n.to_string()))
                .and_then(|v| u32::try_from(v).ok())
            {
                Some(v) => Some(v),
                None => {
                    errs.invalid(&self.at(name), "must be a whole number identifier");
                    None
                }
            },
            other => {
                self.wrong(name, "an integer", other, errs);
                None
            }
        }
    }

    pub fn boolean(&self, name: &str, errs: &mut Errors) -> Option<bool> {
        match self.get(name)? {
            Value::Bool(b) => Some(*b),
            other => {
                self.wrong(name, "true or false", other, errs);
                None
            }
        }
    }

    pub fn array(&self, name: &str, errs: &mut Errors) -> Option<&'a Vec<Value>> {
        match self.get(name)? {
            Value::Array(a) => Some(a),
            other => {
                self.wrong(name, "an array", other, errs);
                None
            }
        }
    }

    /// A nested object; `path` must outlive the returned reader.
    pub fn object(&self, name: &str, path: &'a str, errs: &mut Errors) -> Option<Obj<'a>> {
        match self.get(name)? {
            Value::Object(map) => Some(Obj { path, map }),
            other => {
                self.wrong(name, "an object", other, errs);
                None
            }
        }
    }

    /// The text of a JSON number exactly as the body wrote it (serde_json
    /// keeps it: `arbitrary_precision`), so that a rule such as
    /// [`super::rules::amount`] loses nothing before it checks.
    pub fn number_text(&self, name: &str, errs: &mut Errors) -> Option<&'a str> {
        match self.get(name)? {
            Value::Number(n) => Some(n.as_str()),
            other => {
                self.wrong(name, "a JSON number", other, errs);
                None
            }
        }
    }
}

/// `cli::args::parse_body` without remembering its sensitive values: for `payctl
/// serve`, which runs for ever and masks each request's messages with the
/// values of that request only.
pub fn parse_body_only(bytes: &[u8]) -> crate::error::Result<Value> {
    let bad = |why: String| crate::error::Error::one(code::MALFORMED, format!("body: {why}"));
    if bytes.len() as u64 > crate::limits::BODY_BYTES {
        return Err(bad(format!(
            "is larger than {} MiB",
            crate::limits::BODY_BYTES >> 20
        )));
    }
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(bad(
            "starts with a byte-order mark; send plain UTF-8 JSON".into()
        ));
    }
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(bad("is empty; send a JSON object".into()));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| bad(format!("is not valid UTF-8 ({e})")))?;
    let body: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json's syntax messages name a position, never a value.
        bad(format!("is not valid JSON ({e})"))
    })?;
    if let Some(dup) = duplicate_key(text) {
        return Err(bad(dup));
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicate_keys_are_found_at_any_depth() {
        assert_eq!(
            duplicate_key(r#"{"a": 1, "b": {"c": [1, 2.50, {"d": 1}]}}"#),
            None
        );
        let m = duplicate_key(r#"{"a": 1, "a": 2}"#).unwrap();
        assert!(m.contains("`a`"), "{m}");
        let m = duplicate_key(r#"{"x": [{"k": 1}, {"k": 1, "k": 2}]}"#).unwrap();
        assert!(m.contains("`x[1].k`"), "{m}");
        assert_eq!(duplicate_key("{not json"), None);
        assert_eq!(
            duplicate_key(r#"[1.000000000000000000000001, 1e400]"#),
            None
        );
    }

    #[test]
    fn suggests_spec_spellings() {
        assert_eq!(suggest("state", &["state_id", "zip"]), Some("state_id"));
        assert_eq!(
            suggest("payment_instrument_id", &["payment_instrument_type_id"]),
            Some("payment_instrument_type_id")
        );
        assert_eq!(suggest("emial", &["email", "city"]), Some("email"));
        assert_eq!(suggest("zzzzzzzz", &["email"]), None);
    }

    #[test]
    fn control_characters_are_refused_in_strings() {
        let v: Value =
            serde_json::from_str(r#"{"a": "x\u0000y", "b": "\u001b[31m", "c": "ok é 😀"}"#)
                .unwrap();
        let mut errs = Errors::new();
        let o = as_object(&v, "", &mut errs).unwrap();
        assert_eq!(o.string("a", &mut errs), None);
        assert_eq!(o.string("b", &mut errs), None);
        assert_eq!(o.string("c", &mut errs), Some("ok é 😀"));
        assert_eq!(errs.iter().count(), 2);
        assert!(errs.iter().all(|e| e.code == code::INVALID_VALUE));
    }

    #[test]
    fn number_text_is_the_text_sent() {
        let v: Value = serde_json::from_str(
            r#"{"a": 12345678901234567890.12, "b": 1.000000000000000000000000000001, "c": 1.5E1}"#,
        )
        .unwrap();
        let mut errs = Errors::new();
        let o = as_object(&v, "", &mut errs).unwrap();
        assert_eq!(
            o.number_text("a", &mut errs),
            Some("12345678901234567890.12")
        );
        assert_eq!(
            o.number_text("b", &mut errs),
            Some("1.000000000000000000000000000001")
        );
        // serde_json spells the exponent its own way; the digits are kept.
        assert_eq!(o.number_text("c", &mut errs), Some("1.5e+1"));
    }
}
