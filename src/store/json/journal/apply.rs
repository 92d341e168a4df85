//! Applying a committed journal to the files it names: each operation
//! (a whole file written, an append, a removal), alone or as a batch with
//! one sync per directory, and the replay of a commit a crash left behind.

use super::*;

/// Apply `journal` (`replay`: completing a commit made earlier, see
/// [`apply_unsynced`]).
pub(super) fn apply(root: &Root, journal: &Journal, replay: bool) -> Result<()> {
    if journal.ops.len() > BATCH_OPS {
        return apply_batch(root, journal, replay);
    }
    let mut dirs = BTreeSet::new();
    for op in &journal.ops {
        let target = root.join(op.path());
        let dir = target.parent().unwrap_or(root.path()).to_path_buf();
        atomic::ensure_dir(root, &dir)?;
        match op {
            Op::Put { data, .. } => atomic::write_file(root, &target, data.as_bytes())?,
            Op::PutJson { json, .. } => atomic::write_file(root, &target, &json_file(json))?,
            Op::Delete { .. } => {
                atomic::remove_file(root, &atomic::temp_path(&target))?;
                atomic::remove_file(root, &target)?;
            }
            Op::Append { base_len, data, .. } => {
                // Appending to a file that exists changes no directory entry.
                if !append(root, &target, *base_len, data.as_bytes())? {
                    continue;
                }
            }
        }
        dirs.insert(dir);
    }
    for d in &dirs {
        atomic::sync_dir(root, d)?;
    }
    Ok(())
}

/// Apply a large journal: every operation without a sync, then one sync of
/// everything (see the module doc). Puts, the bulk of such a journal, are
/// written by a few threads when no path occurs twice (then the order of
/// the operations cannot matter).
pub(super) fn apply_batch(root: &Root, journal: &Journal, replay: bool) -> Result<()> {
    let sync = atomic::BatchSync::begin(root)?;
    let (files, dirs) = apply_unsynced(root, journal, replay)?;
    sync.finish(&files, &dirs)
}

/// Every operation of `journal` without a sync (see [`apply_batch`]): the
/// files written and the directories whose entries changed, for the caller
/// to make durable. A `replay` passes the fault point `before-write` before
/// each file it writes whole, as [`atomic::write_file`] does (where tests
/// simulate a full disk for it).
pub(super) fn apply_unsynced(
    root: &Root,
    journal: &Journal,
    replay: bool,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    // Each directory written in is created if missing and opened once,
    // through its parent (thousands of record shards and index buckets):
    // its files are then reached with one `openat` each.
    let mut opened = safefs::Dirs::new(root);
    let mut dirs: HashSet<&str> = HashSet::new();
    let mut paths: HashSet<&str> = HashSet::with_capacity(journal.ops.len());
    let mut distinct = true;
    for op in &journal.ops {
        distinct &= paths.insert(op.path());
        if dirs.insert(dir_of(op.path())) {
            opened.ensure(dir_of(op.path()))?;
        }
    }
    let mut files: Vec<PathBuf> = Vec::with_capacity(journal.ops.len());
    let mut puts: Vec<(&str, Cow<[u8]>)> = Vec::new();
    for op in &journal.ops {
        let target = root.join(op.path());
        match op {
            Op::Put { path, data } if distinct => puts.push((path, Cow::Borrowed(data.as_bytes()))),
            Op::PutJson { path, json } if distinct => {
                puts.push((path, Cow::Owned(json_file(json))))
            }
            Op::Put { data, .. } => {
                if replay {
                    atomic::fault(&target, "before-write")?;
                }
                atomic::write_unsynced(root, &target, data.as_bytes())?;
                atomic::fault(&target, "after-write")?;
                files.push(target);
            }
            Op::PutJson { json, .. } => {
                if replay {
                    atomic::fault(&target, "before-write")?;
                }
                atomic::write_unsynced(root, &target, &json_file(json))?;
                atomic::fault(&target, "after-write")?;
                files.push(target);
            }
            Op::Delete { .. } => {
                atomic::remove_file(root, &atomic::temp_path(&target))?;
                atomic::remove_file(root, &target)?;
            }
            Op::Append {
                path,
                base_len,
                data,
            } => {
                let d = opened.ensure(dir_of(path))?;
                append_in(d, name_of(path), &target, *base_len, data.as_bytes())?;
                atomic::fault(&target, "after-write")?;
                files.push(target);
            }
        }
    }
    // In path order: files of one directory are created together.
    puts.sort_unstable_by(|a, b| a.0.cmp(b.0));
    write_all_unsynced(root, &opened, &puts, replay)?;
    files.extend(puts.into_iter().map(|(p, _)| root.join(p)));
    let dirs: Vec<PathBuf> = dirs.into_iter().map(|d| root.join(d)).collect();
    Ok((files, dirs))
}

