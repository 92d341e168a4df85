//! Webhooks (issue 36): the real binary delivering to a real HTTP receiver
//! in the test (a `TcpListener` thread that records every request and
//! answers the statuses it is told), signatures recomputed here with
//! `hmac` + `sha2`; retries, redirects, a kill -9 of the deliverer, resend,
//! `listen`, the secret shown once, admin-only routes, serve's background
//! delivery; on the JSON store and PostgreSQL.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{KeyInit, Mac};
use serde_json::{Value, json};

use crate::common::serve::Server;
use crate::common::{Env, ach_instrument_body, address_body, ok, payctl, profile_body};

/// One request the receiver got.
#[derive(Debug, Clone)]
struct Got {
    path: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
    fn event_id(&self) -> String {
        self.json()["event_id"].as_str().unwrap().to_string()
    }
    fn sequence(&self) -> u64 {
        self.json()["sequence"].as_u64().unwrap()
    }
}

/// A tiny HTTP receiver: records each request, answers the next queued
/// status (then 200), after `delay`.
#[derive(Clone)]
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Got>>>,
    statuses: Arc<Mutex<VecDeque<u16>>>,
    delay: Arc<Mutex<Duration>>,
}

impl Receiver {
    fn start() -> Receiver {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let r = Receiver {
            url: format!("http://{}/hook", l.local_addr().unwrap()),
            got: Default::default(),
            statuses: Default::default(),
            delay: Default::default(),
        };
        let me = r.clone();
        std::thread::spawn(move || {
            for s in l.incoming().flatten() {
                let me = me.clone();
                std::thread::spawn(move || me.serve(s));
            }
        });
        r
    }

    fn serve(&self, s: TcpStream) {
        let mut reader = BufReader::new(s.try_clone().unwrap());
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("").to_string();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h == "\r\n" {
                break;
            }
            if let Some((k, v)) = h.trim_end().split_once(':') {
                headers.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        let _ = reader.read_exact(&mut body);
        self.got.lock().unwrap().push(Got {
            path,
            headers,
            body,
        });
        let status = self.statuses.lock().unwrap().pop_front().unwrap_or(200);
        std::thread::sleep(*self.delay.lock().unwrap());
        let location = if (300..400).contains(&status) {
            format!("Location: {}/elsewhere\r\n", self.url)
        } else {
            String::new()
        };
        let mut s = s;
        let _ = write!(
            s,
            "HTTP/1.1 {status} X\r\n{location}Content-Length: 2\r\nConnection: close\r\n\r\nok"
        );
    }

    fn answer(&self, statuses: &[u16]) {
        self.statuses.lock().unwrap().extend(statuses);
    }

    fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }

    /// The requests once there are `n` of them (fails after 20 s).
    fn wait_for(&self, n: usize) -> Vec<Got> {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let g = self.got();
            if g.len() >= n {
                return g;
            }
            assert!(Instant::now() < end, "{} of {n} requests: {g:?}", g.len());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Check the request as the contract says (content type, event id header,
/// signature recomputed with `secret`); its event.
fn verified(secret: &str, g: &Got) -> Value {
    assert_eq!(g.path, "/hook");
    assert_eq!(g.header("content-type"), Some("application/json"), "{g:?}");
    let e = g.json();
    assert_eq!(g.header("payctl-event-id"), e["event_id"].as_str(), "{g:?}");
    let sig = g.header("payctl-signature").expect("Payctl-Signature");
    let (t, v1) = sig
        .strip_prefix("t=")
        .and_then(|r| r.split_once(",v1="))
        .expect("t=…,v1=…");
    let t: i64 = t.parse().expect("unix seconds");
    assert!((chrono::Utc::now().timestamp() - t).abs() < 300, "{sig}");
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&g.body);
    let want: String = mac
        .finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(v1, want, "the signature of {}", e["event_id"]);
    e
}

/// `webhook create`: (id, secret).
fn create(env: &Env, url: &str, extra: &[&str]) -> (String, String) {
    let mut args = vec!["webhook", "create", "--url", url];
    args.extend(extra);
    let o = ok(env.run(&args));
    let w = &o.data()[0];
    let secret = w["secret"].as_str().unwrap().to_string();
    assert!(
        secret.starts_with("whsec_") && secret.len() >= 6 + 64,
        "{o:?}"
    );
    (w["webhook_id"].as_str().unwrap().to_string(), secret)
}

/// Every event of the log, oldest first.
fn log(env: &Env) -> Vec<Value> {
    ok(env.run(&["events", "list", "--all"])).data().clone()
}

fn deliveries(env: &Env, whk: &str) -> Vec<Value> {
    ok(env.run(&["webhook", "deliveries", whk, "--all"]))
        .data()
        .clone()
}

/// Changes that record every kind of event a store makes without special
/// outcomes: profiles, addresses, instruments, attachments, transactions
/// (one completed, one failed), and a webhook created and deleted.
fn everything(env: &Env) {
    let prm = env.program_id();
    let csp = env.create_profile("hooks-one");
    let other = env.create_profile("hooks-two");
    ok(env.run(&["profile", "update", &csp, "--email", "grace@example.com"]));
    ok(env.body(&["address", "create", &csp], &address_body(true)));
    let cpa = env
        .body(&["address", "create", &csp], &address_body(false))
        .id();
    ok(env.run(&["address", "update", &csp, &cpa, "--city", "Shelbyville"]));
    ok(env.run(&["address", "delete", &csp, &cpa, "--yes"]));
    ok(env.run(&["program", "attach", &prm, &csp]));
    ok(env.run(&["program", "attach", &prm, &other]));
    ok(env.run(&["worker"]));
    let body = ach_instrument_body(
        &prm,
        "Main",
        true,
        json!([{"key": "source", "value": "hooks"}]),
    );
    let pin = env.body(&["instrument", "create", &csp], &body).id();
    ok(env.run(&["instrument", "update", &csp, &pin, "--label", "Renamed"]));
    for who in [&csp, &other] {
        let p = format!("@source_customers={who}:10.25");
        ok(env.run(&crate::common::txn_create_args(&prm, "ach_funding", &[&p])));
    }
    ok(env.run(&["worker"]));
    ok(env.run(&["worker"]));
    let (second, _) = create(
        env,
        "http://127.0.0.1:9/unused",
        &["--events", "customer_profile.*"],
    );
    ok(env.run(&["webhook", "delete", &second, "--yes"]));
}

/// Every event from the webhook's creation on is delivered, in sequence
/// order, signed, its body the event as `events get` shows it: every type
/// the log holds, through a real HTTP receiver.
fn every_event_type_reaches_the_receiver_on(env: &Env) {
    let rx = Receiver::start();
    let (whk, secret) = create(env, &rx.url, &["--description", "all of it"]);
    everything(env);
    ok(env.run(&["webhook", "deliver"]));
    let events = log(env);
    let got = rx.wait_for(events.len());
    assert_eq!(got.len(), events.len(), "one request per event");
    for (g, e) in got.iter().zip(&events) {
        let body = verified(&secret, g);
        assert_eq!(&body, e, "the body is the event as the log shows it");
    }
    let mut types: Vec<&str> = events
        .iter()
        .map(|e| e["event_type"].as_str().unwrap())
        .collect();
    types.sort();
    types.dedup();
    for t in [
        "customer_profile.created",
        "customer_profile.updated",
        "address.created",
        "address.updated",
        "address.deleted",
        "payment_instrument.created",
        "payment_instrument.updated",
        "attachment.requested",
        "attachment.attached",
        "transaction.created",
        "transaction.completed",
        "transaction.failed",
        "transaction_step.created",
        "transaction_step.completed",
        "transaction_step.failed",
        "webhook.created",
        "webhook.deleted",
    ] {
        assert!(types.contains(&t), "{t} was not delivered: {types:?}");
    }
    // Nothing is delivered twice, and each attempt is listed.
    ok(env.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), events.len());
    let d = deliveries(env, &whk);
    assert_eq!(d.len(), events.len());
    assert!(
        d.iter()
            .all(|d| d["outcome"] == "delivered" && d["status_code"] == 200)
    );
    assert_eq!(d[0]["event_id"], events[0]["event_id"]);
    assert_eq!(d[0]["attempt"], 1);
    assert!(d[0]["duration_ms"].is_u64() && d[0]["created_datetime"].is_string());
}

#[test]
fn every_event_type_reaches_the_receiver_signed_in_order() {
    every_event_type_reaches_the_receiver_on(&Env::new());
}

/// A receiver that answers 500 twice gets the event again after the
/// backoff (PAYCTL_WEBHOOK_BACKOFF_MS), then the later events, in order;
/// each attempt is listed with its status and next retry.
fn a_failing_receiver_is_retried_on(env: &mut Env) {
    env.envs.push(("PAYCTL_WEBHOOK_BACKOFF_MS", "300".into()));
    let rx = Receiver::start();
    rx.answer(&[500, 500]);
    let (whk, secret) = create(env, &rx.url, &[]);
    env.create_profile("retry-one");
    env.create_profile("retry-two");
    let s = ok(env.run(&["webhook", "deliver"]));
    assert_eq!(s.data()[0]["retrying"], 1, "{s:?}");
    assert_eq!(
        rx.got().len(),
        1,
        "the failed event holds the later ones back"
    );
    // Not due yet: nothing is sent.
    ok(env.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), 1);
    std::thread::sleep(Duration::from_millis(350));
    ok(env.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), 2, "the second attempt");
    std::thread::sleep(Duration::from_millis(650));
    let s = ok(env.run(&["webhook", "deliver"]));
    assert_eq!(s.data()[0]["delivered"], 3, "{s:?}");
    let got = rx.got();
    let seqs: Vec<u64> = got.iter().map(Got::sequence).collect();
    assert_eq!(
        seqs[..3],
        [seqs[0]; 3],
        "the first event three times: {seqs:?}"
    );
    assert_eq!(
        seqs[3..],
        [seqs[0] + 1, seqs[0] + 2],
        "then the others in order"
    );
    for g in &got {
        verified(&secret, g);
    }
    let d = deliveries(env, &whk);
    let tries: Vec<(u64, &str)> = d
        .iter()
        .map(|d| {
            (
                d["attempt"].as_u64().unwrap(),
                d["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tries,
        [
            (1, "retrying"),
            (2, "retrying"),
            (3, "delivered"),
            (1, "delivered"),
            (1, "delivered")
        ]
    );
    assert_eq!(d[0]["status_code"], 500);
    assert!(d[0]["next_retry"].is_string() && d[2]["next_retry"].is_null());
    assert!(d[0]["error"].as_str().unwrap().contains("500"));
}

#[test]
fn a_failing_receiver_is_retried_then_delivered_in_order() {
    a_failing_receiver_is_retried_on(&mut Env::new());
}

/// An event still failing when its next attempt would fall past the give-up
/// time (24 h; `PAYCTL_WEBHOOK_GIVE_UP_MS` here) is marked failed, and the
/// webhook moves on to the next events.
#[test]
fn an_event_given_up_is_failed_and_the_webhook_moves_on() {
    let mut env = Env::new();
    env.envs.push(("PAYCTL_WEBHOOK_BACKOFF_MS", "150".into()));
    env.envs.push(("PAYCTL_WEBHOOK_GIVE_UP_MS", "400".into()));
    let rx = Receiver::start();
    rx.answer(&[500, 503]);
    let (whk, _) = create(&env, &rx.url, &[]);
    env.create_profile("given-up");
    ok(env.run(&["webhook", "deliver"]));
    std::thread::sleep(Duration::from_millis(200));
    let s = ok(env.run(&["webhook", "deliver"]));
    assert_eq!(s.data()[0]["failed"], 1, "{s:?}");
    assert_eq!(
        s.data()[0]["delivered"],
        1,
        "the next event went out: {s:?}"
    );
    let outcomes: Vec<Value> = deliveries(&env, &whk)
        .iter()
        .map(|d| json!([d["attempt"], d["outcome"], d["status_code"]]))
        .collect();
    assert_eq!(
        outcomes,
        [
            json!([1, "retrying", 500]),
            json!([2, "failed", 503]),
            json!([1, "delivered", 200])
        ]
    );
    ok(env.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), 3, "a failed event is not sent again");
}

/// A 302 is not followed: it is a failed attempt, retried later.
#[test]
fn a_redirect_is_not_followed() {
    let env = Env::new();
    let rx = Receiver::start();
    rx.answer(&[302]);
    let (whk, _) = create(&env, &rx.url, &[]);
    let s = ok(env.run(&["webhook", "deliver"]));
    assert_eq!(s.data()[0]["retrying"], 1, "{s:?}");
    let got = rx.got();
    assert_eq!(got.len(), 1, "the Location was not followed: {got:?}");
    let d = deliveries(&env, &whk);
    assert_eq!(d[0]["status_code"], 302);
    assert_eq!(d[0]["outcome"], "retrying");
    assert!(
        d[0]["error"].as_str().unwrap().contains("redirect"),
        "{d:?}"
    );
}

/// A deliverer killed with SIGKILL in the middle of a delivery loses
/// nothing: the next run resends the event in flight, then the rest, in
/// order (at least once).
fn kill_9_loses_nothing_on(env: &Env) {
    let rx = Receiver::start();
    *rx.delay.lock().unwrap() = Duration::from_millis(300);
    let (_, secret) = create(env, &rx.url, &[]);
    for i in 0..6 {
        env.create_profile(&format!("kill-{i}"));
    }
    let events = log(env);
    let mut c = payctl(env, "json");
    c.args(["webhook", "deliver", "--watch", "--interval", "0.1"]);
    let mut child = c.stdin(Stdio::null()).spawn().unwrap();
    // The third request is in flight (the receiver holds its answer).
    rx.wait_for(3);
    child.kill().unwrap();
    child.wait().unwrap();
    *rx.delay.lock().unwrap() = Duration::ZERO;
    ok(env.run(&["webhook", "deliver"]));
    let got = rx.got();
    let seqs: Vec<u64> = got.iter().map(Got::sequence).collect();
    assert!(seqs.windows(2).all(|w| w[0] <= w[1]), "in order: {seqs:?}");
    let mut unique = seqs.clone();
    unique.dedup();
    let all: Vec<u64> = events
        .iter()
        .map(|e| e["sequence"].as_u64().unwrap())
        .collect();
    assert_eq!(unique, all, "every event at least once: {seqs:?}");
    for g in &got {
        verified(&secret, g);
    }
}

#[test]
fn kill_9_of_the_deliverer_loses_nothing() {
    kill_9_loses_nothing_on(&Env::new());
}

/// `events resend` queues an event once more for one webhook: the next
/// pass sends it, out of order, listed as a resend.
fn resend_on(env: &Env) {
    let rx = Receiver::start();
    let (whk, secret) = create(env, &rx.url, &[]);
    let csp = env.create_profile("resend-one");
    ok(env.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), 2);
    let first = log(env)[0]["event_id"].as_str().unwrap().to_string();
    let o = ok(env.run(&["events", "resend", &first, "--webhook", &whk]));
    assert_eq!(o.data()[0]["status"], "queued");
    assert_eq!(o.data()[0]["webhook_id"], whk.as_str());
    ok(env.run(&["profile", "update", &csp, "--email", "later@example.com"]));
    ok(env.run(&["webhook", "deliver"]));
    let got = rx.wait_for(4);
    assert_eq!(got[2].event_id(), first, "the resend first, out of order");
    assert_eq!(got[3].json()["event_type"], "customer_profile.updated");
    verified(&secret, &got[2]);
    let d = deliveries(env, &whk);
    assert_eq!(d[2]["resend"], true);
    assert_eq!(d[2]["event_id"], first.as_str());
    // What does not exist is refused, naming it, and nothing is queued.
    env.run(&["events", "resend", &first, "--webhook", "whk_nope"])
        .refused(1, 20001)
        .mentions("whk_nope");
    env.run(&["events", "resend", "evt_nope", "--webhook", &whk])
        .refused(1, 20001)
        .mentions("evt_nope");
    ok(env.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), 4);
}

