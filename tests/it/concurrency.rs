//! Concurrency with real processes: several payctl at once on one store never
//! lose a write, never show a reader half of a change, never break a rule
//! that a single process keeps (one key per customer, one attachment per
//! program, one default address), and several workers never process an item
//! twice. Every test spawns all its children first, then waits for them.

use crate::common;
use common::assert_check_passes as assert_clean;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::sync::atomic::{AtomicBool, Ordering};

use common::{Env, Out, address_body, finish, profile_body, txn_create_args};
use serde_json::{Value, json};

/// A payctl child on `env`'s store, JSON output, `stdin` fed and closed.
fn spawn(env: &Env, args: &[&str], stdin: Option<&[u8]>) -> Child {
    env.spawn(&[&["--lock-timeout", "60"], args].concat(), stdin)
}

fn spawn_body(env: &Env, args: &[&str], body: &Value) -> Child {
    let mut a = args.to_vec();
    a.extend(["--body", "-"]);
    spawn(env, &a, Some(body.to_string().as_bytes()))
}

fn finish_all(children: Vec<Child>) -> Vec<Out> {
    children.into_iter().map(finish).collect()
}

fn no_panic(o: &Out) {
    assert!(!o.stderr.contains("panicked"), "{o:?}");
}

/// Profiles `prefix-0` … created by `n` processes at once; their ids.
fn create_profiles(env: &Env, prefix: &str, n: usize) -> Vec<String> {
    let kids = (0..n)
        .map(|i| {
            spawn_body(
                env,
                &["profile", "create"],
                &profile_body(&format!("{prefix}-{i:04}")),
            )
        })
        .collect();
    finish_all(kids).iter().map(Out::id).collect()
}

fn all_profiles(env: &Env) -> Vec<Value> {
    let o = env.run(&["profile", "list", "--page-size", "1000"]);
    assert_eq!(o.code, 0, "{o:?}");
    o.data().clone()
}

/// 1(a): 4 writers × 10 creates while 4 readers list 10 times each.
#[test]
fn readers_never_see_a_partial_store_and_every_write_lands() {
    readers_never_see_a_partial_store_and_every_write_lands_on(Env::new());
}

/// The same on the PostgreSQL store: the database decides the race.
#[test]
#[ignore = "needs PostgreSQL"]
fn readers_never_see_a_partial_store_and_every_write_lands_on_postgres() {
    if let Some(env) =
        Env::database("readers_never_see_a_partial_store_and_every_write_lands_on_postgres")
    {
        readers_never_see_a_partial_store_and_every_write_lands_on(env);
    }
}

