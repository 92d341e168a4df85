use super::*;
use crate::model::api_key::ApiKey;
use crate::model::event;
use crate::store::webhooks::{HookOp, valid_name};
use events::segment_rel;
use webhooks::{doc_rel, log_rel};

/// A write transaction: collects the aggregates put into it and the other
/// operations, applies them all or none on [`JsonTx::commit`]. Aggregates
/// put in it are read back by [`JsonTx::customer`] and [`JsonTx::txn`], so
/// one transaction can carry several changes to one record (the worker
/// processes a batch of items in one commit).
///
/// The derived indexes are this transaction's own business: when it is
/// prepared ([`JsonTx::prepare`]), each aggregate put into it is compared
/// with the version the store holds, and the index lines that the change
/// calls for are added ([`JsonTx::derive`]): for a new profile its key, its
/// summary, its place in creation order and its field index lines; for an
/// updated one its new summary and new field values (and its key, were it
/// to change); for a new profile-program record its attachment index line;
/// for a new or changed transaction its summary ([`JsonTx::txn_changed`]).
pub struct JsonTx<'s> {
    pub(super) store: &'s JsonStore,
    /// The journal's operations in order; `None` where a later put of the
    /// same path replaced one.
    pub(super) ops: Vec<Option<Op>>,
    /// Path of each live put: its place in `ops`.
    pub(super) puts: HashMap<String, usize>,
    /// Path of each append: its place in `ops`.
    pub(super) appends: HashMap<String, usize>,
    pub(super) customers: BTreeMap<String, Customer>,
    /// The ids of `customers` in the order they were first put.
    pub(super) customer_order: Vec<String>,
    /// The customers created by [`JsonTx::new_customer`] (not read back
    /// from the store to find out).
    pub(super) created: std::collections::HashSet<String>,
    /// The records of new customers given already serialized
    /// ([`JsonTx::new_customer_serialized`]), by id: written as given.
    pub(super) serialized: HashMap<String, String>,
    pub(super) txns: BTreeMap<String, TxnFile>,
    /// The ids of `txns` in the order they were first put (the creation
    /// order of the new ones).
    pub(super) txn_order: Vec<String>,
    /// Summaries of the customers created in this transaction, in order:
    /// their field index lines are written by [`JsonTx::prepare`], which
    /// knows their positions.
    pub(super) new_profiles: Vec<ProfileSummary>,
    /// Summaries of the transactions created in this transaction, in order
    /// (their index lines are written by [`JsonTx::prepare`], which knows
    /// their positions), each in its latest version.
    pub(super) new_txns: Vec<TxnSummary>,
    /// Stored transactions whose status changed: `(status as stored, status
    /// now)`, applied to the status index by [`JsonTx::prepare`].
    pub(super) txn_moves: BTreeMap<String, (u32, u32)>,
    /// The API keys and their use as this transaction leaves them.
    pub(super) api: api_keys::Pending,
    /// The events of its changes, sealed when it is prepared.
    pub(super) events: Vec<crate::model::event::NewEvent>,
    /// The event log's head (sequence and hash) once its events are
    /// appended, when it has any (a group keeps it, see `Staged::events_head`).
    pub(super) head: Option<(u64, String)>,
}

