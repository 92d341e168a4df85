//! Issue 38: the console under `/ui/` of a real `payctl serve`, over a store
//! seeded through the CLI: the content of each page, the masking (no page
//! holds a whole SSN, account or routing number), the escaping, the
//! headers, sign-in and sign-out with API keys, expiry and revoked keys,
//! `--no-ui`, and cross-site refusals. `console/browser.rs` opens the same
//! pages in a real headless Chromium.

#[path = "console/browser.rs"]
mod browser;

use std::time::Duration;

use serde_json::{Value, json};

use super::common::serve::{Reply, Server};
use super::common::{Env, ach_instrument_body, address_body, ok, profile_body, txn_create_args};

/// The whole numbers the seeded store holds and no page may show.
const SECRETS: &[&str] = &[
    "123456789",    // Ada's SSN
    "000123456789", // Ada's account number
    "021000021",    // every routing number
    "987654320",    // Grace's SSN
    "000987654321", // Grace's account number
    "111223333",    // the scripted customer's SSN
];

/// A name that is markup: shown as text, never run.
const SCRIPT_NAME: &str = "<script>alert(1)</script>";
const IMG_NAME: &str = "\"><img src=x onerror=alert(2)>";

/// The seeded store and the ids of its records.
pub struct Seeded {
    pub env: Env,
    pub ada: String,
    pub grace: String,
    pub evil: String,
    /// Funding and payout, completed: Ada pays 125.50, Grace gets 100.
    pub paid: String,
    /// An ACH withdrawal to Ada, who has no Withdrawal instrument: failed.
    pub failed: String,
    /// An internal transfer the worker has not run yet: created.
    pub waiting: String,
    /// A check payout to Acme Inc, completed.
    pub check: String,
}

fn person(key: &str, first: &str, last: &str, ssn: &str) -> Value {
    let mut b = profile_body(key);
    b["customer_profile_individual"]["first_name"] = json!(first);
    b["customer_profile_individual"]["last_name"] = json!(last);
    b["customer_profile_individual"]["ssn"] = json!(ssn);
    let local: String = key
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    b["customer_profile_individual"]["email"] = json!(format!("{local}@example.com"));
    b
}

/// [`seed_with`] the customer named as markup.
pub fn seed() -> Seeded {
    seed_with(true)
}

/// Three attached customers with addresses and instruments (the third
/// named as markup when `hostile`, else Katherine Johnson, for the book's
/// pictures), and four transactions: completed, failed, a check payout,
/// and one waiting for the worker.
pub fn seed_with(hostile: bool) -> Seeded {
    let env = Env::new();
    let prm = env.program_id();
    let ada = env
        .body(
            &["profile", "create"],
            &person("ada-1", "Ada", "Lovelace", "123456789"),
        )
        .id();
    let grace = env
        .body(
            &["profile", "create"],
            &person("grace-1", "Grace", "Hopper", "987654320"),
        )
        .id();
    let third = if hostile {
        person("evil-1", SCRIPT_NAME, IMG_NAME, "111223333")
    } else {
        person("katherine-1", "Katherine", "Johnson", "111223333")
    };
    let evil = env.body(&["profile", "create"], &third).id();
    for csp in [&ada, &grace, &evil] {
        ok(env.run(&["program", "attach", &prm, csp]));
    }
    ok(env.run(&["worker"]));
    ok(env.body(&["address", "create", &ada], &address_body(true)));
    let mut home = address_body(true);
    if hostile {
        home["address_line1"] = json!("<b>9</b> Elm St");
    }
    ok(env.body(&["address", "create", &evil], &home));
    let tags = json!([{"key": "source", "value": "onboarding"}]);
    ok(env.body(
        &["instrument", "create", &ada],
        &ach_instrument_body(&prm, "Main checking", true, tags.clone()),
    ));
    let mut payroll = ach_instrument_body(&prm, "Payroll", true, tags);
    payroll["payment_instrument_type_id"] = json!(2);
    payroll["payment_instrument_ach"]["account_number"] = json!("000987654321");
    ok(env.body(&["instrument", "create", &grace], &payroll));
    let (src, dst) = (
        format!("@source_customers={ada}:125.50"),
        format!("@targets={grace}:100"),
    );
    let paid = ok(env.run(&txn_create_args(
        &prm,
        "funding_and_payout",
        &[&src, &dst, "@facilitator=25.50"],
    )))
    .id();
    let to_ada = format!("@targets={ada}:10");
    let failed = ok(env.run(&txn_create_args(&prm, "ach_withdrawal", &[&to_ada])));
    let failed = failed.id();
    let payee = if hostile {
        "<i>Acme</i> Inc"
    } else {
        "Acme Inc"
    };
    let mut args = txn_create_args(&prm, "check_payout", &[]);
    let check = format!(
        "75;organization_name={payee};address_line1=9 Elm St;city=Chicago;state_id=IL;\
         zip=60601;check_note=Refund"
    );
    args.extend(["--check", &check]);
    let check = ok(env.run(&args)).id();
    ok(env.run(&["worker"]));
    let (g, a) = (
        format!("@source_customers={grace}:5"),
        format!("@targets={ada}:5"),
    );
    let waiting = ok(env.run(&txn_create_args(&prm, "internal_transfer", &[&g, &a]))).id();
    Seeded {
        env,
        ada,
        grace,
        evil,
        paid,
        failed,
        waiting,
        check,
    }
}

