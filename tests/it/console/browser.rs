//! The console in a real browser: Debian's `chromium`, headless, opens each
//! page of a seeded store from a real `payctl serve` (`--dump-dom`, and
//! `--screenshot` for the book). Chromium's console log (`--enable-logging`)
//! would show a Content-Security-Policy violation or a script that ran; its
//! NetLog (`--log-net-log`) lists every request a page made, which must all
//! go to the server itself. The browser's own background traffic (updates,
//! accounts) is kept off the network by a resolver that only knows
//! 127.0.0.1, and is told apart from the page's by its initiator.
//! `.ci/run` installs chromium; these tests are `#[ignore = "needs
//! chromium"]` and CI runs them (`--include-ignored`). (A module of
//! tests/it/console.rs.)

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::super::common::Env;
use super::super::common::serve::Server;
use super::{Seeded, create_key, seed_with};

/// What a page showed the browser.
struct Visit {
    dom: String,
    /// Chromium's console lines (a CSP violation, a script's output).
    console: Vec<String>,
    /// `(initiator, url)` of each request the network stack started.
    requests: Vec<(String, String)>,
}

/// Chromium with a fresh profile, off the network but for 127.0.0.1.
fn chromium(dir: &Path) -> Command {
    let mut c = Command::new("chromium");
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-default-apps",
        "--disable-extensions",
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ])
    .arg(format!("--user-data-dir={}", dir.join("profile").display()))
    .stdin(Stdio::null());
    c
}

