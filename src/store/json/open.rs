use super::*;

impl JsonStore {
    /// A store on `root` holding `lock` (taken in `mode`), with nothing
    /// read through yet: no overlay, no group, its own journal state.
    fn locked(root: &safefs::Root, lock: lock::Lock, mode: Mode, wait: lock::Wait) -> JsonStore {
        JsonStore {
            root: root.clone(),
            lock,
            mode,
            wait,
            armed: Default::default(),
            overlay: None,
            group: None,
            journal: Default::default(),
            checking: false,
        }
    }

    /// Open the store at `root` with a shared (read) or exclusive (write) lock.
    /// A store that does not exist yet is created with `default_catalog()`;
    /// one of an earlier format is upgraded, after `upgrading(from)` is told.
    pub fn open(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        default_catalog: impl FnOnce() -> Catalog,
        upgrading: impl FnOnce(u32),
    ) -> Result<(JsonStore, Opened)> {
        Self::open_for(root, mode, wait, default_catalog, upgrading, false)
    }

    /// [`JsonStore::open`] for `store check`, the one command that opens a
    /// store whose rebuild was interrupted (to report it, and to finish it
    /// with `--repair`).
    pub fn open_to_check(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        default_catalog: impl FnOnce() -> Catalog,
        upgrading: impl FnOnce(u32),
    ) -> Result<(JsonStore, Opened)> {
        Self::open_for(root, mode, wait, default_catalog, upgrading, true)
    }

    fn open_for(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        default_catalog: impl FnOnce() -> Catalog,
        upgrading: impl FnOnce(u32),
        checking: bool,
    ) -> Result<(JsonStore, Opened)> {
        let wait = wait.into();
        let root = &safefs::Root::new(root);
        refuse_foreign(root)?;
        let initialized = safefs::exists(root, &root.join(META))?;
        if !initialized {
            atomic::ensure_dir(root, root.path())?;
        }
        let first = if initialized { mode } else { Mode::Exclusive };
        let journal = std::sync::Arc::new(journal::State::default());
        if initialized && first == Mode::Exclusive {
            journal::settle_ahead(root, &journal);
        }
        let lock = lock::Lock::acquire(root, first, &wait)?;
        let mut store = JsonStore::locked(root, lock, first, wait);
        store.journal = journal;
        store.checking = checking;
        let mut opened = Opened::Existing;
        let mut version = None;
        if initialized {
            version = Some(store.format_version()?);
        }
        // Before anything else: a journal may also be an `init`'s (the
        // catalog and the metadata are one commit). When there was none,
        // `meta.json` is as read above (the lock keeps writers out).
        if store.recover(mode)? {
            version = None;
        }
        let version = match version {
            Some(v) => v,
            None => {
                if !safefs::exists(&store.root, &store.root.join(META))? {
                    store.create(&default_catalog())?;
                    opened = Opened::Created;
                }
                store.format_version()?
            }
        };
        store.upgrade(version, upgrading)?;
        if store.mode != mode {
            store.lock.relock(mode, &store.wait)?;
            store.mode = mode;
        }
        Ok((store, opened))
    }

    /// Open the store at `root` for reading when one of this payctl's
    /// format is there, else `None`: nothing is created and nothing is
    /// upgraded (shell completion reads what exists and never makes a
    /// store; a store of an older format waits for a real command to
    /// upgrade it). A pending journal is completed or read through as
    /// [`JsonStore::open`] does for any reader.
    pub fn open_existing(root: &Path, wait: impl Into<lock::Wait>) -> Result<Option<JsonStore>> {
        let root = &safefs::Root::new(root);
        if !safefs::exists(root, &root.join(META))? {
            return Ok(None);
        }
        let wait = wait.into();
        let lock = lock::Lock::acquire(root, Mode::Shared, &wait)?;
        let mut store = JsonStore::locked(root, lock, Mode::Shared, wait);
        if store.format_version()? != FORMAT_VERSION {
            return Ok(None);
        }
        if store.recover(Mode::Shared)?
            && (!safefs::exists(&store.root, &store.root.join(META))?
                || store.format_version()? != FORMAT_VERSION)
        {
            return Ok(None);
        }
        if store.mode != Mode::Shared {
            store.lock.relock(Mode::Shared, &store.wait)?;
            store.mode = Mode::Shared;
        }
        Ok(Some(store))
    }