#[test]
fn resend_sends_an_event_once_more() {
    resend_on(&Env::new());
}

/// Read `child`'s stderr lines into a shared string.
fn collect_stderr(child: &mut std::process::Child) -> Arc<Mutex<String>> {
    let err = child.stderr.take().unwrap();
    let text = Arc::new(Mutex::new(String::new()));
    let sink = text.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let mut t = sink.lock().unwrap();
            t.push_str(&line);
            t.push('\n');
        }
    });
    text
}

fn wait_text(text: &Arc<Mutex<String>>, what: &str) -> String {
    let end = Instant::now() + Duration::from_secs(20);
    loop {
        let t = text.lock().unwrap().clone();
        if t.contains(what) {
            return t;
        }
        assert!(Instant::now() < end, "no {what:?} in {t:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `listen --forward-to` forwards the events from now on, signed with the
/// secret it printed; locally and through --base-url.
#[test]
fn listen_forwards_signed_events() {
    let env = Env::new();
    env.create_profile("before-listen");
    let rx = Receiver::start();
    let mut c = payctl(&env, "json");
    c.args(["listen", "--forward-to", &rx.url, "--interval", "0.1"])
        .args(["--events", "customer_profile.*"])
        .env_remove("PAYCTL_LISTEN_SECRET");
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = collect_stderr(&mut child);
    let ready = wait_text(&err, "whsec_");
    let secret: String = ready[ready.find("whsec_").unwrap()..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let csp = env.create_profile("after-listen");
    ok(env.body(&["address", "create", &csp], &address_body(true)));
    ok(env.run(&["profile", "update", &csp, "--email", "x@example.com"]));
    let got = rx.wait_for(2);
    child.kill().unwrap();
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child.wait().unwrap();
    let types: Vec<Value> = got
        .iter()
        .map(|g| verified(&secret, g)["event_type"].clone())
        .collect();
    assert_eq!(
        types,
        ["customer_profile.created", "customer_profile.updated"],
        "from now on, only the types asked for"
    );
    assert!(
        out.contains(&got[0].event_id()) && out.contains(" 200 "),
        "{out}"
    );

    // Through a server, with a secret of our own.
    let server = Server::start(&env, &["--no-webhooks"]);
    let rx2 = Receiver::start();
    let mut c = payctl(&env, "json");
    c.args([
        "--base-url",
        &server.base,
        "listen",
        "--forward-to",
        &rx2.url,
    ])
    .args(["--interval", "0.1"])
    .env("PAYCTL_LISTEN_SECRET", "whsec_from_the_environment");
    let mut child = c
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = collect_stderr(&mut child);
    wait_text(&err, "Ready");
    env.create_profile("remote-listen");
    let got = rx2.wait_for(1);
    child.kill().unwrap();
    child.wait().unwrap();
    let e = verified("whsec_from_the_environment", &got[0]);
    assert_eq!(e["event_type"], "customer_profile.created");
}

/// The secret is in the create's answer only: never in list, get, the
/// events, the deliveries or any file of the store but the webhook's own
/// (0600); `get` shows its last 4.
fn secret_shown_once_on(env: &Env) {
    let rx = Receiver::start();
    let (whk, secret) = create(env, &rx.url, &[]);
    ok(env.run(&["webhook", "deliver"]));
    let last4 = &secret[secret.len() - 4..];
    let evt = log(env)[0]["event_id"].as_str().unwrap().to_string();
    let outputs = [
        env.run(&["webhook", "list"]),
        env.run(&["webhook", "list", "-o", "table"]),
        env.run(&["webhook", "get", &whk]),
        env.run(&["webhook", "deliveries", &whk]),
        env.run(&["events", "list", "--all"]),
        env.run(&["events", "get", &evt]),
        env.run(&["history", &whk]),
    ];
    for o in &outputs {
        assert_eq!(o.code, 0, "{o:?}");
        assert!(
            !o.stdout.contains(&secret) && !o.stderr.contains(&secret),
            "{o:?}"
        );
    }
    assert_eq!(
        outputs[2].data()[0]["secret"],
        format!("whsec_…{last4}").as_str()
    );
    assert_eq!(
        log(env)[0]["data"]["secret"],
        format!("whsec_…{last4}").as_str()
    );
    assert!(
        rx.got()[0]
            .body
            .windows(secret.len())
            .all(|w| w != secret.as_bytes())
    );
    if env.db.is_none() {
        let mut files = Vec::new();
        crate::common::files(&env.path(), &mut files);
        for f in files {
            let bytes = std::fs::read(&f).unwrap();
            let holds = bytes.windows(secret.len()).any(|w| w == secret.as_bytes());
            let own = f.ends_with(format!("webhooks/hook-{whk}.json"));
            // The journal holds what its last commits wrote, as it holds
            // every record (a crash replays it); no other file has it.
            let journal = f.ends_with("applied.json") || f.ends_with("journal.json");
            assert!(own || journal || !holds, "{}", f.display());
            assert!(holds || !own, "{}", f.display());
            if own {
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
                assert_eq!(mode, 0o600, "{}", f.display());
            }
        }
        ok(env.store_check(false));
    }
}

#[test]
fn the_secret_is_shown_once() {
    secret_shown_once_on(&Env::new());
}

/// Bad input is refused naming the field or flag, and leaves the store as
/// it was; a delete needs --yes and records webhook.deleted.
#[test]
fn refusals_name_the_field_and_change_nothing() {
    let env = Env::new();
    env.create_profile("refusals");
    let before = env.snapshot();
    for (url, why) in [
        ("ftp://example.com/x", "http:// or https://"),
        ("http://", "host"),
        ("http://exa mple.com/", "spaces"),
    ] {
        env.run(&["webhook", "create", "--url", url])
            .refused(1, 10001)
            .mentions("url");
        let _ = why;
    }
    let o = env.run(&[
        "webhook",
        "create",
        "--url",
        "http://x.test/",
        "--events",
        "nope",
    ]);
    assert_eq!(o.code, 2, "{o:?}");
    assert!(
        o.stdout.contains("--events") || o.stderr.contains("--events"),
        "{o:?}"
    );
    let long = "d".repeat(501);
    env.run(&[
        "webhook",
        "create",
        "--url",
        "http://x.test/",
        "--description",
        &long,
    ])
    .refused(1, 10001)
    .mentions("description");
    env.run(&["webhook", "get", "whk_nope"])
        .refused(1, 20001)
        .mentions("whk_nope");
    env.run(&["webhook", "deliveries", "whk_nope"])
        .refused(1, 20001);
    env.run(&["webhook", "delete", "whk_nope", "--yes"])
        .refused(1, 20001);
    assert_eq!(before, env.snapshot(), "a refusal changes nothing");

    let (whk, _) = create(&env, "https://user:pw@hooks.example.com/in", &[]);
    let w = ok(env.run(&["webhook", "get", &whk]));
    assert_eq!(w.data()[0]["url"], "https://user:****@hooks.example.com/in");
    let o = env.run(&["webhook", "delete", &whk, "--no-input"]);
    o.refused(2, 10006);
    ok(env.run(&["webhook", "get", &whk]));
    assert_eq!(ok(env.run(&["webhook", "delete", &whk, "--yes"])).id(), whk);
    env.run(&["webhook", "get", &whk]).refused(1, 20001);
    let last = log(&env).pop().unwrap();
    assert_eq!(last["event_type"], "webhook.deleted");
    assert_eq!(last["record_id"], whk.as_str());
    assert!(
        last["data"]["secret"]
            .as_str()
            .unwrap()
            .starts_with("whsec_…")
    );
}

fn bearer(secret: &str) -> (&'static str, String) {
    ("Authorization", format!("Bearer {secret}"))
}

/// Over HTTP the webhook routes need an admin key; an admin creates,
/// lists, reads and deletes them, and queues a resend.
#[test]
fn over_http_webhooks_are_admin_only() {
    let env = Env::new();
    let key = |name: &str, role: &str| -> String {
        ok(env.run(&["key", "create", name, "--role", role])).data()[0]["secret"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (admin, writer, reader) = (
        key("hooks-admin", "admin"),
        key("hooks-writer", "writer"),
        key("hooks-reader", "reader"),
    );
    let server = Server::start(&env, &["--no-webhooks"]);
    let send = |method: &str, path: &str, body: Option<&Value>, secret: &str| {
        let (h, v) = bearer(secret);
        server.send(
            method,
            path,
            body.map(|b| b.to_string()).as_deref(),
            &[(h, v.as_str())],
        )
    };
    let body = json!({"url": "http://127.0.0.1:9/in", "events": ["transaction.*"]});
    for secret in [&writer, &reader] {
        send("POST", "/webhooks", Some(&body), secret).refused(403, 10010);
        send("GET", "/webhooks", None, secret).refused(403, 10010);
    }
    let r = send("POST", "/webhooks", Some(&body), &admin);
    assert_eq!(r.status, 200, "{r:?}");
    let whk = r.json["data"][0]["webhook_id"]
        .as_str()
        .unwrap()
        .to_string();
    let secret = r.json["data"][0]["secret"].as_str().unwrap().to_string();
    assert!(secret.starts_with("whsec_"));
    let l = send("GET", "/webhooks", None, &admin);
    assert_eq!(l.status, 200);
    assert!(!l.text.contains(&secret));
    assert_eq!(l.json["data"][0]["events"], json!(["transaction.*"]));
    let g = send("GET", &format!("/webhooks/{whk}"), None, &admin);
    assert_eq!(g.status, 200);
    assert!(!g.text.contains(&secret));
    let d = send("GET", &format!("/webhooks/{whk}/deliveries"), None, &admin);
    assert_eq!(d.status, 200, "{d:?}");
    let evt = send("GET", "/events", None, &reader).json["data"][0]["event_id"]
        .as_str()
        .unwrap()
        .to_string();
    let resend = json!({"webhook_id": whk});
    send(
        "POST",
        &format!("/events/{evt}/resend"),
        Some(&resend),
        &writer,
    )
    .refused(403, 10010);
    let q = send(
        "POST",
        &format!("/events/{evt}/resend"),
        Some(&resend),
        &admin,
    );
    assert_eq!(q.status, 200, "{q:?}");
    send(
        "POST",
        "/webhooks",
        Some(&json!({"url": "http://x.test/", "extra": 1})),
        &admin,
    )
    .refused(400, 10004);
    send("POST", "/webhooks", Some(&json!({})), &admin).refused(400, 10002);
    let (h, v) = bearer(&admin);
    server
        .send(
            "POST",
            "/webhooks",
            Some(&body.to_string()),
            &[(h, v.as_str()), ("Payctl-Dry-Run", "true")],
        )
        .refused(400, 10001);
    assert_eq!(
        send("GET", "/webhooks", None, &admin).json["data"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    send("DELETE", &format!("/webhooks/{whk}"), None, &writer).refused(403, 10010);
    let del = send("DELETE", &format!("/webhooks/{whk}"), None, &admin);
    assert_eq!(del.json["data"][0]["id"], whk.as_str(), "{del:?}");
    send("GET", &format!("/webhooks/{whk}"), None, &admin).refused(404, 20001);
}

/// `payctl serve` delivers in the background; a receiver that takes its
/// time holds up only its own webhook.
#[test]
fn serve_delivers_in_the_background() {
    let env = Env::new();
    let slow = Receiver::start();
    *slow.delay.lock().unwrap() = Duration::from_secs(4);
    let fast = Receiver::start();
    create(&env, &slow.url, &[]);
    let (_, secret) = create(&env, &fast.url, &["--events", "customer_profile.*"]);
    let server = Server::try_start(&env, &["--no-worker"], &[]).expect("serve");
    let started = Instant::now();
    let r = server.post("/customer-profiles", &profile_body("served-hook"));
    assert_eq!(r.status, 201, "{r:?}");
    let got = fast.wait_for(1);
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "the slow receiver held up the fast one"
    );
    assert_eq!(
        verified(&secret, &got[0])["event_type"],
        "customer_profile.created"
    );
    slow.wait_for(1);
    let (_, log) = server.terminate();
    assert!(log.contains("webhooks: "), "{log}");
}

#[test]
#[ignore = "needs PostgreSQL"]
fn webhooks_on_postgres() {
    let db = |part: &str| Env::database(&format!("webhooks_on_postgres_{part}"));
    let (Some(all), Some(kill), Some(resend), Some(secret), Some(mut retry)) = (
        db("all"),
        db("kill"),
        db("resend"),
        db("secret"),
        db("retry"),
    ) else {
        return;
    };
    every_event_type_reaches_the_receiver_on(&all);
    kill_9_loses_nothing_on(&kill);
    resend_on(&resend);
    secret_shown_once_on(&secret);
    a_failing_receiver_is_retried_on(&mut retry);
    migrate_carries_webhooks();
}

/// `store migrate` carries each webhook with its secret, cursor and
/// attempts: on the target, delivery resumes where it was, signed as
/// before.
fn migrate_carries_webhooks() {
    let Some(url) = crate::common::pg::fresh_database("webhooks_migrated") else {
        return;
    };
    let here = Env::new();
    let rx = Receiver::start();
    let (whk, secret) = create(&here, &rx.url, &[]);
    here.create_profile("migrated-one");
    ok(here.run(&["webhook", "deliver"]));
    assert_eq!(rx.got().len(), 2);
    let o = ok(here.run(&["store", "migrate", "--to", &url]));
    assert_eq!(o.data()[0]["webhooks"], 1, "{o:?}");
    let there = Env {
        dir: tempfile::TempDir::new().unwrap(),
        db: Some(url),
        envs: Vec::new(),
    };
    assert_eq!(deliveries(&there, &whk).len(), 2);
    there.create_profile("migrated-two");
    ok(there.run(&["webhook", "deliver"]));
    let got = rx.wait_for(3);
    assert_eq!(got.len(), 3, "only the new event: {got:?}");
    assert_eq!(
        verified(&secret, &got[2])["event_type"],
        "customer_profile.created"
    );
}