fn readers_never_see_a_partial_store_and_every_write_lands_on(env: Env) {
    env.run(&["init"]);
    let env = &env;
    let writers_done = &AtomicBool::new(false);
    let (writes, reads, checks) = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..4)
            .map(|w| {
                scope.spawn(move || {
                    (0..10)
                        .map(|i| {
                            let body = profile_body(&format!("w{w}-key-{i:03}"));
                            finish(spawn_body(env, &["profile", "create"], &body))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        // Readers list at least 10 times each, and on until the writers are done.
        let readers: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(move || {
                    let mut outs = Vec::new();
                    while outs.len() < 10 || !writers_done.load(Ordering::SeqCst) {
                        let args = ["profile", "list", "--page-size", "1000"];
                        outs.push(finish(spawn(env, &args, None)));
                    }
                    outs
                })
            })
            .collect();
        // And a checker: under the shared lock the store is always consistent.
        let checker = scope.spawn(move || {
            let mut outs = Vec::new();
            while outs.len() < 5 || !writers_done.load(Ordering::SeqCst) {
                outs.push(finish(spawn(env, &["store", "check"], None)));
            }
            outs
        });
        let join = |hs: Vec<std::thread::ScopedJoinHandle<'_, Vec<Out>>>| {
            hs.into_iter()
                .map(|h| h.join().expect("thread"))
                .collect::<Vec<_>>()
        };
        let writes = join(writers);
        writers_done.store(true, Ordering::SeqCst);
        (writes, join(readers), checker.join().expect("checker"))
    });
    for o in &checks {
        assert_eq!(o.code, 0, "store check while writers run: {o:?}");
    }
    let mut ids = BTreeSet::new();
    for o in writes.iter().flatten() {
        no_panic(o);
        assert!(ids.insert(o.id()), "an id was given twice: {o:?}");
    }
    for r in &reads {
        let mut seen = 0;
        for o in r {
            no_panic(o);
            assert_eq!(o.code, 0, "a reader failed: {o:?}");
            assert!(o.json["errors"].is_null(), "{o:?}");
            let data = o.data();
            let total = o.json["paging"]["total_count"]
                .as_u64()
                .expect("total_count") as usize;
            assert_eq!(
                total,
                data.len(),
                "a page of 1000 holds every profile: {o:?}"
            );
            assert!(
                total >= seen,
                "a later list shows fewer profiles ({total} < {seen})"
            );
            seen = total;
            let listed: BTreeSet<&str> = data
                .iter()
                .map(|p| {
                    // Whole records only: the write a reader overlaps is invisible or complete.
                    assert!(
                        p["customer_key"].as_str().is_some_and(|k| k.len() >= 5),
                        "{p}"
                    );
                    assert_eq!(p["customer_profile_individual"]["first_name"], "Ada", "{p}");
                    p["customer_profile_id"].as_str().expect("id")
                })
                .collect();
            assert_eq!(listed.len(), data.len(), "an id listed twice: {o:?}");
        }
    }
    assert_eq!(ids.len(), 40);
    let all = all_profiles(env);
    assert_eq!(all.len(), 40);
    let listed: BTreeSet<String> = all
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, ids, "every create that answered an id is listed");
    let keys: BTreeSet<&str> = all
        .iter()
        .map(|p| p["customer_key"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), 40);
    assert_clean(env);
}

/// 1(b): 8 creates of one customer_key at once, on a store that does not
/// exist yet (so the first-use creation races too).
#[test]
fn one_key_raced_by_eight_processes_is_given_once() {
    one_key_raced_by_eight_processes_is_given_once_on(Env::new());
}

/// The same on the PostgreSQL store: the database decides the race.
#[test]
#[ignore = "needs PostgreSQL"]
fn one_key_raced_by_eight_processes_is_given_once_on_postgres() {
    if let Some(env) = Env::database("one_key_raced_by_eight_processes_is_given_once_on_postgres") {
        one_key_raced_by_eight_processes_is_given_once_on(env);
    }
}

fn one_key_raced_by_eight_processes_is_given_once_on(env: Env) {
    let kids = (0..8)
        .map(|_| spawn_body(&env, &["profile", "create"], &profile_body("raced-key")))
        .collect();
    let outs = finish_all(kids);
    let won: Vec<&Out> = outs.iter().filter(|o| o.code == 0).collect();
    assert_eq!(won.len(), 1, "exactly one create wins: {outs:#?}");
    for o in outs.iter().filter(|o| o.code != 0) {
        no_panic(o);
        o.refused(1, 21002);
    }
    let all = all_profiles(&env);
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["customer_profile_id"], won[0].id().as_str());
    assert_clean(&env);
}

/// 1(c): 8 attaches of one profile to one program at once.
#[test]
fn one_attach_raced_by_eight_processes_is_made_once() {
    one_attach_raced_by_eight_processes_is_made_once_on(Env::new());
}

/// The same on the PostgreSQL store: the database decides the race.
#[test]
#[ignore = "needs PostgreSQL"]
fn one_attach_raced_by_eight_processes_is_made_once_on_postgres() {
    if let Some(env) = Env::database("one_attach_raced_by_eight_processes_is_made_once_on_postgres")
    {
        one_attach_raced_by_eight_processes_is_made_once_on(env);
    }
}

