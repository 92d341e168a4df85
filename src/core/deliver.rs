//! Webhook delivery (CLI.md "Events … webhooks"): each event, as its JSON,
//! POSTed to each webhook that wants it, signed (`Payctl-Signature`).
//!
//! Per webhook, events go out in sequence order, at least once: its outbox
//! cursor (the last sequence done) moves in a commit made after the
//! receiver's 2xx, so a deliverer killed at any moment resends, at its next
//! run, the event it had in flight, and never skips one. A failure (not a
//! 2xx, a connection error, no answer within 10 s, a redirect, which is not
//! followed) is retried after 10 s, then 20, 40… at most an hour apart, for
//! 24 h from the first attempt; then the delivery is marked failed and the
//! webhook moves on. A webhook waiting for a retry holds up only itself:
//! webhooks are served by up to [`Options::concurrency`] threads at once.
//! Every attempt is recorded (`webhook deliveries`).

use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::events::Filter;
use crate::error::Result;
use crate::model::event::Event;
use crate::model::id;
use crate::model::webhook::{self, DELIVERY_PREFIX, Delivery, Retry, Webhook};
use crate::store::Store;

/// How delivery runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The first retry's delay, doubled at each failure (10 s).
    pub backoff: Duration,
    /// The longest delay between two attempts (1 h).
    pub max_backoff: Duration,
    /// How long after its first attempt an event is given up (24 h).
    pub give_up: Duration,
    /// How long a receiver has to answer (10 s).
    pub timeout: Duration,
    /// Webhooks served at once (8).
    pub concurrency: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            backoff: Duration::from_secs(10),
            max_backoff: Duration::from_secs(3600),
            give_up: Duration::from_secs(24 * 3600),
            timeout: Duration::from_secs(10),
            concurrency: 8,
        }
    }
}

/// Largest part of a receiver's answer read (the rest is dropped).
pub const MAX_ANSWER: u64 = 64 * 1024;

/// What one pass did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Summary {
    pub delivered: u64,
    pub retrying: u64,
    pub failed: u64,
    /// Unix milliseconds of the earliest retry now waiting, if any.
    #[serde(skip)]
    pub next_due_ms: Option<i64>,
}

/// The outcome of one POST.
#[derive(Debug, Clone)]
pub struct Sent {
    pub status: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u64,
}

impl Sent {
    pub fn ok(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }
}

