//! What an answer of `payctl serve` never shows: the store's directory and
//! the database's address (in generic words instead), and the sensitive
//! values a request's own body carried (reduced to their last 4 in the
//! messages about it).

use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::output;

/// An error as an answer shows it: the `hidden` texts (the store's
/// directory, the database's address; see [`hidden_texts`]) in generic
/// words. A store's failure is logged whole (masked) first: the operator
/// sees what the client does not.
pub fn public(hidden: &[(String, &'static str)], ui: &output::ui::Ui, e: &Error) -> Error {
    if e.kind == ErrorKind::Store {
        ui.err_line(format_args!(
            "note: {}",
            output::mask::mask_text(&e.to_string())
        ));
    }
    let mut e = e.clone();
    for a in &mut e.errors {
        for (text, words) in hidden {
            if a.message.contains(text.as_str()) {
                a.message = a.message.replace(text.as_str(), words);
            }
        }
    }
    e
}

/// What the store's directory and the database's address are called in an
/// answer (see [`public`]).
pub fn hidden_texts(store: &super::Local) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let dir = &store.data_dir;
    for d in [std::path::absolute(dir).ok(), dir.canonicalize().ok()]
        .into_iter()
        .flatten()
    {
        let d = d.display().to_string();
        let d = d.trim_end_matches('/');
        if d.len() > 1 {
            out.push((format!("{d}/"), "the store's "));
            out.push((d.to_string(), "the store"));
        }
    }
    if let Some(url) = &store.database_url
        && let Ok(t) = crate::store::pg::Target::parse(url)
    {
        out.push((t.shown.clone(), "the database"));
        // postgresql://[user@]host:port/db
        if let Some(authority) = t
            .shown
            .strip_prefix("postgresql://")
            .and_then(|r| r.split_once('/'))
            .map(|(a, _)| a)
        {
            let (user, host_port) = match authority.rsplit_once('@') {
                Some((u, hp)) => (Some(u), hp),
                None => (None, authority),
            };
            out.push((host_port.to_string(), "the database's host"));
            if let Some((host, _)) = host_port.rsplit_once(':')
                && host.len() > 1
            {
                out.push((host.to_string(), "the database's host"));
            }
            if let Some(u) = user.filter(|u| !u.is_empty()) {
                out.push((format!("{u}@"), ""));
                out.push((format!("user \"{u}\""), "the user"));
            }
        }
    }
    out.sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
    out.dedup();
    out
}

/// The sensitive values of a request body (as `output::mask` knows them),
/// longer than their last 4: the last guard on this request's messages.
pub fn sensitive_values(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                let text = match val {
                    Value::String(s) => Some(s.clone()),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                match text {
                    Some(t) if output::mask::SENSITIVE.contains(&k.as_str()) => {
                        if t.chars().count() > 4 {
                            out.push(t);
                        }
                    }
                    _ => sensitive_values(val, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| sensitive_values(x, out)),
        _ => {}
    }
}

/// Reduce every one of `secrets` in the envelope's messages to its last 4.
pub fn mask_messages(envelope: &mut Value, secrets: &[String]) {
    let mut secrets: Vec<&String> = secrets.iter().collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    if let Some(errors) = envelope["errors"].as_array_mut() {
        for e in errors {
            if let Some(m) = e["message"].as_str() {
                let mut m = m.to_string();
                for s in &secrets {
                    m = m.replace(s.as_str(), &format!("…{}", output::mask::last4(s)));
                }
                e["message"] = Value::String(m);
            }
        }
    }
}
