//! The conformance suite of the storage interface (src/store/storage.rs),
//! written once and run against every backend: the in-memory one, a JSON
//! directory in a temporary directory, and PostgreSQL (a throwaway server,
//! see tests/it/common/pg.rs: without PostgreSQL the PostgreSQL cases say so
//! and pass, except under `CI=true` where they fail). As
//! taskchampion-sync-server does for its storage backends.
//!
//! Aggregates are made by `core` through the endpoint table (the in-process
//! transport of the CLI), then read, changed and committed through the
//! interface itself; `store check` must be clean after every commit.

use crate::common;

use std::time::Duration;

use payctl::api::endpoints::{Backend, Op, Request};
use payctl::api::{self, Local};
use payctl::core::Ctx;
use payctl::store::fields::Field;
use payctl::store::memory::MemoryStore;
use payctl::store::{Store, TxnQuery, Window};
use serde_json::{Value, json};
use tempfile::TempDir;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Memory,
    Json,
    Pg,
}

/// One backend under test.
struct Fx {
    kind: Kind,
    backend: Box<dyn Backend + Send + Sync>,
    _dir: TempDir,
    ctx: Ctx,
}

fn ctx() -> Ctx {
    let now = chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
        .and_then(|d| d.and_hms_micro_opt(3, 4, 5, 6))
        .expect("a time");
    Ctx::new("conformance", now)
}

impl Fx {
    fn memory() -> Fx {
        let ctx = ctx();
        Fx {
            kind: Kind::Memory,
            backend: Box::new(MemoryStore::builtin(&ctx.now)),
            _dir: TempDir::new().expect("tempdir"),
            ctx,
        }
    }

    fn json() -> Fx {
        let dir = TempDir::new().expect("tempdir");
        Fx {
            kind: Kind::Json,
            backend: Box::new(Local {
                data_dir: dir.path().join("store"),
                database_url: None,
                lock_timeout: Duration::from_secs(10),
                kept: None,
            }),
            _dir: dir,
            ctx: ctx(),
        }
    }

    fn pg(test: &str) -> Option<Fx> {
        let url = common::pg::fresh_database(test)?;
        let dir = TempDir::new().expect("tempdir");
        Some(Fx {
            kind: Kind::Pg,
            backend: Box::new(Local {
                data_dir: dir.path().join("unused"),
                database_url: Some(url),
                lock_timeout: Duration::from_secs(10),
                kept: None,
            }),
            _dir: dir,
            ctx: ctx(),
        })
    }

    fn call(&self, req: Request) -> Value {
        api::call_envelope(&*self.backend, &self.ctx, &req)
    }