    /// Open again a store that this process opened before (`payctl serve`,
    /// once per request). The lock is taken as [`JsonStore::open`] takes it
    /// and a pending journal is completed (or read through) the same way, so
    /// the store shows every commit made before; but when its directory and
    /// `meta.json` are still the files `known` describes, the checks that
    /// depend on nothing else (a foreign directory, the format version, an
    /// upgrade, a first use) are not repeated. Otherwise it is opened in full
    /// and `known` updated; a store that was known and is gone (removed, or
    /// its `meta.json` is) is an error, never created anew.
    pub fn reopen(
        root: &Path,
        mode: Mode,
        wait: impl Into<lock::Wait>,
        known: &std::sync::Mutex<Option<Known>>,
        default_catalog: impl FnOnce() -> Catalog,
    ) -> Result<JsonStore> {
        let wait = wait.into();
        let was = *known.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(was) = was {
            let root = &safefs::Root::new(root);
            let lock = lock::Lock::acquire(root, mode, &wait)?;
            let mut store = JsonStore::locked(root, lock, mode, wait.clone());
            store.recover(mode)?;
            if store.known()? == Some(was) {
                return Ok(store);
            }
            if !safefs::exists(root, &root.join(META))? {
                return Err(Error::store(
                    code::STORE_UNREADABLE,
                    format!(
                        "the store at {} was removed or replaced by something that is not \
                         a store while this payctl used it: nothing was read or written",
                        root.display()
                    ),
                ));
            }
        }
        let (store, _) = JsonStore::open(root, mode, wait, default_catalog, |_| {})?;
        *known.lock().unwrap_or_else(|e| e.into_inner()) = store.known()?;
        Ok(store)
    }

    /// The stamps of `payctl.lock` before and after this writer marked
    /// itself inside (see [`lock::Lock::marked`]).
    pub fn writer_stamps(&self) -> Option<(lock::Stamp, lock::Stamp)> {
        self.lock.marked()
    }

    /// The identity of this open store (see [`Known`]); `None` without a
    /// `meta.json` (a reader of a pending journal that holds it).
    pub(super) fn known(&self) -> Result<Option<Known>> {
        let Some(dir) = self.lock.dir_id() else {
            return Ok(None);
        };
        let Some(st) = self.lock.lstat_entry(META)? else {
            return Ok(None);
        };
        Ok(Some(Known {
            dir,
            meta: (
                st.st_dev,
                st.st_ino,
                st.st_size as u64,
                st.st_mtime,
                st.st_mtime_nsec as i64,
            ),
        }))
    }

    /// The way out of an unreadable `journal.json` or `applied.json` (which
    /// every command, this one included, would otherwise refuse with 30002
    /// when it must replay them): under the exclusive lock, one that does not
    /// parse is renamed `<name>.corrupt-<UTC time>` beside it, and the new
    /// paths returned. One that parses is left to the ordinary recovery.
    /// Used by `store check --repair` only.
    pub fn set_aside_corrupt_journal(
        root: &Path,
        wait: impl Into<lock::Wait>,
    ) -> Result<Vec<PathBuf>> {
        let root = &safefs::Root::new(root);
        refuse_foreign(root)?;
        let names = [journal::JOURNAL, journal::APPLIED];
        if !safefs::exists(root, &root.join(META))? {
            return Ok(Vec::new());
        }
        let mut present = false;
        for name in names {
            present |= safefs::exists(root, &root.join(name))?;
        }
        if !present {
            return Ok(Vec::new());
        }
        let _lock = lock::Lock::acquire(root, Mode::Exclusive, &wait.into())?;
        let mut moved = Vec::new();
        for name in names {
            let path = root.join(name);
            let Some(bytes) = atomic::read_opt(root, &path)? else {
                continue;
            };
            if serde_json::from_slice::<journal::Journal>(&bytes).is_ok() {
                continue;
            }
            let aside = root.join(format!(
                "{name}.corrupt-{}",
                chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
            ));
            safefs::rename(root, &path, &aside)?;
            atomic::sync_dir(root, root.path())?;
            moved.push(aside);
        }
        Ok(moved)
    }