/// Run `c` for at most 90 s; its stdout and stderr.
fn run(mut c: Command, what: &str) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    c.stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap());
    let mut child = c
        .spawn()
        .expect("chromium runs (.ci/run installs Debian's chromium)");
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
            let (o, e) = (read(&out), read(&err));
            assert!(status.success(), "{what}: chromium failed: {status}\n{e}");
            return (o, e);
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The requests of a NetLog file: `(initiator, url)` of each job started.
fn requests(netlog: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(netlog).expect("a NetLog");
    // A log cut at the end of the process lacks its closing brackets.
    let v: Value = serde_json::from_str(&text)
        .or_else(|_| serde_json::from_str(&format!("{}]}}", text.trim_end().trim_end_matches(','))))
        .expect("the NetLog is JSON");
    let start_job = v["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].clone();
    assert!(start_job.is_number(), "the NetLog names its event types");
    v["events"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["type"] == start_job && e["params"]["url"].is_string())
        .map(|e| {
            let p = &e["params"];
            (
                p["initiator"].as_str().unwrap_or("").to_string(),
                p["url"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

fn visit(url: &str) -> Visit {
    let dir = tempfile::tempdir().unwrap();
    let netlog = dir.path().join("net.json");
    let mut c = chromium(dir.path());
    c.args(["--enable-logging=stderr", "--v=0"])
        .arg(format!("--log-net-log={}", netlog.display()))
        .args(["--dump-dom", url]);
    let (dom, err) = run(c, url);
    Visit {
        dom,
        console: err
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_string)
            .collect(),
        requests: requests(&netlog),
    }
}

/// What every page must show a browser: its content, nothing on the
/// console, every request of the page to this server.
fn check(v: &Visit, base: &str, page: &str) {
    assert!(v.dom.contains("</html>"), "{page}: {}", v.dom);
    assert!(
        v.console.is_empty(),
        "{page}: console messages: {:?}",
        v.console
    );
    let own: Vec<&(String, String)> = v
        .requests
        .iter()
        .filter(|(initiator, _)| initiator != "not an origin")
        .collect();
    for (initiator, url) in &own {
        assert_eq!(
            initiator, base,
            "{page}: a request from another origin: {url}"
        );
        assert!(
            url.starts_with(&format!("{base}/ui/")),
            "{page}: loads {url}"
        );
    }
    assert!(
        own.iter()
            .any(|(_, u)| u == &format!("{base}/ui/style.css")),
        "{page}: the stylesheet was loaded: {:?}",
        v.requests
    );
    assert!(!v.dom.to_ascii_lowercase().contains("<script"), "{page}");
}

#[test]
#[ignore = "needs chromium"]
fn a_browser_shows_every_page_loading_nothing_from_elsewhere() {
    let s = seed_with(true);
    let srv = Server::start(&s.env, &["--quiet"]);
    let base = srv.base.clone();
    for page in s.pages() {
        let v = visit(&format!("{base}{page}"));
        check(&v, &base, &page);
    }
    let v = visit(&format!("{base}/ui/customer-profiles/{}", s.ada));
    for text in [
        "Ada Lovelace",
        "Main checking",
        "Attached",
        "125.50",
        "Funding and Payout",
    ] {
        assert!(v.dom.contains(text), "{text}: {}", v.dom);
    }
    for secret in super::SECRETS {
        assert!(!v.dom.contains(secret), "{secret}");
    }
    let v = visit(&format!("{base}/ui/transactions/{}", s.paid));
    for text in ["Step 1", "Step 3", "Transaction Completed", "Grace Hopper"] {
        assert!(v.dom.contains(text), "{text}: {}", v.dom);
    }
    // The customer named <script>: text in the page, no element made of it.
    let v = visit(&format!("{base}/ui/customer-profiles/{}", s.evil));
    assert!(
        v.dom.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt; \"&gt;&lt;img src=x onerror=alert(2)&gt;</h1>"),
        "{}",
        v.dom
    );
    assert!(!v.dom.contains("<img"), "{}", v.dom);
    check(&v, &base, "the scripted customer");
}

#[test]
#[ignore = "needs chromium"]
fn a_browser_without_a_session_meets_the_sign_in_form() {
    let s = seed_with(true);
    create_key(&s.env, "ops", "reader");
    let srv = Server::start(&s.env, &["--quiet"]);
    let base = srv.base.clone();
    let v = visit(&format!("{base}/ui/customer-profiles/{}", s.ada));
    assert!(
        v.dom
            .contains(r#"<form method="post" action="/ui/sign-in">"#),
        "{}",
        v.dom
    );
    assert!(!v.dom.contains("Ada"), "{}", v.dom);
    check(&v, &base, "sign-in");
}

/// A screenshot of `url` in a window of `w`×`h`, as PNG bytes.
fn screenshot(url: &str, w: u32, h: u32) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("shot.png");
    let mut c = chromium(dir.path());
    c.arg(format!("--window-size={w},{h}"))
        .arg(format!("--screenshot={}", png.display()))
        .arg(url);
    run(c, url);
    let bytes = std::fs::read(&png).expect("a screenshot");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{url}: not a PNG");
    assert!(
        bytes.len() > 10_000,
        "{url}: a blank page? {} bytes",
        bytes.len()
    );
    bytes
}

/// The pages of the book's console guide, from a demo store:
/// `(file, path, width, height)`.
fn shots(s: &Seeded) -> Vec<(&'static str, String, u32, u32)> {
    vec![
        ("console-search.png", "/ui/".into(), 1280, 760),
        (
            "console-profile.png",
            format!("/ui/customer-profiles/{}", s.ada),
            1280,
            1560,
        ),
        (
            "console-transaction.png",
            format!("/ui/transactions/{}", s.paid),
            1280,
            1480,
        ),
        (
            "console-phone.png",
            format!("/ui/transactions/{}", s.failed),
            390,
            1400,
        ),
        (
            "console-events.png",
            "/ui/events?page_size=20".into(),
            1280,
            1100,
        ),
    ]
}

/// The screenshots of the book (docs/src/images/console-*.png) are taken by
/// this test; with `PAYCTL_UPDATE_SCREENSHOTS=1` it writes them there.
#[test]
#[ignore = "needs chromium"]
// A test knob: whether to write the book's images.
#[allow(clippy::disallowed_methods)]
fn screenshots_of_each_page() {
    let s = seed_with(false);
    let srv = Server::start(&s.env, &["--quiet"]);
    let write = std::env::var("PAYCTL_UPDATE_SCREENSHOTS").is_ok_and(|v| v == "1");
    let images: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/images");
    let mut all = shots(&s);
    let env = Env::new();
    create_key(&env, "ops", "reader");
    let keyed = Server::start(&env, &["--quiet"]);
    for (file, path, w, h) in all.drain(..) {
        let png = screenshot(&format!("{}{path}", srv.base), w, h);
        if write {
            std::fs::write(images.join(file), png).unwrap();
        }
        assert!(
            images.join(file).exists(),
            "docs/src/images/{file}: run with PAYCTL_UPDATE_SCREENSHOTS=1"
        );
    }
    let png = screenshot(&format!("{}/ui/", keyed.base), 1280, 560);
    if write {
        std::fs::write(images.join("console-sign-in.png"), png).unwrap();
    }
    assert!(images.join("console-sign-in.png").exists());
}