    fn id(&self, req: Request) -> String {
        let e = self.call(req);
        e["data"][0]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("{:?}: not an id: {e}", self.kind))
            .to_string()
    }

    fn read(&self) -> Store {
        self.backend.read().expect("open for reading")
    }

    fn write(&self) -> Store {
        self.backend.write().expect("open for writing")
    }

    /// `store check` finds nothing.
    fn clean(&self, after: &str) {
        let r = self.read().check(false).expect("store check");
        assert!(
            r.findings.is_empty(),
            "{:?}: store check after {after}: {:#?}",
            self.kind,
            r.findings
        );
    }

    fn profile(&self, key: &str, first: &str, last: &str, email: &str) -> String {
        let mut b = common::profile_body(key);
        b["customer_profile_individual"]["first_name"] = json!(first);
        b["customer_profile_individual"]["last_name"] = json!(last);
        b["customer_profile_individual"]["email"] = json!(email);
        b["customer_profile_tags"] = json!([{"key": "segment", "value": key}]);
        self.id(Request::new(Op::ProfileCreate).body(b))
    }

    fn program(&self) -> String {
        let e = self.call(Request::new(Op::ProgramList));
        e["data"][0]["program_id"]
            .as_str()
            .expect("a program")
            .to_string()
    }

    fn attach(&self, prm: &str, csp: &str) {
        self.id(Request::new(Op::Attach)
            .at([prm])
            .body(json!({"customer_profile_id": csp})));
    }

    fn worker(&self) {
        let e = self.call(Request::new(Op::Worker));
        assert!(e["errors"].is_null(), "{:?}: worker: {e}", self.kind);
    }

    /// An ach_funding transaction of `csp`, attached to `prm`.
    fn txn(&self, prm: &str, csp: &str) -> String {
        self.id(Request::new(Op::TxnCreate).body(self.txn_body(prm, csp)))
    }

    /// The body of an ach_funding transaction of `csp`, attached to `prm`.
    fn txn_body(&self, prm: &str, csp: &str) -> Value {
        let e = self.call(Request::new(Op::ApplicationList).at([prm]));
        let app = e["data"][0]["application_id"].as_str().expect("app");
        let e = self.call(Request::new(Op::TemplateList).at([app]));
        let trt = e["data"]
            .as_array()
            .expect("templates")
            .iter()
            .find(|t| t["transaction_template_name"] == "ach_funding")
            .and_then(|t| t["transaction_template_id"].as_str())
            .expect("ach_funding");
        json!({
            "program_id": prm,
            "application_id": app,
            "transaction_template_id": trt,
            "transaction_status_reason": "conformance",
            "transaction_tags": [],
            "transaction_parameters": [{
                "transaction_parameter_name": "@source_customers",
                "transaction_parameter_values": [{"customer_profile_id": csp, "amount": 10}]
            }]
        })
    }

    /// `n` threads send `req(i)` at once: their envelopes, in thread order.
    fn race(&self, n: usize, req: impl Fn(usize) -> Request + Sync) -> Vec<Value> {
        let start = std::sync::Barrier::new(n);
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .map(|i| {
                    let (start, req) = (&start, &req);
                    s.spawn(move || {
                        let r = req(i);
                        start.wait();
                        self.call(r)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a racer"))
                .collect()
        })
    }
}

/// Put and read back a customer and a transaction; a missing or malformed
/// id reads as none.
fn put_and_read(fx: &Fx) {
    let a = fx.profile("key-a", "Ada", "Lovelace", "ada@example.com");
    fx.clean("a create");
    let store = fx.write();
    let mut c = store.customer(&a).unwrap().expect("the new customer");
    assert_eq!(c.profile.customer_key, "key-a");
    c.profile.customer_profile_individual.first_name = "Augusta".into();
    let mut tx = store.begin_without_events();
    tx.put_customer(&c);
    // Read back inside the transaction before the commit.
    assert_eq!(
        tx.customer(&a)
            .unwrap()
            .unwrap()
            .profile
            .customer_profile_individual
            .first_name,
        "Augusta"
    );
    tx.commit().unwrap();
    drop(store);
    fx.clean("an update");
    let store = fx.read();
    let got = store.customer(&a).unwrap().unwrap();
    assert_eq!(
        got.profile.customer_profile_individual.first_name,
        "Augusta"
    );
    let named = |n: &str| store.profile_page(Some((Field::FirstName, n)), &Window::all());
    assert!(
        named("augusta").unwrap().ids.contains(&a),
        "the index has the new name"
    );
    assert!(store.customer("csp_doesnotexist").unwrap().is_none());
    assert!(store.customer("../etc/passwd").unwrap().is_none());
    assert!(store.txn("trn_doesnotexist").unwrap().is_none());
    drop(store);

    let prm = fx.program();
    fx.attach(&prm, &a);
    fx.worker();
    let t = fx.txn(&prm, &a);
    fx.clean("a transaction create");
    let store = fx.write();
    let mut file = store.txn(&t).unwrap().expect("the new transaction");
    assert_eq!(file.transaction.transaction_id, t);
    file.transaction.transaction_status_reason = Some("changed".into());
    let mut tx = store.begin_without_events();
    tx.put_txn(&file);
    tx.commit().unwrap();
    drop(store);
    fx.clean("a transaction put");
    let got = fx.read().txn(&t).unwrap().unwrap();
    assert_eq!(
        got.transaction.transaction_status_reason.as_deref(),
        Some("changed")
    );
}

/// A customer_key's owner, alone and in a batch.
fn key_owner(fx: &Fx) {
    let a = fx.profile("owner-a", "Ada", "Lovelace", "a@example.com");
    let b = fx.profile("owner-b", "Bea", "Lovelace", "b@example.com");
    let store = fx.read();
    assert_eq!(store.key_owner("owner-a").unwrap(), Some(a.clone()));
    assert_eq!(store.key_owner("owner-b").unwrap(), Some(b.clone()));
    assert_eq!(store.key_owner("owner-c").unwrap(), None);
    assert_eq!(
        store.key_owners(&["owner-b", "nobody", "owner-a"]).unwrap(),
        vec![Some(b), None, Some(a)]
    );
}

/// Profiles in creation order, by page; the position of each; every exact
/// filter's candidates hold every profile that matches.
fn profiles_in_order(fx: &Fx) {
    let mut ids = Vec::new();
    for (i, (first, last)) in [
        ("Zoe", "Young"),
        ("Ada", "Lovelace"),
        ("Mia", "Young"),
        ("Bob", "Adams"),
        ("Eve", "Lovelace"),
    ]
    .iter()
    .enumerate()
    {
        ids.push(fx.profile(
            &format!("order-{i}"),
            first,
            last,
            &format!("{}@example.com", first.to_lowercase()),
        ));
    }
    fx.clean("five creates");
    let store = fx.read();
    assert_eq!(profile_count(&store), 5);
    let mut paged = Vec::new();
    for start in (0..6).step_by(2) {
        let page = store.profile_page(None, &Window::at(start, 2)).unwrap();
        assert_eq!(page.total, 5);
        paged.extend(page.ids);
    }
    assert_eq!(paged, ids, "{:?}: pages in creation order", fx.kind);
    let past = store.profile_page(None, &Window::at(7, 2)).unwrap();
    assert!(past.ids.is_empty());
    for (i, id) in ids.iter().enumerate() {
        let after = Window {
            after: Some(id.clone()),
            start: 0,
            size: 1,
        };
        let page = store.profile_page(None, &after).unwrap();
        assert_eq!(page.range.map(|r| r.start), Some(i + 1));
        assert_eq!(
            page.ids,
            ids[i + 1..].iter().take(1).cloned().collect::<Vec<_>>()
        );
    }
    let unknown = Window {
        after: Some("csp_unknown".into()),
        start: 0,
        size: 1,
    };
    assert_eq!(store.profile_page(None, &unknown).unwrap().range, None);
    assert_eq!(profile_ids(&store), ids);
    let candidates = |field: Field, value: &str| -> Vec<String> {
        let all = store
            .profile_page(Some((field, &field.normal(value))), &Window::all())
            .unwrap()
            .ids;
        // Each once, in creation order.
        let positions: Vec<usize> = all
            .iter()
            .map(|id| ids.iter().position(|x| x == id).expect("a stored id"))
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "{:?}: in creation order, each once: {positions:?}",
            fx.kind
        );
        // Confirmed against the records, as `profile list` does.
        all.into_iter()
            .filter(|id| {
                let s = store.customer(id).unwrap().unwrap();
                field
                    .values(&payctl::store::ProfileSummary::of(&s.profile))
                    .contains(&field.normal(value))
            })
            .collect()
    };
    assert_eq!(
        candidates(Field::LastName, "YOUNG"),
        [ids[0].clone(), ids[2].clone()]
    );
    assert_eq!(candidates(Field::FirstName, "ada"), [ids[1].clone()]);
    assert_eq!(
        candidates(Field::Email, "Bob@Example.com"),
        [ids[3].clone()]
    );
    let tag = payctl::store::fields::tag_value("segment", "order-4");
    assert_eq!(candidates(Field::Tag, &tag), [ids[4].clone()]);
    assert!(candidates(Field::FirstName, "nobody").is_empty());
    // Through `core`: a page of the filtered list, in creation order.
    let mut req = Request::new(Op::ProfileList);
    req.query.last_name = Some("lovelace".into());
    req.query.page.size = 1;
    req.query.page.number = Some(2);
    let e = fx.call(req);
    assert_eq!(e["data"][0]["customer_profile_id"], json!(ids[4]), "{e}");
    assert_eq!(e["paging"]["total_count"], 2, "{e}");
}

