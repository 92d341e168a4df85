//! Webhooks in the database (see `store::webhooks`): each document a row of
//! `payctl_webhook_docs` (by name), each delivery attempt a row of
//! `payctl_webhook_log` (by log name and insertion order), written in the
//! commit's database transaction.

use postgres::types::Type;

use super::PgStore;
use crate::error::Result;
use crate::store::webhooks::HookOp;

impl PgStore {
    pub fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        Ok(self
            .row(
                "SELECT body FROM payctl_webhook_docs WHERE name = $1",
                &[Type::TEXT],
                &[&name],
            )?
            .map(|r| r.get(0)))
    }

    pub fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        // `starts_with`, not LIKE: a prefix is taken as it is.
        Ok(self
            .rows(
                "SELECT body FROM payctl_webhook_docs WHERE starts_with(name, $1) ORDER BY name",
                &[Type::TEXT],
                &[&prefix],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }

    pub fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT line FROM payctl_webhook_log WHERE name = $1 ORDER BY seq",
                &[Type::TEXT],
                &[&name],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect())
    }
}

/// Apply `ops` in the write's database transaction, in order.
pub(super) fn write(
    c: &mut postgres::Client,
    ops: &[HookOp],
) -> std::result::Result<(), postgres::Error> {
    for op in ops {
        match op {
            HookOp::Put(name, Some(body)) => {
                c.execute(
                    "INSERT INTO payctl_webhook_docs (name, body) VALUES ($1, $2) \
                     ON CONFLICT (name) DO UPDATE SET body = EXCLUDED.body",
                    &[name, body],
                )?;
            }
            HookOp::Put(name, None) => {
                c.execute("DELETE FROM payctl_webhook_docs WHERE name = $1", &[name])?;
            }
            HookOp::Append(name, line) => {
                c.execute(
                    "INSERT INTO payctl_webhook_log (name, line) VALUES ($1, $2)",
                    &[name, line],
                )?;
            }
        }
    }
    Ok(())
}