    /// Create a new store with `catalog`; refused when one exists at `root`.
    pub fn init(root: &Path, wait: impl Into<lock::Wait>, catalog: &Catalog) -> Result<JsonStore> {
        let wait = wait.into();
        let root = &safefs::Root::new(root);
        refuse_foreign(root)?;
        atomic::ensure_dir(root, root.path())?;
        let lock = lock::Lock::acquire(root, Mode::Exclusive, &wait)?;
        let mut store = JsonStore::locked(root, lock, Mode::Exclusive, wait);
        // A journal left by a killed init (or any writer) is finished first.
        store.recover(Mode::Exclusive)?;
        if safefs::exists(&store.root, &store.root.join(META))? {
            return Err(Error::one(
                code::INVALID_VALUE,
                format!("a store already exists at {}", root.display()),
            ));
        }
        store.create(catalog)?;
        Ok(store)
    }

    pub(super) fn create(&self, catalog: &Catalog) -> Result<()> {
        if !half_created(&self.root)? {
            return Err(not_a_store(&self.root));
        }
        atomic::restrict_dir(self.root.path())?;
        for d in [CUSTOMERS_DIR, TXNS_DIR, KEYS_DIR, QUEUE_DIR] {
            atomic::ensure_dir(&self.root, &self.root.join(d))?;
        }
        // The catalog and meta.json (whose presence marks a complete store)
        // in one commit: a crash leaves no store, or a store with this
        // catalog, never one that the next command fills with the built-in
        // catalog.
        let meta = Meta {
            format_version: FORMAT_VERSION,
            rebuilding: false,
        };
        let text = |b: Vec<u8>| String::from_utf8(b).expect("json is utf-8");
        let journal = Journal {
            ops: vec![
                Op::Put {
                    path: CATALOG.into(),
                    data: text(to_bytes(catalog)),
                },
                Op::Put {
                    path: META.into(),
                    data: text(to_bytes(&meta)),
                },
            ],
        };
        journal::commit_durable(&self.root, &journal, &self.journal)
    }

    /// The store's format version; refused when this payctl cannot read it.
    pub(super) fn format_version(&self) -> Result<u32> {
        let path = self.root.join(META);
        let meta: Meta = self
            .read_json(&path)?
            .ok_or_else(|| Error::corrupt(&path, "missing"))?;
        if meta.format_version > FORMAT_VERSION {
            return Err(Error::store(
                code::STORE_VERSION,
                format!(
                    "{} has format version {}, this payctl reads up to {FORMAT_VERSION}: upgrade payctl",
                    self.root.display(),
                    meta.format_version
                ),
            ));
        }
        if meta.format_version < 1 {
            return Err(Error::corrupt(&path, "unknown format version"));
        }
        if meta.rebuilding && !self.checking {
            return Err(rebuild::interrupted(&self.root));
        }
        Ok(meta.format_version)
    }

    pub(super) fn lock_exclusive(&mut self) -> Result<()> {
        if self.mode != Mode::Exclusive {
            self.lock.relock(Mode::Exclusive, &self.wait)?;
            self.mode = Mode::Exclusive;
        }
        Ok(())
    }

