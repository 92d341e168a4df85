//! The derived data against the records, as `store check` compares them:
//! the key index, the attachment index, the summary logs, the creation-order
//! ids file, the field indexes and the worker's queue (the transaction
//! indexes are in `txn_indexes.rs`).

use super::*;

impl Store {
    /// Compare the derived data with what the aggregates say; true when a
    /// rebuild is needed. Memory: the digests of the scan, and per index one
    /// hash or two per entry; the logs and buckets are streamed.
    pub(super) fn derived_findings(
        &self,
        scan: &Scan,
        holders: HashIndex,
        positions: Option<Vec<(u64, u32)>>,
        field_found: Vec<Finding>,
        field_nested: Vec<Finding>,
        f: &mut Vec<Finding>,
    ) -> Result<bool> {
        let before = f.len();
        let root = &self.root;
        // The summary log of the profiles (a line each) is read by a thread
        // of its own while this one reads the key and attachment indexes:
        // at a million customers each took a second or more of one core.
        let profiles_log = {
            let (root, n) = (root.clone(), scan.customers.len());
            std::thread::spawn(move || {
                stream_log::<ProfileSummary>(&root, &root.join(PROFILES_LOG), n, |s| &s.id)
            })
        };
        let mut push = |path: &str, problem: String| {
            f.push(Finding {
                path: path.to_string(),
                problem,
                repairable: true,
            })
        };
        // Key index: every bucket parses, every customer's key names it,
        // every entry names a customer that holds the key.
        let mut nested = Vec::new();
        let mut key_files = Vec::new();
        walk(&root.join(KEYS_DIR), &mut key_files)?;
        key_files.sort();
        let keys_root = root.join(KEYS_DIR);
        // The bucket files, by hash prefix: a file below another that
        // exists is never read (readers stop at the first file on a key's path).
        let buckets: BTreeSet<Vec<u8>> = key_files
            .iter()
            .filter(|p| !atomic::is_temp(p))
            .filter_map(|p| p.strip_prefix(&keys_root).ok()?.to_str())
            .filter_map(keys::prefix_of_rel)
            .collect();
        let holder = |k: u64| holders.get(k);
        let mut listed = vec![false; scan.customers.len()];
        // Entries naming a customer that is not the key's holder: (key hash,
        // owner), and where they are.
        let mut others: BTreeSet<(u64, String)> = BTreeSet::new();
        let mut dangling: Vec<(String, String)> = Vec::new();
        let mut dangling_count = 0usize;
        for p in key_files.iter().filter(|p| !atomic::is_temp(p)) {
            let r = rel(root, p);
            let under = p
                .strip_prefix(&keys_root)
                .ok()
                .and_then(|u| u.to_str())
                .unwrap_or("");
            let Some(prefix) = keys::prefix_of_rel(under) else {
                if p.parent() != Some(&keys_root) {
                    // Repair removes files, never a directory and what it holds.
                    nested.push(Finding {
                        path: r,
                        problem: "is in a directory of its own under the key index: remove it"
                            .into(),
                        repairable: false,
                    });
                } else {
                    push(&r, "is not a bucket of the key index (`<bb>.log`)".into());
                }
                continue;
            };
            if let Some(above) = (1..prefix.len()).find(|&n| buckets.contains(&prefix[..n])) {
                push(
                    &r,
                    format!(
                        "is below the bucket {}, which readers read instead (a split left unfinished)",
                        keys::prefix_path(&prefix[..above])
                    ),
                );
                continue;
            }
            // (A link or a FIFO here is a finding of the scan.)
            let Ok(Some(bytes)) = atomic::read_opt(root, p) else {
                push(&r, "cannot be read as a bucket of the key index".into());
                continue;
            };
            let parsed = keys::parse_bucket(&prefix, &bytes);
            for problem in parsed.problems {
                push(&r, problem);
            }
            for (key, owner) in parsed.entries {
                let k = h64(key.as_str());
                match holder(k) {
                    Some(i) if *scan.customers.get(i as usize).0 == *owner => {
                        listed[i as usize] = true
                    }
                    _ => {
                        others.insert((k, owner.clone()));
                        dangling_count += 1;
                        if dangling.len() < UNLISTED_SHOWN {
                            dangling.push((r.clone(), owner));
                        }
                    }
                }
            }
        }
        let mut unlisted = 0usize;
        for ((id, c), listed) in scan.customers.iter().zip(&listed) {
            if !listed && !others.contains(&(c.key, id.to_string())) {
                unlisted += 1;
                if unlisted > UNLISTED_SHOWN {
                    continue;
                }
                let depth = (0..=keys::MAX_DEPTH)
                    .find(|&d| buckets.contains(&c.key_prefix[..=d]))
                    .unwrap_or(0);
                push(
                    &keys::prefix_path(&c.key_prefix[..=depth]),
                    format!("customer_key of {id} is missing from the key index"),
                );
            }
        }
        if unlisted > UNLISTED_SHOWN {
            push(
                KEYS_DIR,
                format!(
                    "the customer_key of {} more customers is missing from the key index",
                    unlisted - UNLISTED_SHOWN
                ),
            );
        }
        drop((holders, listed, others));
        dangling.sort();
        for (path, owner) in dangling {
            push(
                &path,
                format!(
                    "dangling key index entry (points to {owner}, which does not hold the key)"
                ),
            );
        }
        if dangling_count > UNLISTED_SHOWN {
            push(
                KEYS_DIR,
                format!(
                    "{} more key index entries point to a customer that does not hold the key",
                    dangling_count - UNLISTED_SHOWN
                ),
            );
        }
        // Attachment index: each profile-program record listed, nothing else.
        self.attachment_findings(&scan.attached, &mut push)?;
        // The summary logs end with a complete line: a torn or zero-filled
        // tail would be cut silently by the next append.
        for log in [PROFILES_LOG, TXNS_LOG] {
            let p = root.join(log);
            let len = match super::safefs::open(root, &p, super::safefs::How::READ) {
                Ok(Some(file)) => file.metadata().map(|m| m.len()).unwrap_or(0),
                _ => continue,
            };
            let complete = index::complete_len(root, &p).unwrap_or(len);
            if complete != len {
                push(
                    log,
                    format!(
                        "ends with {} bytes after its last complete line (a torn or zero-filled tail)",
                        len - complete
                    ),
                );
            }
        }
        // Profile summaries: the latest line of each id, in the order of
        // first appearance (creation order).
        let mut known: Vec<u64> = {
            let mut k: Vec<u64> = scan.customers.iter().map(|(id, _)| h64(&*id)).collect();
            k.sort_unstable();
            k
        };
        let known_len = known.len();
        let log_order: Option<Vec<u64>> = match profiles_log
            .join()
            .unwrap_or_else(|_| Err("could not be read (its reading thread failed)".into()))
        {
            Ok((latest, order)) => {
                if latest.len() != scan.customers.len()
                    || scan
                        .customers
                        .iter()
                        .any(|(id, c)| latest.get(&h64(&*id)) != Some(&c.summary))
                {
                    push(
                        PROFILES_LOG,
                        "does not agree with the customer records".into(),
                    );
                }
                Some(order)
            }
            Err(e) => {
                push(PROFILES_LOG, e);
                None
            }
        };
        // Creation order: the ids file lists every customer once, in the
        // order of the summary log.
        let ids_path = root.join(PROFILE_IDS);
        let len = fs::metadata(&ids_path).map(|m| m.len()).unwrap_or(0);
        match positions {
            None => {
                let e = index::ids_all(root, &ids_path).err().map_or_else(
                    || "cannot be read".to_string(),
                    |e| e.errors[0].message.clone(),
                );
                push(PROFILE_IDS, e);
            }
            Some(_) if !len.is_multiple_of(index::ID_RECORD as u64) => {
                push(PROFILE_IDS, "ends with a partial record".into())
            }
            Some(mut ids) => {
                let distinct = ids.windows(2).all(|w| w[0].0 != w[1].0);
                // (Both sorted by hash: the ids file lists each customer
                // once when they are the same hashes.)
                if ids.len() != known_len
                    || !distinct
                    || ids.iter().map(|(h, _)| h).ne(known.iter())
                {
                    push(
                        PROFILE_IDS,
                        format!(
                            "does not list each of the {} customer records once",
                            known_len
                        ),
                    );
                } else if let Some(log) = log_order {
                    ids.sort_unstable_by_key(|(_, pos)| *pos);
                    let known = Hashes::new(std::mem::take(&mut known));
                    if log
                        .iter()
                        .filter(|&&h| known.contains(h))
                        .ne(ids.iter().map(|(h, _)| h))
                    {
                        push(
                            PROFILE_IDS,
                            "does not list the profiles in the creation order of the summary log"
                                .into(),
                        );
                    }
                }
            }
        }
        drop(known);
        let mut txn_log_agrees = false;
        match stream_log::<TxnSummary>(root, &root.join(TXNS_LOG), scan.txns.len(), |s| &s.id) {
            Ok((latest, _)) => {
                if latest.len() != scan.txns.len()
                    || scan
                        .txns
                        .iter()
                        .any(|t| latest.get(&t.id) != Some(&t.summary))
                {
                    push(
                        TXNS_LOG,
                        "does not agree with the transaction records".into(),
                    );
                } else {
                    txn_log_agrees = true;
                }
            }
            Err(e) => push(TXNS_LOG, e),
        }
        // Field indexes: every bucket parses, every customer's current
        // values are there at its position in creation order (checked as
        // the records were read), every entry names a customer at that
        // position, and there are no more entries than current values.
        f.extend(field_found);
        f.extend(scan.field_missing.iter().cloned());
        if scan.field_missing_count > scan.field_missing.len() {
            f.push(Finding {
                path: "index/by-*".into(),
                problem: format!(
                    "{} more values of profiles are missing from the field indexes",
                    scan.field_missing_count - scan.field_missing.len()
                ),
                repairable: true,
            });
        }
        f.extend(self.txn_index_findings(txn_log_agrees)?);
        let mut push = |path: &str, problem: String| {
            f.push(Finding {
                path: path.to_string(),
                problem,
                repairable: true,
            })
        };
        // The worker's queue: exactly the pending work.
        // (A queue that is not a directory is a finding of the scan.)
        let queued: BTreeSet<String> = self
            .queue()
            .unwrap_or_default()
            .iter()
            .map(QueueItem::key)
            .collect();
        for k in scan.pending.difference(&queued) {
            push(
                QUEUE_DIR,
                format!("pending work {k} is not queued for the worker"),
            );
        }
        for k in queued.difference(&scan.pending) {
            push(
                QUEUE_DIR,
                format!("queue item {k} refers to no pending work"),
            );
        }
        let rebuild = f.len() != before;
        f.extend(nested);
        f.extend(field_nested);
        Ok(rebuild)
    }

