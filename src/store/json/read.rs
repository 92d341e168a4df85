use super::*;

impl JsonStore {
    /// The content of `path` as this store shows it: from the overlay of
    /// a pending journal (see [`JsonStore::recover`]) when it names the file,
    /// else from the disk; `None` when it does not exist.
    pub(super) fn read_bytes(&self, path: &Path) -> Result<Option<Vec<u8>>> {
        if let Some(c) = self.overlaid(path)? {
            return Ok(c);
        }
        atomic::read_opt(&self.root, path)
    }

    /// The content of `path` as the open group's staged changes or the
    /// overlay of a pending journal leave it, when they name it.
    pub(super) fn overlaid(&self, path: &Path) -> Result<Option<Option<Vec<u8>>>> {
        let Some(rel) = path.strip_prefix(&self.root).ok().and_then(|r| r.to_str()) else {
            return Ok(None);
        };
        if let Some(group) = &self.group {
            return group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .read(&self.root, rel);
        }
        Ok(self.overlay.as_ref().and_then(|o| o.get(rel)).cloned())
    }

    /// Start staging this writer's commits for a group commit (see
    /// [`group::GroupCommit`]).
    pub(crate) fn start_group(&mut self) -> Result<()> {
        // The group's journal holds only its own changes: what point
        // commits left unsynced is made durable first.
        journal::finish_pending(&self.root)?;
        let pack = packs::group_pack(&self.root)?;
        self.group = Some(std::sync::Arc::new(group::Stage::new(pack)));
        Ok(())
    }

    /// The length of the complete lines of `rel` as committed, the open
    /// group's staged changes included.
    pub(super) fn committed_len(&self, rel: &str) -> Result<u64> {
        if let Some(group) = &self.group {
            return group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .known_len(rel, || {
                    index::complete_len(&self.root, &self.root.join(rel))
                });
        }
        index::complete_len(&self.root, &self.root.join(rel))
    }

    /// The operations that add the key index `lines` to their buckets (see
    /// [`keys::append_ops`]); in a group, with what it knows of the buckets
    /// (see `group::Staged::known_len`).
    pub(super) fn key_append_ops(&self, lines: &str) -> Result<Vec<journal::Op>> {
        let Some(group) = &self.group else {
            return keys::append_ops(&self.root, lines);
        };
        let mut staged = group.lock().unwrap_or_else(|e| e.into_inner());
        let mut places = std::mem::take(staged.key_places());
        let ops = keys::append_ops_with(&self.root, lines, &mut places, &mut |dirs, rel| {
            staged.known_len(rel, || index::complete_len_in(dirs, rel))
        });
        *staged.key_places() = places;
        ops
    }

    /// Commit `journal`, or stage it in the open group.
    pub(super) fn commit_journal(&self, journal: Journal) -> Result<()> {
        match &self.group {
            Some(group) => {
                group
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .stage(journal.ops);
                Ok(())
            }
            None => journal::commit(&self.root, &journal, &self.journal),
        }
    }

    /// A file or a link where a directory of derived data belongs would
    /// fail a replay (and so every command): it holds nothing, so a writer
    /// removes it before replaying, and `store check` then reports what the
    /// queue and the indexes miss.
    pub(super) fn clear_layout(&self) -> Result<()> {
        let dirs = ["index", KEYS_DIR, QUEUE_DIR]
            .into_iter()
            .chain(fields::Field::ALL.iter().map(|f| f.dir()))
            .chain(txn_index::dirs());
        for d in dirs {
            let p = self.root.join(d);
            if let Some(st) = safefs::lstat(&self.root, &p)?
                && rustix::fs::FileType::from_raw_mode(st.st_mode)
                    != rustix::fs::FileType::Directory
            {
                atomic::remove_file(&self.root, &p)?;
            }
        }
        Ok(())
    }

