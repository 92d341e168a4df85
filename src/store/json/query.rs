use super::*;

impl JsonStore {
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
        index::read_log(&self.root, &path, |s: &ProfileSummary| &s.id)
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
        index::ids_count(&self.root, &path)
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
        index::ids_range(&self.root, &path, start, end)
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
        index::ids_position(&self.root, &path, cid)
    }

    /// Transaction summaries in creation order, each in its latest version.
    pub fn txns(&self) -> Result<Vec<TxnSummary>> {
        let path = self.root.join(TXNS_LOG);
        if let Some(c) = self.overlaid(&path)? {
            return index::read_log_bytes(&path, &c.unwrap_or_default(), |s: &TxnSummary| &s.id);
        }
        index::read_log(&self.root, &path, |s: &TxnSummary| &s.id)
    }

    /// The number of transactions (records of `index/transactions.ids`).
    pub fn txn_count(&self) -> Result<usize> {
        let path = self.root.join(txn_index::TXN_IDS);
        if let Some(c) = self.overlaid(&path)? {
            return Ok(c.map_or(0, |c| c.len() / index::ID_RECORD));
        }
        index::ids_count(&self.root, &path)
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
        index::ids_position(&self.root, &path, tid)
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
                None => index::ids_range(&self.root, &path, p, p + 1)?,
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
        let Some(dir) = safefs::Dir::open(&self.root, &self.root.join(parent), false)? else {
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
            head: None,
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