    /// The attachment index against the records: each profile-program
    /// record listed (in any order; a line twice does no harm), and nothing
    /// else. `want` is the records' pairs as [`attachment_hash`], sorted.
    ///
    /// The pairs are compared as hashes, 8 bytes a side, never as text (a
    /// million attachments were a few hundred MB as sets of strings). Only
    /// when they differ are the pairs named: those the log lists too many of
    /// by a second read of the log, those it lacks by a second read of the
    /// customer records (a repair reads them all again anyway).
    fn attachment_findings(&self, want: &[u64], push: &mut dyn FnMut(&str, String)) -> Result<()> {
        let path = self.root.join(ATTACHMENTS_LOG);
        let mut have = Vec::new();
        let mut bad = None;
        let mut n = 0usize;
        let read = each_complete_line(&self.root, &path, &mut |line| {
            n += 1;
            if line.is_empty() || bad.is_some() {
                return Ok(());
            }
            match attachments::parse(line) {
                Some((prm, csp)) => have.push(attachment_hash(prm, csp)),
                None => bad = Some(n),
            }
            Ok(())
        });
        let partial = match read {
            Ok(partial) => partial.unwrap_or(false),
            Err(e) => {
                push(ATTACHMENTS_LOG, e.errors[0].message.clone());
                return Ok(());
            }
        };
        if let Some(n) = bad {
            push(
                ATTACHMENTS_LOG,
                format!("line {n} is not `<program id> <customer id>`"),
            );
            return Ok(());
        }
        if partial {
            push(ATTACHMENTS_LOG, "ends with a partial line".into());
        }
        have.sort_unstable();
        have.dedup();
        let missing: std::collections::HashSet<u64> = want
            .iter()
            .filter(|h| have.binary_search(h).is_err())
            .copied()
            .collect();
        let extra: std::collections::HashSet<u64> = have
            .iter()
            .filter(|h| want.binary_search(h).is_err())
            .copied()
            .collect();
        drop(have);
        // The first pairs in (program, customer) order, the rest counted.
        let keep = |named: &mut BTreeSet<(String, String)>, prm: &str, csp: &str| {
            named.insert((prm.to_string(), csp.to_string()));
            if named.len() > ATTACHMENTS_SHOWN {
                named.pop_last();
            }
        };
        if !missing.is_empty() {
            let mut named = BTreeSet::new();
            self.each_readable_customer(|c| {
                for a in &c.attachments {
                    if missing.contains(&attachment_hash(&a.program_id, c.id())) {
                        keep(&mut named, &a.program_id, c.id());
                    }
                }
            })?;
            for (prm, csp) in &named {
                push(
                    ATTACHMENTS_LOG,
                    format!("the record of {csp} in {prm} is missing from the attachment index"),
                );
            }
            if missing.len() > named.len() {
                push(
                    ATTACHMENTS_LOG,
                    format!(
                        "{} more profile-program records are missing from the attachment index",
                        missing.len() - named.len()
                    ),
                );
            }
        }
        if !extra.is_empty() {
            let mut named = BTreeSet::new();
            each_complete_line(&self.root, &path, &mut |line| {
                if let Some((prm, csp)) = attachments::parse(line)
                    && extra.contains(&attachment_hash(prm, csp))
                {
                    keep(&mut named, prm, csp);
                }
                Ok(())
            })?;
            for (prm, csp) in &named {
                push(
                    ATTACHMENTS_LOG,
                    format!("lists {csp} in {prm}, which has no such record"),
                );
            }
            if extra.len() > named.len() {
                push(
                    ATTACHMENTS_LOG,
                    format!(
                        "lists {} more profile-program records that no customer holds",
                        extra.len() - named.len()
                    ),
                );
            }
        }
        Ok(())
    }
}