    /// Bring a store of an earlier format version to [`FORMAT_VERSION`] in
    /// one journaled commit (all or nothing), whatever command opened it.
    /// From 1: the key index is rebuilt in buckets and the files of the old
    /// one-file-per-key index are removed. From 1 or 2: the attachment index
    /// is built. From 1 to 6: the field indexes are built. All from the
    /// customer records. From 2, 3 or 4: the key buckets larger than
    /// [`keys::SPLIT_BYTES`] are split, from their own lines. From 1 to 5:
    /// the transaction indexes are built from the transaction records.
    /// Upgrade the store, whose `meta.json` says `version`, to
    /// [`FORMAT_VERSION`] (nothing to do when it is that already).
    pub(super) fn upgrade(&mut self, version: u32, upgrading: impl FnOnce(u32)) -> Result<()> {
        if version == FORMAT_VERSION {
            return Ok(());
        }
        self.lock_exclusive()?;
        // Another payctl may have upgraded it while this one waited for the lock.
        let version = self.format_version()?;
        if version == FORMAT_VERSION {
            return Ok(());
        }
        upgrading(version);
        // (From 7, only the version changes: no record is read.)
        let customers = if version < 7 {
            self.customer_facts()?
        } else {
            Vec::new()
        };
        let mut ops = Vec::new();
        if version < 2 {
            ops = self.key_index_ops(
                customers
                    .iter()
                    .map(|c| (c.summary.customer_key.as_str(), c.id())),
            )?;
        }
        if version < 3 {
            ops.push(Op::Put {
                path: ATTACHMENTS_LOG.into(),
                data: attachments::rebuild(
                    &[],
                    customers
                        .iter()
                        .flat_map(facts::CustomerFacts::attachment_rows),
                ),
            });
        }
        if version < 7 {
            // (Format 7: updates write removal lines; before it, the old
            // values of updated profiles stayed in the field indexes.)
            ops.extend(self.field_index_ops(&customers)?);
        }
        if (2..5).contains(&version) {
            for (rel, p) in keys::files(&self.root)? {
                let bytes =
                    atomic::read_opt(&self.root, &self.root.join(&rel))?.unwrap_or_default();
                if bytes.len() > keys::split_bytes() && p.len() <= keys::MAX_DEPTH {
                    let end = index::complete(&bytes).len();
                    ops.extend(keys::split(&p, &String::from_utf8_lossy(&bytes[..end])));
                }
            }
        }
        if version < 6 {
            let ordered = self.ordered_txn_summaries(self.readable_txn_summaries()?)?;
            ops.extend(self.txn_index_ops(&ordered)?);
        }
        if (10..13).contains(&version) {
            ops.extend(self.record_index_upgrade_ops()?);
        }
        let meta = Meta {
            format_version: FORMAT_VERSION,
            rebuilding: false,
        };
        ops.push(Op::Put {
            path: META.into(),
            data: String::from_utf8(to_bytes(&meta)).expect("json is utf-8"),
        });
        journal::commit_durable(&self.root, &Journal { ops }, &self.journal)
    }

    /// Finish a write that a killed process left half-applied, and remove the
    /// temp journal of one killed before its commit point (under a shared
    /// lock no writer is live, so a temp journal seen then is always stale;
    /// removing it here means any next command, a read too, leaves the store
    /// clean for `store check`).
    ///
    /// A reader (`wanted` shared) that cannot write the replay (a full disk,
    /// a failing device) reads through it instead: the files the journal
    /// changes are computed in memory ([`journal::overlay`]) and read from
    /// there, so reads work and see the committed change while nothing can
    /// be written. A writer gets the error: it could not write either.
    ///
    /// Whether there was anything to finish or read through (`false`: the
    /// store's files are as the last commit left them).
    pub(super) fn recover(&mut self, wanted: Mode) -> Result<bool> {
        // A restore (or reset) past its commit point is finished first: no
        // journal can be pending beside it (it settles them before).
        if self.lock.lstat_entry(snapshot::RESTORE)?.is_some() {
            self.lock_exclusive()?;
            snapshot::finish_restore(&self.root)?;
        }
        let journal = self.root.join(journal::JOURNAL);
        let temp = format!("{}{}", journal::JOURNAL, atomic::TEMP_SUFFIX);
        // Point commits' changes applied before the machine restarted may
        // not be on the disk: replayed like a journal (see
        // `journal::commit_applied`); this boot's are in the files already.
        if self.lock.lstat_entry(journal::JOURNAL)?.is_none()
            && self.lock.lstat_entry(&temp)?.is_none()
            && (self.lock.lstat_entry(journal::APPLIED)?.is_none()
                || !journal::applied_is_stale(&self.root)?)
        {
            return Ok(false);
        }
        let replayed = match self.lock_exclusive() {
            Ok(()) => self
                .clear_layout()
                .and_then(|()| journal::recover(&self.root).map(|_| ())),
            // A reader on a read-only file system, or in a store another
            // user owns, cannot replay either: it takes its shared lock
            // again and reads through the journal.
            Err(e) if wanted == Mode::Shared && read_through(&e) => {
                self.lock.relock(Mode::Shared, &self.wait)?;
                Err(e)
            }
            Err(e) => return Err(e),
        };
        match replayed {
            Ok(()) => Ok(true),
            Err(e) if wanted == Mode::Shared && read_through(&e) => {
                self.overlay = Some(journal::overlay(&self.root)?);
                let why = e.first_message();
                let why = why.split(" (while completing").next().unwrap_or_default();
                self.journal.outcomes.warn(format!(
                    "a change committed earlier is not completed on disk yet ({why}); \
                     this answer includes it, read from {} without writing anything",
                    journal.display()
                ));
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }
}