/// Transactions in creation order; a program's profile records in the
/// order they were made; the pending work, and its claim.
fn txns_programs_and_queue(fx: &Fx) {
    let prm = fx.program();
    let a = fx.profile("queue-a", "Ada", "Lovelace", "a@example.com");
    let b = fx.profile("queue-b", "Bea", "Lovelace", "b@example.com");
    fx.attach(&prm, &b);
    fx.attach(&prm, &a);
    fx.clean("two attaches");
    {
        let store = fx.read();
        assert_eq!(
            store.program_customers(&prm).unwrap(),
            [b.clone(), a.clone()]
        );
        assert!(store.program_customers("prm_none").unwrap().is_empty());
        let queue = store.queue().unwrap();
        assert_eq!(queue.len(), 2, "{:?}: {queue:?}", fx.kind);
        for q in &queue {
            assert!(store.is_queued(q));
        }
    }
    fx.worker();
    fx.clean("a worker pass");
    assert!(fx.read().queue().unwrap().is_empty());
    let t1 = fx.txn(&prm, &a);
    let t2 = fx.txn(&prm, &b);
    let t3 = fx.txn(&prm, &a);
    fx.clean("three transaction creates");
    let store = fx.read();
    let order = txn_ids(&store);
    assert_eq!(order, [t1, t2, t3]);
    let queue = store.queue().unwrap();
    assert_eq!(queue.len(), 3);
    drop(store);
    // Taking an item off the queue.
    let store = fx.write();
    let first = queue[0].clone();
    assert!(store.is_queued(&first));
    if fx.kind == Kind::Pg {
        // A second writer does not get the item the first holds.
        let other = fx.write();
        assert!(!other.is_queued(&first), "claimed twice");
        assert!(other.is_queued(&queue[1]));
    }
    let mut tx = store.begin_without_events();
    tx.dequeue(&first);
    tx.commit().unwrap();
    drop(store);
    let store = fx.read();
    assert!(!store.is_queued(&first));
    assert_eq!(store.queue().unwrap().len(), 2);
}

/// The transactions that match a filter of `txn list`, as ids in
/// creation order.
fn matching(store: &Store, q: &TxnQuery) -> Vec<String> {
    store.txn_page(q, &Window::all()).unwrap().ids
}

/// Every profile id, in creation order.
fn profile_ids(store: &Store) -> Vec<String> {
    store.profile_page(None, &Window::all()).unwrap().ids
}

/// The number of profiles.
fn profile_count(store: &Store) -> usize {
    store.profile_page(None, &Window::at(0, 0)).unwrap().total
}

/// Every transaction id, in creation order.
fn txn_ids(store: &Store) -> Vec<String> {
    store
        .txn_page(&TxnQuery::default(), &Window::all())
        .unwrap()
        .ids
}

/// Every profile's id and customer_key, in creation order.
fn profile_keys(store: &Store) -> Vec<(String, String)> {
    profile_ids(store)
        .iter()
        .filter_map(|id| store.customer(id).unwrap())
        .map(|c| (c.profile.customer_profile_id, c.profile.customer_key))
        .collect()
}

/// The exact filters of `txn list` (status, template, program), before and
/// after the worker changes the status.
fn txn_filters(fx: &Fx) {
    let prm = fx.program();
    let a = fx.profile("filter-a", "Ada", "Lovelace", "a@example.com");
    fx.attach(&prm, &a);
    fx.worker();
    let t1 = fx.txn(&prm, &a);
    let t2 = fx.txn(&prm, &a);
    let store = fx.read();
    let first = store.txn(&t1).unwrap().unwrap().transaction;
    let created = first.transaction_status_id;
    let template = first.transaction_template_id.clone();
    let q = |status: Option<u32>, templates: Option<Vec<String>>, programs: Option<Vec<String>>| {
        TxnQuery {
            status,
            templates,
            programs,
            customer: None,
        }
    };
    let both = [t1.clone(), t2.clone()];
    assert_eq!(matching(&store, &q(Some(created), None, None)), both);
    assert_eq!(
        matching(&store, &q(None, Some(vec![template.clone()]), None)),
        both
    );
    assert_eq!(
        matching(&store, &q(None, None, Some(vec![prm.clone()]))),
        both
    );
    assert!(matching(&store, &q(None, None, Some(vec!["prm_none".into()]))).is_empty());
    assert!(matching(&store, &q(Some(created + 100), None, None)).is_empty());
    let after_t1 = Window {
        after: Some(t1.clone()),
        start: 0,
        size: 1,
    };
    let page = store
        .txn_page(&q(Some(created), None, None), &after_t1)
        .unwrap();
    assert_eq!((page.total, page.range.map(|r| r.start)), (2, Some(1)));
    assert_eq!(page.ids, std::slice::from_ref(&t2));
    let by_customer = TxnQuery {
        customer: Some(a.clone()),
        ..TxnQuery::default()
    };
    assert_eq!(matching(&store, &by_customer), both);
    drop(store);
    fx.worker();
    fx.clean("a worker pass over two transactions");
    let store = fx.read();
    let after = store
        .txn(&t1)
        .unwrap()
        .unwrap()
        .transaction
        .transaction_status_id;
    assert_ne!(after, created, "{:?}: the worker moved them on", fx.kind);
    assert!(matching(&store, &q(Some(created), None, None)).is_empty());
    assert_eq!(
        matching(
            &store,
            &q(Some(after), Some(vec![template]), Some(vec![prm]))
        ),
        both
    );
}