/// The HTTP agent of deliveries: `timeout` for the whole exchange, no
/// redirect followed (a 3xx is answered as it is: a failure).
pub fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .user_agent(concat!("payctl-webhooks/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// POST `body` (an event's JSON) to `url`, signed with `secret` at `t`.
pub fn post(agent: &ureq::Agent, url: &str, secret: &str, event_id: &str, body: &[u8]) -> Sent {
    let started = Instant::now();
    let t = chrono::Utc::now().timestamp();
    let sent = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Payctl-Event-Id", event_id)
        .header("Payctl-Signature", &webhook::signature(secret, t, body))
        .send(body);
    let (status, error) = match sent {
        Ok(mut r) => {
            let status = r.status().as_u16();
            // Read a little of the answer (the connection is then done with).
            let mut sink = Vec::new();
            let _ = r
                .body_mut()
                .as_reader()
                .take(MAX_ANSWER)
                .read_to_end(&mut sink);
            let error = match status {
                200..=299 => None,
                300..=399 => Some(format!(
                    "answered {status}, a redirect (not followed: a webhook's URL must answer itself)"
                )),
                _ => Some(format!("answered {status}")),
            };
            (Some(status), error)
        }
        Err(e) => (None, Some(failure(&e, url))),
    };
    Sent {
        status,
        error,
        duration_ms: started.elapsed().as_millis() as u64,
    }
}

/// Why a POST got no answer, the URL's password masked.
fn failure(e: &ureq::Error, url: &str) -> String {
    let text = match e {
        ureq::Error::Timeout(_) => "no answer within the time allowed".to_string(),
        other => other.to_string(),
    };
    text.replace(url, &crate::mask::url_password(url))
}

/// The delay before attempt `attempts + 1`, after `attempts` failures.
pub fn backoff(opts: &Options, attempts: u32) -> Duration {
    let factor = 1u32 << attempts.saturating_sub(1).min(20);
    opts.backoff.saturating_mul(factor).min(opts.max_backoff)
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

fn time_of(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .naive_utc()
        .format(super::TIME_FORMAT)
        .to_string()
}

/// How to open the store: for reading, and for a commit.
pub struct Open<'a> {
    pub read: &'a (dyn Fn() -> Result<Store> + Sync),
    pub write: &'a (dyn Fn() -> Result<Store> + Sync),
    /// The webhooks as a holder of the store knows them without opening
    /// it (`payctl serve`'s group commit, while it holds the store: see
    /// [`crate::store::group::GroupCommit::held_webhooks`]); `None`: open
    /// the store to read them.
    pub listed:
        Option<&'a (dyn Fn() -> Option<Result<Vec<crate::model::webhook::Webhook>>> + Sync)>,
}

/// Deliver what is due to every webhook, each as far as it goes now (up
/// to a retry that is not due yet), up to `opts.concurrency` webhooks at
/// once; `stop` ends it after the attempts in hand are recorded.
pub fn run_once(open: &Open<'_>, opts: &Options, stop: &AtomicBool) -> Result<Summary> {
    let hooks = (open.read)()?.webhooks()?;
    let next = AtomicUsize::new(0);
    let agent = agent(opts.timeout);
    let results: std::sync::Mutex<Vec<Result<Summary>>> = Default::default();
    std::thread::scope(|s| {
        for _ in 0..opts.concurrency.clamp(1, hooks.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(w) = hooks.get(i) else { break };
                    let r = one_webhook(open, opts, stop, &agent, w);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
                }
            });
        }
    });
    let mut total = Summary::default();
    let mut first_err = None;
    for r in results.into_inner().unwrap_or_else(|e| e.into_inner()) {
        match r {
            Ok(s) => {
                total.delivered += s.delivered;
                total.retrying += s.retrying;
                total.failed += s.failed;
                total.next_due_ms = match (total.next_due_ms, s.next_due_ms) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
            Err(e) => first_err = first_err.or(Some(e)),
        }
    }
    match first_err {
        Some(e) if total.delivered + total.retrying + total.failed == 0 => Err(e),
        _ => Ok(total),
    }
}

