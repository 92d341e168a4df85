//! A write transaction's commit on the database: the writes it holds (the
//! shared buffer of `store::pending`: the aggregates put in it, the queue
//! items added and removed) and the idempotency record armed, all written
//! in the database transaction the store holds, then `COMMIT`; or, for the
//! creates of `payctl serve`, with those of other requests in one
//! transaction (see group.rs).
//! The attachments table is derived here from the customers written.

use super::PgStore;
use super::pool::Prep;
use crate::error::Result;
use crate::store::QueueItem;
use crate::store::idempotency::Armed;
use crate::store::pending::{ApplyPending, Pending};

/// The writes of one transaction and its armed idempotency record.
pub(super) type Work = (Pending, Option<(Armed, String)>);

impl ApplyPending for PgStore {
    /// Every table written by one statement, in the database transaction
    /// the store holds, then `COMMIT`; a unique index that refused it says
    /// which value was taken. A create of `payctl serve` that locked no
    /// row may be committed with others (see group.rs).
    fn apply(&self, w: Pending, idem: Option<(Armed, String)>) -> Result<()> {
        if let Some(group) = self.group_for(&w) {
            return self.commit_grouped(&group, (w, idem));
        }
        self.apply_alone(w, idem)
    }
}

impl PgStore {
    /// [`ApplyPending::apply`] in this store's transaction alone.
    pub(super) fn apply_alone(&self, w: Pending, idem: Option<(Armed, String)>) -> Result<()> {
        let written = self.with_prep(|c| write(c, &[(&w, idem.as_ref())]));
        match written {
            Ok(()) => self.finish(true),
            Err(e) => {
                let _ = self.finish(false);
                // Two creates of one customer_key, or of one key name: a
                // UNIQUE index decided.
                let refused = e.errors.iter().find_map(|a| w.unique_refusal(&a.message));
                if let Some(refused) = refused {
                    return Err(refused);
                }
                Err(e)
            }
        }
    }
}