/// An idempotency record is kept with the change it answers, found while
/// it lives, and copied as it is.
fn idempotency(fx: &Fx) {
    let a = fx.profile("idem-a", "Ada", "Lovelace", "a@example.com");
    let now = 1_800_000_000;
    let store = fx.write();
    let mut c = store.customer(&a).unwrap().unwrap();
    c.profile.customer_profile_individual.first_name = "Idem".into();
    store.arm_idempotency("key-1", "fp-1", now);
    let mut tx = store.begin_without_events();
    tx.put_customer(&c);
    tx.commit_created(&a).unwrap();
    assert!(!store.disarm_idempotency(), "taken by the commit");
    drop(store);
    fx.clean("a commit with an idempotency record");
    let store = fx.write();
    let r = store
        .idempotency_record("key-1", now + 5)
        .unwrap()
        .expect("kept");
    assert_eq!((r.fp.as_str(), r.result.clone()), ("fp-1", json!(a)));
    assert!(store.idempotency_record("key-2", now).unwrap().is_none());
    assert!(
        store
            .idempotency_record("key-1", now + payctl::store::idempotency::TTL_SECS)
            .unwrap()
            .is_none(),
        "expired"
    );
    let mut copy = r.clone();
    copy.key = "key-copied".into();
    let mut tx = store.begin_without_events();
    tx.put_idempotency(&copy).unwrap();
    tx.commit().unwrap();
    drop(store);
    let keys: Vec<String> = fx
        .read()
        .idempotency_records(now)
        .unwrap()
        .into_iter()
        .map(|r| r.key)
        .collect();
    assert!(keys.contains(&"key-1".to_string()) && keys.contains(&"key-copied".to_string()));
}

/// The ids of `envelopes`, which must all be successes.
fn ids_of(fx: &Fx, what: &str, envelopes: &[Value]) -> Vec<String> {
    envelopes
        .iter()
        .map(|e| {
            e["data"][0]["id"]
                .as_str()
                .unwrap_or_else(|| panic!("{:?}: {what}: not an id: {e}", fx.kind))
                .to_string()
        })
        .collect()
}

/// Concurrent creates with one idempotency key make one record: with one
/// body, every caller gets its id (never a second record, never 21002);
/// with different bodies, one is created and every other is refused with
/// 21005. For every create: profile, address, instrument, attach,
/// transaction.
fn idempotency_races(fx: &Fx) {
    const N: usize = 8;
    let key = |k: &str| Some(format!("race-{k}"));
    let prm = fx.program();
    let csp = fx.profile("race-owner", "Ada", "Lovelace", "owner@example.com");
    fx.attach(&prm, &csp);
    fx.worker();

    let same = |e: &[Value], what: &str| {
        let ids = ids_of(fx, what, e);
        assert!(
            ids.iter().all(|i| *i == ids[0]),
            "{:?}: {what}: one key gave several ids: {ids:?}",
            fx.kind
        );
        ids[0].clone()
    };

    // One profile, 8 callers with one body.
    let body = common::profile_body("race-one");
    let e = fx.race(N, |_| {
        Request::new(Op::ProfileCreate)
            .body(body.clone())
            .idempotency_key(key("profile"))
    });
    let one = same(&e, "profile create");
    let holders: Vec<_> = profile_keys(&fx.read())
        .into_iter()
        .filter(|(_, k)| k == "race-one")
        .collect();
    assert_eq!(holders.len(), 1, "{:?}", fx.kind);
    assert_eq!(holders[0].0, one);

    // 16 bodies under one key: one profile and 15 refusals (21005).
    let e = fx.race(2 * N, |i| {
        Request::new(Op::ProfileCreate)
            .body(common::profile_body(&format!("race-many-{i}")))
            .idempotency_key(key("profile-many"))
    });
    let created: Vec<&Value> = e.iter().filter(|e| e["errors"].is_null()).collect();
    assert_eq!(created.len(), 1, "{:?}: {e:#?}", fx.kind);
    for r in e.iter().filter(|e| !e["errors"].is_null()) {
        assert_eq!(r["errors"][0]["code"], 21005, "{:?}: {r}", fx.kind);
    }
    let made = profile_keys(&fx.read())
        .into_iter()
        .filter(|(_, k)| k.starts_with("race-many-"))
        .count();
    assert_eq!(made, 1, "{:?}", fx.kind);

    // One address, one instrument, one attachment, one transaction.
    let addresses = |s: &Store| s.customer(&csp).unwrap().unwrap().addresses.len();
    let before = addresses(&fx.read());
    let e = fx.race(N, |_| {
        Request::new(Op::AddressCreate)
            .at([csp.as_str()])
            .body(common::address_body(false))
            .idempotency_key(key("address"))
    });
    same(&e, "address create");
    assert_eq!(addresses(&fx.read()), before + 1, "{:?}", fx.kind);

    let instruments = |s: &Store| s.customer(&csp).unwrap().unwrap().instruments.len();
    let before = instruments(&fx.read());
    let e = fx.race(N, |_| {
        Request::new(Op::InstrumentCreate)
            .at([csp.as_str()])
            .body(common::ach_instrument_body(
                &prm,
                "race",
                false,
                json!([{"key": "race", "value": "race"}]),
            ))
            .idempotency_key(key("instrument"))
    });
    same(&e, "instrument create");
    assert_eq!(instruments(&fx.read()), before + 1, "{:?}", fx.kind);

    let other = fx.profile("race-attach", "Bea", "Lovelace", "bea@example.com");
    let e = fx.race(N, |_| {
        Request::new(Op::Attach)
            .at([prm.as_str()])
            .body(json!({"customer_profile_id": other}))
            .idempotency_key(key("attach"))
    });
    same(&e, "attach");

    let txns = txn_ids(&fx.read()).len();
    let body = fx.txn_body(&prm, &csp);
    let e = fx.race(N, |_| {
        Request::new(Op::TxnCreate)
            .body(body.clone())
            .idempotency_key(key("txn"))
    });
    let tid = same(&e, "txn create");
    let after = txn_ids(&fx.read());
    assert_eq!(after.len(), txns + 1, "{:?}: one transaction", fx.kind);
    assert!(after.contains(&tid));
    fx.clean("the races");
}

