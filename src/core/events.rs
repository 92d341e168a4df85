//! Reading the event log: `events list` (by type glob, record and time,
//! paged), `events get`, `history` (CLI.md "Events").
//!
//! The log is in sequence order, which is creation order; a page without
//! filters is read by its sequences (a page at a million events reads one
//! segment), a record's events from its index, a `since` by bisection over
//! the sequences (times increase with them), and only a type filter reads
//! every event after `since` to count its matches.

use crate::error::{Error, Result, code};
use crate::model::event::{self, Event};
use crate::store::{IdPage, Store};

use super::paging::{Page, PageRequest, from_ids, paginate, window};

/// The filters of `events list`.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Event type globs (`customer_profile.*`); any of them matches.
    pub types: Vec<String>,
    pub record_id: Option<String>,
    /// Events created at or after this UTC time (ISO 8601, no zone).
    pub since: Option<String>,
}

/// The longest glob or record id accepted.
const MAX_FILTER: usize = 200;

impl Filter {
    /// Refuse what can match nothing by mistake: an empty or overlong glob
    /// or record id, a time that is not one.
    pub fn check(&self) -> Result<()> {
        for t in &self.types {
            if t.is_empty() || t.len() > MAX_FILTER || !t.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(Error::at(
                    code::INVALID_VALUE,
                    "type",
                    "must be an event type or a glob of one (`customer_profile.*`), 1-200 printable characters",
                ));
            }
            let plain = !t.contains(['*', '?']);
            if plain && !event::TYPES.contains(&t.as_str()) {
                return Err(Error::at(
                    code::INVALID_VALUE,
                    "type",
                    format!(
                        "`{t}` is not an event type (one of: {})",
                        event::TYPES.join(", ")
                    ),
                ));
            }
        }
        if let Some(r) = &self.record_id
            && (r.is_empty() || r.len() > MAX_FILTER)
        {
            return Err(Error::at(
                code::INVALID_VALUE,
                "record_id",
                "must be a record's id",
            ));
        }
        if let Some(s) = &self.since {
            normal_time(s)?;
        }
        Ok(())
    }

    /// Whether an event of `event_type` about `record_id` matches the
    /// type and record filters (`events tail`, `listen`, webhooks).
    pub fn matches_fields(&self, event_type: &str, record_id: &str) -> bool {
        (self.types.is_empty()
            || self
                .types
                .iter()
                .any(|g| event::type_matches(g, event_type)))
            && self.record_id.as_ref().is_none_or(|r| r == record_id)
    }

    fn matches(&self, e: &Event, since: Option<&str>) -> bool {
        self.matches_fields(&e.event_type, &e.record_id)
            && since.is_none_or(|s| e.created_datetime.as_str() >= s)
    }
}

/// `since` as the log writes times (`2026-11-27T10:00:00.000000`): a date,
/// or a date and time with optional fraction and an optional `Z`.
fn normal_time(s: &str) -> Result<String> {
    let bad = || {
        Error::at(
            code::INVALID_VALUE,
            "since",
            "must be a UTC time: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.ffffff][Z]",
        )
    };
    let t = s.strip_suffix('Z').unwrap_or(s);
    if let Ok(d) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
        return Ok(format!("{}T00:00:00.000000", d.format("%Y-%m-%d")));
    }
    let dt = chrono::NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M:%S%.f").map_err(|_| bad())?;
    Ok(dt.format(super::TIME_FORMAT).to_string())
}

/// The first sequence whose event was created at or after `since` (times
/// increase with the sequence: commits are serialized).
fn first_since(store: &Store, since: &str, last: u64) -> Result<u64> {
    let (mut lo, mut hi) = (1, last + 1);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let at = store
            .events(mid, mid)?
            .into_iter()
            .next()
            .map(|e| e.created_datetime);
        if at.as_deref().is_some_and(|t| t < since) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// A page of the events that match `filter`, in sequence order.
pub fn list(store: &Store, filter: &Filter, req: &PageRequest) -> Result<Page<Event>> {
    filter.check()?;
    let since = filter.since.as_deref().map(normal_time).transpose()?;
    if let Some(record) = &filter.record_id {
        let all: Vec<Event> = store
            .record_events(record)?
            .into_iter()
            .filter(|e| filter.matches(e, since.as_deref()))
            .collect();
        return paginate(all, |e| &e.event_id, req);
    }
    let last = store.events_last()?;
    let first = match &since {
        Some(s) => first_since(store, s, last)?,
        None => 1,
    };
    if filter.types.is_empty() {
        // Every event from `first`: read the page by its sequences.
        let total = (last + 1 - first) as usize;
        let mut got = Vec::new();
        let ids = IdPage::cut(
            total,
            &window(req)?,
            |after| position(store, after, first, last),
            |start, end| {
                got = store.events(first + start as u64, first + end as u64 - 1)?;
                Ok(got.iter().map(|e| e.event_id.clone()).collect())
            },
        )?;
        let page = from_ids(req, ids)?;
        return Ok(Page {
            items: got,
            paging: page.paging,
        });
    }
    // A type filter: the matches' sequences, a segment at a time.
    const CHUNK: u64 = 1024;
    let mut matches: Vec<(u64, String)> = Vec::new();
    let mut seq = first;
    while seq <= last {
        let to = (seq + CHUNK - 1).min(last);
        for e in store.events(seq, to)? {
            if filter.matches(&e, since.as_deref()) {
                matches.push((e.sequence, e.event_id));
            }
        }
        seq = to + 1;
    }
    let page = paginate(matches, |(_, id)| id, req)?;
    let mut items = Vec::with_capacity(page.items.len());
    if let (Some((a, _)), Some((b, _))) = (page.items.first(), page.items.last()) {
        let wanted: std::collections::HashSet<u64> = page.items.iter().map(|(s, _)| *s).collect();
        items = store
            .events(*a, *b)?
            .into_iter()
            .filter(|e| wanted.contains(&e.sequence))
            .collect();
    }
    Ok(Page {
        items,
        paging: page.paging,
    })
}

/// The place of the event `after` among the events `first..=last`.
fn position(store: &Store, after: &str, first: u64, last: u64) -> Result<Option<usize>> {
    let Some(seq) = event::sequence_of(after).filter(|s| (first..=last).contains(s)) else {
        return Ok(None);
    };
    let found = store.events(seq, seq)?;
    Ok(found
        .first()
        .filter(|e| e.event_id == after)
        .map(|_| (seq - first) as usize))
}

/// `events get EVT`.
pub fn get(store: &Store, event_id: &str) -> Result<Event> {
    let missing = || Error::not_found("event", event_id);
    let seq = event::sequence_of(event_id).ok_or_else(missing)?;
    store
        .events(seq, seq)?
        .into_iter()
        .find(|e| e.event_id == event_id)
        .ok_or_else(missing)
}

/// The events after `sequence` (at most `limit`) that match `filter`:
/// `events tail`, `listen` and the webhook deliverer follow the log with
/// it. Also answers the sequence read up to.
pub fn after(
    store: &Store,
    sequence: u64,
    limit: u64,
    filter: &Filter,
) -> Result<(Vec<Event>, u64)> {
    let last = store.events_last()?;
    if sequence >= last {
        return Ok((Vec::new(), last));
    }
    let to = last.min(sequence + limit);
    let events = store
        .events(sequence + 1, to)?
        .into_iter()
        .filter(|e| filter.matches(e, None))
        .collect();
    Ok((events, to))
}
