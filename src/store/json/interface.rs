use super::*;
use crate::model::api_key::ApiKey;
use crate::store::webhooks::valid_name;
use api_keys::KEYS_FILE;
use check::Report;
use events::{SEGMENT, segment_of, segment_rel};
use webhooks::{WEBHOOKS_DIR, doc_rel, log_rel, text};

/// The JSON directory behind the storage interface. Each read is written
/// here once; the group commit, the rebuild and `store check --repair` call
/// it through the trait (`Storage` is in scope throughout `store::json`).
impl storage::Storage for JsonStore {
    fn describe(&self) -> String {
        self.root.display().to_string()
    }
    /// An empty scratch file for a command that must read its input twice
    /// (`profile import`): in the store, mode 0600 (it may hold SSNs, and
    /// `/tmp` may be memory), unlinked at once so that it is gone when the
    /// command ends however it ends. Its temp-file name is removed by
    /// `store check --repair` if payctl dies between the create and the unlink.
    fn scratch_file(&self) -> Result<std::fs::File> {
        let path = self
            .root
            .join(format!("import-scratch{}", atomic::TEMP_SUFFIX));
        let _ = std::fs::remove_file(&path);
        atomic::unlinked_scratch(&self.root, &path)
    }
    fn catalog(&self) -> Result<Catalog> {
        let path = self.root.join(CATALOG);
        let missing = || Error::corrupt(&path, "missing");
        match &self.group {
            // Parsed once a group (every create reads it), as `read_json`
            // would read it (the staged file, else the one on disk) under
            // the lock of what is staged.
            Some(stage) => stage
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .catalog(|s| {
                    let bytes = match s.read(&self.root, CATALOG)? {
                        Some(c) => c,
                        None => atomic::read_record(&self.root, &path)?,
                    };
                    parse_record(&path, bytes)?.ok_or_else(missing)
                }),
            None => self.read_json(&path)?.ok_or_else(missing),
        }
    }
    /// The customer aggregate `id`; `None` when it does not exist or the id is malformed.
    fn customer(&self, cid: &str) -> Result<Option<Customer>> {
        if !id::is_valid(id::CUSTOMER, cid) {
            return Ok(None);
        }
        let path = self.root.join(Self::customer_rel(cid));
        // Without staged changes to read through, the shard's directory is
        // reached once for the customer's file and its log of packed
        // records (a page of a list reads fifty customers).
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return Ok(None);
        };
        let shard = if self.group.is_none() && self.overlay.is_none() {
            match safefs::Dir::open(&self.root, dir, false)? {
                Some(d) => Some(d),
                None => return Ok(None),
            }
        } else {
            None
        };
        let c: Option<Customer> = match &shard {
            Some(d) => parse_record(&path, d.read(name, Some(atomic::RECORD_BYTES))?)?,
            None => self.read_json(&path)?,
        };
        match c {
            Some(c) if c.id() != cid => Err(Error::corrupt(&path, "holds another customer")),
            Some(c) => Ok(Some(c)),
            None => self.packed_customer_in(cid, shard.as_ref()),
        }
    }
    fn txn(&self, tid: &str) -> Result<Option<TxnFile>> {
        if !id::is_valid(id::TRANSACTION, tid) {
            return Ok(None);
        }
        let path = self.root.join(Self::txn_rel(tid));
        let t: Option<TxnFile> = self.read_json(&path)?;
        match t {
            Some(t) if t.transaction.transaction_id != tid => {
                Err(Error::corrupt(&path, "holds another transaction"))
            }
            t => Ok(t),
        }
    }
    /// The customer that holds `key`, if any: the latest entry of the key's
    /// bucket (the first file on its path, see [`keys`]) whose customer does
    /// hold it (the aggregates are the truth).
    fn key_owner(&self, key: &str) -> Result<Option<String>> {
        for depth in 0..=keys::MAX_DEPTH {
            let rel = keys::path_at(key, depth);
            let path = self.root.join(&rel);
            // A group's writes keep the buckets they read (see
            // `group::Staged::with_content`): each create reads its key's.
            if let Some(group) = &self.group {
                let found = group
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .with_content(&self.root, &rel, |bucket| {
                        bucket.map(|b| keys::owners(b, key).map(str::to_string).collect::<Vec<_>>())
                    })?;
                if let Some(owners) = found {
                    return self.holder(key, owners.iter().map(String::as_str));
                }
                continue;
            }
            let found = match self.overlaid(&path)? {
                Some(staged) => staged.map(|bucket| {
                    keys::owners(&bucket, key)
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                }),
                // As committed: streamed (see [`safefs::each_lines_piece`]),
                // the owners in file order, then latest first.
                None => {
                    let mut owners = Vec::new();
                    safefs::each_lines_piece(
                        &self.root,
                        &path,
                        safefs::LINES_BUFFER,
                        &mut |piece| {
                            let mut here: Vec<String> =
                                keys::owners(piece, key).map(str::to_string).collect();
                            here.reverse();
                            owners.append(&mut here);
                            Ok(())
                        },
                    )?
                    .map(|_| {
                        owners.reverse();
                        owners
                    })
                }
            };
            if let Some(owners) = found {
                return self.holder(key, owners.iter().map(String::as_str));
            }
        }
        Ok(None)
    }
    /// The holders of many keys at once (a batch of an import), in the
    /// order of `keys`: each bucket they fall in is read and scanned once,
    /// whatever the number of keys in it, and no more of the index is kept
    /// than the owners of the keys asked (memory grows with the batch, not
    /// with the store).
    fn key_owners(&self, wanted: &[&str]) -> Result<Vec<Option<String>>> {
        let mut out = vec![None; wanted.len()];
        // A key's bucket is the first file on its path that exists (see
        // [`keys`], and [`Self::key_owner`] for one key): the keys whose
        // file at one level is missing (split into the level below) are
        // looked for one level down.
        let mut pending: Vec<usize> = (0..wanted.len()).collect();
        // Without staged changes to read through, each bucket is read in
        // its directory opened once (see [`safefs::Dirs`]).
        let mut dirs =
            (self.group.is_none() && self.overlay.is_none()).then(|| safefs::Dirs::new(&self.root));
        for depth in 0..=keys::MAX_DEPTH {
            if pending.is_empty() {
                break;
            }
            let mut by_bucket: HashMap<String, Vec<usize>> = HashMap::new();
            for i in pending.drain(..) {
                by_bucket
                    .entry(keys::path_at(wanted[i], depth))
                    .or_default()
                    .push(i);
            }
            for (rel, idx) in by_bucket {
                let bucket = match &mut dirs {
                    Some(dirs) => dirs.read(&rel, None)?,
                    None => self.read_bytes(&self.root.join(&rel))?,
                };
                match bucket {
                    Some(bucket) => self.owners_in(&bucket, wanted, &idx, &mut out)?,
                    // No file: the bucket was split, or no key of it was
                    // ever written. On the disk alone (no staged split to
                    // read through) the directory tells which, so that
                    // the keys of a new store are not looked for at every
                    // level.
                    None => {
                        let split = match &mut dirs {
                            Some(dirs) => {
                                let p = keys::prefix(wanted[idx[0]]);
                                dirs.is_dir(&keys::prefix_dir(&p[..=depth]))?
                            }
                            None => true,
                        };
                        if split {
                            pending.extend(idx);
                        }
                    }
                }
            }
        }
        Ok(out)
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
    /// The customers with a record in `program_id`, in the order the records
    /// were created (from the attachment index).
    fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        let path = self.root.join(ATTACHMENTS_LOG);
        let log = match self.overlaid(&path)? {
            Some(c) => index::complete(&c.unwrap_or_default()).to_vec(),
            None => index::complete_lines(&self.root, &path)?,
        };
        attachments::customers_of(&log, program_id).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<program id> <customer id>`"),
            )
        })
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
    /// The worker's pending items, oldest first.
    fn queue(&self) -> Result<Vec<QueueItem>> {
        let mut queue = index::read_queue(&self.root, &self.root.join(QUEUE_DIR))?;
        if let Some(overlay) = &self.overlay {
            let prefix = format!("{QUEUE_DIR}/");
            for (rel, content) in overlay {
                let Some(name) = rel.strip_prefix(&prefix) else {
                    continue;
                };
                queue.retain(|q| q.file_name() != name);
                if content.is_some()
                    && let Some(q) = QueueItem::parse(name)
                {
                    queue.push(q);
                }
            }
            queue.sort_by_key(QueueItem::file_name);
        }
        if let Some(group) = &self.group {
            let staged = group.lock().unwrap_or_else(|e| e.into_inner()).queue();
            for (name, present) in staged {
                queue.retain(|q| q.file_name() != name);
                if present && let Some(q) = QueueItem::parse(&name) {
                    queue.push(q);
                }
            }
            queue.sort_by_key(QueueItem::file_name);
        }
        Ok(queue)
    }
    /// Whether `item` is still in the queue.
    fn is_queued(&self, item: &QueueItem) -> bool {
        safefs::exists(
            &self.root,
            &self.root.join(QUEUE_DIR).join(item.file_name()),
        )
        .unwrap_or(false)
    }
    /// The live (unexpired) idempotency record of `key` at `now` (Unix
    /// seconds), if any: one bucket read.
    fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        let path = self.root.join(idempotency::bucket_rel(key));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(None);
        };
        let records = idempotency::parse(&bytes)
            .map_err(|n| Error::corrupt(&path, format!("line {n} is not an idempotency record")))?;
        Ok(idempotency::find(&records, key, now).cloned())
    }
    /// Every live idempotency record (for `store migrate`), bucket by bucket.
    fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        let mut out = Vec::new();
        for b in 0..=u8::MAX {
            let path = self.root.join(idempotency::bucket_path(b));
            let Some(bytes) = self.read_bytes(&path)? else {
                continue;
            };
            let records = idempotency::parse(&bytes).map_err(|n| {
                Error::corrupt(&path, format!("line {n} is not an idempotency record"))
            })?;
            out.extend(records.into_iter().filter(|r| !r.expired(now)));
        }
        Ok(out)
    }
    fn armed(&self) -> &idempotency::ArmedSlot {
        &self.armed
    }
    /// Check the store; with `repair`, rebuild derived data first (the caller
    /// holds the exclusive lock then).
    fn check(&self, repair: bool) -> Result<Report> {
        self.check_with(repair, &|_, _| {})
    }
    /// The key of `hash` (a read of the whole file: a server keeps them
    /// between requests, see the module doc).
    fn api_key(&self, hash: &str) -> Result<Option<ApiKey>> {
        Ok(self.api_keys()?.into_iter().find(|k| k.hash == hash))
    }
    /// Every key in creation order, with its last use.
    fn api_keys(&self) -> Result<Vec<ApiKey>> {
        let mut keys = self.keys_file()?.keys;
        let used = self.used_file()?.used;
        for k in &mut keys {
            k.last_used = used.get(&k.hash).cloned();
        }
        Ok(keys)
    }
    /// The device, inode, size, modification and change times of
    /// `keys.json` (`none` without it): every write of it is a new file.
    /// `None` while a pending journal or a group's staged changes stand in
    /// for the files (rare: each key is then looked up anew).
    fn api_keys_stamp(&self) -> Result<Option<String>> {
        if self.overlaid(&self.root.join(KEYS_FILE))?.is_some() {
            return Ok(None);
        }
        Ok(Some(match self.lock.lstat_entry(KEYS_FILE)? {
            None => "none".into(),
            Some(st) => format!(
                "{}:{}:{}:{}.{}:{}.{}",
                st.st_dev,
                st.st_ino,
                st.st_size,
                st.st_mtime,
                st.st_mtime_nsec,
                st.st_ctime,
                st.st_ctime_nsec
            ),
        }))
    }
    fn events_last(&self) -> Result<u64> {
        Ok(self.events_head()?.0)
    }
    /// The stored lines of the events `from..=to` that exist, in order.
    fn event_lines(&self, from: u64, to: u64) -> Result<Vec<String>> {
        let (last, _) = self.events_head()?;
        let to = to.min(last);
        let mut out = Vec::new();
        let mut seq = from.max(1);
        while seq <= to {
            let rel = segment_rel(seq);
            let first = segment_of(seq) * SEGMENT + 1;
            let path = self.root.join(&rel);
            let bytes = self.read_bytes(&path)?.unwrap_or_default();
            // (Checked as UTF-8 the fast way first: `from_utf8_lossy`
            // walks the bytes in small chunks, 3% of `store check`.)
            let text = match std::str::from_utf8(&bytes) {
                Ok(t) => std::borrow::Cow::Borrowed(t),
                Err(_) => String::from_utf8_lossy(&bytes),
            };
            for (i, line) in text.split_terminator('\n').enumerate() {
                let s = first + i as u64;
                if s >= seq && s <= to {
                    out.push(line.to_string());
                }
            }
            seq = first + SEGMENT;
        }
        Ok(out)
    }
    /// The lines of `record_id`'s events, oldest first (each segment read
    /// once).
    fn record_event_lines(&self, record_id: &str) -> Result<Vec<String>> {
        let seqs = self.record_sequences(record_id)?;
        let mut out = Vec::with_capacity(seqs.len());
        let mut i = 0;
        while i < seqs.len() {
            let seg = segment_of(seqs[i]);
            let mut j = i;
            while j < seqs.len() && segment_of(seqs[j]) == seg {
                j += 1;
            }
            let lines = self.event_lines(seqs[i], seqs[j - 1])?;
            let first = seqs[i];
            for s in &seqs[i..j] {
                if let Some(l) = lines.get((s - first) as usize) {
                    out.push(l.clone());
                }
            }
            i = j;
        }
        Ok(out)
    }
    fn hook_doc(&self, name: &str) -> Result<Option<String>> {
        if !valid_name(name) {
            return Ok(None);
        }
        let path = self.root.join(doc_rel(name));
        self.read_bytes(&path)?.map(|b| text(&path, b)).transpose()
    }
    /// The documents named `prefix…`: those in the directory, and those a
    /// pending journal adds (read through it).
    fn hook_docs(&self, prefix: &str) -> Result<Vec<String>> {
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
    fn hook_log(&self, name: &str) -> Result<Vec<String>> {
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
    fn begin(&self, _: crate::store::storage::Begin) -> Box<dyn storage::StorageTx + '_> {
        Box::new(JsonStore::begin(self))
    }
}
