//! Every entry of the store listed (links not followed, record shards set
//! aside for the threads) and classified: what is wrong with its type or
//! its mode, and whether it is a regular file to read.

use super::*;

/// Whether `r` (store-relative) is a record shard (`customers/<xx>`).
fn is_shard(r: &str) -> bool {
    [CUSTOMERS_DIR, TXNS_DIR].iter().any(|d| {
        r.strip_prefix(d)
            .and_then(|s| s.strip_prefix('/'))
            .is_some_and(|s| !s.contains('/'))
    })
}

/// Every entry under `dir` (links not followed) with its metadata; a
/// directory where a record belongs (`customers/<xx>/…`) is listed, not
/// entered; a record shard (`customers/<xx>`) is listed, and entered only
/// when `shards` is `None` (else it goes there, for the threads).
pub(super) fn entries(
    root: &Root,
    dir: &Path,
    out: &mut Vec<(PathBuf, fs::Metadata)>,
    mut shards: Option<&mut Vec<PathBuf>>,
) -> Result<()> {
    let list = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for e in list {
        let e = e.map_err(|e| Error::io(dir, e))?;
        let p = e.path();
        let r = rel(root, &p);
        // What a writer's point commit renamed aside, removed by it once it
        // let go of the store's lock: it may go while the check reads, and it
        // is never the store's (see `journal::RETIRED`).
        if r == crate::store::journal::RETIRED {
            continue;
        }
        // Made and removed by payctls waiting for the lock and by its
        // holder (see `store::lock::KNOCK`): never the store's.
        if r == crate::store::lock::KNOCK {
            continue;
        }
        let meta = match fs::symlink_metadata(&p) {
            Ok(m) => m,
            // Gone since the directory was listed: nothing of the store's
            // goes while the check holds the lock.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io(&p, e)),
        };
        let record_slot = [CUSTOMERS_DIR, TXNS_DIR]
            .iter()
            .any(|d| r.starts_with(&format!("{d}/")) && r.matches('/').count() >= 2);
        let enter = meta.is_dir() && !record_slot;
        out.push((p.clone(), meta));
        if enter {
            match shards.as_deref_mut() {
                Some(s) if is_shard(&r) => s.push(p),
                _ => entries(root, &p, out, shards.as_deref_mut())?,
            }
        }
    }
    Ok(())
}

/// Classify one entry of the store: a finding for what is wrong with it;
/// `Some` of a regular file to read.
pub(super) fn classify(root: &Root, p: PathBuf, st_mode: u32, part: &mut Part) -> Option<PathBuf> {
    use rustix::fs::FileType;
    let finding = |p: &Path, problem: String, repairable: bool| Finding {
        path: rel(root, p),
        problem,
        repairable,
    };
    let f = &mut part.findings;
    let r = rel(root, &p);
    let t = FileType::from_raw_mode(st_mode as _);
    let mode = st_mode & 0o777;
    let in_records = [CUSTOMERS_DIR, TXNS_DIR, packs::PACKS_DIR]
        .iter()
        .any(|d| r.starts_with(&format!("{d}/")));
    let record_slot = in_records && r.matches('/').count() >= 2;
    let layout = [
        CUSTOMERS_DIR,
        TXNS_DIR,
        packs::PACKS_DIR,
        "index",
        KEYS_DIR,
        QUEUE_DIR,
    ]
    .contains(&r.as_str())
        || fields::Field::ALL.iter().any(|f| f.dir() == r);
    if t == FileType::Directory {
        let file_slot = [
            crate::store::lock::LOCK,
            crate::store::json::META,
            crate::store::json::CATALOG,
            JOURNAL,
            crate::store::journal::APPLIED,
            PROFILES_LOG,
            PROFILE_IDS,
            TXNS_LOG,
            ATTACHMENTS_LOG,
        ]
        .contains(&r.as_str())
            || r.starts_with(&format!("{QUEUE_DIR}/"));
        if file_slot {
            f.push(finding(&p, "is a directory where a file should be (never removed by --repair: move it out of the store)".into(), false));
            return None;
        }
        if record_slot {
            f.push(finding(&p, "is a directory where a record file should be (never removed by --repair: move it out of the store)".into(), false));
            part.unreadable.push(r.clone());
            return None;
        }
        if mode != 0o700 {
            f.push(finding(
                &p,
                format!("is a directory with mode {mode:04o}; store directories are 0700"),
                true,
            ));
            part.modes.push((p.clone(), 0o700));
        }
        return None;
    }
    if t != FileType::RegularFile {
        let what = match t {
            FileType::Symlink => "a symbolic link",
            FileType::Fifo => "a FIFO",
            FileType::Socket => "a socket",
            _ => "a device",
        };
        let fixable = removable(&r) || atomic::is_temp(&p);
        let how = if fixable {
            "--repair removes it"
        } else {
            "replace it with the real file, or move it out of the store"
        };
        f.push(finding(&p, format!("is {what}; payctl never follows links or opens anything but regular files in the store ({how})"), fixable));
        if fixable {
            part.remove.push(p.clone());
        } else if in_records {
            part.unreadable.push(r.clone());
        }
        return None;
    }
    if layout {
        let fixable = removable(&r);
        f.push(finding(
            &p,
            format!(
                "is a file where a directory should be ({})",
                if fixable {
                    "--repair replaces it"
                } else {
                    "move it out of the store"
                }
            ),
            fixable,
        ));
        if fixable {
            part.remove.push(p.clone());
        }
        return None;
    }
    if mode != 0o600 && !atomic::is_temp(&p) {
        f.push(finding(
            &p,
            format!("has mode {mode:04o}; store files are 0600"),
            true,
        ));
        part.modes.push((p.clone(), 0o600));
    }
    Some(p)
}