/// The store-relative directory of the store-relative file `path` (`""`:
/// the store's root).
pub(super) fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The name of the store-relative file `path` in its directory.
pub(super) fn name_of(path: &str) -> &OsStr {
    OsStr::new(path.rsplit_once('/').map_or(path, |(_, n)| n))
}

/// Write `puts` (store-relative paths, in the directories `dirs` opened)
/// with [`safefs::How::WRITE_NEW`], split among a few threads: creating
/// thousands of small files is mostly the kernel's work, which spreads over
/// the cores.
pub(super) fn write_all_unsynced(
    root: &Root,
    dirs: &safefs::Dirs<'_>,
    puts: &[(&str, Cow<[u8]>)],
    replay: bool,
) -> Result<()> {
    const MIN_PER_THREAD: usize = 256;
    // (Asked only when there is work for several: reading the cgroup's CPU
    // quota costs a point commit a fifth of a millisecond.)
    let threads = if puts.len() > MIN_PER_THREAD {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .clamp(1, 4)
            .min(puts.len().div_ceil(MIN_PER_THREAD))
            .max(1)
    } else {
        1
    };
    let write = |part: &[(&str, Cow<[u8]>)]| -> Result<()> {
        for (rel, data) in part {
            let target = root.join(rel);
            let d = dirs
                .get(dir_of(rel))
                .ok_or_else(|| Error::io(&target, std::io::ErrorKind::NotFound.into()))?;
            if replay {
                atomic::fault(&target, "before-write")?;
            }
            let mut f = d
                .file(name_of(rel), safefs::How::WRITE_NEW)?
                .ok_or_else(|| Error::io(&target, std::io::ErrorKind::NotFound.into()))?;
            f.write_all(data).map_err(|e| Error::io(&target, e))?;
            atomic::fault(&target, "after-write")?;
        }
        Ok(())
    };
    if threads == 1 {
        return write(puts);
    }
    let per = puts.len().div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = puts
            .chunks(per)
            .map(|part| s.spawn(move || write(part)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("writer thread"))
            .collect::<Result<Vec<()>>>()
            .map(|_| ())
    })
}

/// [`append_unsynced`] of the file `name` (`target`) of the open directory
/// `dir`, for a batch: nothing returned.
pub(super) fn append_in(
    dir: &safefs::Dir,
    name: &OsStr,
    target: &Path,
    base_len: u64,
    data: &[u8],
) -> Result<()> {
    use std::os::unix::fs::FileExt;
    let (f, len) = dir
        .file_len(name, safefs::How::WRITE_OLD)?
        .ok_or_else(|| Error::io(target, std::io::ErrorKind::NotFound.into()))?;
    // Cut only what is past `base_len` (a replay's or a torn write's tail):
    // a truncate to the same length still costs ext4 a trip through its
    // extent tree, for each of the thousands of files a batch appends to.
    if len != base_len {
        f.set_len(base_len).map_err(|e| Error::io(target, e))?;
    }
    f.write_all_at(data, base_len)
        .map_err(|e| Error::io(target, e))
}

/// Cut `target` back to `base_len` (what it had when the transaction began)
/// and append `data`, without a sync: the open file is returned, and whether
/// it was created.
pub(super) fn append_unsynced(
    root: &Root,
    target: &Path,
    base_len: u64,
    data: &[u8],
) -> Result<(std::fs::File, bool)> {
    use std::io::{Seek, SeekFrom};
    // (Under the exclusive lock nobody else creates it in between.)
    let created = !super::safefs::exists(root, target)?;
    let mut f = atomic::open_private(
        root,
        target,
        OpenOptions::new().write(true).create(true).truncate(false),
    )?;
    f.set_len(base_len).map_err(|e| Error::io(target, e))?;
    f.seek(SeekFrom::Start(base_len))
        .map_err(|e| Error::io(target, e))?;
    f.write_all(data).map_err(|e| Error::io(target, e))?;
    Ok((f, created))
}

/// Append durably (see [`append_unsynced`]); whether the file was created
/// (then its directory needs a sync).
pub(super) fn append(root: &Root, target: &Path, base_len: u64, data: &[u8]) -> Result<bool> {
    let (f, created) = append_unsynced(root, target, base_len, data)?;
    atomic::fault(target, "after-write")?;
    f.sync_all().map_err(|e| Error::io(target, e))?;
    Ok(created)
}