/// A commit that fails leaves nothing of its changes: the PostgreSQL
/// backend (and the in-memory one) refuse a second holder of a key, the
/// JSON directory (and the in-memory one) a record above the size limit.
fn atomic_commit(fx: &Fx) {
    let prm = fx.program();
    let a = fx.profile("atomic-a", "Ada", "Lovelace", "a@example.com");
    let b = fx.profile("atomic-b", "Bea", "Lovelace", "b@example.com");
    fx.attach(&prm, &b);
    let before_queue = fx.read().queue().unwrap().len();
    let store = fx.write();
    let good = {
        let mut c = store.customer(&a).unwrap().unwrap();
        c.profile.customer_profile_individual.first_name = "Changed".into();
        c
    };
    let mut bad = store.customer(&b).unwrap().unwrap();
    if fx.kind == Kind::Json {
        bad.profile.customer_profile_individual.middle_name =
            Some("x".repeat(payctl::store::atomic::RECORD_BYTES as usize));
    } else {
        bad.profile.customer_key = "atomic-a".into();
    }
    let mut tx = store.begin_without_events();
    tx.put_customer(&good);
    tx.enqueue(&payctl::store::QueueItem::txn("trn_notreal"));
    tx.put_customer(&bad);
    assert!(tx.commit().is_err(), "{:?}: the commit must fail", fx.kind);
    drop(store);
    let store = fx.read();
    assert_eq!(
        store
            .customer(&a)
            .unwrap()
            .unwrap()
            .profile
            .customer_profile_individual
            .first_name,
        "Ada",
        "{:?}: nothing of a failed commit",
        fx.kind
    );
    assert_eq!(
        store.customer(&b).unwrap().unwrap().profile.customer_key,
        "atomic-b"
    );
    assert_eq!(store.key_owner("atomic-a").unwrap(), Some(a));
    assert_eq!(store.queue().unwrap().len(), before_queue);
    drop(store);
    fx.clean("a failed commit");
}

/// A write that would make a record break one of the spec's invariants
/// is refused before its commit (30010), whatever the backend, and nothing
/// of it is written; a record already broken is left to `store check`.
fn invariants_before_commit(fx: &Fx) {
    let a = fx.profile("inv-a", "Ada", "Lovelace", "a@example.com");
    for default in [true, true] {
        fx.id(Request::new(Op::AddressCreate)
            .at([a.as_str()])
            .body(common::address_body(default)));
    }
    fx.clean("two default addresses added one after the other");
    let store = fx.write();
    let mut c = store.customer(&a).unwrap().unwrap();
    assert_eq!(c.addresses.iter().filter(|x| x.is_default).count(), 1);
    for x in &mut c.addresses {
        x.is_default = true;
    }
    c.profile.customer_profile_individual.first_name = "Broken".into();
    let mut tx = store.begin_without_events();
    tx.put_customer(&c);
    let e = tx.commit().expect_err("two default addresses");
    assert!(e.has_code(30010), "{:?}: {e:?}", fx.kind);
    assert!(
        format!("{e:?}").contains("more than one default address"),
        "{e:?}"
    );
    drop(store);
    let got = fx.read().customer(&a).unwrap().unwrap();
    assert_eq!(got.profile.customer_profile_individual.first_name, "Ada");
    assert_eq!(got.addresses.iter().filter(|x| x.is_default).count(), 1);
    fx.clean("a refused commit");
}

/// New customers handed over already serialized (as an import does), one
/// of them put again in the same transaction: the put is what is stored.
/// 300 of them, so that the JSON directory packs them (from 256) and
/// writes the serialized text as it is for the others.
fn serialized_then_put(fx: &Fx) {
    let model = fx.profile("ser-model", "Ada", "Lovelace", "ada@example.com");
    let store = fx.write();
    let model = store.customer(&model).unwrap().expect("the model");
    let mut tx = store.begin_without_events();
    let mut ids = Vec::new();
    for i in 0..300 {
        let mut c = model.clone();
        c.profile.customer_profile_id = format!("csp_ser{i:017}");
        c.profile.customer_key = format!("ser-{i:05}");
        let json = serde_json::to_string(&c).unwrap();
        ids.push(c.id().to_string());
        tx.new_customer_serialized(c, json).unwrap();
    }
    let mut changed = tx
        .customer(&ids[7])
        .unwrap()
        .expect("new in the transaction");
    changed.profile.customer_profile_individual.first_name = "Augusta".into();
    tx.put_customer(&changed);
    tx.commit().unwrap();
    drop(store);
    fx.clean("serialized creates and a put");
    let store = fx.read();
    let first = |id: &str| {
        store
            .customer(id)
            .unwrap()
            .expect("stored")
            .profile
            .customer_profile_individual
            .first_name
    };
    assert_eq!(first(&ids[7]), "Augusta", "{:?}: the put wins", fx.kind);
    assert_eq!(first(&ids[8]), "Ada");
    assert_eq!(first(&ids[299]), "Ada");
    assert_eq!(profile_ids(&store).len(), 301);
}