impl JsonTx<'_> {
    pub(super) fn put(&mut self, rel: String, bytes: Vec<u8>) {
        let data = String::from_utf8(bytes).expect("json is utf-8");
        if let Some(i) = self.puts.insert(rel.clone(), self.ops.len()) {
            self.ops[i] = None;
        }
        self.ops.push(Some(Op::Put { path: rel, data }));
    }

    /// Append `line` to `rel`. The length the file had before the
    /// transaction (what a replay truncates to) is taken when the transaction
    /// is prepared for its commit.
    pub(super) fn append(&mut self, rel: &str, line: &str) -> Result<()> {
        if let Some(&i) = self.appends.get(rel)
            && let Some(Op::Append { data, .. }) = &mut self.ops[i]
        {
            data.push_str(line);
            return Ok(());
        }
        self.appends.insert(rel.to_string(), self.ops.len());
        self.ops.push(Some(Op::Append {
            path: rel.to_string(),
            base_len: 0,
            data: line.to_string(),
        }));
        Ok(())
    }

    pub fn store(&self) -> &JsonStore {
        self.store
    }

    pub(super) fn set_key(&mut self, key: &str, owner: &str) -> Result<()> {
        self.append(&keys::bucket_rel(key), &keys::line(key, owner))
    }

    pub(super) fn append_profile(&mut self, s: &ProfileSummary) -> Result<()> {
        let mut line = serde_json::to_string(s).expect("serializes");
        line.push('\n');
        self.append(PROFILES_LOG, &line)
    }

    /// A new profile-program record of `customer_id` in `program_id`: its
    /// line in the attachment index (the record itself is in the customer).
    pub(super) fn new_attachment(&mut self, program_id: &str, customer_id: &str) -> Result<()> {
        self.append(ATTACHMENTS_LOG, &attachments::line(program_id, customer_id))
    }

    /// The derived data of a transaction created (`before` is `None`) or
    /// changed from `before` to `after` (summaries): its summary line, and
    /// its entries in the transaction indexes ([`txn_index`]), written in
    /// this transaction's commit. A new transaction gets its position and
    /// its lines when the commit is prepared; a status change moves its
    /// entry of the status index then. (A transaction's template and
    /// program never change.)
    pub fn txn_changed(&mut self, before: Option<&TxnSummary>, after: &TxnSummary) -> Result<()> {
        if before == Some(after) {
            return Ok(());
        }
        let mut line = serde_json::to_string(after).expect("serializes");
        line.push('\n');
        self.append(TXNS_LOG, &line)?;
        if let Some(new) = self.new_txns.iter_mut().find(|s| s.id == after.id) {
            *new = after.clone();
            return Ok(());
        }
        match before {
            None => self.new_txns.push(after.clone()),
            Some(b) => {
                self.txn_moves
                    .entry(after.id.clone())
                    .or_insert((b.status_id, b.status_id))
                    .1 = after.status_id;
            }
        }
        Ok(())
    }

    /// The transaction index lines of this transaction's new transactions
    /// and status changes (see [`JsonTx::txn_changed`]), as the store is now.
    pub(super) fn prepare_txn_index(&mut self) -> Result<()> {
        // Status index: the lines each chunk gains and the ids it loses.
        let mut adds: BTreeMap<String, String> = BTreeMap::new();
        let mut removes: BTreeMap<String, Vec<String>> = BTreeMap::new();
        if !self.new_txns.is_empty() {
            let first = self.store.committed_len(txn_index::TXN_IDS)? as usize / index::ID_RECORD;
            for (i, s) in std::mem::take(&mut self.new_txns).iter().enumerate() {
                let pos = first + i;
                self.append(txn_index::TXN_IDS, &index::id_record(&s.id))?;
                // The status chunk's lines are gathered: a chunk that also
                // loses lines below is written whole.
                let [position, template, program, (status, line)] = txn_index::entries(pos, s);
                for (path, line) in [position, template, program] {
                    self.append(&path, &line)?;
                }
                adds.entry(status).or_default().push_str(&line);
            }
        }
        for (tid, (from, to)) in std::mem::take(&mut self.txn_moves) {
            if from == to {
                continue;
            }
            let pos = match self.store.txn_position(&tid)? {
                Some(p) => p,
                None => self.store.txn_position_scan(&tid)?.ok_or_else(|| {
                    Error::corrupt(
                        &self.store.root.join(txn_index::TXN_IDS),
                        format!("does not list {tid} (run `payctl store check --repair`)"),
                    )
                })?,
            };
            removes
                .entry(txn_index::status_rel(from, pos))
                .or_default()
                .push(tid.clone());
            adds.entry(txn_index::status_rel(to, pos))
                .or_default()
                .push_str(&txn_index::status_line(pos, &tid));
        }
        // A chunk that loses lines is written whole (at most CHUNK lines),
        // or removed when nothing is left; one that only gains is appended to.
        for (rel, gone) in removes {
            let path = self.store.root.join(&rel);
            let bytes = self.store.read_bytes(&path)?.unwrap_or_default();
            let mut text = String::new();
            for l in index::complete(&bytes).split(|&b| b == b'\n') {
                match txn_index::parse_status(l) {
                    Some((_, id)) if gone.iter().any(|g| g == id) => {}
                    Some((pos, id)) => text.push_str(&txn_index::status_line(pos, id)),
                    None => {}
                }
            }
            if let Some(more) = adds.remove(&rel) {
                text.push_str(&more);
            }
            if text.is_empty() {
                if self.store.read_bytes(&path)?.is_some() {
                    if let Some(i) = self.puts.remove(&rel) {
                        self.ops[i] = None;
                    }
                    self.ops.push(Some(Op::Delete { path: rel }));
                }
            } else {
                self.put(rel, text.into_bytes());
            }
        }
        for (rel, lines) in adds {
            self.append(&rel, &lines)?;
        }
        Ok(())
    }

    /// The index lines of a stored profile whose record stays as it is: its
    /// key, its summary, its place in creation order and its field index
    /// lines, as for a new one (`store check --repair`, see [`rebuild`]).
    pub(crate) fn reindex_customer(&mut self, s: ProfileSummary) -> Result<()> {
        self.set_key(&s.customer_key, &s.id)?;
        self.append_profile(&s)?;
        self.append(PROFILE_IDS, &index::id_record(&s.id))?;
        self.new_profiles.push(s);
        Ok(())
    }

    /// The index lines of a stored transaction whose record stays as it
    /// is, as for a new one (`store check --repair`, see [`rebuild`]; what
    /// [`JsonTx::txn_changed`] does for a new transaction, without looking
    /// for it among this transaction's new ones: a rebuild gives each once).
    pub(crate) fn reindex_txn(&mut self, s: TxnSummary) -> Result<()> {
        let mut line = serde_json::to_string(&s).expect("serializes");
        line.push('\n');
        self.append(TXNS_LOG, &line)?;
        self.new_txns.push(s);
        Ok(())
    }

    /// An update of a stored profile from `before` to `after` (summaries):
    /// its new summary line, and for each indexed value that changed a
    /// field index line for the new value and a removal line for the old
    /// one (see [`fields`]).
    pub(super) fn profile_updated(
        &mut self,
        before: &ProfileSummary,
        after: &ProfileSummary,
    ) -> Result<()> {
        if before == after {
            return Ok(());
        }
        self.append_profile(after)?;
        let mut pos = None;
        for field in fields::Field::ALL {
            let old = field.values(before);
            let new = field.values(after);
            let lines = new
                .iter()
                .filter(|v| !old.contains(v))
                .map(|v| (v, false))
                .chain(old.iter().filter(|v| !new.contains(v)).map(|v| (v, true)));
            for (v, removed) in lines.collect::<Vec<_>>() {
                let p = match pos {
                    Some(p) => p,
                    None => {
                        let p = self.position_of(before)?;
                        pos = Some(p);
                        p
                    }
                };
                let line = if removed {
                    fields::removal(p, &after.id, v)
                } else {
                    fields::line(p, &after.id, v)
                };
                self.append(&fields::bucket_rel(field, v), &line)?;
            }
        }
        Ok(())
    }

    /// The creation-order position of the stored profile `s`: from its
    /// e-mail's field index entry (one bucket read), else from
    /// `index/profiles.ids` (a scan, only for a damaged index).
    pub(super) fn position_of(&self, s: &ProfileSummary) -> Result<usize> {
        let field = fields::Field::Email;
        let found = self
            .store
            .profiles_with(field, &field.normal(&s.email))
            .unwrap_or_default()
            .into_iter()
            .find(|(_, id)| *id == s.id);
        if let Some((p, _)) = found {
            return Ok(p);
        }
        self.store.profile_position(&s.id)?.ok_or_else(|| {
            Error::corrupt(
                &self.store.root.join(PROFILE_IDS),
                format!("does not list {}", s.id),
            )
        })
    }

    /// The index lines of customer `c` (id `id`) put into this
    /// transaction (see [`JsonTx::derive`]).
    pub(super) fn derive_customer(&mut self, id: &str, c: &Customer) -> Result<()> {
        let before = if self.created.contains(id) {
            None
        } else {
            self.store.customer(id)?
        };
        // New profile-program records, oldest first.
        for a in storage::added_attachments(before.as_ref(), c) {
            self.new_attachment(&a.program_id, c.id())?;
        }
        let after = ProfileSummary::of(&c.profile);
        match before {
            None => {
                self.set_key(&c.profile.customer_key, c.id())?;
                self.append_profile(&after)?;
                self.append(PROFILE_IDS, &index::id_record(c.id()))?;
                self.new_profiles.push(after);
            }
            Some(b) => {
                if b.profile.customer_key != c.profile.customer_key {
                    self.set_key(&c.profile.customer_key, c.id())?;
                }
                self.profile_updated(&ProfileSummary::of(&b.profile), &after)?;
            }
        }
        Ok(())
    }

    /// The index lines that the aggregates put into this transaction call
    /// for, each compared with the version the store holds now (see
    /// [`JsonTx`]).
    pub(super) fn derive(&mut self) -> Result<()> {
        for id in std::mem::take(&mut self.customer_order) {
            // Taken out while its index lines are added (which need `self`
            // mutably), and put back: a million-line import's chunks are
            // not copied.
            let Some(c) = self.customers.remove(&id) else {
                continue;
            };
            let result = self.derive_customer(&id, &c);
            self.customers.insert(id, c);
            result?;
        }
        for id in std::mem::take(&mut self.txn_order) {
            let Some(t) = self.txns.get(&id) else {
                continue;
            };
            let after = TxnSummary::of(t);
            let before = self.store.txn(&id)?.map(|b| TxnSummary::of(&b));
            if before.as_ref() != Some(&after) {
                self.txn_changed(before.as_ref(), &after)?;
            }
        }
        Ok(())
    }

    /// Apply everything durably; on return the change is on disk.
    pub fn commit(self) -> Result<()> {
        self.prepare()?.commit()
    }
}