fn one_attach_raced_by_eight_processes_is_made_once_on(env: Env) {
    let prm = env.program_id();
    let csp = env.create_profile("attach-race");
    let kids = (0..8)
        .map(|i| {
            spawn(
                &env,
                &[
                    "program",
                    "attach",
                    &prm,
                    &csp,
                    "--reason",
                    &format!("try {i}"),
                ],
                None,
            )
        })
        .collect();
    let outs = finish_all(kids);
    assert_eq!(outs.iter().filter(|o| o.code == 0).count(), 1, "{outs:#?}");
    for o in &outs {
        no_panic(o);
        if o.code == 0 {
            assert_eq!(o.id(), csp);
        } else {
            o.refused(1, 21001);
        }
    }
    let o = env.run(&["program", "profiles", &prm]);
    assert_eq!(o.data().len(), 1, "{o:?}");
    assert_eq!(o.data()[0]["customer_profile_program_status_id"], 1);
    let o = env.run(&["worker"]);
    assert_eq!(o.json["data"][0]["attachments_processed"], 1, "{o:?}");
    assert_clean(&env);
}

/// 1(d): 8 default addresses created at once on one profile.
#[test]
fn eight_default_addresses_at_once_leave_exactly_one_default() {
    eight_default_addresses_at_once_leave_exactly_one_default_on(Env::new());
}

/// The same on the PostgreSQL store: the database decides the race.
#[test]
#[ignore = "needs PostgreSQL"]
fn eight_default_addresses_at_once_leave_exactly_one_default_on_postgres() {
    if let Some(env) =
        Env::database("eight_default_addresses_at_once_leave_exactly_one_default_on_postgres")
    {
        eight_default_addresses_at_once_leave_exactly_one_default_on(env);
    }
}