/// API keys: created, found by the hash of their secret (never by a
/// scan), listed in creation order, a name held by one key only (21006, by
/// the backend itself too), last use kept only when later, revoked keys
/// kept; a JSON directory's stamp moves with the keys and not with their
/// use.
fn api_keys(fx: &Fx) {
    use payctl::core::api_keys::{self as keys, Role};
    let now = chrono::NaiveDate::from_ymd_opt(2026, 1, 2)
        .and_then(|d| d.and_hms_opt(3, 4, 5))
        .expect("a time");
    assert!(!fx.read().has_api_keys().unwrap());
    assert!(fx.read().api_keys().unwrap().is_empty());
    let stamp = || fx.read().api_keys_stamp().unwrap();
    let empty = stamp();
    let store = fx.write();
    let a = keys::create(&store, now, "alpha", Role::Reader, None).unwrap();
    drop(store);
    let store = fx.write();
    let b = keys::create(&store, now, "beta", Role::Admin, Some(7)).unwrap();
    let Err(e) = keys::create(&store, now, "alpha", Role::Writer, None) else {
        panic!("{:?}: a second alpha", fx.kind);
    };
    assert!(e.has_code(21006), "{e:?}");
    drop(store);
    let created = stamp();
    assert_eq!(created, stamp(), "{:?}: a stamp without a change", fx.kind);
    if fx.kind == Kind::Json {
        assert!(created.is_some() && created != empty);
    }
    let ha = keys::hash(a.secret.as_bytes());
    let r = fx.read();
    assert!(r.has_api_keys().unwrap());
    let got = r.api_key(&ha).unwrap().expect("alpha by its hash");
    assert_eq!((got.name.as_str(), got.role), ("alpha", Role::Reader));
    assert_eq!(got.created, "2026-01-02T03:04:05.000000");
    assert!(r.api_key(&keys::hash(b"pk_nope")).unwrap().is_none());
    let listed = r.api_keys().unwrap();
    let names: Vec<&str> = listed.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta"]);
    assert_eq!(listed[1].hash, keys::hash(b.secret.as_bytes()));
    assert_eq!(
        listed[1].expires.as_deref(),
        Some("2026-01-09T03:04:05.000000")
    );
    drop(r);
    let later = "2026-01-02T03:05:00.000000".to_string();
    let store = fx.write();
    keys::record_use(
        &store,
        &[(ha.clone(), later.clone()), ("0".repeat(64), later.clone())],
    )
    .unwrap();
    drop(store);
    let store = fx.write();
    keys::record_use(&store, &[(ha.clone(), "2026-01-02T03:04:59.000000".into())]).unwrap();
    drop(store);
    let got = fx.read().api_key(&ha).unwrap().unwrap();
    assert_eq!(
        got.last_used.as_deref(),
        Some(later.as_str()),
        "{:?}",
        fx.kind
    );
    assert_eq!(fx.read().api_keys().unwrap().len(), 2);
    assert_eq!(created, stamp(), "{:?}: last use leaves the stamp", fx.kind);
    let store = fx.write();
    let revoked = keys::revoke(&store, "2026-01-02T04:00:00.000000", "alpha").unwrap();
    drop(store);
    assert!(revoked.revoked.is_some());
    let got = fx.read().api_key(&ha).unwrap().unwrap();
    assert_eq!(got.revoked.as_deref(), Some("2026-01-02T04:00:00.000000"));
    assert_eq!(got.last_used.as_deref(), Some(later.as_str()));
    assert!(got.refusal("2026-01-02T05:00:00.000000").is_some());
    if fx.kind == Kind::Json {
        assert_ne!(created, stamp());
    }
    // The backend itself refuses a second key of a name.
    let store = fx.write();
    let mut dup = got.clone();
    dup.hash = keys::hash(b"another secret");
    dup.revoked = None;
    let mut tx = store.begin_without_events();
    let e = tx
        .put_api_key(&dup)
        .and_then(|()| tx.commit())
        .expect_err("refused");
    assert!(e.has_code(21006), "{:?}: {e:?}", fx.kind);
    drop(store);
    assert_eq!(fx.read().api_keys().unwrap().len(), 2);
    fx.clean("api keys");
}

