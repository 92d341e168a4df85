//! `store check [--repair]` on a database: every aggregate row parses and
//! is the record its id says, the spec's invariants hold (the same checks
//! as the JSON directory's, `check::invariants`), and the derived tables
//! agree with the aggregates (the attachments of each customer, the
//! worker's pending items). `--repair` rebuilds the derived tables; it
//! never changes an aggregate.

use std::collections::BTreeSet;

use super::PgStore;
use crate::error::Result;
use crate::model::Customer;
use crate::model::status::{attachment, txn as txn_status};
use crate::model::txn::TxnFile;
use crate::store::QueueItem;
use crate::store::report::{Finding, Report, invariants};
use crate::store::storage::Storage as _;

impl PgStore {
    pub fn check(&self, repair: bool) -> Result<Report> {
        let mut report = Report::default();
        let f = &mut report.findings;
        let catalog = match self.catalog() {
            Ok(c) => Some(c),
            Err(e) => {
                f.push(finding("payctl_meta", message(&e), false));
                None
            }
        };
        let rows: Vec<(String, String)> = self.with(|c| {
            Ok(c.query(
                "SELECT id, doc::text FROM payctl_customers ORDER BY seq",
                &[],
            )?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
        })?;
        let mut customers = Vec::new();
        for (id, doc) in rows {
            match serde_json::from_str::<Customer>(&doc) {
                Ok(c) if c.id() == id => customers.push(c),
                Ok(_) => f.push(finding(&cust(&id), "holds another customer".into(), false)),
                Err(e) => f.push(finding(&cust(&id), format!("does not parse: {e}"), false)),
            }
        }
        let rows: Vec<(String, String)> = self.with(|c| {
            Ok(c.query(
                "SELECT id, doc::text FROM payctl_transactions ORDER BY seq",
                &[],
            )?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
        })?;
        let mut txns = Vec::new();
        for (id, doc) in rows {
            let path = format!("payctl_transactions/{id}");
            match serde_json::from_str::<TxnFile>(&doc) {
                Ok(t) if t.transaction.transaction_id == id => txns.push(t),
                Ok(_) => f.push(finding(&path, "holds another transaction".into(), false)),
                Err(e) => f.push(finding(&path, format!("does not parse: {e}"), false)),
            }
        }
        report.customers = customers.len();
        report.transactions = txns.len();
        let first = f.len();
        invariants(&customers, &txns, catalog.as_ref(), f);
        // The shared checks name the JSON store's files: name the rows.
        for x in &mut f[first..] {
            x.path = row_of(&x.path);
        }
        // Derived: the attachments table.
        let want: BTreeSet<(String, String)> = customers
            .iter()
            .flat_map(|c| {
                c.attachments
                    .iter()
                    .map(|a| (a.program_id.clone(), c.id().to_string()))
            })
            .collect();
        let have: BTreeSet<(String, String)> = self.with(|c| {
            Ok(c.query(
                "SELECT program_id, customer_id FROM payctl_attachments",
                &[],
            )?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
        })?;
        let attachments_off = want != have;
        if attachments_off {
            f.push(finding(
                "payctl_attachments",
                format!(
                    "disagrees with the customers' records ({} missing, {} stray)",
                    want.difference(&have).count(),
                    have.difference(&want).count()
                ),
                true,
            ));
        }
        // Derived: the kept count of customers (schema 4), compared with
        // the table in one statement (one snapshot: commits go on beside a
        // check).
        let (kept, held): (i64, i64) = self.with(|c| {
            let r = c.query_one(
                "SELECT (SELECT coalesce(sum(n), 0)::bigint FROM payctl_counts \
                   WHERE name = 'customers'), (SELECT count(*) FROM payctl_customers)",
                &[],
            )?;
            Ok((r.get(0), r.get(1)))
        })?;
        let count_off = kept != held;
        if count_off {
            f.push(finding(
                "payctl_counts",
                format!("says {kept} customers; payctl_customers holds {held}"),
                true,
            ));
        }
        // Derived: every pending attachment and open transaction is queued.
        let queued: BTreeSet<String> = self.queue()?.iter().map(QueueItem::key).collect();
        let mut missing = Vec::new();
        for c in &customers {
            for a in &c.attachments {
                if a.customer_profile_program_status_id == attachment::PENDING {
                    let q = QueueItem::attach(c.id(), &a.program_id);
                    if !queued.contains(&q.key()) {
                        missing.push(q);
                    }
                }
            }
        }
        for t in &txns {
            let open = matches!(
                t.transaction.transaction_status_id,
                txn_status::CREATED | txn_status::PROCESSING
            );
            let q = QueueItem::txn(&t.transaction.transaction_id);
            if open && !queued.contains(&q.key()) {
                missing.push(q);
            }
        }
        for q in &missing {
            f.push(finding(
                "payctl_queue",
                format!("{} is pending but not queued", q.key()),
                true,
            ));
        }
        if repair
            && f.iter().all(|x| x.repairable)
            && (attachments_off || !missing.is_empty() || count_off)
        {
            let want: Vec<(String, String)> = customers
                .iter()
                .flat_map(|c| {
                    let mut a: Vec<_> = c.attachments.iter().collect();
                    a.sort_by(|x, y| x.audit.created_datetime.cmp(&y.audit.created_datetime));
                    a.into_iter()
                        .map(|a| (a.program_id.clone(), c.id().to_string()))
                        .collect::<Vec<_>>()
                })
                .collect();
            let names: Vec<String> = missing.iter().map(QueueItem::file_name).collect();
            self.with(|t| {
                if attachments_off {
                    t.execute("DELETE FROM payctl_attachments", &[])?;
                    for (p, c) in &want {
                        t.execute(
                            "INSERT INTO payctl_attachments (program_id, customer_id) \
                             VALUES ($1, $2) ON CONFLICT DO NOTHING",
                            &[p, c],
                        )?;
                    }
                }
                for n in &names {
                    t.execute(
                        "INSERT INTO payctl_queue (name) VALUES ($1) ON CONFLICT DO NOTHING",
                        &[n],
                    )?;
                }
                if count_off {
                    t.execute("DELETE FROM payctl_counts WHERE name = 'customers'", &[])?;
                    t.batch_execute(super::schema::COUNTS)?;
                }
                Ok(())
            })?;
            self.finish(true)?;
            if attachments_off {
                report.repaired.push("rebuilt payctl_attachments".into());
            }
            if !names.is_empty() {
                report
                    .repaired
                    .push(format!("queued {} pending item(s)", names.len()));
            }
            if count_off {
                report
                    .repaired
                    .push("counted the customers again into payctl_counts".into());
            }
            report.findings.clear();
        }
        Ok(report)
    }
}

fn cust(id: &str) -> String {
    format!("payctl_customers/{id}")
}

fn finding(path: &str, problem: String, repairable: bool) -> Finding {
    Finding {
        path: path.to_string(),
        problem,
        repairable,
    }
}

fn message(e: &crate::error::Error) -> String {
    e.errors
        .first()
        .map_or(String::new(), |a| a.message.clone())
}

/// `customers/<xx>/<id>.json` as `payctl_customers/<id>` (and transactions
/// alike); anything else as it is.
fn row_of(path: &str) -> String {
    let id = path
        .rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(".json"))
        .unwrap_or(path);
    if path.starts_with("customers/") {
        cust(id)
    } else if path.starts_with("transactions/") {
        format!("payctl_transactions/{id}")
    } else {
        path.to_string()
    }
}
