use super::*;

impl JsonTx<'_> {
    /// Fix what the commit depends on in the store as it is now (the
    /// index lines the aggregates call for, the length of each appended
    /// file), leaving the serializing and writing to
    /// [`JsonPrepared::commit`], which may run on another thread while the next
    /// transaction is built. The next transaction must be prepared only
    /// after this one's commit returned.
    pub fn prepare(mut self) -> Result<JsonPrepared> {
        // The lengths below are of files as a finished commit left them (in
        // a group commit, the journal is the group's: its changes are read
        // from what it staged, and applied at its checkpoint).
        if self.store.group.is_none() {
            journal::recover_pending(&self.store.root)?;
        }
        self.stage_api_keys();
        self.stage_events()?;
        self.derive()?;
        self.prepare_txn_index()?;
        if !self.new_profiles.is_empty() {
            // A store written by an earlier payctl gets its
            // `index/profiles.ids` first (a commit of its own).
            self.store.ensure_profile_ids()?;
            // Their places in creation order follow the profiles already
            // listed in `index/profiles.ids`, as committed now.
            let first = self.store.committed_len(PROFILE_IDS)? as usize / index::ID_RECORD;
            for (i, s) in std::mem::take(&mut self.new_profiles).iter().enumerate() {
                for field in fields::Field::ALL {
                    for v in field.values(s) {
                        self.append(
                            &fields::bucket_rel(field, &v),
                            &fields::line(first + i, &s.id, &v),
                        )?;
                    }
                }
            }
        }
        // Key index lines go to their key's bucket as the store is now,
        // splitting a full one (see [`keys`]).
        let mut key_lines = String::new();
        for slot in self.ops.iter_mut() {
            if let Some(Op::Append { path, data, .. }) = slot
                && path.starts_with(KEYS_DIR)
            {
                key_lines.push_str(data);
                *slot = None;
            }
        }
        // In a group commit, where a key's bucket is comes from the files
        // on disk: a split the group staged is first committed and applied
        // with the group's changes so far (before it, a key would go to the
        // bucket the split removes), and so is a bucket the group appended
        // to that would now be split, before any length below is taken.
        if let Some(stage) = &self.store.group
            && !key_lines.is_empty()
        {
            let split = !stage
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .applies_beside_writes();
            if split {
                self.store.flush_group()?;
            }
            let trial = self.store.key_append_ops(&key_lines)?;
            let mut flush = false;
            for op in &trial {
                flush |= match op {
                    Op::Append { path, data, .. } => {
                        self.store.committed_len(path)? as usize + data.len() > keys::split_bytes()
                    }
                    _ => true,
                };
            }
            if flush {
                self.store.flush_group()?;
            }
        }
        let mut dirs = safefs::Dirs::new(&self.store.root);
        for op in self.ops.iter_mut().flatten() {
            if let Op::Append { path, base_len, .. } = op {
                *base_len = match &self.store.group {
                    // (Measured once a group: see `Staged::known_len`.)
                    Some(stage) => stage
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .known_len(path, || index::complete_len_in(&mut dirs, path))?,
                    None => index::complete_len_in(&mut dirs, path)?,
                };
            }
        }
        if !key_lines.is_empty() {
            self.ops
                .extend(self.store.key_append_ops(&key_lines)?.into_iter().map(Some));
        }
        // Many new customers go into one pack; a group commit's creates
        // are appended to its pack (see [`packs`]).
        let pack = match &self.store.group {
            None if self.created.len() >= fault::pack_min(packs::PACK_MIN) => {
                let plan = packs::Plan::new(&mut dirs, self.created.iter().map(String::as_str))?;
                Some((plan, std::mem::take(&mut self.created)))
            }
            Some(stage) if !self.created.is_empty() => {
                let mut pack = stage.pack();
                let mut pack_base = self.store.committed_len(&packs::pack_rel(pack))?;
                if pack_base >= packs::group_pack_bytes() {
                    pack = stage.next_pack();
                    pack_base = self.store.committed_len(&packs::pack_rel(pack))?;
                }
                let mut bases = HashMap::new();
                let mut staged = stage.lock().unwrap_or_else(|e| e.into_inner());
                for cid in &self.created {
                    let rel = packs::log_rel(cid);
                    if let std::collections::hash_map::Entry::Vacant(e) = bases.entry(rel) {
                        let n = staged
                            .known_len(e.key(), || index::complete_len_in(&mut dirs, e.key()))?;
                        e.insert(n);
                    }
                }
                drop(staged);
                let plan = packs::Plan {
                    pack,
                    bases,
                    pack_base: Some(pack_base),
                };
                Some((plan, std::mem::take(&mut self.created)))
            }
            _ => None,
        };
        Ok(JsonPrepared {
            group: self.store.group.clone(),
            root: self.store.root.clone(),
            journal: self.store.journal.clone(),
            ops: std::mem::take(&mut self.ops),
            customers: std::mem::take(&mut self.customers),
            serialized: std::mem::take(&mut self.serialized),
            txns: std::mem::take(&mut self.txns),
            pack,
            head: self.head.take(),
        })
    }
}