/// Webhooks (issue 36): created through the endpoint table, listed oldest
/// first with their secrets masked, their outbox and delivery attempts
/// committed and read back; a transaction dropped writes nothing; a
/// delete removes the webhook and its outbox, its attempts stay.
fn webhooks(fx: &Fx) {
    use payctl::core::webhooks::{Delivery, Outbox};
    let create = |url: &str| {
        let e = fx.call(
            Request::new(Op::WebhookCreate)
                .body(json!({"url": url, "events": ["customer_profile.*"]})),
        );
        let w = &e["data"][0];
        assert!(
            w["secret"].as_str().is_some_and(|s| s.len() == 70),
            "{:?}: {e}",
            fx.kind
        );
        w["webhook_id"].as_str().unwrap().to_string()
    };
    let a = create("http://127.0.0.1:9/a");
    let b = create("https://user:pw@example.com/b");
    let r = fx.read();
    let all = r.webhooks().unwrap();
    let mut ids: Vec<&str> = all.iter().map(|w| w.webhook_id.as_str()).collect();
    ids.sort();
    let mut want = vec![a.as_str(), b.as_str()];
    want.sort();
    assert_eq!(ids, want, "{:?}", fx.kind);
    assert_eq!(
        r.outbox(&a).unwrap().cursor + 2,
        r.events_last().unwrap(),
        "{:?}",
        fx.kind
    );
    drop(r);
    // (One fixed time for both here: listed by id then.)
    let listed = fx.call(Request::new(Op::WebhookList));
    let shown = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["webhook_id"] == b.as_str())
        .expect("b listed")
        .clone();
    assert_eq!(
        shown["url"], "https://user:****@example.com/b",
        "{:?}",
        fx.kind
    );
    assert!(shown["secret"].as_str().unwrap().starts_with("whsec_…"));
    let d = Delivery {
        delivery_id: "whd_1".into(),
        webhook_id: a.clone(),
        event_id: "evt_1".into(),
        event_type: "webhook.created".into(),
        attempt: 1,
        created_datetime: fx.ctx.now.clone(),
        status_code: Some(500),
        error: Some("answered 500".into()),
        duration_ms: 3,
        outcome: "retrying".into(),
        next_retry: None,
        resend: false,
    };
    let store = fx.write();
    let mut tx = store.begin_without_events();
    tx.put_outbox(
        &a,
        &Outbox {
            cursor: 7,
            ..Outbox::default()
        },
    );
    tx.add_delivery(&d);
    drop(tx);
    drop(store);
    assert!(
        fx.read().deliveries(&a).unwrap().is_empty(),
        "{:?}: a dropped tx",
        fx.kind
    );
    let store = fx.write();
    let mut tx = store.begin_without_events();
    tx.put_outbox(
        &a,
        &Outbox {
            cursor: 7,
            resend: vec!["evt_9".into()],
            retry: None,
        },
    );
    tx.add_delivery(&d);
    tx.add_delivery(&Delivery {
        attempt: 2,
        ..d.clone()
    });
    tx.commit().unwrap();
    drop(store);
    let r = fx.read();
    assert_eq!(r.outbox(&a).unwrap().cursor, 7);
    assert_eq!(r.outbox(&a).unwrap().resend, ["evt_9"]);
    let got = r.deliveries(&a).unwrap();
    assert_eq!(
        got.iter().map(|d| d.attempt).collect::<Vec<_>>(),
        [1, 2],
        "{:?}",
        fx.kind
    );
    assert!(r.deliveries(&b).unwrap().is_empty());
    drop(r);
    fx.clean("webhooks");
    let e = fx.call(Request::new(Op::WebhookDelete).at([a.as_str()]));
    assert_eq!(e["data"][0]["id"], a.as_str(), "{:?}: {e}", fx.kind);
    let r = fx.read();
    assert!(r.webhook(&a).unwrap().is_none());
    assert_eq!(r.webhooks().unwrap().len(), 1);
    assert_eq!(r.outbox(&a).unwrap(), Outbox::default());
    assert_eq!(
        r.deliveries(&a).unwrap().len(),
        2,
        "{:?}: attempts stay",
        fx.kind
    );
    assert!(r.webhook("../x").unwrap().is_none());
    drop(r);
    fx.clean("webhook deleted");
}

/// The event log: every change in its commit, a gapless sequence, a chain
/// that verifies, each record's history in order, nothing for a refusal;
/// concurrent writers never break the chain.
fn events(fx: &Fx) {
    let types = |store: &Store| -> Vec<String> {
        store
            .events(1, u64::MAX)
            .unwrap()
            .into_iter()
            .map(|e| e.event_type)
            .collect()
    };
    assert_eq!(fx.read().events_last().unwrap(), 0);
    let csp = fx.profile("ev-aaa", "Ada", "Lovelace", "ada@example.com");
    let prm = fx.program();
    fx.attach(&prm, &csp);
    fx.worker();
    let trn = fx.txn(&prm, &csp);
    fx.worker();
    let all = types(&fx.read());
    assert_eq!(
        all,
        [
            "customer_profile.created",
            "attachment.requested",
            "attachment.attached",
            "transaction.created",
            "transaction_step.created",
            "transaction_step.failed",
            "transaction.failed",
        ],
        "{:?}",
        fx.kind
    );
    let store = fx.read();
    let evs = store.events(1, u64::MAX).unwrap();
    for (i, e) in evs.iter().enumerate() {
        assert_eq!(e.sequence, i as u64 + 1, "{:?}", fx.kind);
        assert_eq!(
            payctl::store::events::sequence_of(&e.event_id),
            Some(e.sequence)
        );
    }
    assert_eq!(evs[0].record_id, csp);
    assert_eq!(evs[0].actor, "conformance");
    assert_eq!(evs[2].actor, "SYSTEM");
    // The data is the record as a GET shows it: masked.
    let data: Value = serde_json::from_str(evs[0].data.get()).unwrap();
    let get = fx.call(Request::new(Op::ProfileGet).at([csp.as_str()]));
    assert_eq!(
        data["customer_profile_individual"]["ssn"],
        get["data"][0]["customer_profile_individual"]["ssn"]
    );
    assert_eq!(
        data["customer_profile_individual"]["ssn"]
            .as_str()
            .unwrap()
            .len(),
        4
    );
    // A record's history, oldest first; one event by its id.
    let history: Vec<String> = store
        .record_events(&trn)
        .unwrap()
        .into_iter()
        .map(|e| e.event_type)
        .collect();
    assert_eq!(history, ["transaction.created", "transaction.failed"]);
    let got = fx.call(Request::new(Op::EventGet).at([evs[3].event_id.as_str()]));
    assert_eq!(got["data"][0]["event_type"], "transaction.created");
    drop(store);
    // A refused request records nothing.
    let dup = fx.call(Request::new(Op::ProfileCreate).body(common::profile_body("ev-aaa")));
    assert!(!dup["errors"].is_null());
    assert_eq!(fx.read().events_last().unwrap(), 7);
    // Concurrent writers: one gapless chain.
    fx.race(8, |i| {
        Request::new(Op::ProfileCreate).body(common::profile_body(&format!("ev-race-{i}")))
    });
    let store = fx.read();
    assert_eq!(store.events_last().unwrap(), 15);
    let lines = store.event_lines(1, 15).unwrap();
    let mut prev = payctl::store::events::GENESIS.to_string();
    for (i, l) in lines.iter().enumerate() {
        prev = payctl::store::events::verify(l, i as u64 + 1, &prev)
            .unwrap_or_else(|e| panic!("{:?}: event {}: {e}", fx.kind, i + 1))
            .hash;
    }
    drop(store);
    fx.clean("events");
}

