use super::*;

impl JsonStore {
    /// The customer that holds `key`, if any: the latest entry of the key's
    /// bucket (the first file on its path, see [`keys`]) whose customer does
    /// hold it (the aggregates are the truth).
    pub fn key_owner(&self, key: &str) -> Result<Option<String>> {
        for depth in 0..=keys::MAX_DEPTH {
            let path = self.root.join(keys::path_at(key, depth));
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
                    safefs::each_lines_piece(&path, safefs::LINES_BUFFER, &mut |piece| {
                        let mut here: Vec<String> =
                            keys::owners(piece, key).map(str::to_string).collect();
                        here.reverse();
                        owners.append(&mut here);
                        Ok(())
                    })?
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

    /// The first of `candidates` whose record holds `key`.
    pub(super) fn holder<'a>(
        &self,
        key: &str,
        candidates: impl Iterator<Item = &'a str>,
    ) -> Result<Option<String>> {
        for owner in candidates {
            if let Some(c) = self.customer(owner)?
                && c.profile.customer_key == key
            {
                return Ok(Some(owner.to_string()));
            }
        }
        Ok(None)
    }

    /// The holders of many keys at once (a batch of an import), in the
    /// order of `keys`: each bucket they fall in is read and scanned once,
    /// whatever the number of keys in it, and no more of the index is kept
    /// than the owners of the keys asked (memory grows with the batch, not
    /// with the store).
    pub fn key_owners(&self, wanted: &[&str]) -> Result<Vec<Option<String>>> {
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

    /// The holders of the keys `wanted[i]` for `i` in `idx`, all of one
    /// `bucket`, into `out` (see [`Self::key_owners`]).
    pub(super) fn owners_in(
        &self,
        bucket: &[u8],
        wanted: &[&str],
        idx: &[usize],
        out: &mut [Option<String>],
    ) -> Result<()> {
        // Each wanted key's owners, in the order of their lines.
        let mut owners: HashMap<&str, Vec<&str>> =
            idx.iter().map(|&i| (wanted[i], Vec::new())).collect();
        let end = bucket
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        for line in bucket[..end].split(|&b| b == b'\n') {
            let Some(sp) = line.iter().position(|&b| b == b' ') else {
                continue;
            };
            let (Ok(key), Ok(owner)) = (
                std::str::from_utf8(&line[..sp]),
                std::str::from_utf8(&line[sp + 1..]),
            ) else {
                continue;
            };
            if owner.is_empty() || owner.contains(' ') {
                continue;
            }
            if let Some(list) = owners.get_mut(key) {
                list.push(owner);
            }
        }
        for &i in idx {
            let list = owners.get(wanted[i]).map_or(&[][..], Vec::as_slice);
            if !list.is_empty() {
                out[i] = self.holder(wanted[i], list.iter().rev().copied())?;
            }
        }
        Ok(())
    }

    /// The whole key index read once, for many lookups (an import checks
    /// every line's key: one read of each bucket instead of one per line).
    pub fn key_index(&self) -> Result<JsonKeyIndex<'_>> {
        let mut owners: HashMap<String, Vec<String>> = HashMap::new();
        for (rel, p) in keys::files(&self.root)? {
            let Some(bytes) = self.read_bytes(&self.root.join(rel))? else {
                continue;
            };
            for (key, owner) in keys::parse_bucket(&p, &bytes).entries {
                owners.entry(key).or_default().push(owner);
            }
        }
        Ok(JsonKeyIndex {
            store: self,
            owners,
        })
    }

    /// Profile summaries in creation order, each in its latest version.
    pub fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        let path = self.root.join(PROFILES_LOG);
        if let Some(c) = self.overlaid(&path)? {
            return index::read_log_bytes(&path, &c.unwrap_or_default(), |s: &ProfileSummary| {
                &s.id
            });
        }
        index::read_log(&path, |s: &ProfileSummary| &s.id)
    }

