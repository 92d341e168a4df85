use super::*;

/// The JSON directory behind the storage interface (its inherent methods,
/// which the group commit and `store check --repair` also use).
impl storage::Storage for JsonStore {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }
    fn scratch_file(&self) -> Result<std::fs::File> {
        JsonStore::scratch_file(self)
    }
    fn catalog(&self) -> Result<Catalog> {
        JsonStore::catalog(self)
    }
    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        JsonStore::customer(self, cid)
    }
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        JsonStore::txn(self, tid)
    }
    fn key_owner(&self, key: &str) -> Result<Option<String>> {
        JsonStore::key_owner(self, key)
    }
    fn key_owners(&self, keys: &[&str]) -> Result<Vec<Option<String>>> {
        JsonStore::key_owners(self, keys)
    }
    /// Unfiltered: the creation-order index's count and range; filtered:
    /// the field's bucket.
    fn profile_page(&self, filter: Option<(fields::Field, &str)>, w: &Window) -> Result<IdPage> {
        let Some((field, value)) = filter else {
            return IdPage::cut(
                self.profile_count()?,
                w,
                |after| self.profile_position(after),
                |start, end| self.profile_ids(start, end),
            );
        };
        let ids = JsonStore::profiles_with(self, field, value)?;
        Ok(IdPage::of(ids.into_iter().map(|(_, id)| id).collect(), w))
    }
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        JsonStore::program_customers(self, program_id)
    }
    /// The exact filters: the positions of the matches from the
    /// transaction indexes, and the ids of one page read by position; the
    /// others: the summary log.
    fn txn_page(&self, q: &TxnQuery, w: &Window) -> Result<IdPage> {
        if !q.is_indexed() {
            let all = JsonStore::txns(self)?;
            let ids = all.into_iter().filter(|s| q.matches(s)).map(|s| s.id);
            return Ok(IdPage::of(ids.collect(), w));
        }
        let ps = JsonStore::txns_matching(self, q)?;
        IdPage::cut(
            ps.len(),
            w,
            |after| {
                Ok(self
                    .txn_position(after)?
                    .and_then(|p| ps.binary_search(&p).ok()))
            },
            |start, end| self.txn_ids_at(&ps[start..end]),
        )
    }
    fn queue(&self) -> Result<Vec<QueueItem>> {
        JsonStore::queue(self)
    }
    fn is_queued(&self, item: &QueueItem) -> bool {
        JsonStore::is_queued(self, item)
    }
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        JsonStore::idempotency_record(self, key, now)
    }
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        JsonStore::idempotency_records(self, now)
    }
    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }
    fn check(&self, repair: bool) -> Result<check::Report> {
        JsonStore::check(self, repair)
    }
    fn api_key(&self, hash: &str) -> Result<Option<crate::model::api_key::ApiKey>> {
        JsonStore::api_key(self, hash)
    }
    fn api_keys(&self) -> Result<Vec<crate::model::api_key::ApiKey>> {
        JsonStore::api_keys(self)
    }
    fn api_keys_stamp(&self) -> Result<Option<String>> {
        JsonStore::api_keys_stamp(self)
    }
    fn events_last(&self) -> Result<u64> {
        Ok(self.events_head()?.0)
    }
    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        JsonStore::event_lines(self, from, to)
    }
    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        JsonStore::record_event_lines(self, record_id)
    }
    fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        JsonStore::hook_doc(self, name)
    }
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
        JsonStore::hook_docs(self, prefix)
    }
    fn hook_log(&self, name: &str) -> Result<Vec<String>> {
        JsonStore::hook_log(self, name)
    }
    fn begin(&self, _: crate::store::storage::Begin) -> Box<dyn storage::StorageTx + '_> {
        Box::new(JsonStore::begin(self))
    }
}

impl storage::StorageTx for JsonTx<'_> {
    fn put_customer(&mut self, c: &Customer) {
        JsonTx::put_customer(self, c)
    }
    fn new_customer(&mut self, c: Customer) -> Result<()> {
        JsonTx::new_customer(self, c)
    }
    fn new_customer_serialized(&mut self, c: Customer, json: String) -> Result<()> {
        JsonTx::new_customer_serialized(self, c, json)
    }
    fn put_txn(&mut self, t: &TxnFile) {
        JsonTx::put_txn(self, t)
    }
    fn customer(&self, id: &str) -> Result<Option<Customer>> {
        JsonTx::customer(self, id)
    }
    fn txn(&self, id: &str) -> Result<Option<TxnFile>> {
        JsonTx::txn(self, id)
    }
    fn enqueue(&mut self, item: &QueueItem) {
        JsonTx::enqueue(self, item)
    }
    fn dequeue(&mut self, item: &QueueItem) {
        JsonTx::dequeue(self, item)
    }
    fn put_idempotency(&mut self, rec: &idempotency::Record) -> Result<()> {
        JsonTx::put_idempotency(self, rec)
    }
    fn put_api_key(&mut self, key: &crate::model::api_key::ApiKey) -> Result<()> {
        JsonTx::put_api_key(self, key)
    }
    fn api_keys_used(&mut self, used: &[(String, String)]) -> Result<()> {
        JsonTx::api_keys_used(self, used)
    }
    fn put_events(&mut self, events: Vec<crate::model::event::NewEvent>) {
        self.events.extend(events)
    }
    fn hook_ops(&mut self, ops: Vec<crate::store::webhooks::HookOp>) {
        JsonTx::hook_ops(self, ops)
    }

    fn put_sealed_events(&mut self, lines: Vec<String>) -> Result<()> {
        JsonTx::put_sealed_events(self, lines)
    }
    fn is_empty(&self) -> bool {
        JsonTx::is_empty(self)
    }
    fn commit(self: Box<Self>) -> Result<()> {
        JsonTx::commit(*self)
    }
    fn commit_created(self: Box<Self>, result: &str) -> Result<()> {
        JsonTx::commit_created(*self, result)
    }
}