    /// Whether `index/profiles.ids` is there (a store written by an earlier
    /// payctl has only the summary log; then it is missing while the log is not
    /// empty).
    pub(super) fn profile_ids_built(&self) -> Result<bool> {
        let ids = self.root.join(PROFILE_IDS);
        if let Some(group) = &self.group
            && let Some(e) = group
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .exists(PROFILE_IDS)
        {
            return Ok(e);
        }
        if let Some(c) = self.overlaid(&ids)? {
            return Ok(c.is_some());
        }
        if safefs::exists(&self.root, &ids)? {
            return Ok(true);
        }
        let log = self.root.join(PROFILES_LOG);
        if let Some(c) = self.overlaid(&log)? {
            return Ok(index::complete(&c.unwrap_or_default()).is_empty());
        }
        Ok(index::complete_len(&self.root, &log)? == 0)
    }

    /// Build `index/profiles.ids` from the summary log when it is missing
    /// (a store written by an earlier payctl): call before building a
    /// transaction that creates customers ([`JsonTx::new_customer`] appends to
    /// it). A commit of its own; the store must be open for writing.
    pub fn ensure_profile_ids(&self) -> Result<()> {
        if self.profile_ids_built()? {
            return Ok(());
        }
        let mut data = String::new();
        for s in self.profiles()? {
            data.push_str(&index::id_record(&s.id));
        }
        let journal = Journal {
            ops: vec![Op::Put {
                path: PROFILE_IDS.into(),
                data,
            }],
        };
        self.commit_journal(journal)
    }

    pub(super) fn read_json<T: DeserializeOwned>(&self, path: &Path) -> Result<Option<T>> {
        let bytes = match self.overlaid(path)? {
            Some(c) => c,
            None => atomic::read_record(&self.root, path)?,
        };
        parse_record(path, bytes)
    }

    pub(crate) fn customer_rel(id: &str) -> String {
        format!("{CUSTOMERS_DIR}/{}/{id}.json", id::shard(id))
    }

    pub(crate) fn txn_rel(id: &str) -> String {
        format!("{TXNS_DIR}/{}/{id}.json", id::shard(id))
    }

    /// The customer `cid` from a pack (see [`packs`]), when it has no file
    /// of its own: its shard's log looked up, its entry read and checked.
    pub(super) fn packed_customer(&self, cid: &str) -> Result<Option<Customer>> {
        self.packed_customer_in(cid, None)
    }

    /// [`Self::packed_customer`], the log read in `shard` (the customer's
    /// shard directory, opened) when it is given.
    pub(super) fn packed_customer_in(
        &self,
        cid: &str,
        shard: Option<&safefs::Dir>,
    ) -> Result<Option<Customer>> {
        let log_path = self.root.join(packs::log_rel(cid));
        let log = match shard {
            Some(d) => packs::read_log(d)?,
            None => match self.overlaid(&log_path)? {
                Some(c) => c,
                None => safefs::read(&self.root, &log_path, Some(packs::LOG_BYTES))?,
            },
        };
        let Some(place) = log.as_deref().and_then(|l| packs::find(l, cid)) else {
            return Ok(None);
        };
        let pack_path = self.root.join(packs::pack_rel(place.pack));
        let missing = || {
            Error::corrupt(
                &log_path,
                format!("names pack {} for {cid}, which does not exist", place.pack),
            )
        };
        // A group's pack is read at the entry, not whole (its creates
        // append to it: see [`packs`]).
        if let Some(group) = &self.group {
            let rel = packs::pack_rel(place.pack);
            let staged = group.lock().unwrap_or_else(|e| e.into_inner()).read_at(
                &rel,
                place.offset,
                place.len,
            );
            if let Some(bytes) = staged {
                let bytes = bytes.ok_or_else(missing)?;
                let entry = packs::entry_at(&bytes, &pack_path, place)?;
                return packs::customer_of(entry, &pack_path, place, cid).map(Some);
            }
        }
        let overlaid = match &self.group {
            Some(_) => None,
            None => self.overlaid(&pack_path)?,
        };
        let c = match overlaid {
            Some(bytes) => {
                let bytes = bytes.ok_or_else(missing)?;
                let entry = packs::entry_in(&bytes, &pack_path, place)?;
                packs::customer_of(entry, &pack_path, place, cid)?
            }
            None => {
                let f = packs::open(&self.root, place.pack)?.ok_or_else(missing)?;
                let entry = packs::read_entry(&f, &pack_path, place)?;
                packs::customer_of(&entry, &pack_path, place, cid)?
            }
        };
        Ok(Some(c))
    }
}