/// A write transaction ready to commit (see [`JsonTx::prepare`]).
pub struct JsonPrepared {
    /// The open group that the commit stages into, if any.
    pub(super) group: Option<std::sync::Arc<group::Stage>>,
    pub(super) root: safefs::Root,
    /// The store's (see [`journal::State`]).
    pub(super) journal: std::sync::Arc<journal::State>,
    pub(super) ops: Vec<Option<Op>>,
    pub(super) customers: BTreeMap<String, Customer>,
    /// See [`JsonTx::new_customer_serialized`].
    pub(super) serialized: HashMap<String, String>,
    pub(super) txns: BTreeMap<String, TxnFile>,
    /// Where the new customers are packed, and which they are (see
    /// [`packs`]); `None`: each gets its file.
    pub(super) pack: Option<(packs::Plan, std::collections::HashSet<String>)>,
    /// See [`JsonTx::head`].
    pub(super) head: Option<(u64, String)>,
}

impl JsonPrepared {
    /// Apply everything durably; on return the change is on disk.
    pub fn commit(self) -> Result<()> {
        let mut ops: Vec<Op> = self.ops.into_iter().flatten().collect();
        // The aggregates last (no other put names their paths).
        ops.reserve(self.customers.len() + self.txns.len());
        let mut packed = Vec::new();
        let mut serialized = self.serialized;
        for (id, c) in &self.customers {
            match &self.pack {
                Some((_, new)) if new.contains(id) => {
                    let json = match serialized.remove(id) {
                        Some(json) => json,
                        None => serde_json::to_string(c).expect("records serialize"),
                    };
                    if json.len() as u64 >= atomic::RECORD_BYTES {
                        return Err(too_large(&JsonStore::customer_rel(id), json.len()));
                    }
                    packed.push((id.as_str(), json));
                }
                _ => ops.push(journal::put_json(JsonStore::customer_rel(id), c)),
            }
        }
        if let Some((plan, _)) = &self.pack {
            ops.extend(plan.ops(packed.iter().map(|(id, json)| (*id, json.as_str()))));
        }
        for (id, t) in &self.txns {
            ops.push(journal::put_json(JsonStore::txn_rel(id), t));
        }
        // Never write a record that reads would refuse (before the commit
        // point: nothing changes).
        for op in &ops {
            if let Op::PutJson { path, json } = op
                && json.get().len() as u64 >= atomic::RECORD_BYTES
            {
                return Err(too_large(path, json.get().len()));
            }
        }
        if let Some(group) = &self.group {
            let mut staged = group.lock().unwrap_or_else(|e| e.into_inner());
            staged.check()?;
            staged.stage(ops);
            if let Some(head) = self.head {
                staged.set_events_head(head);
            }
            return Ok(());
        }
        journal::commit(&self.root, &Journal { ops }, &self.journal)
    }
}

/// A record of `len` bytes, too large to be written at `path`.
fn too_large(path: &str, len: usize) -> Error {
    Error::one(
        code::INVALID_VALUE,
        format!(
            "{path} would be {len} bytes, above the limit of {} bytes for a record file: nothing was written",
            atomic::RECORD_BYTES
        ),
    )
}

/// The paths that `ops` put: what a rebuild keeps of an index directory.
pub(super) fn put_paths(ops: &[Op]) -> std::collections::HashSet<String> {
    ops.iter()
        .filter_map(|op| match op {
            Op::Put { path, .. } => Some(path.clone()),
            _ => None,
        })
        .collect()
}