/// The writes of `batch`, in its order, in the transaction of `c`: each
/// table by one statement, whatever the number of rows and of writes.
pub(super) fn write(
    c: &mut Prep<'_>,
    batch: &[(&Pending, Option<&(Armed, String)>)],
) -> std::result::Result<(), postgres::Error> {
    let all = || batch.iter().map(|(w, _)| *w);
    let enqueued: Vec<String> = all()
        .flat_map(|w| &w.enqueued)
        .map(QueueItem::file_name)
        .collect();
    let dequeued: Vec<String> = all()
        .flat_map(|w| &w.dequeued)
        .map(QueueItem::file_name)
        .collect();
    // The columns of the rows to write: each table is written by one
    // statement, whatever
    // the number of rows (an import's chunk of 5,000 profiles is one
    // INSERT, not 5,000), its rows passed as one array per column and
    // inserted in their order (`WITH ORDINALITY … ORDER BY`), which is
    // the order of their `seq`. (A multi-row `VALUES` list of 6,000
    // parameters costs more to parse and plan than to insert.)
    let mut cu: [Vec<String>; 6] = Default::default();
    // The attachment index, derived from the aggregates: each
    // customer's in creation order.
    let mut att: [Vec<String>; 2] = Default::default();
    for c in all().flat_map(|w| &w.customers) {
        let ind = &c.profile.customer_profile_individual;
        cu[0].push(c.id().to_string());
        cu[1].push(c.profile.customer_key.clone());
        cu[2].push(ind.first_name.to_lowercase());
        cu[3].push(ind.last_name.to_lowercase());
        cu[4].push(ind.email.to_lowercase());
        cu[5].push(serde_json::to_string(c).expect("records serialize"));
        let mut atts: Vec<_> = c.attachments.iter().collect();
        atts.sort_by(|a, b| a.audit.created_datetime.cmp(&b.audit.created_datetime));
        for a in atts {
            att[0].push(a.program_id.clone());
            att[1].push(c.id().to_string());
        }
    }
    let mut tx: [Vec<String>; 4] = Default::default();
    let mut status: Vec<i32> = Vec::new();
    for t in all().flat_map(|w| &w.txns) {
        let tr = &t.transaction;
        tx[0].push(tr.transaction_id.clone());
        tx[1].push(tr.program_id.clone());
        tx[2].push(tr.transaction_template_id.clone());
        tx[3].push(serde_json::to_string(t).expect("records serialize"));
        status.push(i32::try_from(tr.transaction_status_id).unwrap_or(i32::MAX));
    }
    // The slot of the kept count this commit adds its new customers to
    // (see `schema::COUNT_SLOTS`).
    let slot: i32 = rand::random_range(0..super::schema::COUNT_SLOTS);
    if !tx[0].is_empty() {
        c.execute(
            "INSERT INTO payctl_transactions (id, program_id, template_id, status_id, doc) \
             SELECT id, p, t, s, d::jsonb FROM unnest($1::text[], $2::text[], \
               $3::text[], $4::int4[], $5::text[]) WITH ORDINALITY \
               AS r (id, p, t, s, d, n) ORDER BY n \
             ON CONFLICT (id) DO UPDATE SET status_id = EXCLUDED.status_id, \
             doc = EXCLUDED.doc",
            &[&tx[0], &tx[1], &tx[2], &status, &tx[3]],
        )?;
    }
    if !enqueued.is_empty() {
        c.execute(
            "INSERT INTO payctl_queue (name) SELECT unnest($1::text[]) \
             ON CONFLICT DO NOTHING",
            &[&enqueued],
        )?;
    }
    if !dequeued.is_empty() {
        c.execute(
            "DELETE FROM payctl_queue WHERE name = ANY($1)",
            &[&dequeued],
        )?;
    }
    for r in all().flat_map(|w| &w.idempotency) {
        c.execute(
            "INSERT INTO payctl_idempotency (key, fp, at, result) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (key) DO NOTHING",
            &[&r.key, &r.fp, &r.at, &r.result.to_string()],
        )?;
    }
    let keys: Vec<_> = all().flat_map(|w| w.api_keys.iter().cloned()).collect();
    let used: Vec<_> = all().flat_map(|w| w.api_used.iter().cloned()).collect();
    super::api_keys::write(c.c, &keys, &used)?;
    let hooks: Vec<_> = all().flat_map(|w| w.hooks.iter().cloned()).collect();
    super::webhooks::write(c.c, &hooks)?;
    let armed: Vec<&(Armed, String)> = batch.iter().filter_map(|(_, i)| *i).collect();
    if let Some(newest) = armed.iter().map(|(a, _)| a.now).max() {
        c.execute(
            "DELETE FROM payctl_idempotency WHERE at <= $1",
            &[&(newest - crate::store::idempotency::TTL_SECS)],
        )?;
    }
    for (a, result) in armed {
        let result = serde_json::Value::String(result.clone()).to_string();
        c.execute(
            "INSERT INTO payctl_idempotency (key, fp, at, result) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (key) DO UPDATE SET fp = EXCLUDED.fp, at = EXCLUDED.at, \
             result = EXCLUDED.result",
            &[&a.key, &a.fp, &a.now, &result],
        )?;
    }
    // Then the customers: their first change locks the stamp's row
    // (see `schema::STAMP`) until the COMMIT, as the head's does.
    if !cu[0].is_empty() {
        // One statement: the rows, and the count of those that are
        // new (every part of it sees the table as it was before).
        c.execute(
            "WITH fresh AS (SELECT count(*) AS n FROM unnest($1::text[]) AS u (id) \
               WHERE NOT EXISTS (SELECT 1 FROM payctl_customers o WHERE o.id = u.id)), \
             counted AS (UPDATE payctl_counts SET n = payctl_counts.n + (SELECT n FROM fresh) \
               WHERE name = 'customers' AND slot = $7 AND (SELECT n FROM fresh) > 0) \
             INSERT INTO payctl_customers \
             (id, customer_key, first_name_lc, last_name_lc, email_lc, doc) \
             SELECT id, k, f, l, e, d::jsonb FROM unnest($1::text[], $2::text[], \
               $3::text[], $4::text[], $5::text[], $6::text[]) WITH ORDINALITY \
               AS r (id, k, f, l, e, d, n) ORDER BY n \
             ON CONFLICT (id) DO UPDATE SET customer_key = EXCLUDED.customer_key, \
             first_name_lc = EXCLUDED.first_name_lc, \
             last_name_lc = EXCLUDED.last_name_lc, email_lc = EXCLUDED.email_lc, \
             doc = EXCLUDED.doc",
            &[&cu[0], &cu[1], &cu[2], &cu[3], &cu[4], &cu[5], &slot],
        )?;
    }
    if !att[0].is_empty() {
        c.execute(
            "INSERT INTO payctl_attachments (program_id, customer_id) \
             SELECT p, c FROM unnest($1::text[], $2::text[]) WITH ORDINALITY \
               AS r (p, c, n) ORDER BY n \
             ON CONFLICT DO NOTHING",
            &[&att[0], &att[1]],
        )?;
    }
    // Last: the head's lock is held only until the COMMIT that follows.
    let sealed: Vec<String> = all().flat_map(|w| w.sealed.iter().cloned()).collect();
    super::events::write_sealed(c.c, &sealed)?;
    let events: Vec<_> = all().flat_map(|w| w.events.iter().cloned()).collect();
    super::events::write(c, &events)?;
    Ok(())
}
