//! A regular file of the store read: a temp file noted, a pack listed, a
//! record parsed, checked on its own and digested.

use super::*;

/// Read one regular file of the store: a temp file is noted, a record
/// parsed, checked on its own and digested.
pub(super) fn read_file(
    sh: &Shared,
    p: PathBuf,
    at: Option<(&safefs::Dir, &OsStr)>,
    part: &mut Part,
) {
    let root = sh.root;
    let read_record = |p: &Path| match at {
        Some((dir, name)) => dir.read(name, Some(atomic::RECORD_BYTES)),
        None => atomic::read_record(root, p),
    };
    let r = rel(root, &p);
    let finding = |problem: String, repairable: bool| Finding {
        path: r.clone(),
        problem,
        repairable,
    };
    if atomic::is_temp(&p) {
        part.findings.push(finding(
            "stray temp file left by an interrupted write".into(),
            true,
        ));
        part.temps.push(p);
        return;
    }
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = name.strip_suffix(".json").unwrap_or(name).to_string();
    if let Some(n) = r.strip_prefix(&format!("{}/", packs::PACKS_DIR)) {
        // Read entry by entry through the logs (see `scan_packed`).
        match (packs::pack_of_name(n), safefs::lstat(root, &p)) {
            (Some(n), Ok(Some(st))) => part.packs.push((n, st.st_size.max(0) as u64)),
            (Some(_), _) => {}
            (None, _) => part.findings.push(finding(
                "is not a pack of customer records (`<n>.jsonl`): move it out of the store".into(),
                false,
            )),
        }
    } else if r.starts_with(CUSTOMERS_DIR) {
        let read = read_record(&p);
        if let Some(c) = record_of::<Customer>(
            read,
            &r,
            &stem,
            Customer::id,
            Store::customer_rel,
            "a customer",
            part,
        ) {
            digest_customer(sh, &c, part);
        }
    } else if r.starts_with(TXNS_DIR) {
        let read = read_record(&p);
        if let Some(t) = record_of::<TxnFile>(
            read,
            &r,
            &stem,
            |t| &t.transaction.transaction_id,
            Store::txn_rel,
            "a transaction",
            part,
        ) {
            txn_invariants(&t, sh.catalog, &mut part.invariants);
            part.last_event.see(t.last_event, || r.clone());
            if is_open(&t) {
                part.pending
                    .push(format!("trn.{}", t.transaction.transaction_id));
            }
            part.txns.push(TxnDigest {
                id: h64(t.transaction.transaction_id.as_str()),
                summary: h64(&TxnSummary::of(&t)),
            });
        }
    }
}

/// The record file at `r` (its name's stem `stem`), read as `read`, parsed
/// as `what` (a `T`): `None`, with a finding and the file noted unreadable,
/// when it cannot be read, does not parse, or holds a record whose id
/// (`id_of`) is not the one its path (`rel_of`) names.
#[allow(clippy::too_many_arguments)]
fn record_of<T: serde::de::DeserializeOwned>(
    read: Result<Option<Vec<u8>>>,
    r: &str,
    stem: &str,
    id_of: fn(&T) -> &str,
    rel_of: fn(&str) -> String,
    what: &str,
    part: &mut Part,
) -> Option<T> {
    let problem = match read
        .map(Option::unwrap_or_default)
        .map_err(|e| e.errors[0].message.clone())
        .and_then(|b| serde_json::from_slice::<T>(&b).map_err(|e| e.to_string()))
    {
        Ok(rec) if id_of(&rec) == stem && r == rel_of(stem) => return Some(rec),
        Ok(_) => format!("holds {what} whose id does not match its path"),
        Err(e) => format!("does not parse as {what} record: {e}"),
    };
    part.findings.push(Finding {
        path: r.to_string(),
        problem,
        repairable: false,
    });
    part.unreadable.push(r.to_string());
    None
}

/// Check one customer record on its own and keep its digest.
///
/// Its summary and field values are hashed as they are borrowed from the
/// record ([`ProfileSummary::fields_of`], [`fields::Field::each_value`]):
/// copying them was a dozen allocations a customer.
pub(super) fn digest_customer(sh: &Shared, c: &Customer, part: &mut Part) {
    part.last_event
        .see(c.last_event, || Store::customer_rel(c.id()));
    customer_invariants(c, sh.catalog, &mut part.invariants);
    if let Some(positions) = sh.positions
        && let Some(pos) = positions.position_of(c.id())
    {
        let entries = &mut part.scratch;
        entries.clear();
        for field in fields::Field::ALL {
            field.each_value(&c.profile, |v| {
                entries.push(field_entry(field, v, pos, c.id()))
            });
        }
        sh.field_entries.touch(entries);
        part.field_expected += entries.len();
        let mut missing = false;
        entries.retain(|&e| {
            let found = sh.field_entries.contains(e);
            missing |= !found;
            found
        });
        // (A value twice, as two equal tags, is one entry.)
        entries.sort_unstable();
        entries.dedup();
        part.field_found += entries.len();
        if missing {
            field_missing(sh, c, pos, part);
        }
    }
    for a in &c.attachments {
        if a.customer_profile_program_status_id == attachment::PENDING {
            part.pending
                .push(format!("att.{}.{}", c.id(), a.program_id));
        }
    }
    part.attached.extend(
        c.attachments
            .iter()
            .map(|a| attachment_hash(&a.program_id, c.id())),
    );
    part.customers.push(CustDigest {
        id: PackedId::new(c.id(), &mut part.odd),
        key: h64(c.profile.customer_key.as_str()),
        key_prefix: keys::prefix(&c.profile.customer_key),
        summary: h64(&ProfileSummary::fields_of(&c.profile)),
    });
}

/// The values of `c` (at `pos`) that the field indexes lack: counted, and
/// the first [`FIELD_MISSING_SHOWN`] named.
fn field_missing(sh: &Shared, c: &Customer, pos: usize, part: &mut Part) {
    let s = ProfileSummary::of(&c.profile);
    for field in fields::Field::ALL {
        for v in field.values(&s) {
            if sh
                .field_entries
                .contains(field_entry(field, &v, pos, c.id()))
            {
                continue;
            }
            part.field_missing_count += 1;
            if part.field_missing.len() < FIELD_MISSING_SHOWN {
                part.field_missing.push(Finding {
                    path: fields::bucket_rel(field, &v),
                    problem: format!("a value of {} is missing from {}", c.id(), field.dir()),
                    repairable: true,
                });
            }
        }
    }
}
