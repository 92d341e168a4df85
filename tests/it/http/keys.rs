//! Issue 31, "Keys and roles": named API keys with roles on a real `payctl
//! serve`, on a directory and on PostgreSQL, managed by the real CLI in
//! other processes while the server runs. (A module of tests/it/http.rs.)

use std::time::{Duration, Instant};

use serde_json::Value;

use super::common::serve::{Reply, Server};
use super::common::{self, Env, profile_body};

/// `key create NAME --role ROLE`: the secret, the answer parsed.
fn create_key(env: &Env, name: &str, role: &str) -> String {
    let o = env.run(&["key", "create", name, "--role", role]);
    assert_eq!(o.code, 0, "{o:?}");
    let d = &o.data()[0];
    assert_eq!(d["name"], name, "{o:?}");
    assert_eq!(d["role"], role, "{o:?}");
    let secret = d["secret"].as_str().expect("secret").to_string();
    assert!(secret.starts_with("pk_") && secret.len() == 35, "{secret}");
    assert!(secret[3..].chars().all(|c| c.is_ascii_alphanumeric()));
    secret
}

fn bearer(secret: &str) -> String {
    format!("Bearer {secret}")
}

fn get(s: &Server, path: &str, secret: &str) -> Reply {
    s.send("GET", path, None, &[("Authorization", &bearer(secret))])
}

fn post(s: &Server, path: &str, body: Option<&Value>, secret: &str, actor: Option<&str>) -> Reply {
    let text = body.map(|b| b.to_string());
    let auth = bearer(secret);
    let mut headers = vec![("Authorization", auth.as_str())];
    if let Some(a) = actor {
        headers.push(("X-Payctl-Actor", a));
    }
    s.send("POST", path, text.as_deref(), &headers)
}

/// `created_by` of profile `id`, read back by the CLI.
fn created_by(env: &Env, id: &str) -> String {
    let o = env.run(&["profile", "get", id]);
    assert_eq!(o.code, 0, "{o:?}");
    o.data()[0]["created_by"].as_str().unwrap().to_string()
}