impl Seeded {
    /// Every page of the seeded store worth a look.
    pub fn pages(&self) -> Vec<String> {
        let mut p = vec![
            "/ui/".to_string(),
            "/ui/?last_name=Lovelace".to_string(),
            "/ui/?page_size=1".to_string(),
        ];
        for csp in [&self.ada, &self.grace, &self.evil] {
            p.push(format!("/ui/customer-profiles/{csp}"));
        }
        for trn in [&self.paid, &self.failed, &self.waiting, &self.check] {
            p.push(format!("/ui/transactions/{trn}"));
        }
        p.push("/ui/events".to_string());
        p.push("/ui/events?type=customer_profile.*&page_size=5".to_string());
        p
    }
}

/// A client that does not follow redirects, to see them.
pub struct Web {
    agent: ureq::Agent,
    pub base: String,
}

impl Web {
    pub fn new(s: &Server) -> Web {
        Web::with_roots(s, ureq::tls::RootCerts::WebPki)
    }

    fn with_roots(s: &Server, roots: ureq::tls::RootCerts) -> Web {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(60)))
            .tls_config(ureq::tls::TlsConfig::builder().root_certs(roots).build())
            .build()
            .into();
        Web {
            agent,
            base: s.base.clone(),
        }
    }

    pub fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        form: Option<&str>,
    ) -> Reply {
        let req = ureq::http::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        let req = headers.iter().fold(req, |r, (k, v)| r.header(*k, *v));
        let resp = match form {
            Some(f) => self.agent.run(
                req.header("Content-Type", "application/x-www-form-urlencoded")
                    .body(f.to_string())
                    .unwrap(),
            ),
            None => self.agent.run(req.body(()).unwrap()),
        };
        let mut resp = resp.expect("HTTP exchange");
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect();
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        Reply {
            status,
            json: serde_json::from_str(&text).unwrap_or(Value::Null),
            text,
            headers,
        }
    }

    pub fn get(&self, path: &str) -> Reply {
        self.send("GET", path, &[], None)
    }

    /// A GET with the session cookie `cookie` (`payctl_session=…`).
    pub fn get_as(&self, path: &str, cookie: &str) -> Reply {
        self.send("GET", path, &[("Cookie", cookie)], None)
    }

    /// Sign in with `key`: the answer.
    pub fn sign_in(&self, key: &str, extra: &[(&str, &str)]) -> Reply {
        let form = format!("key={}&next=%2Fui%2F", percent(key));
        self.send("POST", "/ui/sign-in", extra, Some(&form))
    }
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `name=value` of a `Set-Cookie`, its attributes apart.
fn cookie_of(r: &Reply) -> (String, String) {
    let set = r
        .header("set-cookie")
        .unwrap_or_else(|| panic!("no Set-Cookie: {r:?}"));
    let (pair, attrs) = set.split_once(';').unwrap_or((set, ""));
    (pair.trim().to_string(), attrs.to_string())
}

/// `key create NAME --role ROLE`: its secret.
pub fn create_key(env: &Env, name: &str, role: &str) -> String {
    let o = ok(env.run(&["key", "create", name, "--role", role]));
    o.data()[0]["secret"].as_str().unwrap().to_string()
}

fn html_ok(r: &Reply, what: &str) {
    assert_eq!(r.status, 200, "{what}: {r:?}");
    assert_eq!(
        r.header("content-type"),
        Some("text/html; charset=utf-8"),
        "{what}"
    );
    assert!(r.text.starts_with("<!DOCTYPE html>"), "{what}");
}

