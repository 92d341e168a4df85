//! The PostgreSQL store (`--database-url`): every command on a fresh
//! database (see tests/it/common/pg.rs; skipped with a note when PostgreSQL is
//! not installed, never in CI), the schema's version, connection errors.

use crate::common;

use common::{Env, address_body, txn_create_args};
use serde_json::{Value, json};

fn db(test: &str) -> Option<Env> {
    Env::database(test)
}

/// The lifecycle of the quick start on the database: profile, address,
/// instrument, attach, worker, a transaction and its steps, lists, store
/// check; and nothing is written into --data-dir.
#[test]
#[ignore = "needs PostgreSQL"]
fn every_command_works_on_the_database() {
    let Some(env) = db("every_command_works_on_the_database") else {
        return;
    };
    let o = env.run(&["program", "list"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert!(o.stderr.contains("created a new store"), "{o:?}");
    assert!(!o.stderr.contains("secret-pw"), "{o:?}");
    let prm = env.program_id();
    let a = env.create_profile("alpha-001");
    let b = env.create_profile("bravo-002");
    env.run(&["profile", "get", &a]).json["data"][0]["customer_key"]
        .as_str()
        .map(|k| assert_eq!(k, "alpha-001"))
        .expect("key");
    // The same key again: refused, nothing written.
    env.body(&["profile", "create"], &common::profile_body("alpha-001"))
        .refused(1, 21002);
    let o = env.run(&["profile", "list"]);
    let keys: Vec<&str> = o
        .data()
        .iter()
        .map(|p| p["customer_key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["alpha-001", "bravo-002"], "creation order: {o:?}");
    assert_eq!(o.json["paging"]["total_count"], 2);
    let o = env.run(&["profile", "list", "--customer-key", "bravo-002"]);
    assert_eq!(o.data().len(), 1, "{o:?}");
    // Filters ignore case, and find nothing where nothing matches.
    let o = env.run(&[
        "profile",
        "list",
        "--last-name",
        "LOVELACE",
        "--email",
        "Ada@Example.com",
    ]);
    assert_eq!(o.data().len(), 2, "{o:?}");
    let o = env.run(&["profile", "list", "--first-name", "Grace"]);
    assert_eq!(o.data().len(), 0, "{o:?}");
    let o = env.run(&[
        "profile",
        "list",
        "--tag",
        "segment=retail",
        "--first-name",
        "ada",
    ]);
    assert_eq!(o.data().len(), 2, "{o:?}");
    let page = env.run(&["profile", "list", "--page-size", "1", "--page-number", "2"]);
    assert_eq!(page.data()[0]["customer_key"], "bravo-002", "{page:?}");
    // Address and its default rule.
    let addr = env.body(&["address", "create", &a], &address_body(true));
    assert_eq!(addr.code, 0, "{addr:?}");
    let aid = addr.id();
    env.run(&["address", "delete", &a, &aid, "--yes"])
        .refused(1, 21003);
    // Attach both, process, then a transaction between them.
    for c in [&a, &b] {
        let o = env.run(&["program", "attach", &prm, c]);
        assert_eq!(o.code, 0, "{o:?}");
    }
    env.run(&["program", "attach", &prm, &a]).refused(1, 21001);
    let w = env.run(&["worker"]);
    assert_eq!(w.code, 0, "{w:?}");
    assert_eq!(w.json["data"][0]["attachments_processed"], 2, "{w:?}");
    let o = env.run(&["program", "profiles", &prm]);
    let ids: Vec<&str> = o
        .data()
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [a.as_str(), b.as_str()], "{o:?}");
    let src = format!("@source_customers={a}:1.25");
    let dst = format!("@targets={b}:1.25");
    let t = env.run(&txn_create_args(
        &prm,
        "internal_transfer",
        &[&src, &dst, "@facilitator=1.00"],
    ));
    assert_eq!(t.code, 0, "{t:?}");
    let trn = t.id();
    let w = env.run(&["worker"]);
    assert_eq!(w.json["data"][0]["transactions_processed"], 1, "{w:?}");
    let steps = env.run(&["txn", "steps", &trn]);
    assert_eq!(steps.data().len(), 2, "{steps:?}");
    let list = env.run(&["txn", "list"]);
    assert_eq!(list.data().len(), 1, "{list:?}");
    // The spec's invariants on the database's aggregates.
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.json["data"][0]["customers"], 2, "{o:?}");
    assert_eq!(o.json["data"][0]["transactions"], 1, "{o:?}");
    // --data-dir is not used.
    assert!(!env.path().exists());
}

/// An idempotency key on the database: the retry answers the same id.
#[test]
#[ignore = "needs PostgreSQL"]
fn an_idempotent_create_is_answered_once_on_the_database() {
    let Some(env) = db("an_idempotent_create_is_answered_once_on_the_database") else {
        return;
    };
    let body = common::profile_body("idem-0001");
    let first = env.body(&["profile", "create", "--idempotency-key", "k-123"], &body);
    assert_eq!(first.code, 0, "{first:?}");
    let again = env.body(&["profile", "create", "--idempotency-key", "k-123"], &body);
    assert_eq!(again.code, 0, "{again:?}");
    assert_eq!(first.id(), again.id());
    let other = common::profile_body("idem-0002");
    env.body(&["profile", "create", "--idempotency-key", "k-123"], &other)
        .refused(1, 21005);
    assert_eq!(env.run(&["profile", "list"]).data().len(), 1);
}

/// `init` creates the schema with the given catalog; a second is refused.
#[test]
#[ignore = "needs PostgreSQL"]
fn init_on_a_database_then_again_is_refused() {
    let Some(env) = db("init_on_a_database_then_again_is_refused") else {
        return;
    };
    let o = env.run(&["init"]);
    assert_eq!(o.code, 0, "{o:?}");
    let o = env.run(&["init"]);
    assert_eq!(o.code, 1, "{o:?}");
    o.mentions("a store already exists in the database");
    assert!(!o.stderr.contains("secret-pw") && !o.stdout.contains("secret-pw"));
}

/// A schema written by a newer payctl is refused like a newer store format.
#[test]
#[ignore = "needs PostgreSQL"]
fn a_newer_schema_version_is_refused() {
    let Some(env) = db("a_newer_schema_version_is_refused") else {
        return;
    };
    assert_eq!(env.run(&["init"]).code, 0);
    let url = env.db.clone().unwrap();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.execute(
        "UPDATE payctl_meta SET value = '99' WHERE name = 'schema_version'",
        &[],
    )
    .unwrap();
    let o = env.run(&["profile", "list"]);
    o.refused(3, 30004).mentions("schema version 99");
}

/// A database that cannot be reached: exit 3, 30016, the host named, never
/// the password.
#[test]
fn an_unreachable_database_names_the_host_not_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let env = Env {
        dir: tempfile::TempDir::new().unwrap(),
        envs: Vec::new(),
        db: Some(format!(
            "postgresql://payuser:hunter2-secret@127.0.0.1:{port}/payments"
        )),
    };
    let o = env.run(&["profile", "list"]);
    o.refused(3, 30016)
        .mentions(&format!("postgresql://payuser@127.0.0.1:{port}/payments"));
    let all = format!("{}{}", o.stdout, o.stderr);
    assert!(!all.contains("hunter2"), "{all}");
    // A URL that is not one is a usage error.
    let env = Env {
        dir: tempfile::TempDir::new().unwrap(),
        envs: Vec::new(),
        db: Some("mysql://x".into()),
    };
    let o = env.run(&["profile", "list"]);
    assert_eq!(o.code, 2, "{o:?}");
}

/// The summary of a store check holds the records of the database.
#[test]
#[ignore = "needs PostgreSQL"]
fn store_check_reports_a_broken_invariant_in_the_database() {
    let Some(env) = db("store_check_reports_a_broken_invariant_in_the_database") else {
        return;
    };
    let a = env.create_profile("check-001");
    for d in [true, true] {
        let mut body: Value = address_body(d);
        body["is_default"] = json!(d);
        assert_eq!(env.body(&["address", "create", &a], &body).code, 0);
    }
    assert_eq!(env.run(&["store", "check"]).code, 0);
    // Make two defaults behind payctl's back.
    let url = env.db.clone().unwrap();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let doc: String = c
        .query_one("SELECT doc::text FROM payctl_customers", &[])
        .unwrap()
        .get(0);
    let mut v: Value = serde_json::from_str(&doc).unwrap();
    for a in v["addresses"].as_array_mut().unwrap() {
        a["is_default"] = json!(true);
    }
    c.execute(
        "UPDATE payctl_customers SET doc = $1::text::jsonb",
        &[&v.to_string()],
    )
    .unwrap();
    let o = env.run(&["store", "check"]);
    o.refused(3, 30006).mentions(&format!(
        "payctl_customers/{a}: more than one default address"
    ));
}

/// What a store answers, to compare two stores: profiles in order with
/// their records, program profiles, transactions, the queue's size.
fn answers(env: &Env, prm: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let list = env.run(&["profile", "list", "--page-size", "1000"]);
    assert_eq!(list.code, 0, "{list:?}");
    out.push(list.json["data"].clone());
    for p in list.data() {
        let id = p["customer_profile_id"].as_str().unwrap();
        out.push(env.run(&["address", "list", id]).json["data"].clone());
    }
    out.push(env.run(&["program", "profiles", prm]).json["data"].clone());
    out.push(env.run(&["txn", "list"]).json["data"].clone());
    out
}

/// `store migrate` from a directory into a database and back: the same
/// answers, the same counts, the source unchanged, a non-empty target
/// refused.
#[test]
#[ignore = "needs PostgreSQL"]
fn store_migrate_both_ways() {
    let Some(pg) = db("store_migrate_both_ways") else {
        return;
    };
    let dir = Env::new();
    let prm = dir.program_id();
    let mut ids = Vec::new();
    for i in 0..7 {
        ids.push(dir.create_profile(&format!("mig-{i:04}")));
    }
    assert_eq!(
        dir.body(&["address", "create", &ids[0]], &address_body(true))
            .code,
        0
    );
    for id in &ids[..3] {
        assert_eq!(dir.run(&["program", "attach", &prm, id]).code, 0);
    }
    assert_eq!(dir.run(&["worker"]).code, 0);
    // One still pending (queued), one idempotent create.
    assert_eq!(dir.run(&["program", "attach", &prm, &ids[3]]).code, 0);
    let idem = dir.body(
        &["profile", "create", "--idempotency-key", "mig-key"],
        &common::profile_body("mig-idem"),
    );
    assert_eq!(idem.code, 0, "{idem:?}");
    let before = dir.snapshot();
    let want = answers(&dir, &prm);

    let url = pg.db.clone().unwrap();
    let o = dir.run(&["store", "migrate", "--to", &url]);
    assert_eq!(o.code, 0, "{o:?}");
    let counts = &o.json["data"][0];
    assert_eq!(counts["customers"], 8, "{o:?}");
    assert_eq!(counts["attachments"], 4, "{o:?}");
    assert_eq!(counts["queued"], 1, "{o:?}");
    assert_eq!(counts["idempotency_keys"], 1, "{o:?}");
    assert!(!o.stderr.contains("secret-pw") && !o.stdout.contains("secret-pw"));
    assert_eq!(dir.snapshot(), before, "the source is unchanged");
    assert_eq!(answers(&pg, &prm), want);
    assert_eq!(pg.run(&["store", "check"]).code, 0);
    // The idempotency key came along: the retry answers the same id.
    let again = pg.body(
        &["profile", "create", "--idempotency-key", "mig-key"],
        &common::profile_body("mig-idem"),
    );
    assert_eq!(again.id(), idem.id());
    // The pending attachment is processed on the database.
    let w = pg.run(&["worker"]);
    assert_eq!(w.json["data"][0]["attachments_processed"], 1, "{w:?}");

    // Into a non-empty target: refused, nothing written.
    dir.run(&["store", "migrate", "--to", &url])
        .refused(1, 30018);
    let other = Env::new();
    assert_eq!(other.run(&["init"]).code, 0);
    dir.run(&["store", "migrate", "--to", other.path().to_str().unwrap()])
        .refused(1, 30018);

    // Back from the database into a new directory.
    let back = Env::new();
    let want = answers(&pg, &prm);
    let o = pg.run(&["store", "migrate", "--to", back.path().to_str().unwrap()]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.json["data"][0]["customers"], 8, "{o:?}");
    assert_eq!(answers(&back, &prm), want);
    let check = back.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

/// Two `payctl serve` on one database: creates through both land, one
/// customer_key raced across both has exactly one winner, and the
/// background workers of both process each item once (each transaction
/// gets its steps once).
#[test]
#[ignore = "needs PostgreSQL"]
fn two_serve_instances_share_one_database() {
    use common::serve::Server;
    let Some(env) = db("two_serve_instances_share_one_database") else {
        return;
    };
    let prm = env.program_id();
    let a = Server::start(&env, &["--quiet"]);
    let b = Server::start(&env, &["--quiet"]);
    // Creates through both.
    std::thread::scope(|scope| {
        for (w, s) in [&a, &b, &a, &b].into_iter().enumerate() {
            scope.spawn(move || {
                for i in 0..5 {
                    let r = s.post(
                        "/customer-profiles",
                        &common::profile_body(&format!("two-{w}-{i:03}")),
                    );
                    assert_eq!(r.status, 201, "{r:?}");
                }
            });
        }
    });
    for s in [&a, &b] {
        let listed = s.get("/customer-profiles?page_size=1000");
        assert_eq!(listed.json["paging"]["total_count"], 20, "{listed:?}");
    }
    // One key raced across both: exactly one winner.
    let replies: Vec<common::serve::Reply> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..8)
            .map(|i| {
                let s = if i % 2 == 0 { &a } else { &b };
                scope
                    .spawn(move || s.post("/customer-profiles", &common::profile_body("raced-key")))
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        replies.iter().filter(|r| r.status == 201).count(),
        1,
        "{replies:#?}"
    );
    for r in replies.iter().filter(|r| r.status != 201) {
        r.refused(409, 21002);
    }
    drop((a, b));
    // Work for the workers: 12 transactions between the first profiles.
    let ids: Vec<String> = env
        .run(&["profile", "list", "--page-size", "1000"])
        .data()
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap().to_string())
        .collect();
    for id in &ids[..4] {
        assert_eq!(env.run(&["program", "attach", &prm, id]).code, 0);
    }
    assert_eq!(env.run(&["worker"]).code, 0);
    let mut trns = Vec::new();
    for i in 0..12 {
        let src = format!("@source_customers={}:1.25", ids[i % 2]);
        let dst = format!("@targets={}:1.25", ids[2 + i % 2]);
        let o = env.run(&txn_create_args(
            &prm,
            "internal_transfer",
            &[&src, &dst, "@facilitator=1.00"],
        ));
        trns.push(o.id());
    }
    let a = Server::try_start(&env, &["--worker-interval", "0.05", "--quiet"], &[]).unwrap();
    let b = Server::try_start(&env, &["--worker-interval", "0.05", "--quiet"], &[]).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let queued = env.run(&["txn", "list", "--page-size", "1000"]);
        let done = queued
            .data()
            .iter()
            .all(|t| t["transaction_status_id"] != 10 && t["transaction_status_id"] != 20);
        if done {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{queued:?}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    drop((a, b));
    for t in &trns {
        let steps = env.run(&["txn", "steps", t]);
        assert_eq!(steps.data().len(), 2, "steps made once: {steps:?}");
    }
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
    assert_eq!(check.json["data"][0]["customers"], 21);
}

/// `demo` tours a scratch directory even when PAYCTL_DATABASE_URL names a
/// database: it never writes its records into the team's store.
#[test]
fn demo_never_writes_into_the_database_of_the_environment() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let o = assert_cmd::Command::cargo_bin("payctl")
        .unwrap()
        .args(["-o", "json", "demo"])
        .env(
            "PAYCTL_DATABASE_URL",
            format!("postgresql://u:p@127.0.0.1:{port}/nowhere"),
        )
        .env_remove("PAYCTL_DATA_DIR")
        .output()
        .unwrap();
    let out = common::Out::from(o);
    assert_eq!(out.code, 0, "{out:?}");
}

/// A database whose schema lost a table answers like a corrupt store:
/// exit 3, 30002, naming the database and the table.
#[test]
#[ignore = "needs PostgreSQL"]
fn a_database_missing_a_table_answers_like_a_corrupt_store() {
    let Some(env) = db("a_database_missing_a_table_answers_like_a_corrupt_store") else {
        return;
    };
    env.create_profile("gone-0001");
    let url = env.db.clone().unwrap();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute("DROP TABLE payctl_queue").unwrap();
    let o = env.run(&["worker"]);
    o.refused(3, 30002).mentions("payctl_queue");
    assert!(o.messages()[0].contains("127.0.0.1"), "{o:?}");
    assert!(!o.stderr.contains("secret-pw"), "{o:?}");
}

/// An admin connection to the test database of `env` (as the test server's
/// superuser), and the database's name.
fn admin(env: &Env) -> (postgres::Client, String) {
    let url = env.db.clone().expect("a database env");
    let name = url.rsplit('/').next().unwrap().to_string();
    let c = postgres::Client::connect(&url, postgres::NoTls).expect("admin connection");
    (c, name)
}

/// Six writers on one customer at once, on a database whose transactions
/// are SERIALIZABLE (as CockroachDB's are): the ones that lose the race get
/// SQLSTATE 40001 ("could not serialize access due to concurrent update")
/// and are run again; every address lands, none answers 30019.
#[test]
#[ignore = "needs PostgreSQL"]
fn a_serialization_failure_is_retried_by_a_single_command() {
    let Some(env) = db("a_serialization_failure_is_retried_by_a_single_command") else {
        return;
    };
    let cid = env.create_profile("serial-001");
    let (mut c, name) = admin(&env);
    c.batch_execute(&format!(
        "ALTER DATABASE {name} SET default_transaction_isolation TO 'serializable'"
    ))
    .unwrap();
    let body = address_body(false).to_string();
    let kids: Vec<_> = (0..6)
        .map(|_| {
            env.spawn(
                &["address", "create", &cid, "--body", "-"],
                Some(body.as_bytes()),
            )
        })
        .collect();
    let outs: Vec<common::Out> = kids.into_iter().map(common::finish).collect();
    for o in &outs {
        assert_eq!(o.code, 0, "every writer lands: {outs:#?}");
    }
    let list = env.run(&["address", "list", &cid, "--page-size", "100"]);
    assert_eq!(list.data().len(), 6, "{list:?}");
    let check = env.run(&["store", "check"]);
    assert_eq!(check.code, 0, "{check:?}");
}

/// `payctl serve` on a database borrows connections from a pool of at most
/// 32, and fewer when the database refuses more: 64 requests in flight at
/// once, under a role that may hold only 10 connections, are all answered
/// (a connection refused with SQLSTATE 53300 makes the pool keep those it
/// has), and the database never sees more than 10 connections of the
/// server (sampled from pg_stat_activity).
#[test]
#[ignore = "needs PostgreSQL"]
fn serve_answers_many_requests_on_a_bounded_pool() {
    use common::serve::Server;
    let Some(mut env) = db("serve_answers_many_requests_on_a_bounded_pool") else {
        return;
    };
    let (mut c, name) = admin(&env);
    let role = format!("{name}_app");
    c.batch_execute(&format!(
        "CREATE ROLE {role} LOGIN CONNECTION LIMIT 10; ALTER DATABASE {name} OWNER TO {role}"
    ))
    .unwrap();
    let url = env
        .db
        .clone()
        .unwrap()
        .replace("postgres:secret-pw@", &format!("{role}@"));
    env.db = Some(url);
    let cid = env.create_profile("pool-001");
    let s = Server::start(&env, &["--quiet"]);
    let done = std::sync::atomic::AtomicBool::new(false);
    let most = std::thread::scope(|scope| {
        let sampler = scope.spawn(|| {
            let mut most = 0i64;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let n: i64 = c
                    .query_one(
                        "SELECT count(*) FROM pg_stat_activity WHERE usename = $1",
                        &[&role],
                    )
                    .unwrap()
                    .get(0);
                most = most.max(n);
            }
            most
        });
        let hs: Vec<_> = (0..64)
            .map(|i| {
                let (s, cid) = (&s, &cid);
                scope.spawn(move || {
                    (0..5)
                        .map(|_| {
                            if i % 8 == 0 {
                                s.post(
                                    &format!("/customer-profiles/{cid}/addresses"),
                                    &address_body(false),
                                )
                            } else {
                                s.get(&format!("/customer-profiles/{cid}"))
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let replies: Vec<_> = hs.into_iter().flat_map(|h| h.join().unwrap()).collect();
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (replies, sampler.join().unwrap())
    });
    let (replies, most) = most;
    for r in &replies {
        assert!(r.status == 200 || r.status == 201, "{r:?}");
    }
    assert!(most >= 1, "the sampler saw the server's connections");
    assert!(
        most <= 10,
        "at most 10 connections of serve at once, saw {most}"
    );
    let list = s.get(&format!("/customer-profiles/{cid}/addresses?page_size=100"));
    assert_eq!(list.json["paging"]["total_count"], 40, "{list:?}");
}

fn tls_env(url: String) -> Env {
    Env {
        dir: tempfile::TempDir::new().unwrap(),
        envs: Vec::new(),
        db: Some(url),
    }
}

/// A server that accepts TCP only over TLS (`hostssl`), with a certificate
/// signed by a CA payctl does not know: sslmode=require connects (encrypted,
/// not verified); verify-full refuses the unknown CA (30016, saying what
/// to do); verify-full with the CA as sslrootcert connects; sslmode=disable
/// is refused, saying that the server requires TLS; no message shows the
/// password.
#[test]
#[ignore = "needs PostgreSQL"]
fn sslmodes_against_a_server_that_requires_tls() {
    let Some((url, ca)) =
        common::pg::fresh_tls_database("sslmodes_against_a_server_that_requires_tls")
    else {
        return;
    };
    let url = url.replace("postgres@", "postgres:secret-pw@");
    let require = tls_env(format!("{url}?sslmode=require"));
    let cid = require.create_profile("tls-001");
    let o = require.run(&["profile", "get", &cid]);
    assert_eq!(o.code, 0, "{o:?}");
    // The server's view: this connection is encrypted.
    let o = require.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");

    let full = tls_env(format!("{url}?sslmode=verify-full"));
    let o = full.run(&["profile", "get", &cid]);
    o.refused(3, 30016);
    o.mentions("sslmode=verify-full").mentions("sslrootcert");
    assert!(!o.stderr.contains("secret-pw"), "{o:?}");

    let trusted = tls_env(format!(
        "{url}?sslmode=verify-full&sslrootcert={}",
        ca.display()
    ));
    let o = trusted.run(&["profile", "get", &cid]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["customer_key"], "tls-001");

    let plain = tls_env(format!("{url}?sslmode=disable"));
    let o = plain.run(&["profile", "get", &cid]);
    o.refused(3, 30016);
    o.mentions("sslmode=disable").mentions("only TLS");
    assert!(!o.stderr.contains("secret-pw"), "{o:?}");

    // The default (prefer) uses TLS when offered.
    let prefer = tls_env(url.clone());
    assert_eq!(prefer.run(&["profile", "get", &cid]).code, 0);
    // An unknown sslmode is a usage error naming the choices.
    let o = tls_env(format!("{url}?sslmode=sometimes")).run(&["profile", "get", &cid]);
    o.refused(2, 10000);
    o.mentions("verify-full");
}

/// On the server without TLS, sslmode=require is refused, saying so, and
/// the default (prefer) connects in plain TCP.
#[test]
#[ignore = "needs PostgreSQL"]
fn sslmode_require_against_a_server_without_tls_is_refused() {
    let Some(env) = db("sslmode_require_against_a_server_without_tls_is_refused") else {
        return;
    };
    let cid = env.create_profile("plain-001");
    let url = env.db.clone().unwrap();
    let o = tls_env(format!("{url}?sslmode=require")).run(&["profile", "get", &cid]);
    o.refused(3, 30016);
    o.mentions("sslmode=require");
    assert!(!o.stderr.contains("secret-pw"), "{o:?}");
    let o = tls_env(format!("{url}?sslmode=disable")).run(&["profile", "get", &cid]);
    assert_eq!(o.code, 0, "{o:?}");
}

/// `payctl_meta.schema_version` as the database holds it.
fn schema_version(c: &mut postgres::Client) -> String {
    c.query_one(
        "SELECT value FROM payctl_meta WHERE name = 'schema_version'",
        &[],
    )
    .unwrap()
    .get(0)
}

/// A database of schema version 1 (no indexes on the filtered columns) is
/// upgraded in place at its next open: the version becomes 2, the indexes
/// exist, and the filters answer from them as before.
#[test]
#[ignore = "needs PostgreSQL"]
fn a_version_1_database_gets_the_filter_indexes_in_place() {
    let Some(env) = db("a_version_1_database_gets_the_filter_indexes_in_place") else {
        return;
    };
    let cid = env.create_profile("upgrade-001");
    let (mut c, _) = admin(&env);
    c.batch_execute(
        "DROP INDEX payctl_customers_first_name, payctl_customers_last_name, \
         payctl_customers_email, payctl_customers_tags; \
         UPDATE payctl_meta SET value = '1' WHERE name = 'schema_version'",
    )
    .unwrap();
    let o = env.run(&["profile", "list", "--email", "ADA@example.com"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.data()[0]["customer_profile_id"], cid.as_str());
    let v = schema_version(&mut c);
    assert_eq!(v, "8");
    let n: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'payctl_customers' \
             AND indexname IN ('payctl_customers_first_name', 'payctl_customers_last_name', \
             'payctl_customers_email', 'payctl_customers_tags')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 4);
    let o = env.run(&[
        "profile",
        "list",
        "--tag",
        "segment=retail",
        "--last-name",
        "lovelace",
    ]);
    assert_eq!(o.data().len(), 1, "{o:?}");
    let o = env.run(&["profile", "list", "--tag", "segment=none"]);
    assert_eq!(o.data().len(), 0, "{o:?}");
}

/// The ids `txn list args` answers on every page of `size`, following
/// `last_evaluated_key`.
fn txn_pages(env: &Env, args: &[&str], size: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut a = vec!["txn", "list", "--page-size", size];
        a.extend(args);
        if let Some(k) = &after {
            a.extend(["--after", k.as_str()]);
        }
        let o = env.run(&a);
        assert_eq!(o.code, 0, "{o:?}");
        out.extend(
            o.data()
                .iter()
                .map(|t| t["transaction_id"].as_str().unwrap().to_string()),
        );
        match o.json["paging"]["last_evaluated_key"].as_str() {
            Some(k) => after = Some(k.to_string()),
            None => return out,
        }
    }
}

/// A database of schema version 2 (no indexes on the transactions'
/// status, template and program) is upgraded in place to 3 at its next
/// open; `txn list --status/--template/--program` answer from those
/// columns, with paging, before and after the worker changes the statuses.
#[test]
#[ignore = "needs PostgreSQL"]
fn a_version_2_database_gets_the_txn_filter_indexes_in_place() {
    let Some(env) = db("a_version_2_database_gets_the_txn_filter_indexes_in_place") else {
        return;
    };
    let prm = env.program_id();
    let a = env.create_profile("txnidx-001");
    let b = env.create_profile("txnidx-002");
    for c in [&a, &b] {
        assert_eq!(env.run(&["program", "attach", &prm, c]).code, 0);
    }
    assert_eq!(env.run(&["worker"]).code, 0);
    let src = format!("@source_customers={a}:1.25");
    let dst = format!("@targets={b}:1.25");
    let transfer = |env: &Env| {
        env.run(&txn_create_args(
            &prm,
            "internal_transfer",
            &[&src, &dst, "@facilitator=1.00"],
        ))
        .id()
    };
    let t0 = transfer(&env);
    let t1 = env
        .run(&txn_create_args(
            &prm,
            "ach_funding",
            &[&format!("@source_customers={a}:1")],
        ))
        .id();
    let t2 = transfer(&env);
    let all = vec![t0.clone(), t1.clone(), t2.clone()];
    let (mut c, _) = admin(&env);
    c.batch_execute(
        "DROP INDEX payctl_transactions_status, payctl_transactions_template, \
         payctl_transactions_program; \
         UPDATE payctl_meta SET value = '2' WHERE name = 'schema_version'",
    )
    .unwrap();
    assert_eq!(txn_pages(&env, &["--status", "10"], "2"), all);
    let v = schema_version(&mut c);
    assert_eq!(v, "8");
    let n: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_indexes WHERE tablename = 'payctl_transactions' \
             AND indexname IN ('payctl_transactions_status', 'payctl_transactions_template', \
             'payctl_transactions_program')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(n, 3);
    assert_eq!(
        txn_pages(&env, &["--template", "internal_transfer"], "1"),
        [t0.clone(), t2.clone()]
    );
    assert_eq!(
        txn_pages(&env, &["--program", &prm, "--template", "ach_funding"], "1"),
        std::slice::from_ref(&t1)
    );
    assert_eq!(env.run(&["worker"]).code, 0);
    assert_eq!(
        txn_pages(&env, &["--status", "10"], "2"),
        Vec::<String>::new()
    );
    let mut by_status: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    for t in &all {
        let o = env.run(&["txn", "get", t]);
        let st = o.data()[0]["transaction_status_id"].as_u64().unwrap();
        assert!(st == 60 || st == 70, "{o:?}");
        by_status.entry(st).or_default().push(t.clone());
    }
    for (st, ids) in &by_status {
        assert_eq!(&txn_pages(&env, &["--status", &st.to_string()], "1"), ids);
    }
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");
}

/// An import of more than two chunks (5,000 lines each) on the database:
/// each chunk's keys are looked up in one query and its rows written by one
/// statement, so the answer must still name each line's own profile, the
/// stored keys already held must be skipped (or refuse the import, nothing
/// written), and the profiles must list in the order of the file, across
/// the chunks' boundaries, page after page.
#[test]
#[ignore = "needs PostgreSQL"]
fn an_import_of_several_chunks_keeps_each_line_its_profile_and_the_file_order() {
    let Some(env) =
        db("an_import_of_several_chunks_keeps_each_line_its_profile_and_the_file_order")
    else {
        return;
    };
    const LINES: usize = 11_000;
    let held = ["multi-000003", "multi-007000"];
    let held_ids: Vec<String> = held.iter().map(|k| env.create_profile(k)).collect();
    let file = env.dir.path().join("multi.jsonl");
    std::fs::write(&file, common::profile_lines("multi", LINES)).expect("write the lines");
    let file = file.to_str().expect("a UTF-8 path");

    // Without --skip-existing: refused, the held keys' lines named, nothing written.
    let o = env.run(&["profile", "import", file]);
    o.refused(1, 21002);
    let said = format!("{}{}", o.json, o.stderr);
    assert!(
        said.contains("line 4:") && said.contains("line 7001:"),
        "{o:?}"
    );
    let total = |env: &Env| {
        env.run(&["profile", "list", "--page-size", "1"]).json["paging"]["total_count"].clone()
    };
    assert_eq!(total(&env), 2);

    let o = env.run(&["profile", "import", "--skip-existing", file]);
    assert_eq!(o.code, 0, "{o:?}");
    let created = o.data();
    assert_eq!(created.len(), LINES - held.len(), "{:?}", o.stderr);
    // Each answer line names its own line's key, in file order.
    let mut want = (0..LINES)
        .map(|i| format!("multi-{i:06}"))
        .filter(|k| !held.contains(&k.as_str()));
    for c in created {
        assert_eq!(c["customer_key"].as_str(), want.next().as_deref(), "{c}");
    }
    assert_eq!(total(&env), json!(LINES));

    // The list: the two held first, then the file's order, page by page
    // (each page's rows read with its ids), every profile its own key.
    let mut keys = Vec::new();
    for page in 1..=LINES.div_ceil(1000) {
        let o = env.run(&[
            "profile",
            "list",
            "--page-size",
            "1000",
            "--page-number",
            &page.to_string(),
        ]);
        assert_eq!(o.code, 0, "{o:?}");
        for p in o.data() {
            keys.push(p["customer_key"].as_str().expect("a key").to_string());
        }
    }
    let mut expected: Vec<String> = held.iter().map(|k| k.to_string()).collect();
    expected.extend(
        (0..LINES)
            .map(|i| format!("multi-{i:06}"))
            .filter(|k| !held.contains(&k.as_str())),
    );
    assert_eq!(keys.len(), expected.len());
    assert!(keys == expected, "the list is not in creation order");
    // A filter's matches come with their rows too: still each its own.
    let o = env.run(&["profile", "list", "--customer-key", "multi-010999"]);
    assert_eq!(o.data()[0]["customer_key"], "multi-010999", "{o:?}");
    let o = env.run(&["profile", "get", &held_ids[1]]);
    assert_eq!(o.data()[0]["customer_key"], held[1], "{o:?}");
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");
}

/// A page's total_count comes from the count that commits keep
/// (`payctl_counts`, schema 4): right after creates and an import, given to
/// a version-3 database at its next open, and checked and repaired by
/// `store check`.
#[test]
#[ignore = "needs PostgreSQL"]
fn the_kept_count_of_customers_is_right_upgraded_and_repaired() {
    let Some(env) = db("the_kept_count_of_customers_is_right_upgraded_and_repaired") else {
        return;
    };
    let total = |env: &Env| -> u64 {
        let o = env.run(&["profile", "list", "--page-size", "1"]);
        assert_eq!(o.code, 0, "{o:?}");
        o.json["paging"]["total_count"]
            .as_u64()
            .expect("total_count")
    };
    for i in 0..3 {
        env.create_profile(&format!("count-{i:03}"));
    }
    let lines = common::profile_lines("count-imp", 25);
    let o = env.run_with(&["profile", "import", "-"], Some(lines.as_bytes()));
    assert_eq!(o.code, 0, "{o:?}");
    // An update adds nothing.
    let id = env.all_profiles()[0]["customer_profile_id"]
        .as_str()
        .unwrap()
        .to_string();
    let o = env.run(&["profile", "update", &id, "--first-name", "Later"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(total(&env), 28);
    // A version-3 database: no count yet.
    let (mut c, _) = admin(&env);
    c.batch_execute(
        "DROP TABLE payctl_counts; \
         UPDATE payctl_meta SET value = '3' WHERE name = 'schema_version'",
    )
    .unwrap();
    assert_eq!(total(&env), 28, "counted once at the upgrade");
    let v = schema_version(&mut c);
    assert_eq!(v, "8");
    env.create_profile("count-after");
    assert_eq!(total(&env), 29);
    // A count that disagrees: found, and repaired.
    c.batch_execute("UPDATE payctl_counts SET n = n + 5 WHERE slot = 3")
        .unwrap();
    let o = env.run(&["store", "check"]);
    assert_ne!(o.code, 0, "{o:?}");
    assert!(o.stdout.contains("payctl_counts"), "{o:?}");
    let o = env.run(&["store", "check", "--repair"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(total(&env), 29);
    assert_eq!(env.run(&["store", "check"]).code, 0);
}

/// The CLI through PgBouncer in session mode (docs/src/operations/postgresql.md: the
/// pooler that takes away a process's connection cost): every command
/// works, a refused write leaves the pooled connection usable for the next
/// process, concurrent writers all land, the writes are in the database
/// behind it, and the backends stay open in the pool between processes.
#[test]
#[ignore = "needs PostgreSQL"]
fn the_cli_works_through_pgbouncer_in_session_mode() {
    let test = "the_cli_works_through_pgbouncer_in_session_mode";
    let Some((direct, pooled)) = common::pg::pooled_database(test) else {
        return;
    };
    let env = Env {
        dir: tempfile::TempDir::new().expect("tempdir"),
        envs: Vec::new(),
        db: Some(pooled),
    };
    let prm = env.program_id();
    let a = env.create_profile("pool-0001");
    // Refused writes (a held key, a reused idempotency key), then the next
    // processes on the same pooled backends still work.
    env.body(&["profile", "create"], &common::profile_body("pool-0001"))
        .refused(1, 21002);
    let body = common::profile_body("pool-0002");
    let first = env.body(&["profile", "create", "--idempotency-key", "pk-1"], &body);
    assert_eq!(first.code, 0, "{first:?}");
    let again = env.body(&["profile", "create", "--idempotency-key", "pk-1"], &body);
    assert_eq!(again.id(), first.id(), "{again:?}");
    env.body(
        &["profile", "create", "--idempotency-key", "pk-1"],
        &common::profile_body("pool-0003"),
    )
    .refused(1, 21005);
    let b = first.id();
    for c in [&a, &b] {
        let o = env.run(&["program", "attach", &prm, c]);
        assert_eq!(o.code, 0, "{o:?}");
    }
    let w = env.run(&["worker"]);
    assert_eq!(w.json["data"][0]["attachments_processed"], 2, "{w:?}");
    // Eight writers at once through the pooler.
    let children: Vec<_> = (0..8)
        .map(|i| {
            let body = common::profile_body(&format!("pool-1{i:03}"));
            env.spawn(
                &["profile", "create", "--body", "-"],
                Some(body.to_string().as_bytes()),
            )
        })
        .collect();
    let mut ids: Vec<String> = children
        .into_iter()
        .map(|c| {
            let o = common::finish(c);
            assert_eq!(o.code, 0, "{o:?}");
            o.id()
        })
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 8);
    let o = env.run(&["store", "check"]);
    assert_eq!(o.code, 0, "{o:?}");
    assert_eq!(o.json["data"][0]["status"], "clean", "{o:?}");
    assert_eq!(o.json["data"][0]["customers"], 10, "{o:?}");
    // The same rows straight from the database behind the pooler.
    let direct_env = Env {
        dir: tempfile::TempDir::new().expect("tempdir"),
        envs: Vec::new(),
        db: Some(direct.clone()),
    };
    let o = direct_env.run(&["profile", "list", "--page-size", "100"]);
    assert_eq!(o.json["paging"]["total_count"], 10, "{o:?}");
    let o = direct_env.run(&["program", "profiles", &prm]);
    assert_eq!(o.data().len(), 2, "{o:?}");
    // The pooler kept its server connections: backends of this database
    // that outlived every payctl process (a direct payctl closes its own).
    let (mut c, name) = admin(&direct_env);
    let kept: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            &[&name],
        )
        .expect("pg_stat_activity")
        .get(0);
    assert!(kept >= 1, "no pooled backend is open: {kept}");
}