/// Issue 37's storage (`store::sim`): rules kept in the order added and
/// removed by id; read counts that concurrent readers never lose.
fn sim_rules_and_polls(fx: &Fx) {
    let add = |when: &str| -> String {
        let e = fx.call(
            Request::new(Op::RuleAdd).body(json!({"on": "attach", "when": when, "after": 5})),
        );
        e["data"][0]["rule_id"]
            .as_str()
            .unwrap_or_else(|| panic!("{:?}: {e}", fx.kind))
            .to_string()
    };
    let (a, b) = (add("customer_key=first"), add("customer_key~^second"));
    let ids = |fx: &Fx| -> Vec<String> {
        fx.read()
            .sim()
            .rules()
            .unwrap()
            .iter()
            .map(|r| r.rule_id.clone())
            .collect()
    };
    assert_eq!(ids(fx), [a.clone(), b.clone()], "{:?}", fx.kind);
    assert!(fx.write().sim().delete_rule(&a).unwrap());
    assert!(!fx.write().sim().delete_rule(&a).unwrap());
    assert_eq!(ids(fx), [b], "{:?}", fx.kind);
    let key = "att.csp_abc123.prm_def456";
    assert_eq!(fx.read().sim().polls(key).unwrap(), 0);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..5 {
                    fx.read().sim().poll(key).unwrap();
                }
            });
        }
    });
    assert_eq!(fx.read().sim().polls(key).unwrap(), 20, "{:?}", fx.kind);
    assert_eq!(fx.read().sim().polls("trs_other1").unwrap(), 0);
    fx.clean("rules and read counts");
}

/// Snapshots: saved, listed, restored (the records and the read counts,
/// never the rules), deleted; a reset removes every record and keeps the
/// rules and the snapshots.
fn snapshots_and_reset(fx: &Fx) {
    let prm = fx.program();
    let csp = fx.profile("snapshot-1", "Ada", "Lovelace", "ada@example.com");
    fx.attach(&prm, &csp);
    fx.worker();
    let trn = fx.txn(&prm, &csp);
    let key = "trs_polled1";
    fx.read().sim().poll(key).unwrap();
    let saved = fx
        .write()
        .sim()
        .save_snapshot("base", "conformance", &fx.ctx.now)
        .unwrap();
    assert_eq!(
        (saved.customer_profiles, saved.transactions),
        (1, 1),
        "{:?}",
        fx.kind
    );
    fx.clean("a save");
    let later = fx.profile("snapshot-2", "Grace", "Hopper", "grace@example.com");
    fx.read().sim().poll(key).unwrap();
    fx.call(Request::new(Op::RuleAdd).body(json!({"on": "step", "after_polls": 2})));
    let names: Vec<String> = fx
        .read()
        .sim()
        .snapshots()
        .unwrap()
        .iter()
        .map(|s| s.snapshot_name.clone())
        .collect();
    assert_eq!(names, ["base"]);
    assert!(fx.write().sim().restore_snapshot("none").unwrap().is_none());
    let back = fx.write().sim().restore_snapshot("base").unwrap();
    assert_eq!(back.map(|s| s.snapshot_name), Some("base".to_string()));
    let store = fx.read();
    assert_eq!(profile_count(&store), 1, "{:?}", fx.kind);
    assert!(store.customer(&later).unwrap().is_none());
    assert!(store.customer(&csp).unwrap().is_some());
    assert!(store.txn(&trn).unwrap().is_some());
    assert_eq!(store.queue().unwrap().len(), 1, "the transaction is queued");
    assert_eq!(store.sim().polls(key).unwrap(), 1, "the count as saved");
    assert_eq!(store.sim().rules().unwrap().len(), 1, "rules are kept");
    drop(store);
    fx.clean("a restore");
    let removed = fx.write().sim().reset().unwrap();
    assert_eq!((removed.customer_profiles, removed.transactions), (1, 1));
    let store = fx.read();
    assert_eq!(profile_count(&store), 0);
    assert!(txn_ids(&store).is_empty());
    assert!(store.queue().unwrap().is_empty());
    assert!(store.key_owner("snapshot-1").unwrap().is_none());
    assert_eq!(store.sim().polls(key).unwrap(), 0);
    assert_eq!(store.sim().rules().unwrap().len(), 1);
    assert_eq!(store.sim().snapshots().unwrap().len(), 1);
    drop(store);
    fx.clean("a reset");
    // The key is free again; the snapshot brings everything back.
    fx.profile("snapshot-1", "Ada", "Lovelace", "ada@example.com");
    fx.write().sim().restore_snapshot("base").unwrap();
    assert!(fx.read().customer(&csp).unwrap().is_some());
    fx.clean("a restore after a reset");
    assert!(fx.write().sim().delete_snapshot("base").unwrap());
    assert!(!fx.write().sim().delete_snapshot("base").unwrap());
    assert!(fx.read().sim().snapshots().unwrap().is_empty());
}

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod memory {
            $(#[test]
            fn $case() {
                super::$case(&super::Fx::memory());
            })*
        }
        mod json_directory {
            $(#[test]
            fn $case() {
                super::$case(&super::Fx::json());
            })*
        }
        mod postgresql {
            $(#[test]
            #[ignore = "needs PostgreSQL"]
            fn $case() {
                let Some(fx) = super::Fx::pg(concat!("conformance::", stringify!($case))) else {
                    return;
                };
                super::$case(&fx);
            })*
        }
    };
}

conformance!(
    put_and_read,
    key_owner,
    profiles_in_order,
    txns_programs_and_queue,
    idempotency,
    idempotency_races,
    atomic_commit,
    invariants_before_commit,
    txn_filters,
    serialized_then_put,
    api_keys,
    webhooks,
    events,
    sim_rules_and_polls,
    snapshots_and_reset,
);
