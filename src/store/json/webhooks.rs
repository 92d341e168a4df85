//! Webhooks in the JSON directory (see `store::webhooks`): each document
//! `webhooks/<name>.json`, each log `webhooks/<name>.jsonl` (one line per
//! delivery attempt), written through the commit's journal like every other
//! file (a new file renamed into place, or an append a replay truncates
//! back), so a crash leaves a webhook's change whole or not at all.

use super::*;
use crate::store::webhooks::{HookOp, valid_name};

/// The directory of the webhook files.
pub(crate) const WEBHOOKS_DIR: &str = "webhooks";

fn doc_rel(name: &str) -> String {
    format!("{WEBHOOKS_DIR}/{name}.json")
}

fn log_rel(name: &str) -> String {
    format!("{WEBHOOKS_DIR}/{name}.jsonl")
}

fn text(path: &Path, bytes: Vec<u8>) -> Result<String> {
    String::from_utf8(bytes).map_err(|_| Error::corrupt(path, "not UTF-8 text"))
}

impl JsonStore {
    pub(super) fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        if !valid_name(name) {
            return Ok(None);
        }
        let path = self.root.join(doc_rel(name));
        self.read_bytes(&path)?.map(|b| text(&path, b)).transpose()
    }

    /// The documents named `prefix…`: those in the directory, and those a
    /// pending journal adds (read through it).
    pub(super) fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        let mut names = std::collections::BTreeSet::new();
        match std::fs::read_dir(self.root.join(WEBHOOKS_DIR)) {
            Ok(entries) => {
                for e in entries.flatten() {
                    let n = e.file_name().to_string_lossy().to_string();
                    if let Some(stem) = n.strip_suffix(".json")
                        && stem.starts_with(prefix)
                    {
                        names.insert(stem.to_string());
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(Error::store(
                    code::STORE_IO,
                    format!(
                        "cannot read {}: {e}",
                        self.root.join(WEBHOOKS_DIR).display()
                    ),
                ));
            }
        }
        if let Some(o) = &self.overlay {
            for rel in o.keys() {
                if let Some(stem) = rel
                    .strip_prefix(&format!("{WEBHOOKS_DIR}/"))
                    .and_then(|r| r.strip_suffix(".json"))
                    && stem.starts_with(prefix)
                {
                    names.insert(stem.to_string());
                }
            }
        }
        let mut out = Vec::new();
        for n in names {
            if let Some(body) = self.hook_doc(&n)? {
                out.push(body);
            }
        }
        Ok(out)
    }

    pub(super) fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        if !valid_name(name) {
            return Ok(Vec::new());
        }
        let path = self.root.join(log_rel(name));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(Vec::new());
        };
        Ok(text(&path, bytes)?
            .split_terminator('\n')
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect())
    }
}

impl JsonTx<'_> {
    /// The puts, deletes and appends of `ops`. A name that is not one
    /// (never from the facade, which builds them from checked ids) is
    /// skipped: it would name no file of the store.
    pub(super) fn hook_ops(&mut self, ops: Vec<HookOp>) {
        for op in ops {
            match op {
                HookOp::Put(name, Some(body)) if valid_name(&name) => {
                    let mut bytes = body.into_bytes();
                    bytes.push(b'\n');
                    self.put(doc_rel(&name), bytes);
                }
                HookOp::Put(name, None) if valid_name(&name) => {
                    let rel = doc_rel(&name);
                    if let Some(i) = self.puts.remove(&rel) {
                        self.ops[i] = None;
                    }
                    self.ops.push(Some(Op::Delete { path: rel }));
                }
                HookOp::Append(name, mut line) if valid_name(&name) => {
                    line.push('\n');
                    // Appending only records the line (it cannot fail).
                    let _ = self.append(&log_rel(&name), &line);
                }
                _ => debug_assert!(false, "not a webhook document's name"),
            }
        }
    }
}
