//! The transaction indexes against the transaction records, as `store
//! check` compares them: as sums of line hashes, the lines themselves only
//! for a file that differs.

use super::*;

impl Store {
    /// The transaction indexes ([`txn_index`]) against the transaction
    /// records: `index/transactions.ids` lists each transaction once, in the
    /// creation order of the summary log; every other file holds exactly
    /// the lines that the records and those positions give (in any order).
    /// When the summary log agrees with the records (`log_agrees`: its
    /// latest line of each transaction is the record's summary), the
    /// summaries are streamed from it instead of read from every record
    /// again.
    ///
    /// Memory stays small at a million transactions (issue 17): nothing
    /// holds the summaries or the files' expected text. Each expected file
    /// is kept as the number of its lines and the sum of their 64-bit
    /// hashes ([`LineSum`]), and the ids as hashes; only a file whose sum
    /// differs is looked at line by line, its expected lines gathered in a
    /// second pass, to say what it lacks or holds too many of.
    pub(super) fn txn_index_findings(&self, log_agrees: bool) -> Result<Vec<Finding>> {
        let mut out = Vec::new();
        let mut push = |path: &str, problem: String| {
            out.push(Finding {
                path: path.to_string(),
                problem,
                repairable: true,
            })
        };
        let mut want: BTreeMap<String, LineSum> = BTreeMap::new();
        let mut ordered: Vec<u64> = Vec::new();
        self.each_ordered_txn(log_agrees, &mut |pos, s| {
            if ordered.len() <= pos {
                ordered.resize(pos + 1, 0);
            }
            ordered[pos] = h64(s.id.as_str());
            for (path, line) in txn_index::entries(pos, s) {
                want.entry(path).or_default().add(line.as_bytes());
            }
        })?;
        let ids_path = self.root.join(txn_index::TXN_IDS);
        let len = fs::metadata(&ids_path).map(|m| m.len()).unwrap_or(0);
        let mut listed: Vec<u64> = Vec::with_capacity(ordered.len());
        if let Err(e) = index::ids_each(&self.root, &ids_path, |id| listed.push(h64(id))) {
            push(txn_index::TXN_IDS, e.errors[0].message.clone());
            return Ok(out);
        }
        if !len.is_multiple_of(index::ID_RECORD as u64) {
            push(txn_index::TXN_IDS, "ends with a partial record".into());
            return Ok(out);
        }
        if listed != ordered {
            // The same ids (the records' are distinct), only in another
            // order; or not each record's id once.
            let (mut a, mut b) = (listed.clone(), ordered.clone());
            a.sort_unstable();
            b.sort_unstable();
            let problem = if a == b {
                "does not list the transactions in the creation order of the summary log".into()
            } else {
                format!(
                    "does not list each of the {} transaction records once (it lists {} ids)",
                    ordered.len(),
                    listed.len()
                )
            };
            push(txn_index::TXN_IDS, problem);
            return Ok(out);
        }
        drop((listed, ordered));
        let mut have: BTreeSet<String> = BTreeSet::new();
        for dir in txn_index::dirs() {
            let mut files = Vec::new();
            walk(&self.root.join(dir), &mut files)?;
            for p in files.iter().filter(|p| !atomic::is_temp(p)) {
                have.insert(rel(&self.root, p));
            }
        }
        // Each expected file: missing, or whether it ends with a partial
        // line and whether its complete lines are the expected ones.
        enum Seen {
            Missing,
            Present { partial: bool, agrees: bool },
        }
        let mut seen = Vec::with_capacity(want.len());
        for (r, expected) in &want {
            let Ok(Some((actual, partial))) = sum_lines(&self.root, &self.root.join(r)) else {
                seen.push(Seen::Missing);
                continue;
            };
            seen.push(Seen::Present {
                partial,
                agrees: actual == *expected,
            });
        }
        // The expected lines of the files that differ, for the details.
        let mut differing: HashMap<&str, String> = want
            .keys()
            .zip(&seen)
            .filter(|(_, s)| matches!(s, Seen::Present { agrees: false, .. }))
            .map(|(r, _)| (r.as_str(), String::new()))
            .collect();
        if !differing.is_empty() {
            self.each_ordered_txn(log_agrees, &mut |pos, s| {
                for (path, line) in txn_index::entries(pos, s) {
                    if let Some(text) = differing.get_mut(path.as_str()) {
                        text.push_str(&line);
                    }
                }
            })?;
        }
        let lines = |b: &[u8]| -> Vec<Vec<u8>> {
            let mut v: Vec<Vec<u8>> = index::complete(b)
                .split(|&c| c == b'\n')
                .filter(|l| !l.is_empty())
                .map(<[u8]>::to_vec)
                .collect();
            v.sort_unstable();
            v
        };
        for ((r, sum), seen) in want.iter().zip(seen) {
            match seen {
                Seen::Missing => {
                    push(
                        r,
                        format!(
                            "is missing: {} entr{} of the transaction records",
                            sum.n,
                            if sum.n == 1 { "y" } else { "ies" }
                        ),
                    );
                    continue;
                }
                Seen::Present { partial, agrees } => {
                    if partial {
                        push(r, "ends with a partial line".into());
                    }
                    if agrees {
                        continue;
                    }
                }
            }
            let expected = lines(differing.get(r.as_str()).map_or(&[][..], |t| t.as_bytes()));
            let bytes = atomic::read_opt(&self.root, &self.root.join(r))?.unwrap_or_default();
            let actual = lines(&bytes);
            let missing = expected
                .iter()
                .filter(|l| actual.binary_search(l).is_err())
                .count();
            let extra: Vec<&Vec<u8>> = actual
                .iter()
                .filter(|l| expected.binary_search(l).is_err())
                .collect();
            if missing > 0 {
                push(
                    r,
                    format!("lacks {missing} line(s) that the transaction records give"),
                );
            }
            if let Some(first) = extra.first() {
                push(
                    r,
                    format!(
                        "holds {} line(s) that no transaction record gives (such as `{}`)",
                        extra.len(),
                        String::from_utf8_lossy(first)
                    ),
                );
            } else if actual.len() > expected.len() {
                push(r, "holds a line twice".into());
            }
        }
        for r in have.iter().filter(|r| !want.contains_key(*r)) {
            push(
                r,
                "is not a file of the transaction indexes that the records give (a stale or foreign file)".into(),
            );
        }
        Ok(out)
    }

