//! Transaction indexes: which transactions have a given status, template
//! or program, so that `txn list --status/--template/--program` reads the
//! entries of the matches instead of every transaction summary.
//!
//! - `index/transactions.ids`: every transaction id in creation order, in
//!   fixed-width records (as `index/profiles.ids`): a transaction's
//!   *position* is its record's number, and the id at a position is one read
//!   at a computed offset.
//! - `index/txn-positions/<bbb>.log`: the position of each transaction,
//!   lines `<transaction id> <position>`, in [`POSITION_BUCKETS`] buckets
//!   named by the low 12 bits of the id's FNV-1a hash (three hex digits):
//!   a status change finds the position it needs in one small file (about
//!   250 lines at a million transactions).
//! - `index/txn-by-template/<bb>.log`, `index/txn-by-program/<bb>.log`: as
//!   the field indexes of profiles ([`super::fields`]), lines `<position>
//!   <transaction id> <value as a JSON string>` in 256 buckets by the hash
//!   of the value. A transaction's template and program never change, so
//!   these are append-only and exact.
//! - `index/txn-by-status/<status>/<chunk>.log`: the transactions whose
//!   status is `<status>` now, lines `<position> <transaction id>`, one file
//!   per [`CHUNK`] positions (`<chunk>` is the position divided by it, in
//!   decimal). A status change rewrites the old status's chunk without the
//!   line (a file of at most [`CHUNK`] lines; removed when empty) and
//!   appends to the new status's chunk, in the same journal commit as the
//!   transaction: the status index is exact, and a status that few
//!   transactions have now (Created, Processing) costs a few reads however
//!   many transactions had it once.
//!
//! Everything here is derived from the transaction records: `store check`
//! compares each file with what the records say, `--repair` rebuilds them.

use std::collections::BTreeMap;

use super::index::{self, TxnSummary};
use super::journal::Op;
use super::{fields, keys};

pub const TXN_IDS: &str = "index/transactions.ids";
pub const POSITIONS_DIR: &str = "index/txn-positions";
pub const STATUS_DIR: &str = "index/txn-by-status";
/// The number of buckets of the position map.
pub const POSITION_BUCKETS: u32 = 4096;
/// Positions per file of the status index.
pub const CHUNK: usize = 1024;

/// An append-only value index of transactions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Template,
    Program,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Template, Kind::Program];

    pub fn dir(self) -> &'static str {
        match self {
            Kind::Template => "index/txn-by-template",
            Kind::Program => "index/txn-by-program",
        }
    }

    pub fn value(self, s: &TxnSummary) -> &str {
        match self {
            Kind::Template => &s.template_id,
            Kind::Program => &s.program_id,
        }
    }
}

/// Every directory of the transaction indexes (the status index's
/// directories of each status are below [`STATUS_DIR`]).
pub fn dirs() -> [&'static str; 4] {
    [
        POSITIONS_DIR,
        STATUS_DIR,
        Kind::Template.dir(),
        Kind::Program.dir(),
    ]
}

fn hash(s: &str) -> u32 {
    u32::from_le_bytes(keys::prefix(s))
}

/// The bucket of the position map that holds `id`.
pub fn position_rel(id: &str) -> String {
    format!("{POSITIONS_DIR}/{:03x}.log", hash(id) % POSITION_BUCKETS)
}

/// A line of the position map.
pub fn position_line(id: &str, pos: usize) -> String {
    format!("{id} {pos}\n")
}

fn valid_id(id: &str) -> bool {
    crate::model::id::is_valid(crate::model::id::TRANSACTION, id)
}

/// A line of the position map: `(id, position)`.
pub fn parse_position(line: &[u8]) -> Option<(&str, usize)> {
    let text = std::str::from_utf8(line).ok()?;
    let (id, pos) = text.split_once(' ')?;
    if !valid_id(id) {
        return None;
    }
    Some((id, pos.parse().ok()?))
}

/// The position of `id` in a bucket of the position map.
pub fn find_position(bucket: &[u8], id: &str) -> Option<usize> {
    index::complete(bucket)
        .split(|&b| b == b'\n')
        .rev()
        .filter_map(parse_position)
        .find(|(i, _)| *i == id)
        .map(|(_, p)| p)
}

/// The file of the status index of `status` that holds position `pos`.
pub fn status_rel(status: u32, pos: usize) -> String {
    status_chunk_rel(status, pos / CHUNK)
}

/// Chunk `chunk` of the status index of `status`.
pub fn status_chunk_rel(status: u32, chunk: usize) -> String {
    format!("{STATUS_DIR}/{status}/{chunk}.log")
}

/// A line of the status index.
pub fn status_line(pos: usize, id: &str) -> String {
    format!("{pos} {id}\n")
}

/// A line of the status index: `(position, id)`.
pub fn parse_status(line: &[u8]) -> Option<(usize, &str)> {
    let text = std::str::from_utf8(line).ok()?;
    let (pos, id) = text.split_once(' ')?;
    if !valid_id(id) {
        return None;
    }
    Some((pos.parse().ok()?, id))
}

/// The bucket of `kind` that holds `value`.
pub fn value_rel(kind: Kind, value: &str) -> String {
    format!("{}/{:02x}.log", kind.dir(), keys::bucket(value))
}

/// The entries of the transaction `s` at position `pos`, each as the file
/// it belongs in and its line: the position map, each value index and the
/// status index (the ids file aside). The one definition of what the
/// indexes hold: [`rebuild`] writes them, `store check` compares with them.
pub fn entries(pos: usize, s: &TxnSummary) -> [(String, String); 4] {
    let [template, program] = Kind::ALL;
    [
        (position_rel(&s.id), position_line(&s.id, pos)),
        (
            value_rel(template, template.value(s)),
            fields::line(pos, &s.id, template.value(s)),
        ),
        (
            value_rel(program, program.value(s)),
            fields::line(pos, &s.id, program.value(s)),
        ),
        (status_rel(s.status_id, pos), status_line(pos, &s.id)),
    ]
}

