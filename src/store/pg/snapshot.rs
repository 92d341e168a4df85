//! The storage of issue 37 in the database (see [`crate::store::sim`]):
//! rules, read counts, snapshots, restore and reset.
//!
//! - `payctl_rules`: a rule per row (its document), in the order added.
//! - `payctl_polls`: a count per pending item, raised by one statement
//!   (`INSERT … ON CONFLICT DO UPDATE SET n = n + 1`), so that concurrent
//!   reads on any number of servers are all counted.
//! - `payctl_snapshots` (a snapshot's record) and `payctl_snapshot_rows`
//!   (each row of each record table as `to_jsonb`, put back with
//!   `jsonb_populate_record`): a snapshot in the same database, so that a
//!   save and a restore are each one transaction. A save locks the record
//!   tables against writers (`SHARE`: every table read at one moment); a
//!   restore and a reset lock them whole (`ACCESS EXCLUSIVE`), delete and
//!   refill them, and commit: every server on the database sees the old
//!   records or the new ones, never a mix, and a crash (a killed payctl, a
//!   lost connection) rolls it all back.

use postgres::types::Type;

use super::PgStore;
use crate::error::Result;
use crate::model::sim_rule::{Reset, Rule, Snapshot};
use crate::store::sim::{SimStorage, other_version};