    /// Each transaction's summary with its position in creation order, to
    /// `f` (not in position order when streamed from the log). From the
    /// summary log when it agrees with the records (`log_agrees`): its
    /// latest line of each transaction at the position of its first line,
    /// found in two passes over the log that keep only a small entry per
    /// transaction. Otherwise from the records, in memory (a damaged store).
    fn each_ordered_txn(
        &self,
        log_agrees: bool,
        f: &mut dyn FnMut(usize, &TxnSummary),
    ) -> Result<()> {
        let path = self.root.join(TXNS_LOG);
        if log_agrees {
            // Per transaction (by the hash of its id): its position, and the
            // number of its last line.
            let mut at: HashMap<u64, (u32, u32)> = HashMap::new();
            let mut fits = true;
            each_log_line(&self.root, &path, &mut |n, s: TxnSummary| {
                let (Ok(n), Ok(next)) = (u32::try_from(n), u32::try_from(at.len())) else {
                    fits = false;
                    return;
                };
                at.entry(h64(s.id.as_str()))
                    .and_modify(|e| e.1 = n)
                    .or_insert((next, n));
            })?;
            if fits {
                return each_log_line(&self.root, &path, &mut |n, s: TxnSummary| {
                    if let Some(&(pos, last)) = at.get(&h64(s.id.as_str()))
                        && last as usize == n
                    {
                        f(pos as usize, &s);
                    }
                });
            }
        }
        let ordered = self.ordered_txn_summaries(self.readable_txn_summaries()?)?;
        for (pos, s) in ordered.iter().enumerate() {
            f(pos, s);
        }
        Ok(())
    }
}