/// The path of every file of the transaction indexes of the transactions
/// `ordered` (in creation order) with its content: the ids file, the
/// position map, the value indexes and the status index.
pub fn rebuild(ordered: &[TxnSummary]) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    let mut ids = String::with_capacity(ordered.len() * index::ID_RECORD);
    for (pos, s) in ordered.iter().enumerate() {
        ids.push_str(&index::id_record(&s.id));
        for (path, line) in entries(pos, s) {
            files.entry(path).or_default().push_str(&line);
        }
    }
    files.insert(TXN_IDS.to_string(), ids);
    files
}

/// [`rebuild`] as journal puts.
pub fn rebuild_ops(ordered: &[TxnSummary]) -> Vec<Op> {
    rebuild(ordered)
        .into_iter()
        .map(|(path, data)| Op::Put { path, data })
        .collect()
}

/// The positions of the complete lines of a status index file, sorted;
/// `Err(n)`: line `n` does not parse.
pub fn status_positions(bytes: &[u8]) -> Result<Vec<usize>, usize> {
    let mut out = Vec::new();
    for (n, l) in index::complete(bytes).split(|&b| b == b'\n').enumerate() {
        if l.is_empty() {
            continue;
        }
        out.push(parse_status(l).ok_or(n + 1)?.0);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// The positions, sorted and each once, of the complete lines of a bucket
/// of a value index whose value is `value`: only the lines that end with
/// the value's JSON text are parsed (the others are skipped unread);
/// `Err(n)`: line `n`, one of those, does not parse.
pub fn value_positions(bucket: &[u8], value: &str) -> Result<Vec<usize>, usize> {
    let want = format!(
        " {}",
        serde_json::to_string(value).expect("a string serializes")
    );
    let mut out = Vec::new();
    for (n, l) in index::complete(bucket).split(|&b| b == b'\n').enumerate() {
        if !l.ends_with(want.as_bytes()) {
            continue;
        }
        let pos = l
            .iter()
            .position(|&b| b == b' ')
            .and_then(|i| std::str::from_utf8(&l[..i]).ok()?.parse::<usize>().ok())
            .ok_or(n + 1)?;
        out.push(pos);
    }
    // Appended in creation order: sorted already, unless repaired by hand.
    if !out.is_sorted() {
        out.sort_unstable();
    }
    out.dedup();
    Ok(out)
}

/// The sorted positions common to every list of `lists` (each sorted).
pub fn intersect(mut lists: Vec<Vec<usize>>) -> Vec<usize> {
    lists.sort_by_key(Vec::len);
    let mut it = lists.into_iter();
    let Some(mut acc) = it.next() else {
        return Vec::new();
    };
    for l in it {
        acc.retain(|p| l.binary_search(p).is_ok());
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(id: &str, st: u32, t: &str, p: &str) -> TxnSummary {
        TxnSummary {
            id: id.into(),
            template_id: t.into(),
            program_id: p.into(),
            status_id: st,
            customers: vec![],
        }
    }

    #[test]
    fn lines_round_trip() {
        let l = position_line("trn_abc", 12);
        assert_eq!(
            parse_position(l.trim_end().as_bytes()),
            Some(("trn_abc", 12))
        );
        let l = status_line(7, "trn_x1");
        assert_eq!(parse_status(l.trim_end().as_bytes()), Some((7, "trn_x1")));
        assert!(parse_status(b"7 csp_x").is_none());
        assert!(parse_position(b"trn_a/b 1").is_none());
        let bucket = format!("{}{}", position_line("trn_a", 1), position_line("trn_b", 2));
        assert_eq!(find_position(bucket.as_bytes(), "trn_b"), Some(2));
        assert_eq!(find_position(bucket.as_bytes(), "trn_c"), None);
    }

    #[test]
    fn rebuild_places_each_transaction_once_per_index() {
        let all: Vec<TxnSummary> = (0..CHUNK + 2)
            .map(|i| {
                s(
                    &format!("trn_{i}"),
                    if i % 2 == 0 { 60 } else { 10 },
                    "trt_a",
                    "prm_b",
                )
            })
            .collect();
        let files = rebuild(&all);
        assert_eq!(files[TXN_IDS].len(), all.len() * index::ID_RECORD);
        let chunk0 = status_positions(files[&status_chunk_rel(60, 0)].as_bytes()).unwrap();
        assert_eq!(chunk0.len(), CHUNK / 2);
        let chunk1 = status_positions(files[&status_chunk_rel(10, 1)].as_bytes()).unwrap();
        assert_eq!(chunk1, [CHUNK + 1]);
        let t = fields::matches(
            files[&value_rel(Kind::Template, "trt_a")].as_bytes(),
            "trt_a",
        );
        assert_eq!(t.unwrap().len(), all.len());
        let b = files[&value_rel(Kind::Template, "trt_a")].as_bytes();
        assert_eq!(value_positions(b, "trt_a").unwrap().len(), all.len());
        assert_eq!(value_positions(b, "trt_").unwrap(), Vec::<usize>::new());
        assert_eq!(value_positions(b"x trn_a \"v\"\n", "v"), Err(1));
        assert_eq!(intersect(vec![vec![1, 3, 5, 7], vec![3, 4, 7]]), [3, 7]);
        assert_eq!(status_positions(b"1 trn_a\nbad\n"), Err(2));
    }
}
