//! What `payctl serve` keeps across requests (src/api/cache.rs): a
//! profile's answer is served from memory while no writer came, and every
//! write, whether this server or another process made it, is seen by the
//! very next GET.

use crate::common;

use common::serve::Server;
use common::{Env, profile_body};

#[test]
fn a_cli_write_is_seen_by_the_very_next_get() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    let r = s.post("/customer-profiles", &profile_body("cache-001"));
    assert_eq!(r.status, 201, "{r:?}");
    let csp = r.id();
    let path = format!("/customer-profiles/{csp}");
    let first = s.get(&path);
    assert_eq!(first.status, 200, "{first:?}");
    // Kept: the same bytes again.
    let again = s.get(&path);
    assert_eq!(again.text, first.text);
    assert_eq!(again.header("content-type"), Some("application/json"));
    assert_eq!(again.header("cache-control"), Some("no-store"));
    for i in 0..12 {
        let email = format!("cache{i}@example.com");
        let o = env.run(&["profile", "update", &csp, "--email", &email]);
        assert_eq!(o.code, 0, "{o:?}");
        // No pause: the next GET, and the one after, show the update.
        for _ in 0..2 {
            let r = s.get(&path);
            assert_eq!(r.status, 200, "{r:?}");
            assert_eq!(
                r.json["data"][0]["customer_profile_individual"]["email"], email,
                "round {i}: {r:?}"
            );
        }
    }
    // The server's own write, then a CLI read and the server's agree.
    let o = env.run(&["profile", "get", &csp, "-o", "json"]);
    assert_eq!(o.code, 0, "{o:?}");
    let r = s.get(&path);
    assert_eq!(r.json["data"], o.json["data"], "{r:?}");
}

#[test]
fn a_profile_created_or_imported_by_another_process_is_found_at_once() {
    let env = Env::new();
    let s = Server::start(&env, &["--quiet"]);
    // A miss is not kept: the key created next is found by the next GET.
    let by_key = "/customer-profiles?customer_key=cache-002";
    let r = s.get(by_key);
    assert_eq!(r.status, 200, "{r:?}");
    let body = profile_body("cache-002").to_string();
    let o = env.run_with(
        &["profile", "create", "--body", "-", "-o", "json"],
        Some(body.as_bytes()),
    );
    assert_eq!(o.code, 0, "{o:?}");
    let csp = o.json["data"][0]["id"].as_str().expect("id").to_string();
    let path = format!("/customer-profiles/{csp}");
    assert_eq!(s.get(&path).status, 200);
    assert_eq!(s.get(&path).status, 200);
    // Changed by the server itself: seen at once.
    let r = s.send(
        "PUT",
        &path,
        Some(r#"{"customer_profile_individual": {"email": "b@example.com"}}"#),
        &[],
    );
    assert_eq!(r.status, 200, "{r:?}");
    let after = s.get(&path);
    assert_eq!(
        after.json["data"][0]["customer_profile_individual"]["email"], "b@example.com",
        "{after:?}"
    );
    let o = env.run(&["profile", "get", &csp, "-o", "json"]);
    assert_eq!(after.json["data"], o.json["data"]);
}
