//! Webhooks in the JSON directory (see `store::webhooks`): each document
//! `webhooks/<name>.json`, each log `webhooks/<name>.jsonl` (one line per
//! delivery attempt), written through the commit's journal like every other
//! file (a new file renamed into place, or an append a replay truncates
//! back), so a crash leaves a webhook's change whole or not at all.

use super::*;

/// The directory of the webhook files.
pub(crate) const WEBHOOKS_DIR: &str = "webhooks";

pub(super) fn doc_rel(name: &str) -> String {
    format!("{WEBHOOKS_DIR}/{name}.json")
}

pub(super) fn log_rel(name: &str) -> String {
    format!("{WEBHOOKS_DIR}/{name}.jsonl")
}

pub(super) fn text(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| Error::corrupt(path, "not UTF-8 text"))
}
