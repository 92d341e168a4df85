//! `payctl store migrate --to TARGET`: copy every record of one store (its
//! API keys, outcome rules, event log and webhooks included; not its
//! snapshots, which belong to their backend) into another, empty one,
//! whichever their backends, in
//! batches (one commit each), then verify that the target holds as many records of every kind
//! as the source. The source is only read.

use crate::error::{Error, Result, code};
use crate::model::txn::TxnFile;
use crate::store::{Store, TxnQuery, Window};

/// Records per commit.
pub const BATCH: usize = 500;

/// How many records of each kind a store holds.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub customers: usize,
    pub transactions: usize,
    pub attachments: usize,
    pub queued: usize,
    pub idempotency_keys: usize,
    /// API keys, revoked and expired ones included.
    pub api_keys: usize,
    /// Events of the log, copied as they are (the chain whole).
    pub events: u64,
    /// Outcome rules (`payctl sim rule`); snapshots are not copied.
    pub rules: usize,
    /// Webhooks, with their secrets, outbox cursors and delivery attempts.
    pub webhooks: usize,
}

/// Copy `source` into the empty `target` (created with the source's
/// catalog). `progress(kind, done, total)` is told after each batch.
pub fn migrate(
    source: &Store,
    target: &Store,
    now: i64,
    progress: &mut dyn FnMut(&str, usize, usize),
) -> Result<Counts> {
    let mut want = Counts::default();
    let total = source.profile_page(None, &Window::at(0, 0))?.total;
    want.customers = total;
    let mut done = 0;
    progress("customers", 0, total);
    while done < total {
        let ids = source
            .profile_page(None, &Window::at(done, BATCH.min(total - done)))?
            .ids;
        if ids.is_empty() {
            break;
        }
        let mut tx = target.begin_without_events();
        for id in &ids {
            let c = source
                .customer(id)?
                .ok_or_else(|| vanished(&format!("customer {id}")))?;
            want.attachments += c.attachments.len();
            tx.new_customer(c)?;
        }
        tx.commit()?;
        done += ids.len();
        progress("customers", done, total);
    }
    let txns = source.txn_page(&TxnQuery::default(), &Window::all())?.ids;
    want.transactions = txns.len();
    progress("transactions", 0, txns.len());
    for (i, chunk) in txns.chunks(BATCH).enumerate() {
        let mut tx = target.begin_without_events();
        for id in chunk {
            let t: TxnFile = source
                .txn(id)?
                .ok_or_else(|| vanished(&format!("transaction {id}")))?;
            tx.put_txn(&t);
        }
        tx.commit()?;
        progress(
            "transactions",
            (i * BATCH + chunk.len()).min(txns.len()),
            txns.len(),
        );
    }
    let queue = source.queue()?;
    let keys = source.idempotency_records(now)?;
    let api_keys = source.api_keys()?;
    want.queued = queue.len();
    want.idempotency_keys = keys.len();
    want.api_keys = api_keys.len();
    let mut tx = target.begin_without_events();
    for q in &queue {
        tx.enqueue(q);
    }
    for r in &keys {
        tx.put_idempotency(r)?;
    }
    // The keys as they are (their hashes: the secrets work on the target),
    // with their last use.
    let mut used = Vec::new();
    for k in &api_keys {
        tx.put_api_key(k)?;
        if let Some(at) = &k.last_used {
            used.push((k.hash.clone(), at.clone()));
        }
    }
    tx.api_keys_used(&used)?;
    if !tx.is_empty() {
        tx.commit()?;
    }
    // The event log as it is, a segment at a time: the target's chain is
    // the source's.
    let last = source.events_last()?;
    want.events = last;
    progress("events", 0, last as usize);
    let mut seq = 1;
    while seq <= last {
        let to = (seq + 1023).min(last);
        let mut tx = target.begin_without_events();
        tx.put_sealed_events(source.event_lines(seq, to)?)?;
        tx.commit()?;
        progress("events", to as usize, last as usize);
        seq = to + 1;
    }
    let rules = source.sim().rules()?;
    want.rules = rules.len();
    for r in &rules {
        target.sim().add_rule(r)?;
    }
    // Webhooks after the log, whose sequences their cursors name: each
    // with its secret (its receivers' signatures still verify), its
    // cursor and its attempts.
    let hooks = source.webhooks()?;
    want.webhooks = hooks.len();
    for w in &hooks {
        let mut tx = target.begin_without_events();
        tx.put_webhook(w, &source.outbox(&w.webhook_id)?);
        for d in source.deliveries(&w.webhook_id)? {
            tx.add_delivery(&d);
        }
        tx.commit()?;
    }
    let got = counts(target, now)?;
    if got != want {
        return Err(Error::store(
            code::STORE_FINDINGS,
            format!(
                "store migrate: the target's counts {got:?} differ from the source's {want:?}; \
                 the source is unchanged, remove the target and migrate again"
            ),
        ));
    }
    Ok(got)
}

/// The records of each kind in `store`.
pub fn counts(store: &Store, now: i64) -> Result<Counts> {
    let mut c = Counts {
        customers: store.profile_page(None, &Window::at(0, 0))?.total,
        transactions: store
            .txn_page(&TxnQuery::default(), &Window::at(0, 0))?
            .total,
        queued: store.queue()?.len(),
        idempotency_keys: store.idempotency_records(now)?.len(),
        api_keys: store.api_keys()?.len(),
        events: store.events_last()?,
        rules: store.sim().rules()?.len(),
        webhooks: store.webhooks()?.len(),
        ..Counts::default()
    };
    let mut start = 0;
    while start < c.customers {
        let ids = store.profile_page(None, &Window::at(start, BATCH))?.ids;
        if ids.is_empty() {
            break;
        }
        for id in &ids {
            if let Some(cu) = store.customer(id)? {
                c.attachments += cu.attachments.len();
            }
        }
        start += ids.len();
    }
    Ok(c)
}

fn vanished(what: &str) -> Error {
    Error::store(
        code::STORE_UNREADABLE,
        format!(
            "store migrate: {what} is listed by the source but cannot be read; run `payctl store check` on the source"
        ),
    )
}