    /// The profiles whose `field` has had `value` (normalized, see
    /// [`fields::Field::normal`]), from the field's index: `(position in
    /// creation order, id)`, each id once, in creation order. One bucket read;
    /// an entry may be stale (the profile changed since): the caller
    /// confirms each against the record.
    pub fn profiles_with(&self, field: fields::Field, value: &str) -> Result<Vec<(usize, String)>> {
        let path = self.root.join(fields::bucket_rel(field, value));
        let Some(bucket) = self.read_bytes(&path)? else {
            return Ok(Vec::new());
        };
        fields::matches(&bucket, value).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<position> <customer id> <value as a JSON string>`"),
            )
        })
    }

    /// Number of customer profiles (from `index/profiles.ids`).
    pub fn profile_count(&self) -> Result<usize> {
        if !self.profile_ids_built()? {
            return Ok(self.profiles()?.len());
        }
        let path = self.root.join(PROFILE_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(c.map_or(0, |c| c.len() / index::ID_RECORD));
        }
        index::ids_count(&path)
    }

    /// The number of records of `index/profiles.ids` (see
    /// [`Store::created_count`]); `None` before a first commit has built it.
    pub fn ids_count(&self) -> Result<Option<usize>> {
        if !self.profile_ids_built()? {
            return Ok(None);
        }
        self.profile_count().map(Some)
    }

    /// The profile ids at positions `start..end` of creation order.
    pub fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        if !self.profile_ids_built()? {
            let all = self.profiles()?;
            let end = end.min(all.len());
            return Ok(all
                .get(start.min(end)..end)
                .unwrap_or_default()
                .iter()
                .map(|s| s.id.clone())
                .collect());
        }
        let path = self.root.join(PROFILE_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return index::ids_range_bytes(&path, &c.unwrap_or_default(), start, end);
        }
        index::ids_range(&path, start, end)
    }

    /// The position of profile `cid` in creation order.
    pub fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        if !self.profile_ids_built()? {
            return Ok(self.profiles()?.iter().position(|s| s.id == cid));
        }
        let path = self.root.join(PROFILE_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(index::ids_position_bytes(&c.unwrap_or_default(), cid));
        }
        index::ids_position(&path, cid)
    }

    /// The customers with a record in `program_id`, in the order the records
    /// were created (from the attachment index).
    pub fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        let path = self.root.join(ATTACHMENTS_LOG);
        let log = match self.overlaid(&path)? {
            Some(c) => index::complete(&c.unwrap_or_default()).to_vec(),
            None => index::complete_lines(&path)?,
        };
        attachments::customers_of(&log, program_id).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<program id> <customer id>`"),
            )
        })
    }

    /// Transaction summaries in creation order, each in its latest version.
    pub fn txns(&self) -> Result<Vec<TxnSummary>> {
        let path = self.root.join(TXNS_LOG);
        if let Some(c) = self.overlaid(&path)? {
            return index::read_log_bytes(&path, &c.unwrap_or_default(), |s: &TxnSummary| &s.id);
        }
        index::read_log(&path, |s: &TxnSummary| &s.id)
    }

    /// The number of transactions (records of `index/transactions.ids`).
    pub fn txn_count(&self) -> Result<usize> {
        let path = self.root.join(txn_index::TXN_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(c.map_or(0, |c| c.len() / index::ID_RECORD));
        }
        index::ids_count(&path)
    }

    /// The creation-order position of transaction `tid` (from the position
    /// map: one small bucket read).
    pub fn txn_position(&self, tid: &str) -> Result<Option<usize>> {
        if !id::is_valid(id::TRANSACTION, tid) {
            return Ok(None);
        }
        let path = self.root.join(txn_index::position_rel(tid));
        Ok(self
            .read_bytes(&path)?
            .and_then(|b| txn_index::find_position(&b, tid)))
    }

    /// The position of `tid` read from `index/transactions.ids` itself (a
    /// scan: only when the position map lacks it, a damaged index).
    pub fn txn_position_scan(&self, tid: &str) -> Result<Option<usize>> {
        let path = self.root.join(txn_index::TXN_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(index::ids_position_bytes(&c.unwrap_or_default(), tid));
        }
        index::ids_position(&path, tid)
    }

    /// The transaction ids at `positions` (from `index/transactions.ids`:
    /// one read each).
    pub fn txn_ids_at(&self, positions: &[usize]) -> Result<Vec<String>> {
        let path = self.root.join(txn_index::TXN_IDS);
        let overlaid = self.overlaid(&path)?;
        let mut out = Vec::with_capacity(positions.len());
        for &p in positions {
            let got = match &overlaid {
                Some(c) => {
                    index::ids_range_bytes(&path, c.as_deref().unwrap_or_default(), p, p + 1)?
                }
                None => index::ids_range(&path, p, p + 1)?,
            };
            match got.into_iter().next() {
                Some(id) => out.push(id),
                None => {
                    return Err(Error::corrupt(
                        &path,
                        format!(
                            "has no transaction at position {p}, which an index names (run `payctl store check --repair`)"
                        ),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// The positions, sorted, of the transactions that match `q`.
    pub fn txns_matching(&self, q: &TxnQuery) -> Result<Vec<usize>> {
        let mut lists = Vec::new();
        if let Some(s) = q.status {
            lists.push(self.txn_positions_with_status(s)?);
        }
        for (kind, values) in [
            (txn_index::Kind::Template, &q.templates),
            (txn_index::Kind::Program, &q.programs),
        ] {
            let Some(values) = values else { continue };
            let mut any = Vec::new();
            for v in values {
                any.extend(self.txn_positions_with(kind, v)?);
            }
            any.sort_unstable();
            any.dedup();
            lists.push(any);
        }
        Ok(txn_index::intersect(lists))
    }

    /// The positions, sorted, of the transactions whose status is `status`
    /// now: every chunk of its status index (as many reads as chunks of
    /// [`txn_index::CHUNK`] positions; a chunk without one is no file).
    pub fn txn_positions_with_status(&self, status: u32) -> Result<Vec<usize>> {
        let chunks = self.txn_count()?.div_ceil(txn_index::CHUNK);
        let read = |chunk: usize, dir: Option<&safefs::Dir>| -> Result<Vec<usize>> {
            let rel = txn_index::status_chunk_rel(status, chunk);
            let path = self.root.join(&rel);
            let bytes = match dir {
                Some(d) => {
                    let name = rel.rsplit_once('/').map_or(rel.as_str(), |(_, n)| n);
                    d.read(std::ffi::OsStr::new(name), None)?
                }
                None => self.read_bytes(&path)?,
            };
            let Some(bytes) = bytes else {
                return Ok(Vec::new());
            };
            txn_index::status_positions(&bytes).map_err(|n| {
                Error::corrupt(
                    &path,
                    format!("line {n} is not `<position> <transaction id>`"),
                )
            })
        };
        // With staged changes to read through (a group commit, a pending
        // journal), each chunk is read as any file is.
        if self.group.is_some() || self.overlay.is_some() {
            let mut out = Vec::new();
            for chunk in 0..chunks {
                out.extend(read(chunk, None)?);
            }
            return Ok(out);
        }
        // Otherwise the status's directory is opened once and each chunk is
        // one `openat` in it; a status that a tenth of a million
        // transactions have is about a hundred thousand lines in a thousand
        // chunks, read by a few threads (the chunks are in position order,
        // so their parts, joined in order, are sorted).
        let rel = txn_index::status_chunk_rel(status, 0);
        let parent = rel.rsplit_once('/').map_or("", |(d, _)| d);
        let Some(dir) = safefs::Dir::open(&self.root.join(parent), false)? else {
            return Ok(Vec::new());
        };
        let part = |range: std::ops::Range<usize>| -> Result<Vec<usize>> {
            let mut out = Vec::new();
            for chunk in range {
                out.extend(read(chunk, Some(&dir))?);
            }
            Ok(out)
        };
        const MIN_PER_THREAD: usize = 128;
        if chunks < 2 * MIN_PER_THREAD {
            return part(0..chunks);
        }
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4)
            .min(chunks / MIN_PER_THREAD);
        let per = chunks.div_ceil(threads);
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|i| {
                    let part = &part;
                    s.spawn(move || part(i * per..((i + 1) * per).min(chunks)))
                })
                .collect();
            let mut out = Vec::new();
            for h in handles {
                out.extend(h.join().expect("status index reader")?);
            }
            Ok(out)
        })
    }

    /// The positions, sorted, of the transactions whose template or program
    /// (`kind`) is `value`: one bucket read.
    pub fn txn_positions_with(&self, kind: txn_index::Kind, value: &str) -> Result<Vec<usize>> {
        let path = self.root.join(txn_index::value_rel(kind, value));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(Vec::new());
        };
        txn_index::value_positions(&bytes, value).map_err(|n| {
            Error::corrupt(
                &path,
                format!("line {n} is not `<position> <transaction id> <value as a JSON string>`"),
            )
        })
    }

    /// The worker's pending items, oldest first.
    pub fn queue(&self) -> Result<Vec<QueueItem>> {
        let mut queue = index::read_queue(&self.root.join(QUEUE_DIR))?;
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
    pub fn is_queued(&self, item: &QueueItem) -> bool {
        safefs::exists(&self.root.join(QUEUE_DIR).join(item.file_name())).unwrap_or(false)
    }

    /// The live (unexpired) idempotency record of `key` at `now` (Unix
    /// seconds), if any: one bucket read.
    pub fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        let path = self.root.join(idempotency::bucket_rel(key));
        let Some(bytes) = self.read_bytes(&path)? else {
            return Ok(None);
        };
        let records = idempotency::parse(&bytes)
            .map_err(|n| Error::corrupt(&path, format!("line {n} is not an idempotency record")))?;
        Ok(idempotency::find(&records, key, now).cloned())
    }

    /// Every live idempotency record (for `store migrate`), bucket by bucket.
    pub fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
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

    /// Start a write transaction. Only a store opened for writing may write.
    pub fn begin(&self) -> JsonTx<'_> {
        assert_eq!(self.mode, Mode::Exclusive, "write on a read-locked store");
        JsonTx {
            store: self,
            ops: Vec::new(),
            puts: HashMap::new(),
            appends: HashMap::new(),
            customers: BTreeMap::new(),
            customer_order: Vec::new(),
            created: Default::default(),
            serialized: HashMap::new(),
            txns: BTreeMap::new(),
            txn_order: Vec::new(),
            new_profiles: Vec::new(),
            new_txns: Vec::new(),
            txn_moves: BTreeMap::new(),
            api: Default::default(),
            events: Vec::new(),
        }
    }
}

/// The key index in memory (see [`JsonStore::key_index`]).
pub struct JsonKeyIndex<'s> {
    store: &'s JsonStore,
    /// Each key's owners in the order of their lines.
    owners: HashMap<String, Vec<String>>,
}

impl JsonKeyIndex<'_> {
    /// What [`JsonStore::key_owner`] answers, without reading the index again.
    pub fn owner(&self, key: &str) -> Result<Option<String>> {
        let Some(owners) = self.owners.get(key) else {
            return Ok(None);
        };
        self.store
            .holder(key, owners.iter().rev().map(String::as_str))
    }
}
