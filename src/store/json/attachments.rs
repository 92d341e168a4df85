//! The attachment index: which customers have a record in which program, in
//! the order the records were created.
//!
//! `index/attachments.log` is append-only, one line `<program id> <customer
//! id>` per profile-program record, written in the commit that creates the
//! record (a Rejected record attached again keeps its line: it keeps its
//! creation audit too). The status and the rest of a record live in the
//! customer aggregate; `program profiles` reads this index to know which
//! customers to open, one page at a time, instead of reading every customer.

use std::collections::HashSet;

/// The line that records a profile-program record.
pub fn line(program_id: &str, customer_id: &str) -> String {
    format!("{program_id} {customer_id}\n")
}

/// One line: `(program id, customer id)`, or `None` when it does not parse.
pub fn parse(line: &[u8]) -> Option<(&str, &str)> {
    let text = std::str::from_utf8(line).ok()?;
    let (prm, csp) = text.split_once(' ')?;
    (!prm.is_empty() && !csp.is_empty() && !csp.contains(' ')).then_some((prm, csp))
}

/// The customers with a record in `program_id`, each once, in the order of
/// their lines; `Err(n)` names the first line (1-based) that does not parse.
pub fn customers_of(log: &[u8], program_id: &str) -> Result<Vec<String>, usize> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (n, l) in log.split(|&b| b == b'\n').enumerate() {
        if l.is_empty() {
            continue;
        }
        // Cheap prefix test first: most lines are another program's.
        if !(l.starts_with(program_id.as_bytes()) && l.get(program_id.len()) == Some(&b' ')) {
            if parse(l).is_none() {
                return Err(n + 1);
            }
            continue;
        }
        let (_, csp) = parse(l).ok_or(n + 1)?;
        if seen.insert(csp) {
            out.push(csp.to_string());
        }
    }
    Ok(out)
}

/// Every `(program id, customer id)` of the log in order, each once;
/// `Err(n)` names the first line that does not parse.
pub fn all(log: &[u8]) -> Result<Vec<(String, String)>, usize> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (n, l) in log.split(|&b| b == b'\n').enumerate() {
        if l.is_empty() {
            continue;
        }
        let (prm, csp) = parse(l).ok_or(n + 1)?;
        if seen.insert((prm, csp)) {
            out.push((prm.to_string(), csp.to_string()));
        }
    }
    Ok(out)
}

/// The whole log for the profile-program records `held` (`(created, program
/// id, customer id)`, see [`super::facts::CustomerFacts::attachment_rows`]):
/// the pairs of `kept` (the order a log had) that are still held, then the
/// others by creation time.
pub fn rebuild<'a>(
    kept: &[(String, String)],
    held: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
) -> String {
    let mut rest: Vec<(&str, &str, &str)> = held.into_iter().collect();
    let held: HashSet<(&str, &str)> = rest.iter().map(|&(_, p, c)| (p, c)).collect();
    let mut text = String::new();
    let mut done: HashSet<(&str, &str)> = HashSet::new();
    for (prm, csp) in kept {
        let pair = (prm.as_str(), csp.as_str());
        if held.contains(&pair) && done.insert(pair) {
            text.push_str(&line(prm, csp));
        }
    }
    rest.retain(|&(_, p, c)| !done.contains(&(p, c)));
    rest.sort();
    for (_, prm, csp) in rest {
        text.push_str(&line(prm, csp));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn customers_of_keeps_order_and_drops_repeats() {
        let log = format!(
            "{}{}{}{}",
            line("prm_a", "csp_1"),
            line("prm_b", "csp_2"),
            line("prm_a", "csp_3"),
            line("prm_a", "csp_1")
        );
        assert_eq!(
            customers_of(log.as_bytes(), "prm_a").unwrap(),
            ["csp_1", "csp_3"]
        );
        assert_eq!(customers_of(log.as_bytes(), "prm_b").unwrap(), ["csp_2"]);
        assert!(customers_of(log.as_bytes(), "prm_").unwrap().is_empty());
        assert_eq!(all(log.as_bytes()).unwrap().len(), 3);
    }

    #[test]
    fn a_line_that_does_not_parse_is_named() {
        let log = format!("{}garbage\n", line("prm_a", "csp_1"));
        assert_eq!(customers_of(log.as_bytes(), "prm_a"), Err(2));
        assert_eq!(all(log.as_bytes()), Err(2));
    }
}
