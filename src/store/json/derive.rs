use super::commit::put_paths;
use super::*;

impl JsonStore {
    /// What the indexes hold of every customer record that parses (`store
    /// check` reports the others), the records read one at a time: what an
    /// upgrade and a repair rebuild the indexes from.
    pub(crate) fn customer_facts(&self) -> Result<Vec<facts::CustomerFacts>> {
        let mut out = Vec::new();
        self.each_readable_customer(|c| out.push(facts::CustomerFacts::of(&c)))?;
        Ok(out)
    }

    /// Call `f` with every customer record that parses, one at a time.
    pub(super) fn each_readable_customer(&self, f: impl FnMut(Customer)) -> Result<()> {
        self.each_readable_record(CUSTOMERS_DIR, Customer::id, f)
    }

    /// Call `f` with every record of `dir` (`customers`, `transactions`)
    /// that parses as a `T`, one at a time, shard by shard: each shard is
    /// opened once and its records read from it (`openat`), not walked to
    /// from the store's root one by one. In `customers`, then the packed
    /// records of the shard that have no file of their own (see [`packs`]),
    /// those whose entry holds the customer (`id_of`) its log names.
    pub(crate) fn each_readable_record<T: DeserializeOwned>(
        &self,
        dir: &str,
        id_of: fn(&T) -> &str,
        mut f: impl FnMut(T),
    ) -> Result<()> {
        let shards = safefs::list(&self.root, &self.root.join(dir))?.unwrap_or_default();
        let mut opened = packs::Opened::default();
        for (name, t) in shards {
            if t != rustix::fs::FileType::Directory {
                continue;
            }
            let shard = self.root.join(dir).join(name);
            let Some(d) = safefs::Dir::open(&self.root, &shard, false)? else {
                continue;
            };
            let names = d.names()?;
            for name in &names {
                let file = shard.join(name);
                if atomic::is_temp(&file) || file.extension().is_none_or(|e| e != "json") {
                    continue;
                }
                let Ok(Some(bytes)) = d.read(name, Some(atomic::RECORD_BYTES)) else {
                    continue;
                };
                if let Ok(r) = serde_json::from_slice::<T>(&bytes) {
                    f(r);
                }
            }
            if dir != CUSTOMERS_DIR {
                continue;
            }
            let Ok(Some(log)) = packs::read_log(&d) else {
                continue;
            };
            let own: std::collections::HashSet<&std::ffi::OsStr> =
                names.iter().map(|n| n.as_os_str()).collect();
            for (_, entry) in packs::log_lines(&log) {
                let Some((cid, place)) = entry else {
                    continue;
                };
                if own.contains(std::ffi::OsStr::new(&format!("{cid}.json"))) {
                    continue;
                }
                if let Ok(bytes) = opened.read(&self.root, place)
                    && let Ok(r) = serde_json::from_slice::<T>(&bytes)
                    && id_of(&r) == cid
                {
                    f(r);
                }
            }
        }
        Ok(())
    }

    /// The operations that make the key index exactly `pairs` of
    /// `(customer_key, id)`: a put of each bucket that holds a key, a delete
    /// of every other file under `index/keys`.
    pub(crate) fn key_index_ops<'a>(
        &self,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Vec<Op>> {
        let mut ops = keys::rebuild(pairs);
        let kept = put_paths(&ops);
        for file in list_dir(&self.root, &self.root.join(KEYS_DIR))? {
            // A directory, or a name that is not UTF-8, is not ours to remove
            // (store check names it).
            let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            if file.is_dir() {
                continue;
            }
            let rel = format!("{KEYS_DIR}/{name}");
            if !kept.contains(&rel) {
                ops.push(Op::Delete { path: rel });
            }
        }
        // The buckets of the levels below (those of the first level are
        // all among the files above).
        for (rel, p) in keys::files(&self.root)? {
            if p.len() > 1 && !kept.contains(&rel) {
                ops.push(Op::Delete { path: rel });
            }
        }
        Ok(ops)
    }

    /// The operations that make the field indexes exactly those of
    /// `customers`, in the creation order of the summary log (the order of
    /// `index/profiles.ids`; customers the log lacks come last, by id):
    /// a put of each bucket that holds a value, a delete of every other
    /// file in the fields' directories.
    pub(crate) fn field_index_ops(&self, customers: &[facts::CustomerFacts]) -> Result<Vec<Op>> {
        let order: HashMap<String, usize> = self
            .profiles()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.id, i))
            .collect();
        let mut sorted: Vec<&facts::CustomerFacts> = customers.iter().collect();
        sorted.sort_by(|a, b| {
            let key = |c: &facts::CustomerFacts| {
                (
                    order.get(c.id()).copied().unwrap_or(usize::MAX),
                    c.id().to_string(),
                )
            };
            key(a).cmp(&key(b))
        });
        let summaries: Vec<ProfileSummary> = sorted.iter().map(|c| c.summary.clone()).collect();
        self.field_ops_of(&summaries)
    }

    /// [`Store::field_index_ops`] of summaries already in creation order.
    pub(crate) fn field_ops_of(&self, ordered: &[ProfileSummary]) -> Result<Vec<Op>> {
        let mut ops = fields::rebuild(ordered);
        let kept = put_paths(&ops);
        for field in fields::Field::ALL {
            for file in list_dir(&self.root, &self.root.join(field.dir()))? {
                let Some(name) = file.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                if file.is_dir() {
                    continue;
                }
                let rel = format!("{}/{name}", field.dir());
                if !kept.contains(&rel) {
                    ops.push(Op::Delete { path: rel });
                }
            }
        }
        Ok(ops)
    }

    /// The summaries of the transactions `txns` in creation order: the
    /// order of the summary log, then those it lacks by creation time and id.
    pub(crate) fn ordered_txn_summaries(
        &self,
        txns: Vec<(String, TxnSummary)>,
    ) -> Result<Vec<TxnSummary>> {
        let order: HashMap<String, usize> = self
            .txns()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, s)| (s.id, i))
            .collect();
        let mut keyed: Vec<((usize, String, String), TxnSummary)> = txns
            .into_iter()
            .map(|(created, s)| {
                let at = order.get(&s.id).copied().unwrap_or(usize::MAX);
                ((at, created, s.id.clone()), s)
            })
            .collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(keyed.into_iter().map(|(_, s)| s).collect())
    }

    /// The operations that make the transaction indexes exactly those of
    /// `ordered` (in creation order): a put of each file that holds an
    /// entry, a delete of every other file under their directories.
    pub(crate) fn txn_index_ops(&self, ordered: &[TxnSummary]) -> Result<Vec<Op>> {
        let mut ops = txn_index::rebuild_ops(ordered);
        let kept = put_paths(&ops);
        for dir in txn_index::dirs() {
            for rel in derived_files(&self.root, dir)? {
                if !kept.contains(&rel) {
                    ops.push(Op::Delete { path: rel });
                }
            }
        }
        Ok(ops)
    }
}