fn message(r: &Reply) -> String {
    r.json["errors"][0]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Make key `name` expired, as time passing would: its `expires` set in
/// the past, in the store itself (keys.json, or its row).
fn expire(env: &Env, name: &str) {
    let past = "2001-01-01T00:00:00.000000";
    match &env.db {
        Some(url) => {
            let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
            let n = c
                .execute(
                    "UPDATE payctl_keys SET expires = $1 WHERE name = $2",
                    &[&past, &name],
                )
                .unwrap();
            assert_eq!(n, 1);
        }
        None => {
            let path = env.path().join("keys.json");
            let mut v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            for k in v["keys"].as_array_mut().unwrap() {
                if k["name"] == name {
                    k["expires"] = Value::String(past.into());
                }
            }
            std::fs::write(&path, v.to_string()).unwrap();
        }
    }
}

/// Every role boundary, the actor, expiry, and keys created and revoked by
/// the CLI while the server runs, on `env`'s store.
fn roles_and_revocation(env: &Env) {
    let reader = create_key(env, "dashboards", "reader");
    let writer = create_key(env, "billing-svc", "writer");
    let admin = create_key(env, "ci", "admin");
    let s = Server::start(env, &["--quiet"]);

    // No key, a wrong key, a malformed header: 401 with WWW-Authenticate.
    let none = s.get("/customer-profiles");
    none.refused(401, 10007);
    assert_eq!(
        none.header("www-authenticate"),
        Some("Bearer realm=\"payctl\"")
    );
    get(
        &s,
        "/customer-profiles",
        "pk_notakeyofthisstore0000000000000",
    )
    .refused(401, 10007);
    s.send(
        "GET",
        "/customer-profiles",
        None,
        &[("Authorization", &format!("Basic {reader}"))],
    )
    .refused(401, 10007);
    // Unknown paths too: nothing is revealed without a key.
    s.get("/nowhere").refused(401, 10007);
    // Health is open (load balancers); the document needs a reader.
    assert_eq!(s.get("/_payctl/health").status, 200);
    s.get("/openapi.json").refused(401, 10007);
    let doc = get(&s, "/openapi.json", &reader);
    assert_eq!(doc.status, 200, "{doc:?}");
    assert_eq!(doc.json["security"], serde_json::json!([{"bearer": []}]));

    // reader: GET and HEAD, never a write.
    let r = get(&s, "/customer-profiles", &reader);
    assert_eq!(r.status, 200, "{r:?}");
    let h = s.send(
        "HEAD",
        "/customer-profiles",
        None,
        &[("Authorization", &bearer(&reader))],
    );
    assert_eq!(h.status, 200, "{h:?}");
    let body = profile_body("keys-001");
    let r = post(&s, "/customer-profiles", Some(&body), &reader, None);
    r.refused(403, 10010);
    assert!(message(&r).contains("dashboards"), "{r:?}");
    assert!(message(&r).contains("writer"), "{r:?}");

    // writer: creates, never /_payctl/.
    let r = post(&s, "/customer-profiles", Some(&body), &writer, None);
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(created_by(env, &r.id()), "billing-svc");
    let r = post(
        &s,
        "/customer-profiles",
        Some(&profile_body("keys-002")),
        &writer,
        Some("alice"),
    );
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(created_by(env, &r.id()), "billing-svc:alice");
    // NAME:ACTOR past 64 characters: 400 naming the header, nothing written.
    let long = "a".repeat(60);
    let r = post(
        &s,
        "/customer-profiles",
        Some(&profile_body("keys-003")),
        &writer,
        Some(&long),
    );
    r.refused(400, 10001);
    assert!(message(&r).contains("X-Payctl-Actor"), "{r:?}");
    let r = post(&s, "/_payctl/worker", None, &writer, None);
    r.refused(403, 10010);
    assert!(message(&r).contains("admin"), "{r:?}");

    // admin: everything.
    let r = post(&s, "/_payctl/worker", None, &admin, None);
    assert_eq!(r.status, 200, "{r:?}");
    let r = post(
        &s,
        "/customer-profiles",
        Some(&profile_body("keys-004")),
        &admin,
        None,
    );
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(created_by(env, &r.id()), "ci");

    // Revoked by the CLI while serving: refused by the next request.
    assert_eq!(get(&s, "/customer-profiles", &reader).status, 200);
    let o = env.run(&["key", "revoke", "dashboards"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.data()[0]["revoked"].is_string(), "{o:?}");
    let r = get(&s, "/customer-profiles", &reader);
    r.refused(401, 10007);
    assert!(message(&r).contains("revoked"), "{r:?}");
    // Created while serving: accepted by the next request.
    let late = create_key(env, "late-svc", "writer");
    let r = post(
        &s,
        "/customer-profiles",
        Some(&profile_body("keys-005")),
        &late,
        None,
    );
    assert_eq!(r.status, 201, "{r:?}");
    // Expired: refused.
    expire(env, "late-svc");
    let r = get(&s, "/customer-profiles", &late);
    r.refused(401, 10007);
    assert!(message(&r).contains("expired"), "{r:?}");
    // The others still work.
    assert_eq!(get(&s, "/customer-profiles", &writer).status, 200);

    // Last use shows in `key list` (written in the background).
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let o = env.run(&["key", "list"]);
        assert_eq!(o.code, 0, "{o:?}");
        let used: Vec<&Value> = o
            .data()
            .iter()
            .filter(|k| k["name"] == "billing-svc" || k["name"] == "ci")
            .map(|k| &k["last_used"])
            .collect();
        if used.len() == 2 && used.iter().all(|u| u.is_string()) {
            break;
        }
        assert!(Instant::now() < deadline, "no last use recorded: {o:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn every_role_boundary_and_a_revocation_while_serving_on_a_directory() {
    roles_and_revocation(&Env::new());
}

#[test]
#[ignore = "needs PostgreSQL"]
fn every_role_boundary_and_a_revocation_while_serving_on_postgres() {
    let Some(env) = Env::database("every_role_boundary_and_a_revocation_while_serving_on_postgres")
    else {
        return;
    };
    roles_and_revocation(&env);
}

/// Two servers on one store: a key created after both started works on
/// both, and its revocation is refused by both.
fn two_servers_share_keys(env: &Env) {
    let first = create_key(env, "first", "reader");
    let a = Server::start(env, &["--quiet"]);
    let b = Server::start(env, &["--quiet"]);
    for s in [&a, &b] {
        assert_eq!(get(s, "/customer-profiles", &first).status, 200);
    }
    let second = create_key(env, "second", "writer");
    for (i, s) in [&a, &b].into_iter().enumerate() {
        let r = post(
            s,
            "/customer-profiles",
            Some(&profile_body(&format!("shared-{i}"))),
            &second,
            None,
        );
        assert_eq!(r.status, 201, "{r:?}");
    }
    assert_eq!(env.run(&["key", "revoke", "second"]).code, 0);
    for s in [&a, &b] {
        get(s, "/customer-profiles", &second).refused(401, 10007);
        assert_eq!(get(s, "/customer-profiles", &first).status, 200);
    }
}

#[test]
#[ignore = "needs PostgreSQL"]
fn two_servers_on_one_database_share_keys() {
    let Some(env) = Env::database("two_servers_on_one_database_share_keys") else {
        return;
    };
    two_servers_share_keys(&env);
}

#[test]
fn two_servers_on_one_directory_share_keys() {
    two_servers_share_keys(&Env::new());
}

/// The secret is nowhere in the store, and `key list` shows neither it nor
/// its hash.
fn secret_is_not_stored(env: &Env, stored_text: &dyn Fn() -> Vec<(String, String)>) {
    let secret = create_key(env, "hidden", "admin");
    let hash = payctl::core::api_keys::hash(secret.as_bytes());
    // Used by a server (last use recorded), listed, revoked: every write.
    let s = Server::start(env, &["--quiet"]);
    assert_eq!(get(&s, "/customer-profiles", &secret).status, 200);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let o = env.run(&["key", "list"]);
        if o.data()[0]["last_used"].is_string() {
            break;
        }
        assert!(Instant::now() < deadline, "{o:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(s);
    assert_eq!(env.run(&["key", "revoke", "hidden"]).code, 0);
    let texts = stored_text();
    assert!(!texts.is_empty());
    // Not vacuous: the hash is there, the secret is not.
    assert!(texts.iter().any(|(_, t)| t.contains(&hash)), "{texts:?}");
    for (what, t) in &texts {
        assert!(!t.contains(&secret), "the secret is in {what}");
        assert!(!t.contains(&secret[3..]), "the secret is in {what}");
    }
    for format in ["json", "table", "jsonl", "id"] {
        let o = env.run(&["-o", format, "key", "list"]);
        assert_eq!(o.code, 0, "{o:?}");
        assert!(!o.stdout.contains(&secret[3..]), "{format}: {o:?}");
        assert!(!o.stdout.contains(&hash), "{format}: {o:?}");
        assert!(!o.stdout.contains(&hash[..16]), "{format}: {o:?}");
    }
    let o = env.run(&["key", "list"]);
    let k = &o.data()[0];
    let mut fields: Vec<&str> = k.as_object().unwrap().keys().map(|s| s.as_str()).collect();
    fields.sort();
    assert_eq!(
        fields,
        ["created", "expires", "last_used", "name", "revoked", "role"]
    );
}

#[test]
fn the_secret_is_not_in_the_data_directory_and_key_list_never_shows_it() {
    let env = Env::new();
    secret_is_not_stored(&env, &|| {
        let mut files = Vec::new();
        common::files(&env.path(), &mut files);
        files
            .into_iter()
            .map(|p| {
                let t =
                    String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned();
                (p.display().to_string(), t)
            })
            .collect()
    });
    // The files holding keys are private.
    use std::os::unix::fs::PermissionsExt;
    for f in ["keys.json", "keys-used.json"] {
        let mode = std::fs::metadata(env.path().join(f))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{f}");
    }
}

#[test]
#[ignore = "needs PostgreSQL"]
fn the_secret_is_not_in_the_database_and_key_list_never_shows_it() {
    let Some(env) = Env::database("the_secret_is_not_in_the_database_and_key_list_never_shows_it")
    else {
        return;
    };
    let url = env.db.clone().unwrap();
    secret_is_not_stored(&env, &|| {
        let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let tables: Vec<String> = c
            .query(
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = 'public'",
                &[],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(tables.iter().any(|t| t == "payctl_keys"), "{tables:?}");
        let mut out = Vec::new();
        for t in tables {
            for r in c
                .query(&format!("SELECT x::text FROM \"{t}\" AS x"), &[])
                .unwrap()
            {
                out.push((t.clone(), r.get::<_, String>(0)));
            }
        }
        out
    });
}

/// `--token` stays, one admin credential named `token`, beside the keys.
#[test]
fn the_token_is_an_admin_named_token() {
    let env = Env::new();
    let reader = create_key(&env, "dashboards", "reader");
    let token = "0123456789abcdef-token";
    let s = Server::start(&env, &["--quiet", "--token", token]);
    let r = post(&s, "/_payctl/worker", None, token, None);
    assert_eq!(r.status, 200, "{r:?}");
    let r = post(
        &s,
        "/customer-profiles",
        Some(&profile_body("tok-001")),
        token,
        None,
    );
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(created_by(&env, &r.id()), "token");
    let r = post(
        &s,
        "/customer-profiles",
        Some(&profile_body("tok-002")),
        token,
        Some("bob"),
    );
    assert_eq!(r.status, 201, "{r:?}");
    assert_eq!(created_by(&env, &r.id()), "token:bob");
    // The keys still count beside it.
    assert_eq!(get(&s, "/customer-profiles", &reader).status, 200);
    get(&s, "/customer-profiles", "0123456789abcdef-tokeN").refused(401, 10007);
    // No key may be named `token`.
    env.run(&["key", "create", "token", "--role", "admin"])
        .refused(1, 10001);
}

/// Remote mode sends PAYCTL_TOKEN as the bearer: a key's refusals are
/// refusals (exit 1) with their message; keys are never managed remotely.
#[test]
fn remote_mode_with_a_key_reports_401_and_403_as_refusals() {
    let env = Env::new();
    let reader = create_key(&env, "dashboards", "reader");
    let s = Server::start(&env, &["--quiet"]);
    let remote = |token: Option<&str>, args: &[&str]| {
        let mut c = env.cmd();
        c.env("PAYCTL_BASE_URL", &s.base).args(args);
        match token {
            Some(t) => c.env("PAYCTL_TOKEN", t),
            None => c.env_remove("PAYCTL_TOKEN"),
        };
        c.write_stdin(profile_body("remote-001").to_string());
        common::Out::from(c.output().unwrap())
    };
    let o = remote(Some(&reader), &["profile", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
    let o = remote(Some(&reader), &["profile", "create", "--body", "-"]);
    o.refused(1, 10010).mentions("writer");
    let o = remote(None, &["profile", "list"]);
    o.refused(1, 10007);
    let o = remote(
        Some("pk_wrongwrongwrongwrongwrongwrongwr"),
        &["profile", "list"],
    );
    o.refused(1, 10007);
    for args in [
        &["key", "list"][..],
        &["key", "create", "x", "--role", "admin"],
        &["key", "revoke", "dashboards"],
    ] {
        let o = remote(Some(&reader), args);
        o.refused(2, 10000).mentions("--base-url");
    }
    assert_eq!(env.run(&["key", "list"]).data().len(), 1);
}

/// Beyond loopback, keys in the store are a credential as a token is.
#[test]
fn beyond_loopback_keys_in_the_store_suffice() {
    let env = Env::new();
    let reader = create_key(&env, "dashboards", "reader");
    let s = Server::start(&env, &["--quiet", "--listen", "0.0.0.0:0"]);
    s.get("/customer-profiles").refused(401, 10007);
    assert_eq!(get(&s, "/customer-profiles", &reader).status, 200);
    // A Host that is not loopback is no cross-site refusal with a key.
    let answer = s.raw(
        format!(
            "GET /customer-profiles HTTP/1.1\r\nHost: payctl.example\r\n\
             Authorization: Bearer {reader}\r\nConnection: close\r\n\r\n"
        )
        .as_bytes(),
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// `store migrate` copies the keys: a secret handed out works against the
/// copy on PostgreSQL.
#[test]
#[ignore = "needs PostgreSQL"]
fn store_migrate_copies_the_keys_and_their_secrets_work_on_the_target() {
    let Some(target) = Env::database("store_migrate_copies_the_keys") else {
        return;
    };
    let env = Env::new();
    let secret = create_key(&env, "ci", "admin");
    create_key(&env, "gone", "reader");
    assert_eq!(env.run(&["key", "revoke", "gone"]).code, 0);
    let url = target.db.clone().unwrap();
    let o = env.run(&["store", "migrate", "--to", &url]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["api_keys"], 2, "{o:?}");
    let listed = target.run(&["key", "list"]);
    let names: Vec<&str> = listed
        .data()
        .iter()
        .map(|k| k["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["ci", "gone"]);
    assert!(listed.data()[1]["revoked"].is_string());
    let s = Server::start(&target, &["--quiet"]);
    assert_eq!(post(&s, "/_payctl/worker", None, &secret, None).status, 200);
    s.get("/customer-profiles").refused(401, 10007);
}

/// `n` reader keys (`bulk-00000`…, secret `pk_bulk<i>`) put into `env`'s
/// store in one commit, through the storage interface.
fn add_keys(env: &Env, n: usize) {
    use payctl::api::endpoints::Backend;
    use payctl::core::api_keys::{ApiKey, Role, hash};
    let local = payctl::api::Local {
        data_dir: env.path(),
        database_url: env.db.clone(),
        lock_timeout: Duration::from_secs(30),
        kept: None,
    };
    let store = local.write().unwrap();
    let mut tx = store.begin_without_events();
    for i in 0..n {
        tx.put_api_key(&ApiKey {
            name: format!("bulk-{i:05}"),
            role: Role::Reader,
            hash: hash(format!("pk_bulk{i}").as_bytes()),
            created: "2026-01-01T00:00:00.000000".into(),
            expires: None,
            revoked: None,
            last_used: None,
        })
        .unwrap();
    }
    tx.commit().unwrap();
}

/// The median time of a keyed GET, in milliseconds.
fn median_ms(s: &Server, secret: &str) -> f64 {
    for _ in 0..10 {
        assert_eq!(get(s, "/dictionaries", secret).status, 200);
    }
    let mut t: Vec<f64> = (0..60)
        .map(|_| {
            let start = Instant::now();
            let r = get(s, "/dictionaries", secret);
            assert_eq!(r.status, 200, "{r:?}");
            start.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() / 2]
}

/// A store with 10,001 keys answers as fast as one with 1: a key is found
/// by its hash, never by reading every key at each request.
fn many_keys(env: &Env) {
    let one = create_key(env, "one", "reader");
    let s = Server::start(env, &["--quiet"]);
    let small = median_ms(&s, &one);
    drop(s);
    add_keys(env, 10_000);
    let s = Server::start(env, &["--quiet"]);
    let big = median_ms(&s, &one);
    assert!(
        big < small * 3.0 + 3.0,
        "a keyed GET: {small:.2} ms with 1 key, {big:.2} ms with 10,001"
    );
    // The bulk keys work too, and the list has them all.
    assert_eq!(get(&s, "/dictionaries", "pk_bulk9999").status, 200);
    assert_eq!(env.run(&["key", "list"]).data().len(), 10_001);
}

#[test]
fn ten_thousand_keys_answer_as_fast_as_one_on_a_directory() {
    many_keys(&Env::new());
}

#[test]
#[ignore = "needs PostgreSQL"]
fn ten_thousand_keys_answer_as_fast_as_one_on_postgres() {
    let Some(env) = Env::database("ten_thousand_keys_answer_as_fast_as_one_on_postgres") else {
        return;
    };
    many_keys(&env);
}