/// Deliver until `stop` is set: each webhook with something to do in a
/// thread of its own (at most `opts.concurrency` at once), the webhooks
/// looked at again every `pause`, so that a receiver that takes its time
/// holds up only its own webhook. `report` is told what each webhook's
/// turn did. Returns once the attempts in hand are recorded.
pub fn run_until(
    open: &Open<'_>,
    opts: &Options,
    stop: &AtomicBool,
    pause: Duration,
    report: &(dyn Fn(Result<Summary>) + Sync),
) {
    let agent = agent(opts.timeout);
    let busy: std::sync::Mutex<std::collections::HashSet<String>> = Default::default();
    let due: std::sync::Mutex<std::collections::HashMap<String, i64>> = Default::default();
    std::thread::scope(|s| {
        let (agent, busy, due) = (&agent, &busy, &due);
        while !stop.load(Ordering::SeqCst) {
            // While serve's creates hold the store, a pass with no webhook
            // does not wait for it (which would make them let it go).
            let listed = open
                .listed
                .and_then(|f| f())
                .unwrap_or_else(|| (open.read)().and_then(|st| st.webhooks()));
            match listed {
                Ok(hooks) => {
                    for w in hooks {
                        let mut b = busy.lock().unwrap_or_else(|e| e.into_inner());
                        let waiting = due
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .get(&w.webhook_id)
                            .is_some_and(|at| *at > now_ms());
                        if b.len() >= opts.concurrency.max(1) {
                            break;
                        }
                        if waiting || !b.insert(w.webhook_id.clone()) {
                            continue;
                        }
                        drop(b);
                        s.spawn(move || {
                            let r = one_webhook(open, opts, stop, agent, &w);
                            let mut d = due.lock().unwrap_or_else(|e| e.into_inner());
                            match r.as_ref().ok().and_then(|s| s.next_due_ms) {
                                Some(at) => d.insert(w.webhook_id.clone(), at),
                                None => d.remove(&w.webhook_id),
                            };
                            drop(d);
                            report(r);
                            busy.lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .remove(&w.webhook_id);
                        });
                    }
                }
                Err(e) => report(Err(e)),
            }
            let end = Instant::now() + pause;
            while Instant::now() < end && !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    });
}

/// How many events after the cursor are read at a time.
const CHUNK: u64 = 256;

/// Deliver to `w` what is due, in order.
fn one_webhook(
    open: &Open<'_>,
    opts: &Options,
    stop: &AtomicBool,
    agent: &ureq::Agent,
    w: &Webhook,
) -> Result<Summary> {
    let mut sum = Summary::default();
    let filter = Filter {
        types: w.events.clone(),
        ..Filter::default()
    };
    while !stop.load(Ordering::SeqCst) {
        let store = (open.read)()?;
        if store.webhook(&w.webhook_id)?.is_none() {
            break;
        }
        let outbox = store.outbox(&w.webhook_id)?;
        // A log that went back (a store reset or restored) would leave the
        // cursor past its end, and the webhook deaf until the log caught
        // up: it follows the log from its end instead.
        let last = store.events_last()?;
        if outbox.cursor > last {
            drop(store);
            advance(open, w, |ob| {
                if ob.cursor > last {
                    ob.cursor = last;
                    ob.retry = None;
                }
            })?;
            continue;
        }
        // Resends first: one attempt each, out of order.
        if let Some(evt) = outbox.resend.first().cloned() {
            let e = super::events::get(&store, &evt).ok();
            drop(store);
            let attempt = e.as_ref().map(|e| attempt(agent, w, e));
            let write = (open.write)()?;
            let mut tx = write.begin_without_events();
            let mut ob = write.outbox(&w.webhook_id)?;
            ob.resend.retain(|x| *x != evt);
            if write.webhook(&w.webhook_id)?.is_some() {
                tx.put_outbox(&w.webhook_id, &ob);
            }
            if let (Some(e), Some((sent, started))) = (&e, attempt) {
                let outcome = if sent.ok() { "delivered" } else { "failed" };
                if sent.ok() {
                    sum.delivered += 1;
                } else {
                    sum.failed += 1;
                }
                tx.add_delivery(&record(w, e, 1, started, &sent, outcome, None, true));
            }
            tx.commit()?;
            continue;
        }
        if let Some(r) = &outbox.retry
            && r.next_at > now_ms()
        {
            sum.next_due_ms = Some(r.next_at);
            break;
        }
        let (events, read_to) = super::events::after(&store, outbox.cursor, CHUNK, &filter)?;
        drop(store);
        let Some(e) = events.into_iter().next() else {
            // (A retry always names an event found here; never loop on one.)
            if read_to > outbox.cursor && outbox.retry.is_none() {
                // Nothing for it there: the cursor moves past.
                advance(open, w, |ob| {
                    if ob.retry.is_none() {
                        ob.cursor = ob.cursor.max(read_to);
                    }
                })?;
                continue;
            }
            break;
        };
        let retry = outbox.retry.filter(|r| r.sequence == e.sequence);
        let n = retry.as_ref().map_or(1, |r| r.attempts + 1);
        let (sent, started) = attempt(agent, w, &e);
        let first_at = retry.as_ref().map_or(started, |r| r.first_at);
        // A failure is retried while the next attempt falls within
        // `give_up` of the first; then the event is failed for good.
        let (outcome, next) = if sent.ok() {
            sum.delivered += 1;
            ("delivered", None)
        } else {
            let at = now_ms() + backoff(opts, n).as_millis() as i64;
            if at < first_at + opts.give_up.as_millis() as i64 {
                sum.retrying += 1;
                ("retrying", Some(at))
            } else {
                sum.failed += 1;
                ("failed", None)
            }
        };
        let d = record(w, &e, n, started, &sent, outcome, next, false);
        let seq = e.sequence;
        advance_with(open, w, Some(&d), |ob| match next {
            None => {
                ob.cursor = ob.cursor.max(seq);
                ob.retry = None;
            }
            Some(at) => {
                ob.retry = Some(Retry {
                    sequence: seq,
                    attempts: n,
                    first_at,
                    next_at: at,
                })
            }
        })?;
        if let Some(at) = next {
            sum.next_due_ms = Some(at);
            break;
        }
    }
    Ok(sum)
}

/// POST event `e` to `w`: what came of it, and when it started (Unix ms).
fn attempt(agent: &ureq::Agent, w: &Webhook, e: &Event) -> (Sent, i64) {
    let started = now_ms();
    let body = serde_json::to_vec(e).expect("events serialize");
    (post(agent, &w.url, &w.secret, &e.event_id, &body), started)
}

#[allow(clippy::too_many_arguments)]
fn record(
    w: &Webhook,
    e: &Event,
    attempt: u32,
    started: i64,
    sent: &Sent,
    outcome: &str,
    next: Option<i64>,
    resend: bool,
) -> Delivery {
    Delivery {
        delivery_id: id::new_id(DELIVERY_PREFIX),
        webhook_id: w.webhook_id.clone(),
        event_id: e.event_id.clone(),
        event_type: e.event_type.clone(),
        attempt,
        created_datetime: time_of(started),
        status_code: sent.status,
        error: sent.error.clone(),
        duration_ms: sent.duration_ms,
        outcome: outcome.to_string(),
        next_retry: next.map(time_of),
        resend,
    }
}

fn advance(open: &Open<'_>, w: &Webhook, change: impl FnOnce(&mut webhook::Outbox)) -> Result<()> {
    advance_with(open, w, None, change)
}

/// Commit the outbox of `w` as `change` leaves it (read again under the
/// write: a resend queued meanwhile is kept), with the attempt `d`.
fn advance_with(
    open: &Open<'_>,
    w: &Webhook,
    d: Option<&Delivery>,
    change: impl FnOnce(&mut webhook::Outbox),
) -> Result<()> {
    let store = (open.write)()?;
    let mut tx = store.begin_without_events();
    if store.webhook(&w.webhook_id)?.is_some() {
        let mut ob = store.outbox(&w.webhook_id)?;
        change(&mut ob);
        tx.put_outbox(&w.webhook_id, &ob);
    }
    if let Some(d) = d {
        tx.add_delivery(d);
    }
    if tx.is_empty() {
        return Ok(());
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_10_s_up_to_an_hour() {
        let o = Options::default();
        let secs: Vec<u64> = (1..=11).map(|n| backoff(&o, n).as_secs()).collect();
        assert_eq!(
            secs,
            [10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600]
        );
        assert_eq!(backoff(&o, 1000).as_secs(), 3600);
    }

    #[test]
    fn a_cursor_past_the_log_follows_it_from_its_end() {
        use crate::store::memory::MemoryStore;
        let m = MemoryStore::builtin("2026-01-02T03:04:05.000006");
        let read = || Ok(Store::Memory(m.reopen()));
        let write = || Ok(Store::Memory(m.reopen_for_writing()));
        let ctx = crate::core::Ctx::new("t", chrono::Utc::now().naive_utc());
        let w = crate::core::webhooks::create(
            &write().unwrap(),
            &ctx,
            &serde_json::json!({"url": "http://127.0.0.1:9/x", "events": ["customer_profile.*"]}),
        )
        .unwrap();
        let store = write().unwrap();
        let mut tx = store.begin_without_events();
        tx.put_outbox(
            &w.webhook_id,
            &webhook::Outbox {
                cursor: 99,
                ..Default::default()
            },
        );
        tx.commit().unwrap();
        drop(store);
        let open = Open {
            read: &read,
            write: &write,
            listed: None,
        };
        let s = run_once(&open, &Options::default(), &AtomicBool::new(false)).unwrap();
        assert_eq!(s.delivered + s.retrying + s.failed, 0);
        assert_eq!(read().unwrap().outbox(&w.webhook_id).unwrap().cursor, 1);
    }

    #[test]
    fn only_a_2xx_delivers() {
        let sent = |status| Sent {
            status,
            error: None,
            duration_ms: 0,
        };
        assert!(sent(Some(200)).ok() && sent(Some(204)).ok());
        assert!(!sent(Some(302)).ok() && !sent(Some(500)).ok() && !sent(None).ok());
    }
}
