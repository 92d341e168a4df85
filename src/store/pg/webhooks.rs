//! Webhooks in the database (see `store::webhooks`): each document a row of
//! `payctl_webhook_docs` (by name), each delivery attempt a row of
//! `payctl_webhook_log` (by log name and insertion order), written in the
//! commit's database transaction.

use crate::store::webhooks::HookOp;

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
