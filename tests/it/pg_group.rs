//! The group commit of `payctl serve` on PostgreSQL (src/store/pg/group.rs):
//! concurrent profile creates committed together in one transaction hold
//! every rule of creates committed one by one: a customer_key raced by many
//! requests has one winner, an idempotency key repeated concurrently makes
//! one profile, every other create lands once, and the event log stays
//! gapless and chained (`store check`).

use crate::common;

use common::Env;
use common::serve::Server;

#[test]
#[ignore = "needs PostgreSQL"]
fn pg_concurrent_creates_through_serve_are_committed_together_and_hold() {
    let Some(env) = Env::database("pg_concurrent_creates_through_serve_commit_together") else {
        return;
    };
    let s = Server::start(&env, &["--quiet"]);
    let (threads, each) = (24, 8);
    let replies: Vec<(usize, common::serve::Reply)> = std::thread::scope(|scope| {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let s = &s;
                scope.spawn(move || {
                    (0..each)
                        .map(|i| {
                            let r = match (t % 6, i) {
                                // One key raced by four threads, at their first create.
                                (0, 0) => {
                                    s.post("/customer-profiles", &common::profile_body("raced"))
                                }
                                // One idempotency key and body sent by four threads at once.
                                (1, 0) => s.send(
                                    "POST",
                                    "/customer-profiles",
                                    Some(&common::profile_body("idem-once").to_string()),
                                    &[("Idempotency-Key", "group-idem-1")],
                                ),
                                _ => s.post(
                                    "/customer-profiles",
                                    &common::profile_body(&format!("grp-{t:02}-{i:02}")),
                                ),
                            };
                            (t % 6 * 100 + i, r)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let raced: Vec<_> = replies
        .iter()
        .filter(|(k, _)| *k == 0)
        .map(|(_, r)| r)
        .collect();
    assert_eq!(raced.len(), threads / 6);
    assert_eq!(
        raced.iter().filter(|r| r.status == 201).count(),
        1,
        "{raced:#?}"
    );
    for r in raced.iter().filter(|r| r.status != 201) {
        r.refused(409, 21002);
    }
    let idem: Vec<_> = replies
        .iter()
        .filter(|(k, _)| *k == 100)
        .map(|(_, r)| r)
        .collect();
    assert_eq!(idem.len(), threads / 6);
    let first = idem[0].id();
    for r in &idem {
        assert_eq!(r.status, 201, "{r:?}");
        assert_eq!(r.id(), first, "{idem:#?}");
    }
    for (k, r) in &replies {
        if *k != 0 && *k != 100 {
            assert_eq!(r.status, 201, "{r:?}");
        }
    }
    // Every other create, the raced key's winner and the idempotent one.
    let expected = threads * each - 2 * (threads / 6) + 2;
    let listed = s.get("/customer-profiles?page_size=1");
    assert_eq!(listed.json["paging"]["total_count"], expected, "{listed:?}");
    drop(s);
    // Committed together: some customers share their transaction (xmin).
    let url = env.db.clone().expect("a database");
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let row = c
        .query_one(
            "SELECT count(*), count(DISTINCT xmin::text) FROM payctl_customers",
            &[],
        )
        .unwrap();
    let (rows, txs): (i64, i64) = (row.get(0), row.get(1));
    assert_eq!(rows as usize, expected);
    assert!(
        txs < rows,
        "no two creates were committed together ({txs} of {rows})"
    );
    // One event per customer, the chain gapless and whole.
    let events: i64 = c
        .query_one("SELECT count(*) FROM payctl_events", &[])
        .unwrap()
        .get(0);
    assert_eq!(events as usize, expected);
    common::assert_check_passes(&env);
}