/// The tables of issue 37, created with the others (schema version 7).
pub const TABLES: &str = "
CREATE TABLE IF NOT EXISTS payctl_rules (
    id text PRIMARY KEY,
    seq bigserial NOT NULL UNIQUE,
    doc jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_polls (
    key text PRIMARY KEY,
    n bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_snapshots (
    name text PRIMARY KEY,
    doc jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_snapshot_rows (
    snapshot text NOT NULL REFERENCES payctl_snapshots (name) ON DELETE CASCADE,
    tbl text NOT NULL,
    r jsonb NOT NULL
);
CREATE INDEX IF NOT EXISTS payctl_snapshot_rows_of ON payctl_snapshot_rows (snapshot, tbl);
";

/// The tables that hold the records, in the order a restore fills them (a
/// customer before its profile-program records): what a snapshot copies
/// and a reset empties (the counts it sets to 0, the event log's head back
/// to its start). A table that a database does not have is passed over.
pub const RECORD_TABLES: [&str; 9] = [
    "payctl_customers",
    "payctl_transactions",
    "payctl_attachments",
    "payctl_queue",
    "payctl_idempotency",
    "payctl_counts",
    "payctl_polls",
    "payctl_events",
    "payctl_event_head",
];

/// The schema version whose record tables a snapshot copies: 7, the
/// version that made them what they are (version 8 added only the stamp of
/// `payctl serve`, no record), so that a snapshot saved before an upgrade
/// still restores after it.
const RECORDS_VERSION: u32 = 7;

/// What a snapshot of this store says it is.
pub fn store_version() -> String {
    format!("postgresql {RECORDS_VERSION}")
}

impl PgStore {
    /// The tables of [`RECORD_TABLES`] the database has, in that order.
    fn record_tables(&self) -> Result<Vec<String>> {
        let all: Vec<String> = RECORD_TABLES.iter().map(|t| t.to_string()).collect();
        let present: Vec<String> = self.with(|c| {
            Ok(c.query(
                "SELECT t FROM unnest($1::text[]) WITH ORDINALITY AS x (t, n) \
                 WHERE to_regclass(t) IS NOT NULL ORDER BY n",
                &[&all],
            )?
            .into_iter()
            .map(|r| r.get(0))
            .collect())
        })?;
        Ok(present)
    }

    /// Lock the record tables `tables` in `mode` until the commit.
    fn lock_tables(&self, tables: &[String], mode: &str) -> Result<()> {
        let sql = format!("LOCK TABLE {} IN {mode} MODE", tables.join(", "));
        self.with(|c| c.batch_execute(&sql))
    }

    fn txn_count(&self) -> Result<u64> {
        let n: i64 = self.with(|c| {
            Ok(
                c.query_one("SELECT count(*) FROM payctl_transactions", &[])?
                    .get(0),
            )
        })?;
        Ok(n.max(0) as u64)
    }

    fn snapshot_doc(&self, name: &str) -> Result<Option<Snapshot>> {
        let text: Option<String> = self
            .row(
                "SELECT doc::text FROM payctl_snapshots WHERE name = $1",
                &[Type::TEXT],
                &[&name],
            )?
            .map(|r| r.get(0));
        text.map(|t| self.doc(&format!("snapshot {name}"), &t))
            .transpose()
    }

    /// End the transaction, rolled back, and give `e`.
    fn abandon<T>(&self, e: crate::error::Error) -> Result<T> {
        let _ = self.finish(false);
        Err(e)
    }
}

impl SimStorage for PgStore {
    fn rules(&self) -> Result<Vec<Rule>> {
        let texts: Vec<String> = self
            .rows("SELECT doc::text FROM payctl_rules ORDER BY seq", &[], &[])?
            .into_iter()
            .map(|r| r.get(0))
            .collect();
        texts.iter().map(|t| self.doc("a rule", t)).collect()
    }

    fn add_rule(&self, rule: &Rule) -> Result<()> {
        let doc = serde_json::to_string(rule).expect("rules serialize");
        self.with(|c| {
            c.execute(
                "INSERT INTO payctl_rules (id, doc) VALUES ($1, $2::text::jsonb)",
                &[&rule.rule_id, &doc],
            )
        })?;
        self.finish(true)
    }

    fn delete_rule(&self, id: &str) -> Result<bool> {
        let n = self.with(|c| c.execute("DELETE FROM payctl_rules WHERE id = $1", &[&id]))?;
        self.finish(true)?;
        Ok(n > 0)
    }

    fn poll(&self, key: &str) -> Result<u64> {
        let n: i64 = self
            .row(
                "INSERT INTO payctl_polls (key, n) VALUES ($1, 1) \
                 ON CONFLICT (key) DO UPDATE SET n = payctl_polls.n + 1 RETURNING n",
                &[Type::TEXT],
                &[&key],
            )?
            .map_or(0, |r| r.get(0));
        Ok(n.max(0) as u64)
    }

    fn polls(&self, key: &str) -> Result<u64> {
        let n: i64 = self
            .row(
                "SELECT n FROM payctl_polls WHERE key = $1",
                &[Type::TEXT],
                &[&key],
            )?
            .map_or(0, |r| r.get(0));
        Ok(n.max(0) as u64)
    }

    fn snapshots(&self) -> Result<Vec<Snapshot>> {
        let texts: Vec<String> = self
            .rows("SELECT doc::text FROM payctl_snapshots", &[], &[])?
            .into_iter()
            .map(|r| r.get(0))
            .collect();
        let mut all: Vec<Snapshot> = texts
            .iter()
            .map(|t| self.doc("a snapshot", t))
            .collect::<Result<_>>()?;
        all.sort_by(|a, b| {
            (&a.created_datetime, &a.snapshot_name).cmp(&(&b.created_datetime, &b.snapshot_name))
        });
        Ok(all)
    }

    fn save_snapshot(&self, name: &str, by: &str, now: &str) -> Result<Snapshot> {
        let tables = self.record_tables()?;
        self.lock_tables(&tables, "SHARE")?;
        let snap = Snapshot {
            snapshot_name: name.to_string(),
            store_version: store_version(),
            customer_profiles: self.profile_count()? as u64,
            transactions: self.txn_count()?,
            created_by: by.to_string(),
            created_datetime: now.to_string(),
        };
        let doc = serde_json::to_string(&snap).expect("snapshots serialize");
        self.with(|c| {
            c.execute("DELETE FROM payctl_snapshots WHERE name = $1", &[&name])?;
            c.execute(
                "INSERT INTO payctl_snapshots (name, doc) VALUES ($1, $2::text::jsonb)",
                &[&name, &doc],
            )?;
            for t in &tables {
                c.execute(
                    &format!(
                        "INSERT INTO payctl_snapshot_rows (snapshot, tbl, r) \
                         SELECT $1, $2, to_jsonb(x) FROM {t} x"
                    ),
                    &[&name, t],
                )?;
            }
            Ok(())
        })?;
        self.finish(true)?;
        Ok(snap)
    }

    fn restore_snapshot(&self, name: &str) -> Result<Option<Snapshot>> {
        let tables = self.record_tables()?;
        self.lock_tables(&tables, "ACCESS EXCLUSIVE")?;
        let snap = match self.snapshot_doc(name) {
            Ok(Some(s)) => s,
            Ok(None) => {
                let _ = self.finish(false);
                return Ok(None);
            }
            Err(e) => return self.abandon(e),
        };
        let ours = store_version();
        if snap.store_version != ours {
            return self.abandon(other_version(name, &snap.store_version, &ours));
        }
        crate::store::fault::slow("restore-locked");
        self.with(|c| {
            for t in tables.iter().rev() {
                c.batch_execute(&format!("DELETE FROM {t}"))?;
            }
            for t in &tables {
                c.execute(
                    &format!(
                        "INSERT INTO {t} SELECT (jsonb_populate_record(NULL::{t}, r)).* \
                         FROM payctl_snapshot_rows WHERE snapshot = $1 AND tbl = $2"
                    ),
                    &[&name, t],
                )?;
            }
            Ok(())
        })?;
        crate::store::fault::slow("restore-filled");
        self.finish(true)?;
        Ok(Some(snap))
    }

    fn delete_snapshot(&self, name: &str) -> Result<bool> {
        let n =
            self.with(|c| c.execute("DELETE FROM payctl_snapshots WHERE name = $1", &[&name]))?;
        self.finish(true)?;
        Ok(n > 0)
    }

    fn reset(&self) -> Result<Reset> {
        let tables = self.record_tables()?;
        self.lock_tables(&tables, "ACCESS EXCLUSIVE")?;
        let removed = Reset {
            customer_profiles: self.profile_count()? as u64,
            transactions: self.txn_count()?,
        };
        self.with(|c| {
            for t in tables.iter().rev() {
                if t == "payctl_counts" {
                    c.batch_execute("UPDATE payctl_counts SET n = 0")?;
                } else if t == "payctl_event_head" {
                    // The log starts again: its one row, at the start.
                    c.execute(
                        "UPDATE payctl_event_head SET seq = 0, hash = $1",
                        &[&crate::model::event::GENESIS],
                    )?;
                } else {
                    c.batch_execute(&format!("DELETE FROM {t}"))?;
                }
            }
            Ok(())
        })?;
        self.finish(true)?;
        Ok(removed)
    }
}
