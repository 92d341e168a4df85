//! Webhooks in the store, on every backend, as a few named documents and
//! logs that each backend keeps as it keeps its other files or rows:
//!
//! - `hook-<whk_id>`: one webhook (its secret included), a document each,
//!   so that two creates on a database never overwrite one another;
//! - `outbox-<whk_id>`: where its deliveries stand (`model::webhook::Outbox`):
//!   the cursor, moved after a 2xx only, in a commit of its own;
//! - the log `deliveries-<whk_id>`: one line per delivery attempt.
//!
//! The JSON directory writes them as `webhooks/<name>.json` and
//! `webhooks/<name>.jsonl` through its journal (0600 like every file of
//! it), PostgreSQL as rows of `payctl_webhook_docs` and
//! `payctl_webhook_log` (schema 7), the in-memory backend in its data.
//! This is not derived data: `store check --repair` leaves it alone.

use std::collections::BTreeMap;

use super::backend::{Store, Tx};
use crate::error::{Error, Result, code};
use crate::model::webhook::{Delivery, Outbox, Webhook};

/// A change to the webhook documents, in a write transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookOp {
    /// The document `name` replaced whole (`None`: removed).
    Put(String, Option<String>),
    /// A line (without its newline) added to the log `name`.
    Append(String, String),
}

/// The prefix of the webhook documents.
pub const HOOK: &str = "hook-";

/// Whether `name` may name a document or a log (it becomes a file name).
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The webhook documents and logs of a backend that keeps them in memory
/// (the in-memory store, a dry run).
#[derive(Debug, Clone, Default)]
pub struct MemHooks {
    docs: BTreeMap<String, String>,
    logs: BTreeMap<String, Vec<String>>,
}

impl MemHooks {
    pub fn doc(&self, name: &str) -> Option<String> {
        self.docs.get(name).cloned()
    }

    pub fn docs(&self, prefix: &str) -> Vec<String> {
        self.docs
            .range(prefix.to_string()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(_, v)| v.clone())
            .collect()
    }

    pub fn log(&self, name: &str) -> Vec<String> {
        self.logs.get(name).cloned().unwrap_or_default()
    }

    pub fn apply(&mut self, ops: &[HookOp]) {
        for op in ops {
            match op {
                HookOp::Put(name, Some(body)) => {
                    self.docs.insert(name.clone(), body.clone());
                }
                HookOp::Put(name, None) => {
                    self.docs.remove(name);
                }
                HookOp::Append(name, line) => self
                    .logs
                    .entry(name.clone())
                    .or_default()
                    .push(line.clone()),
            }
        }
    }
}

fn damaged(what: &str, e: impl std::fmt::Display) -> Error {
    Error::store(
        code::STORE_UNREADABLE,
        format!("the store holds a damaged {what}: {e}"),
    )
}

fn outbox_name(id: &str) -> String {
    format!("outbox-{id}")
}

fn log_name(id: &str) -> String {
    format!("deliveries-{id}")
}

impl Store {
    /// Every webhook, secrets included, oldest first.
    pub fn webhooks(&self) -> Result<Vec<Webhook>> {
        let mut out = Vec::new();
        for body in self.backend().hook_docs(HOOK)? {
            out.push(serde_json::from_str::<Webhook>(&body).map_err(|e| damaged("webhook", e))?);
        }
        out.sort_by(|a, b| {
            (&a.created_datetime, &a.webhook_id).cmp(&(&b.created_datetime, &b.webhook_id))
        });
        Ok(out)
    }

    /// The webhook `id`, its secret included.
    pub fn webhook(&self, id: &str) -> Result<Option<Webhook>> {
        if !valid_name(id) {
            return Ok(None);
        }
        match self.backend().hook_doc(&format!("{HOOK}{id}"))? {
            None => Ok(None),
            Some(body) => serde_json::from_str(&body)
                .map(Some)
                .map_err(|e| damaged("webhook", e)),
        }
    }

    /// Where the deliveries of webhook `id` stand.
    pub fn outbox(&self, id: &str) -> Result<Outbox> {
        match self.backend().hook_doc(&outbox_name(id))? {
            None => Ok(Outbox::default()),
            Some(body) => serde_json::from_str(&body).map_err(|e| damaged("webhook outbox", e)),
        }
    }

    /// Every delivery attempt of webhook `id`, oldest first.
    pub fn deliveries(&self, id: &str) -> Result<Vec<Delivery>> {
        self.backend()
            .hook_log(&log_name(id))?
            .iter()
            .map(|l| serde_json::from_str(l).map_err(|e| damaged("webhook delivery", e)))
            .collect()
    }
}

impl Tx<'_> {
    /// A webhook, new, and its outbox.
    pub fn put_webhook(&mut self, w: &Webhook, outbox: &Outbox) {
        let body = serde_json::to_string(w).expect("webhooks serialize");
        self.hook_ops(vec![HookOp::Put(
            format!("{HOOK}{}", w.webhook_id),
            Some(body),
        )]);
        self.put_outbox(&w.webhook_id, outbox);
    }

    /// Remove webhook `id` and its outbox (its deliveries stay on record).
    pub fn delete_webhook(&mut self, id: &str) {
        self.hook_ops(vec![
            HookOp::Put(format!("{HOOK}{id}"), None),
            HookOp::Put(outbox_name(id), None),
        ]);
    }

    pub fn put_outbox(&mut self, id: &str, outbox: &Outbox) {
        let body = serde_json::to_string(outbox).expect("outboxes serialize");
        self.hook_ops(vec![HookOp::Put(outbox_name(id), Some(body))]);
    }

    pub fn add_delivery(&mut self, d: &Delivery) {
        let line = serde_json::to_string(d).expect("deliveries serialize");
        self.hook_ops(vec![HookOp::Append(log_name(&d.webhook_id), line)]);
    }
}