#[test]
fn the_pages_show_the_records_as_the_api_answers_them() {
    let s = seed();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);

    let r = web.get("/ui/");
    html_ok(&r, "search");
    for name in [
        "Ada Lovelace",
        "Grace Hopper",
        "ada-1",
        "grace-1",
        "3 in all",
    ] {
        assert!(r.text.contains(name), "{name} in {}", r.text);
    }
    let r = web.get("/ui/?last_name=lovelace&first_name=&tag=");
    html_ok(&r, "filtered");
    assert!(r.text.contains("Ada Lovelace") && !r.text.contains("Grace Hopper"));
    assert!(r.text.contains("1 matching"), "{}", r.text);
    assert!(
        r.text.contains(r#"value="lovelace""#),
        "the filter is kept in its field"
    );
    let r = web.get("/ui/?tag=segment:retail&customer_key=grace-1");
    assert!(r.text.contains("Grace Hopper") && !r.text.contains("Ada Lovelace"));

    // Paged as the API pages: page_size 1, then the next page's link.
    let r = web.get("/ui/?page_size=1");
    assert!(r.text.contains("1–1 of 3"), "{}", r.text);
    let next = regex::Regex::new(r#"href="([^"]+)" rel="next""#).unwrap();
    let link = next.captures(&r.text).expect("a next link")[1].replace("&amp;", "&");
    assert!(
        link.contains("last_evaluated_key=") && link.contains("page_size=1"),
        "{link}"
    );
    let r2 = web.get(&link);
    assert!(r2.text.contains("2–2 of 3"), "{}", r2.text);
    assert!(r2.text.contains("Grace Hopper"), "{}", r2.text);
    assert!(r2.text.contains(r#"rel="prev""#));

    // A jump to an id.
    let r = web.get(&format!("/ui/?id={}", s.paid));
    assert_eq!(r.status, 303);
    assert_eq!(
        r.header("location"),
        Some(format!("/ui/transactions/{}", s.paid).as_str())
    );
    let r = web.get(&format!("/ui/?id=+{}+", s.ada));
    assert_eq!(
        r.header("location"),
        Some(format!("/ui/customer-profiles/{}", s.ada).as_str())
    );

    // The profile: details, programs, instruments, addresses, transactions.
    let r = web.get(&format!("/ui/customer-profiles/{}", s.ada));
    html_ok(&r, "profile");
    for text in [
        "Ada Lovelace",
        &s.ada,
        "ada@example.com",
        "Default Program",
        "Attached",
        "Main checking",
        "Funding",
        "Checking",
        "6789",
        "0021",
        "1 Main St",
        "Springfield",
        "125.50",
        "10.00",
        "5.00",
        "Completed",
        "Failed",
        "Created",
        "Funding and Payout",
        "ACH Withdrawal",
        &s.paid,
        &s.failed,
        &s.waiting,
    ] {
        assert!(r.text.contains(text), "{text} on Ada's page: {}", r.text);
    }
    // The same records the API answers.
    let api = srv.get(&format!("/transactions?customer={}", s.ada));
    assert_eq!(api.json["paging"]["total_count"], 3);
    assert!(
        r.text
            .contains(r#"Transactions <span class="count">3</span>"#)
    );
    let r = web.get(&format!("/ui/customer-profiles/{}?page_size=1", s.ada));
    assert!(r.text.contains("1–1 of 3"), "{}", r.text);

    // The transaction: details, parameters, the steps as a timeline.
    let r = web.get(&format!("/ui/transactions/{}", s.paid));
    html_ok(&r, "transaction");
    for text in [
        "Funding and Payout",
        "Payments",
        "Default Program",
        "@source_customers",
        "@targets",
        "@facilitator",
        "Ada Lovelace",
        "Grace Hopper",
        "The Facilitator",
        "125.50",
        "100.00",
        "25.50",
        "Step 1",
        "Step 2",
        "Step 3",
        "ACH Funding",
        "Internal Transfer",
        "Successfully completed.",
        "Transaction Completed",
        r#"class="timeline""#,
    ] {
        assert!(
            r.text.contains(text),
            "{text} on the paid transaction: {}",
            r.text
        );
    }
    let steps = srv.get(&format!("/transactions/{}/transaction-steps", s.paid));
    let n = steps.json["data"].as_array().unwrap().len();
    assert!(
        r.text
            .contains(&format!(r#"Timeline <span class="count">{n}</span>"#))
    );
    let r = web.get(&format!("/ui/transactions/{}", s.failed));
    for text in ["Failed", "Transaction Failed", "ACH Withdrawal"] {
        assert!(r.text.contains(text), "{text}: {}", r.text);
    }
    let reason = srv.get(&format!("/transactions/{}", s.failed)).json["data"][0]
        ["transaction_status_reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        r.text.contains(&maud_escape(&reason)),
        "{reason}: {}",
        r.text
    );
    let r = web.get(&format!("/ui/transactions/{}", s.waiting));
    assert!(r.text.contains("Waiting for the worker"), "{}", r.text);
    assert!(r.text.contains("Created"));
    // The metrics count console pages by their template, never by an id.
    let metrics = srv.get("/_payctl/metrics").text;
    assert!(
        metrics.contains(r#"route="/ui/customer-profiles/{}""#),
        "{metrics}"
    );
    assert!(metrics.contains(r#"route="/ui/""#), "{metrics}");
    assert!(!metrics.contains(&s.ada), "{metrics}");
    let r = web.get(&format!("/ui/transactions/{}", s.check));
    for text in [
        "Check Payout",
        "@target_checks",
        "Acme",
        "9 Elm St",
        "Chicago, Illinois 60601",
        "Note: Refund",
        "75.00",
        "Check Payment",
    ] {
        assert!(
            r.text.contains(text),
            "{text} on the check payout: {}",
            r.text
        );
    }
}

/// Text as maud writes it in an element.
fn maud_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn no_page_shows_a_whole_ssn_account_or_routing_number() {
    let s = seed();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    let mut seen = 0;
    for page in s.pages() {
        let r = web.get(&page);
        html_ok(&r, &page);
        for secret in SECRETS {
            assert!(!r.text.contains(secret), "{page} shows {secret}");
        }
        seen += 1;
    }
    assert_eq!(seen, 12);
    // The last four digits are there, as the API answers them.
    let r = web.get(&format!("/ui/customer-profiles/{}", s.grace));
    let api = srv.get(&format!("/customer-profiles/{}", s.grace));
    let ssn = api.json["data"][0]["customer_profile_individual"]["ssn"]
        .as_str()
        .unwrap();
    assert_eq!(ssn, "4320");
    assert!(
        r.text.contains(&format!("<code>{ssn}</code>")),
        "{}",
        r.text
    );
    assert!(
        r.text.contains("<code>4321</code>"),
        "Grace's account, masked"
    );
}

#[test]
fn the_events_page_and_each_records_history_show_the_log() {
    let s = seed();
    let webhook = s.env.run(&[
        "webhook",
        "create",
        "--url",
        "http://127.0.0.1:9/hook",
        "--yes",
    ]);
    let whk = webhook.data()[0]["webhook_id"].as_str().map(str::to_string);
    let srv = Server::start(&s.env, &["--quiet", "--no-webhooks"]);
    let web = Web::new(&srv);
    // The newest events first, each linking to its record's page.
    let r = web.get("/ui/events");
    html_ok(&r, "/ui/events");
    let api = srv.get("/events?page_size=1000");
    let all = api.json["data"].as_array().unwrap();
    let newest = all.last().unwrap();
    let oldest = &all[0];
    let at = |needle: &str| {
        r.text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle}: {}", r.text))
    };
    let (n, o) = (
        at(&format!(">{}<", newest["sequence"])),
        at(&format!(">{}<", oldest["sequence"])),
    );
    assert!(n < o, "newest first");
    assert!(
        r.text
            .contains(&format!("href=\"/ui/customer-profiles/{}\"", s.ada))
    );
    assert!(r.text.contains("customer_profile.created"));
    // Filtered as GET /events filters.
    let r = web.get("/ui/events?type=transaction.failed");
    html_ok(&r, "filtered");
    assert!(r.text.contains("transaction.failed"));
    assert!(!r.text.contains("customer_profile.created"));
    let r = web.get("/ui/events?type=bogus");
    assert_eq!(r.status, 400, "{r:?}");
    assert!(r.text.contains("type"));
    // A profile's and a transaction's history.
    let r = web.get(&format!("/ui/customer-profiles/{}", s.ada));
    assert!(r.text.contains("History"), "{}", r.text);
    assert!(r.text.contains("customer_profile.created"));
    assert!(r.text.contains("attachment.attached"));
    let r = web.get(&format!("/ui/transactions/{}", s.failed));
    assert!(r.text.contains("transaction.failed"), "{}", r.text);
    // A webhook's page and its deliveries (none yet: serve delivers none).
    if let Some(whk) = whk {
        let r = web.get(&format!("/ui/webhooks/{whk}"));
        html_ok(&r, "webhook");
        assert!(r.text.contains("http://127.0.0.1:9/hook"));
        assert!(r.text.contains("Deliveries"));
        assert!(
            !r.text
                .contains(webhook.data()[0]["secret"].as_str().unwrap())
        );
    } else {
        panic!("webhook create: {webhook:?}");
    }
}

#[test]
fn markup_in_a_record_is_shown_as_text_never_as_markup() {
    let s = seed();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    for page in [
        "/ui/".to_string(),
        format!("/ui/customer-profiles/{}", s.evil),
    ] {
        let r = web.get(&page);
        html_ok(&r, &page);
        assert!(
            r.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{page}: {}",
            r.text
        );
        assert!(
            !r.text.to_ascii_lowercase().contains("<script"),
            "{page}: {}",
            r.text
        );
        assert!(!r.text.contains("<img"), "{page}");
        assert!(
            r.text
                .contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"),
            "{page}"
        );
    }
    let r = web.get(&format!("/ui/customer-profiles/{}", s.evil));
    assert!(r.text.contains("&lt;b&gt;9&lt;/b&gt; Elm St"), "{}", r.text);
    let r = web.get(&format!("/ui/transactions/{}", s.check));
    assert!(r.text.contains("&lt;i&gt;Acme&lt;/i&gt; Inc"), "{}", r.text);
    assert!(!r.text.contains("<i>"), "{}", r.text);
    // An id that is markup, in a 404 and in a jump.
    let r = web.get("/ui/customer-profiles/%3Cscript%3Ex");
    assert_eq!(r.status, 404);
    assert!(!r.text.contains("<script>x"), "{}", r.text);
    assert!(r.text.contains("&lt;script&gt;x"), "{}", r.text);
    let r = web.get("/ui/?id=%22%3E%3Cscript%3E");
    assert_eq!(
        r.header("location"),
        Some("/ui/customer-profiles/%22%3E%3Cscript%3E")
    );
}

/// The headers every console answer carries.
fn assert_secure(r: &Reply, what: &str) {
    let want = [
        (
            "content-security-policy",
            "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; \
             frame-ancestors 'none'; base-uri 'none'",
        ),
        ("x-frame-options", "DENY"),
        ("x-content-type-options", "nosniff"),
        ("referrer-policy", "no-referrer"),
        ("cache-control", "no-store"),
    ];
    for (k, v) in want {
        assert_eq!(r.header(k), Some(v), "{what}: {k}: {r:?}");
    }
}

#[test]
fn every_answer_carries_the_policy_and_no_page_holds_a_script_or_an_inline_style() {
    let s = seed();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    let mut pages = s.pages();
    pages.extend([
        "/ui/customer-profiles/csp_none".into(),
        "/ui/nowhere".into(),
        "/ui/?page_size=0".into(),
    ]);
    let attr = regex::Regex::new(r#"(?i)<[^>]*\s(style|on[a-z]+)="#).unwrap();
    let url = regex::Regex::new(r#"(?i)(href|src|action)="([^"]*)""#).unwrap();
    for page in &pages {
        let r = web.get(page);
        assert_secure(&r, page);
        assert!(!r.text.to_ascii_lowercase().contains("<script"), "{page}");
        assert!(!r.text.to_ascii_lowercase().contains("<style"), "{page}");
        assert!(
            !attr.is_match(&r.text),
            "{page}: an inline style or handler"
        );
        for c in url.captures_iter(&r.text) {
            assert!(
                c[2].starts_with("/ui/"),
                "{page}: {} points elsewhere",
                &c[2]
            );
        }
    }
    let css = web.get("/ui/style.css");
    assert_eq!(css.status, 200);
    assert_eq!(css.header("content-type"), Some("text/css; charset=utf-8"));
    assert_secure(&css, "style.css");
    assert!(css.text.contains("@media"), "a responsive stylesheet");
    assert!(!css.text.contains("url("), "the stylesheet loads nothing");
    let icon = web.get("/ui/favicon.svg");
    assert_eq!(icon.header("content-type"), Some("image/svg+xml"));
    assert_secure(&web.get("/ui"), "the redirect to /ui/");
    // HEAD: the GET's status and headers.
    let h = web.send(
        "HEAD",
        &format!("/ui/customer-profiles/{}", s.ada),
        &[],
        None,
    );
    assert_eq!(h.status, 200);
    assert!(h.text.is_empty());
    assert_secure(&h, "HEAD");
    // The viewport of a phone.
    let r = web.get("/ui/");
    assert!(
        r.text
            .contains(r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)
    );
}

#[test]
fn an_unknown_id_is_a_404_page_naming_it_and_a_bad_query_a_400_naming_the_field() {
    let s = seed();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    let r = web.get("/ui/customer-profiles/csp_nobody");
    assert_eq!(r.status, 404);
    assert!(
        r.text.contains("csp_nobody") && r.text.contains("Not found"),
        "{}",
        r.text
    );
    let r = web.get("/ui/transactions/trn_nothing");
    assert_eq!(r.status, 404);
    assert!(r.text.contains("trn_nothing"), "{}", r.text);
    let r = web.get("/ui/somewhere/else");
    assert_eq!(r.status, 404);
    assert!(r.text.contains("/ui/somewhere/else"), "{}", r.text);
    for (query, field) in [
        ("/ui/?page_size=abc", "page_size"),
        ("/ui/?page_size=5000", "page_size"),
        ("/ui/?page_number=0", "page_number"),
        ("/ui/?tag=nocolon", "tag"),
        ("/ui/?colour=red", "colour"),
        ("/ui/?last_evaluated_key=csp_nowhere", "last_evaluated_key"),
    ] {
        let r = web.get(query);
        assert_eq!(r.status, 400, "{query}: {r:?}");
        assert!(r.text.contains(field), "{query}: {}", r.text);
        assert!(r.text.contains("Bad request"), "{query}");
    }
    let r = web.get(&format!("/ui/customer-profiles/{}?page_size=x", s.ada));
    assert_eq!(r.status, 400);
    let r = web.get(&format!("/ui/transactions/{}?extra=1", s.paid));
    assert_eq!(r.status, 400);
    assert!(r.text.contains("extra"));
    // Read-only: pages answer GET and HEAD only.
    for m in ["POST", "PUT", "DELETE"] {
        let r = web.send(m, &format!("/ui/customer-profiles/{}", s.ada), &[], None);
        assert_eq!(r.status, 405, "{m}");
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
    }
}

#[test]
fn looking_changes_nothing_in_the_store() {
    let s = seed();
    let before = s.env.snapshot();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    for page in s.pages() {
        assert_eq!(web.get(&page).status, 200, "{page}");
    }
    let (code, _) = srv.terminate();
    assert_eq!(code, Some(0));
    assert!(
        s.env.snapshot() == before,
        "a console page changed the store"
    );
}

#[test]
fn without_keys_the_console_follows_the_apis_loopback_and_origin_rules() {
    let s = seed();
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    let own = web.base.clone();
    assert_eq!(
        web.send("GET", "/ui/", &[("Origin", &own)], None).status,
        200
    );
    for (h, v) in [
        ("Host", "payctl.example.com"),
        ("Host", "attacker.test:8080"),
        ("Origin", "http://attacker.test"),
        ("Origin", "null"),
    ] {
        let r = web.send("GET", "/ui/", &[(h, v)], None);
        assert_eq!(r.status, 403, "{h}: {v}: {r:?}");
        assert!(r.text.contains("Refused"), "{}", r.text);
        assert_secure(&r, "403");
        assert!(!r.text.contains("Ada"), "a refusal shows no record");
    }
    // Nothing to sign in to: back to the console.
    let r = web.get("/ui/sign-in");
    assert_eq!((r.status, r.header("location")), (303, Some("/ui/")));
    let r = web.send(
        "POST",
        "/ui/sign-in",
        &[("Origin", "http://attacker.test")],
        Some("key=x"),
    );
    assert_eq!(r.status, 403);
}

#[test]
fn no_ui_turns_the_console_off() {
    let env = Env::new();
    let srv = Server::start(&env, &["--quiet", "--no-ui"]);
    let web = Web::new(&srv);
    for path in ["/ui/", "/ui", "/ui/style.css", "/ui/sign-in"] {
        let r = web.get(path);
        assert_eq!(r.status, 404, "{path}: {r:?}");
        assert!(r.json["errors"][0]["code"] == 20002, "{r:?}");
    }
    assert_eq!(
        web.get("/customer-profiles").status,
        200,
        "the API is served"
    );
}

#[test]
fn with_keys_a_key_signs_in_and_out_and_the_cookie_holds_only_a_session() {
    let s = seed();
    let reader = create_key(&s.env, "ops", "reader");
    let writer = create_key(&s.env, "ci", "writer");
    let srv = Server::start(&s.env, &[]);
    let web = Web::new(&srv);

    // No session: to the sign-in form, coming back here afterwards.
    let target = format!("/ui/customer-profiles/{}?page_size=1", s.ada);
    let r = web.get(&target);
    assert_eq!(r.status, 303);
    let to = r.header("location").unwrap().to_string();
    assert!(
        to.starts_with("/ui/sign-in?next=%2Fui%2Fcustomer-profiles%2F"),
        "{to}"
    );
    assert_secure(&r, "redirect");
    let form = web.get(&to);
    html_ok(&form, "sign-in");
    assert!(
        form.text.contains(r#"action="/ui/sign-in""#) && form.text.contains(r#"type="password""#)
    );
    assert!(
        form.text.contains(&maud_escape(&target)),
        "the form keeps where to go"
    );
    assert!(!form.text.contains("Ada"), "the form shows no record");
    // The stylesheet is served before sign-in; the API still needs a key.
    assert_eq!(web.get("/ui/style.css").status, 200);
    assert_eq!(web.get("/customer-profiles").status, 401);

    // A wrong key: the form again, 401, no cookie.
    let r = web.sign_in("pk_notakeyofthisserverxxxxxxxxxxxxx", &[]);
    assert_eq!(r.status, 401, "{r:?}");
    assert!(r.header("set-cookie").is_none());
    assert!(
        r.text.contains("Sign in") && r.text.contains("neither an API key"),
        "{}",
        r.text
    );
    assert_eq!(web.sign_in("", &[]).status, 401);
    // A form not sent as a form.
    let r = web.send(
        "POST",
        "/ui/sign-in",
        &[("Content-Type", "application/json")],
        None,
    );
    assert_eq!(r.status, 415, "{r:?}");

    // The reader key: a session cookie, HttpOnly, SameSite=Strict, Path=/ui, 8 h.
    let r = web.sign_in(&reader, &[("Origin", &web.base.clone())]);
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(r.header("location"), Some("/ui/"));
    let (pair, attrs) = cookie_of(&r);
    assert!(
        pair.starts_with("payctl_session=") && pair.len() == "payctl_session=".len() + 64,
        "{pair}"
    );
    assert!(
        !pair.contains(&reader[3..]),
        "the cookie never holds the key"
    );
    for a in ["Path=/ui", "HttpOnly", "SameSite=Strict", "Max-Age=28800"] {
        assert!(attrs.contains(a), "{a} in {attrs}");
    }
    assert!(!attrs.contains("Secure"), "plain HTTP: {attrs}");
    let page = web.get_as(&format!("/ui/customer-profiles/{}", s.ada), &pair);
    html_ok(&page, "signed in");
    assert!(page.text.contains("Ada Lovelace") && page.text.contains("ops · reader"));
    assert!(page.text.contains(r#"action="/ui/sign-out""#));
    for secret in SECRETS {
        assert!(!page.text.contains(secret), "{secret}");
    }
    // The access log names the key, never its secret.
    std::thread::sleep(Duration::from_millis(200));
    let log = srv.log.lock().unwrap().clone();
    assert!(!log.contains(&reader), "a key in the log");
    // The cookie of another path, or a made-up token, is no session.
    let made_up = format!("payctl_session={}", "0".repeat(64));
    assert_eq!(web.get_as("/ui/", &made_up).status, 303);

    // Sign-out ends it: the cookie is cleared and no longer opens a page.
    let r = web.send("POST", "/ui/sign-out", &[("Cookie", &pair)], None);
    assert_eq!((r.status, r.header("location")), (303, Some("/ui/sign-in")));
    let (cleared, attrs) = cookie_of(&r);
    assert_eq!(cleared, "payctl_session=");
    assert!(attrs.contains("Max-Age=0"));
    assert_eq!(web.get_as("/ui/", &pair).status, 303);
    assert_eq!(web.get("/ui/sign-out").status, 405, "signing out is a POST");

    // A writer key signs in too (reader or above).
    let r = web.sign_in(&writer, &[]);
    assert_eq!(r.status, 303);
    let (pair, _) = cookie_of(&r);
    assert!(web.get_as("/ui/", &pair).text.contains("ci · writer"));
}

#[test]
fn a_revoked_key_ends_its_sessions_at_the_next_request() {
    let s = seed();
    let key = create_key(&s.env, "temp", "reader");
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    let (pair, _) = cookie_of(&web.sign_in(&key, &[]));
    assert_eq!(web.get_as("/ui/", &pair).status, 200);
    ok(s.env.run(&["key", "revoke", "temp"]));
    let r = web.get_as("/ui/", &pair);
    assert_eq!(r.status, 303, "{r:?}");
    assert!(r.header("location").unwrap().starts_with("/ui/sign-in"));
    // Ended, not only refused: the session is gone.
    assert_eq!(web.get_as("/ui/", &pair).status, 303);
    let r = web.sign_in(&key, &[]);
    assert_eq!(r.status, 401);
    assert!(r.text.contains("revoked"), "{}", r.text);
}

#[test]
fn a_session_expires() {
    let s = seed();
    let key = create_key(&s.env, "brief", "reader");
    let srv = Server::start(&s.env, &["--quiet", "--ui-session", "1"]);
    let web = Web::new(&srv);
    let r = web.sign_in(&key, &[]);
    let (pair, attrs) = cookie_of(&r);
    assert!(attrs.contains("Max-Age=1"), "{attrs}");
    assert_eq!(web.get_as("/ui/", &pair).status, 200);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(web.get_as("/ui/", &pair).status, 303, "expired");
}

#[test]
fn a_sign_in_or_out_posted_from_another_site_is_refused() {
    let s = seed();
    let key = create_key(&s.env, "ops", "reader");
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    for (h, v) in [
        ("Origin", "http://attacker.test"),
        ("Origin", "null"),
        ("Sec-Fetch-Site", "cross-site"),
        ("Sec-Fetch-Site", "same-site"),
    ] {
        let r = web.sign_in(&key, &[(h, v)]);
        assert_eq!(r.status, 403, "{h}: {v}: {r:?}");
        assert!(r.header("set-cookie").is_none(), "{h}: {v}");
        assert_secure(&r, "403");
    }
    let (pair, _) = cookie_of(&web.sign_in(&key, &[("Sec-Fetch-Site", "same-origin")]));
    let r = web.send(
        "POST",
        "/ui/sign-out",
        &[("Cookie", &pair), ("Origin", "http://attacker.test")],
        None,
    );
    assert_eq!(r.status, 403);
    assert_eq!(web.get_as("/ui/", &pair).status, 200, "still signed in");
    // Where to go after signing in is a console path of this server only.
    for next in [
        "https%3A%2F%2Fattacker.test%2F",
        "%2F%2Fattacker.test",
        "%2Fcustomer-profiles",
    ] {
        let r = web.send(
            "POST",
            "/ui/sign-in",
            &[],
            Some(&format!("key={key}&next={next}")),
        );
        assert_eq!(r.header("location"), Some("/ui/"), "{next}");
    }
}

#[test]
fn behind_a_proxy_that_terminates_tls_the_forwarded_origin_counts() {
    let s = seed();
    let key = create_key(&s.env, "ops", "reader");
    let srv = Server::start(&s.env, &["--quiet"]);
    let web = Web::new(&srv);
    let proxy = [
        ("X-Forwarded-Proto", "https"),
        ("X-Forwarded-Host", "payctl.example"),
    ];
    let mut from = proxy.to_vec();
    from.push(("Origin", "https://payctl.example"));
    let r = web.sign_in(&key, &from);
    assert_eq!(r.status, 303, "{r:?}");
    let (pair, attrs) = cookie_of(&r);
    assert!(attrs.contains("Secure"), "the browser is on HTTPS: {attrs}");
    assert_eq!(web.get_as("/ui/", &pair).status, 200);
    for origin in ["https://attacker.test", "http://payctl.example"] {
        let mut from = proxy.to_vec();
        from.push(("Origin", origin));
        assert_eq!(web.sign_in(&key, &from).status, 403, "{origin}");
    }
    // Without the proxy's word, the proxy's origin is not this server's.
    let r = web.sign_in(&key, &[("Origin", "https://payctl.example")]);
    assert_eq!(r.status, 403);
}

#[test]
fn under_tls_the_session_cookie_is_secure() {
    let env = Env::new();
    let key = create_key(&env, "ops", "reader");
    let pki = super::http::Pki::new();
    let (ca, cert, tls_key) = pki.files(&env);
    let mut srv = Server::start(
        &env,
        &["--quiet", "--tls-cert", &cert, "--tls-key", &tls_key],
    );
    srv.trust(&std::fs::read_to_string(ca).unwrap(), "localhost");
    let ca_cert = ureq::tls::Certificate::from_pem(pki.ca.as_bytes())
        .unwrap()
        .to_owned();
    let web = Web::with_roots(&srv, ureq::tls::RootCerts::new_with_certs(&[ca_cert]));
    let own = web.base.clone();
    let r = web.sign_in(&key, &[("Origin", &own)]);
    assert_eq!(r.status, 303, "{r:?}");
    let (_, attrs) = cookie_of(&r);
    assert!(attrs.contains("Secure"), "{attrs}");
    // http:// is not this server's origin under TLS.
    let plain = own.replacen("https://", "http://", 1);
    assert_eq!(web.sign_in(&key, &[("Origin", &plain)]).status, 403);
}