fn eight_default_addresses_at_once_leave_exactly_one_default_on(env: Env) {
    let csp = env.create_profile("addr-race");
    let kids = (0..8)
        .map(|_| spawn_body(&env, &["address", "create", &csp], &address_body(true)))
        .collect();
    let created: BTreeSet<String> = finish_all(kids).iter().map(Out::id).collect();
    assert_eq!(created.len(), 8);
    let o = env.run(&["address", "list", &csp]);
    let list = o.data();
    assert_eq!(list.len(), 8, "{o:?}");
    let defaults: Vec<&Value> = list.iter().filter(|a| a["is_default"] == true).collect();
    assert_eq!(defaults.len(), 1, "exactly one default: {list:#?}");
    let listed: BTreeSet<String> = list
        .iter()
        .map(|a| a["address_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, created);
    assert_clean(&env);
}

/// Imports are one commit per chunk: readers running beside two imports see
/// none, one or both of them, never part of one; two imports of the same
/// keys at once create them once.
#[test]
fn concurrent_imports_are_seen_whole_and_never_duplicate_a_key() {
    concurrent_imports_are_seen_whole_and_never_duplicate_a_key_on(Env::new());
}

/// The same on the PostgreSQL store: the database decides the race.
#[test]
#[ignore = "needs PostgreSQL"]
fn concurrent_imports_are_seen_whole_and_never_duplicate_a_key_on_postgres() {
    if let Some(env) =
        Env::database("concurrent_imports_are_seen_whole_and_never_duplicate_a_key_on_postgres")
    {
        concurrent_imports_are_seen_whole_and_never_duplicate_a_key_on(env);
    }
}

fn concurrent_imports_are_seen_whole_and_never_duplicate_a_key_on(env: Env) {
    env.run(&["init"]);
    let jsonl = |prefix: &str| -> Vec<u8> { common::profile_lines(prefix, 50).into_bytes() };
    let (a, b) = (jsonl("imp-a"), jsonl("imp-b"));
    let mut kids = vec![
        spawn(&env, &["profile", "import", "-"], Some(&a)),
        spawn(&env, &["profile", "import", "-"], Some(&b)),
    ];
    for _ in 0..6 {
        kids.push(spawn(
            &env,
            &["profile", "list", "--page-size", "1000"],
            None,
        ));
    }
    let outs = finish_all(kids);
    for o in &outs[..2] {
        assert_eq!(o.code, 0, "{o:?}");
        assert_eq!(o.data().len(), 50, "{o:?}");
    }
    for o in &outs[2..] {
        no_panic(o);
        assert_eq!(o.code, 0, "{o:?}");
        let n = o.data().len();
        assert!(
            [0, 50, 100].contains(&n),
            "a reader saw part of an import: {n}"
        );
    }
    assert_eq!(all_profiles(&env).len(), 100);

    // The same keys twice at once: one import creates them, the other is refused whole.
    let c = jsonl("imp-c");
    let outs = finish_all(vec![
        spawn(&env, &["profile", "import", "-"], Some(&c)),
        spawn(&env, &["profile", "import", "-"], Some(&c)),
    ]);
    assert_eq!(outs.iter().filter(|o| o.code == 0).count(), 1, "{outs:#?}");
    for o in outs.iter().filter(|o| o.code != 0) {
        o.refused(1, 21002);
    }
    assert_eq!(all_profiles(&env).len(), 150);
    assert_clean(&env);
}

fn worker_sum(outs: &[Out], field: &str) -> u64 {
    outs.iter()
        .map(|o| {
            assert_eq!(o.code, 0, "a worker failed: {o:?}");
            o.json["data"][0][field].as_u64().expect(field)
        })
        .sum()
}

/// 1(e): 4 workers at once over 40 pending attachments, then over 20
/// transactions: every item processed exactly once.
#[test]
fn four_workers_at_once_process_each_item_once() {
    four_workers_at_once_process_each_item_once_on(Env::new());
}

/// The same on the PostgreSQL store: the database decides the race.
#[test]
#[ignore = "needs PostgreSQL"]
fn four_workers_at_once_process_each_item_once_on_postgres() {
    if let Some(env) = Env::database("four_workers_at_once_process_each_item_once_on_postgres") {
        four_workers_at_once_process_each_item_once_on(env);
    }
}

fn four_workers_at_once_process_each_item_once_on(env: Env) {
    let prm = env.program_id();
    let ids = create_profiles(&env, "work", 40);
    let kids = ids
        .iter()
        .map(|csp| spawn(&env, &["program", "attach", &prm, csp], None))
        .collect();
    for o in finish_all(kids) {
        assert_eq!(o.code, 0, "{o:?}");
    }
    let outs = finish_all((0..4).map(|_| spawn(&env, &["worker"], None)).collect());
    assert_eq!(worker_sum(&outs, "attachments_processed"), 40, "{outs:#?}");
    let o = env.run(&["program", "profiles", &prm, "--page-size", "1000"]);
    assert_eq!(o.data().len(), 40);
    for a in o.data() {
        assert_eq!(a["customer_profile_program_status_id"], 10, "{a}");
        assert_eq!(a["modified_by"], "SYSTEM", "{a}");
    }

    // Transactions: internal_transfer with its optional step → 2 steps each.
    let kids = (0..20)
        .map(|i| {
            let src = format!("@source_customers={}:{}.25", ids[i], i + 1);
            let dst = format!("@targets={}:{}.25", ids[39 - i], i + 1);
            spawn(
                &env,
                &txn_create_args(
                    &prm,
                    "internal_transfer",
                    &[&src, &dst, "@facilitator=1.00"],
                ),
                None,
            )
        })
        .collect();
    let trns: Vec<String> = finish_all(kids).iter().map(Out::id).collect();
    let outs = finish_all((0..4).map(|_| spawn(&env, &["worker"], None)).collect());
    assert_eq!(worker_sum(&outs, "transactions_processed"), 20, "{outs:#?}");
    assert_eq!(worker_sum(&outs, "steps_created"), 40, "{outs:#?}");
    assert_eq!(worker_sum(&outs, "attachments_processed"), 0);
    let mut step_ids = BTreeSet::new();
    for trn in &trns {
        let o = env.run(&["txn", "steps", trn]);
        let steps = o.data();
        let seqs: BTreeMap<u64, u64> = steps
            .iter()
            .map(|s| {
                (
                    s["sequence"].as_u64().unwrap(),
                    s["transaction_step_status_id"].as_u64().unwrap(),
                )
            })
            .collect();
        assert_eq!(steps.len(), 2, "one step per template step: {o:?}");
        assert_eq!(seqs, BTreeMap::from([(1, 60), (2, 60)]), "{o:?}");
        for s in steps {
            assert!(step_ids.insert(s["transaction_step_id"].as_str().unwrap().to_string()));
        }
        assert_eq!(
            env.run(&["txn", "get", trn]).json["data"][0]["transaction_status_id"],
            60
        );
    }
    // Nothing is left for a fifth worker.
    let o = env.run(&["worker"]);
    assert_eq!(
        o.json["data"][0],
        json!({"attachments_processed": 0, "transactions_processed": 0, "steps_created": 0, "steps_completed": 0, "steps_failed": 0})
    );
    assert_clean(&env);
}

/// 8 processes create one transaction with one `--idempotency-key` and
/// one body: one transaction, and every process answers its id (exit 0);
/// 16 processes with one key and 16 different profile bodies: one profile
/// and 15 refusals (21005).
#[test]
fn one_idempotency_key_raced_by_processes_moves_money_once() {
    one_idempotency_key_raced_by_processes_moves_money_once_on(Env::new());
}

/// The same on the PostgreSQL store.
#[test]
#[ignore = "needs PostgreSQL"]
fn one_idempotency_key_raced_by_processes_moves_money_once_on_postgres() {
    if let Some(env) =
        Env::database("one_idempotency_key_raced_by_processes_moves_money_once_on_postgres")
    {
        one_idempotency_key_raced_by_processes_moves_money_once_on(env);
    }
}

fn one_idempotency_key_raced_by_processes_moves_money_once_on(env: Env) {
    let (prm, csp) = env.attached_profile("idem-race");
    let param = format!("@source_customers={csp}:12.34");
    let mut args = txn_create_args(&prm, "ach_funding", &[&param]);
    args.extend(["--idempotency-key", "pay-once"]);
    let kids = (0..8).map(|_| spawn(&env, &args, None)).collect();
    let outs = finish_all(kids);
    for o in &outs {
        assert_eq!(o.code, 0, "every caller gets the answer: {o:?}");
    }
    let ids: BTreeSet<String> = outs.iter().map(Out::id).collect();
    assert_eq!(ids.len(), 1, "one key, one transaction: {ids:?}");
    let listed = env.run(&["txn", "list", "--page-size", "1000"]);
    assert_eq!(listed.json["paging"]["total_count"], 1, "{listed:?}");

    let kids = (0..16)
        .map(|i| {
            let mut a = vec!["profile", "create", "--idempotency-key", "one-profile"];
            a.extend(["--body", "-"]);
            let body = profile_body(&format!("idem-many-{i:02}"));
            spawn(&env, &a, Some(body.to_string().as_bytes()))
        })
        .collect();
    let outs = finish_all(kids);
    let won: Vec<&Out> = outs.iter().filter(|o| o.code == 0).collect();
    assert_eq!(won.len(), 1, "{outs:#?}");
    for o in outs.iter().filter(|o| o.code != 0) {
        no_panic(o);
        o.refused(1, 21005);
    }
    let made = all_profiles(&env)
        .iter()
        .filter(|p| {
            p["customer_key"]
                .as_str()
                .is_some_and(|k| k.starts_with("idem-many-"))
        })
        .count();
    assert_eq!(made, 1);
    assert_clean(&env);
}

/// `n` concurrent POSTs of `body` to `path` with one `Idempotency-Key`,
/// spread over `servers`: their replies.
fn post_raced(
    servers: &[&common::serve::Server],
    n: usize,
    path: &str,
    body: &Value,
    key: &str,
) -> Vec<common::serve::Reply> {
    let start = std::sync::Barrier::new(n);
    std::thread::scope(|scope| {
        let hs: Vec<_> = (0..n)
            .map(|i| {
                let (s, start) = (servers[i % servers.len()], &start);
                scope.spawn(move || {
                    start.wait();
                    s.send(
                        "POST",
                        path,
                        Some(&body.to_string()),
                        &[("Idempotency-Key", key)],
                    )
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Through `payctl serve`: 8 concurrent `POST /transactions` (and address
/// creates) with one `Idempotency-Key` make one record, and every caller
/// gets 201 with its id; one server on a directory, one and two servers
/// on one database.
#[test]
fn one_idempotency_key_raced_through_the_server_makes_one_record() {
    let env = Env::new();
    let s = common::serve::Server::start(&env, &["--quiet"]);
    idempotency_key_raced_through(&env, &[&s]);
}

#[test]
#[ignore = "needs PostgreSQL"]
fn one_idempotency_key_raced_through_servers_on_postgres_makes_one_record() {
    let Some(env) =
        Env::database("one_idempotency_key_raced_through_servers_on_postgres_makes_one_record")
    else {
        return;
    };
    let a = common::serve::Server::start(&env, &["--quiet"]);
    idempotency_key_raced_through(&env, &[&a]);
    let b = common::serve::Server::start(&env, &["--quiet"]);
    idempotency_key_raced_through(&env, &[&a, &b]);
}

fn idempotency_key_raced_through(env: &Env, servers: &[&common::serve::Server]) {
    let round = env.run(&["txn", "list"]).json["paging"]["total_count"]
        .as_u64()
        .unwrap_or(0);
    let (prm, csp) = env.attached_profile(&format!("idem-serve-{round}"));
    let apps = env.run(&["program", "applications", &prm]);
    let app = apps.data()[0]["application_id"]
        .as_str()
        .unwrap()
        .to_string();
    let templates = env.run(&["template", "list", &app]);
    let trt = templates
        .data()
        .iter()
        .find(|t| t["transaction_template_name"] == "ach_funding")
        .and_then(|t| t["transaction_template_id"].as_str())
        .unwrap()
        .to_string();
    let body = json!({
        "program_id": prm,
        "application_id": app,
        "transaction_template_id": trt,
        "transaction_status_reason": "raced",
        "transaction_tags": [],
        "transaction_parameters": [{
            "transaction_parameter_name": "@source_customers",
            "transaction_parameter_values": [{"customer_profile_id": csp, "amount": 99.99}]
        }]
    });
    let key = format!("txn-once-{round}");
    let replies = post_raced(servers, 8, "/transactions", &body, &key);
    for r in &replies {
        assert_eq!(r.status, 201, "every caller gets the answer: {r:?}");
    }
    let ids: BTreeSet<String> = replies.iter().map(|r| r.id()).collect();
    assert_eq!(ids.len(), 1, "one key, one transaction: {ids:?}");
    let listed = env.run(&["txn", "list", "--page-size", "1000"]);
    assert_eq!(
        listed.json["paging"]["total_count"].as_u64(),
        Some(round + 1),
        "{listed:?}"
    );

    let path = format!("/customer-profiles/{csp}/addresses");
    let key = format!("address-once-{round}");
    let replies = post_raced(servers, 8, &path, &address_body(false), &key);
    for r in &replies {
        assert_eq!(r.status, 201, "{r:?}");
    }
    let ids: BTreeSet<String> = replies.iter().map(|r| r.id()).collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    let addresses = env.run(&["address", "list", &csp]);
    assert_eq!(addresses.data().len(), 1, "one address: {addresses:?}");
    assert_clean(env);
}