/// The write transaction behind the storage interface: each operation is
/// written here once, beside the preparation that turns it into journal
/// operations.
impl storage::StorageTx for JsonTx<'_> {
    fn put_customer(&mut self, c: &Customer) {
        // A text given with an earlier version is no longer this record's.
        self.serialized.remove(c.id());
        if self
            .customers
            .insert(c.id().to_string(), c.clone())
            .is_none()
        {
            self.customer_order.push(c.id().to_string());
        }
    }
    /// A new customer (see [`Tx::new_customer`]): its index lines are
    /// derived when the transaction is prepared. The caller has checked that
    /// the key is free.
    fn new_customer(&mut self, c: Customer) -> Result<()> {
        self.serialized.remove(c.id());
        let id = c.id().to_string();
        self.created.insert(id.clone());
        if self.customers.insert(id.clone(), c).is_none() {
            self.customer_order.push(id);
        }
        Ok(())
    }
    /// [`JsonTx::new_customer`] whose record `json` is already serialized
    /// (`serde_json::to_string(&c)`; an import serialized it when it
    /// checked the line): written as it is, not serialized again.
    fn new_customer_serialized(&mut self, c: Customer, json: String) -> Result<()> {
        let id = c.id().to_string();
        self.new_customer(c)?;
        self.serialized.insert(id, json);
        Ok(())
    }
    fn put_txn(&mut self, t: &TxnFile) {
        let id = &t.transaction.transaction_id;
        if self.txns.insert(id.clone(), t.clone()).is_none() {
            self.txn_order.push(id.clone());
        }
    }
    /// The customer as this transaction left it, else as stored.
    fn customer(&self, id: &str) -> Result<Option<Customer>> {
        match self.customers.get(id) {
            Some(c) => Ok(Some(c.clone())),
            None => self.store.customer(id),
        }
    }
    /// The transaction as this transaction left it, else as stored.
    fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        match self.txns.get(id) {
            Some(t) => Ok(Some(t.clone())),
            None => self.store.txn(id),
        }
    }
    fn enqueue(&mut self, item: &QueueItem) {
        self.put(format!("{QUEUE_DIR}/{}", item.file_name()), Vec::new());
    }
    fn dequeue(&mut self, item: &QueueItem) {
        self.ops.push(Some(Op::Delete {
            path: format!("{QUEUE_DIR}/{}", item.file_name()),
        }));
    }
    /// An idempotency record copied as it is (`store migrate`).
    fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        self.append(&idempotency::bucket_rel(&rec.key), &rec.line())
    }
    fn put_api_key(&mut self, key: &ApiKey) -> Result<()> {
        let p = self.keys_mut()?;
        let keys = &mut p.keys.get_or_insert_with(Default::default).keys;
        if let Some(&i) = p.by_name.get(&key.name)
            && keys[i].hash != key.hash
        {
            return Err(crate::error::name_in_use(&key.name));
        }
        let mut key = key.clone();
        key.last_used = None;
        p.changed = true;
        match p.by_hash.get(&key.hash) {
            Some(&i) => {
                p.by_name.remove(&keys[i].name);
                p.by_name.insert(key.name.clone(), i);
                keys[i] = key;
            }
            None => {
                p.by_hash.insert(key.hash.clone(), keys.len());
                p.by_name.insert(key.name.clone(), keys.len());
                keys.push(key);
            }
        }
        Ok(())
    }
    fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        if self.api.used.is_none() {
            self.api.used = Some(self.store.used_file()?);
        }
        let known: Vec<bool> = {
            let p = self.keys_mut()?;
            used.iter()
                .map(|(h, _)| p.by_hash.contains_key(h))
                .collect()
        };
        let file = self.api.used.get_or_insert_with(Default::default);
        for ((hash, at), known) in used.iter().zip(known) {
            if !known {
                continue;
            }
            let slot = file.used.entry(hash.clone()).or_default();
            if at > slot {
                *slot = at.clone();
            }
        }
        Ok(())
    }
    fn put_events(&mut self, events: Vec<crate::model::event::NewEvent>) {
        self.events.extend(events)
    }
    /// The puts, deletes and appends of `ops`. A name that is not one
    /// (never from the facade, which builds them from checked ids) is
    /// skipped: it would name no file of the store.
    fn hook_ops(&mut self, ops: Vec<HookOp>) {
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

    /// Append events sealed elsewhere, as they are (`store migrate`).
    fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()> {
        let (first, _) = self.store.events_head()?;
        let mut last = first;
        let mut records = Vec::new();
        for line in lines {
            let e = event::parse(&line).map_err(|e| Error::one(code::INVALID_VALUE, e))?;
            self.append(&segment_rel(e.sequence), &format!("{line}\n"))?;
            records.push((e.record_id, e.sequence));
            last = e.sequence;
        }
        self.index_records(first, last, records)?;
        self.point_head(first, last);
        Ok(())
    }
    fn is_empty(&self) -> bool {
        self.ops.iter().all(Option::is_none)
            && self.customers.is_empty()
            && self.txns.is_empty()
            && self.new_txns.is_empty()
            && self.txn_moves.is_empty()
            && self.api.is_empty()
            && self.events.is_empty()
    }
    fn commit(self: Box<Self>) -> Result<()> {
        JsonTx::commit(*self)
    }
    /// Commit a create whose answer is `result` (the new id). When the store
    /// has an idempotency key armed ([`Store::arm_idempotency`]), its record
    /// with this result is written in the same commit.
    fn commit_created(self: Box<Self>, result: &str) -> Result<()> {
        let mut tx = *self;
        if let Some(a) = tx.store.armed.take() {
            let rel = idempotency::bucket_rel(&a.key);
            let path = tx.store.root.join(&rel);
            // As the open group leaves it, when there is one.
            let bytes = tx.store.read_bytes(&path)?.unwrap_or_default();
            let records = idempotency::parse(&bytes).map_err(|n| {
                Error::corrupt(&path, format!("line {n} is not an idempotency record"))
            })?;
            let rec = idempotency::Record {
                key: a.key,
                fp: a.fp,
                at: a.now,
                result: serde_json::Value::String(result.to_string()),
            };
            match idempotency::write(&records, &rec, a.now) {
                Ok(line) => tx.append(&rel, &line)?,
                Err(content) => tx.put(rel, content.into_bytes()),
            }
        }
        tx.commit()
    }
}
