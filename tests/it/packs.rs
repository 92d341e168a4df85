//! Packed customer records (src/store/packs.rs): an import of at least 256
//! lines writes each chunk's profiles into one pack, `packs/<n>.jsonl`, and
//! locates them in their shards' `customers/<xx>/packed.log`. Everything
//! that reads a customer must find them there, an update must move a
//! profile to its own file, and a damaged or linked pack must be named,
//! never followed and never repaired away.

use crate::common;

use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use common::{Env, findings, ok, profile_lines};
use serde_json::{Value, json};

/// A store with `n` profiles imported (keys `pk-000000` …): the created
/// `(id, key)` in file order.
fn imported(n: usize) -> (Env, Vec<(String, String)>) {
    let env = Env::new();
    let lines = profile_lines("pk", n);
    let o = ok(env.run_with(&["profile", "import", "-"], Some(lines.as_bytes())));
    let created: Vec<(String, String)> = o
        .data()
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap().to_string(),
                c["customer_key"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(created.len(), n, "{o:?}");
    (env, created)
}

fn pack(env: &Env, n: u64) -> PathBuf {
    env.path().join("packs").join(format!("{n}.jsonl"))
}

fn logs(env: &Env) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for shard in fs::read_dir(env.path().join("customers")).unwrap() {
        let log = shard.unwrap().path().join("packed.log");
        if log.exists() {
            out.push(log);
        }
    }
    out
}

/// How many profiles `profile list --email` finds.
fn with_email(env: &Env, email: &str) -> u64 {
    let o = ok(env.run(&["profile", "list", "--email", email, "--page-size", "1000"]));
    o.json["paging"]["total_count"].as_u64().unwrap()
}

fn mode(p: &PathBuf) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn an_import_of_many_lines_packs_its_profiles_and_every_read_finds_them() {
    let (env, created) = imported(600);
    // One pack, no file of their own, every log line naming one of them.
    assert!(pack(&env, 1).exists());
    assert!(!pack(&env, 2).exists());
    assert_eq!(mode(&pack(&env, 1)), 0o600);
    assert_eq!(mode(&env.path().join("packs")), 0o700);
    for (id, _) in &created {
        assert!(!env.customer_file(id).exists(), "{id} has a file");
    }
    let mut named = BTreeSet::new();
    for log in logs(&env) {
        assert_eq!(mode(&log), 0o600);
        for line in fs::read_to_string(&log).unwrap().lines() {
            let f: Vec<&str> = line.split(' ').collect();
            assert_eq!(f.len(), 4, "{line}");
            assert_eq!(f[1], "1", "{line}");
            named.insert(f[0].to_string());
        }
    }
    let ids: BTreeSet<String> = created.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(named, ids);
    // The pack holds each record as its own file would: sensitive values
    // are stored as a record stores them, and never shown unmasked.
    let text = fs::read_to_string(pack(&env, 1)).unwrap();
    assert_eq!(text.lines().count(), 600);

    // Each reads back whole, by id.
    for (i, (id, key)) in created.iter().enumerate().step_by(37) {
        let o = ok(env.run(&["profile", "get", id]));
        let p = &o.data()[0];
        assert_eq!(p["customer_profile_id"], json!(id), "{i}");
        assert_eq!(p["customer_key"], json!(key), "{i}");
        assert_eq!(p["customer_profile_individual"]["last_name"], "Lovelace");
        assert!(!o.stdout.contains("123456789"), "ssn unmasked: {o:?}");
    }
    // Lists in file order, page after page, and the exact filters.
    let mut listed = Vec::new();
    let mut page = 1;
    loop {
        let o = ok(env.run(&[
            "profile",
            "list",
            "--page-size",
            "250",
            "--page-number",
            &page.to_string(),
        ]));
        if o.data().is_empty() {
            break;
        }
        listed.extend(
            o.data()
                .iter()
                .map(|p| p["customer_profile_id"].as_str().unwrap().to_string()),
        );
        page += 1;
    }
    let in_order: Vec<String> = created.iter().map(|(id, _)| id.clone()).collect();
    assert_eq!(listed, in_order);
    let o = ok(env.run(&["profile", "list", "--customer-key", "pk-000321"]));
    assert_eq!(o.data().len(), 1);
    assert_eq!(o.data()[0]["customer_profile_id"], json!(created[321].0));
    assert_eq!(with_email(&env, "ada@example.com"), 600);
    // A key held by a packed profile is taken.
    env.body(&["profile", "create"], &common::profile_body("pk-000005"))
        .refused(1, 21002);
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["customers"], 600, "{o:?}");
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
    // A second import is a second pack.
    let more = profile_lines("pl", 300);
    ok(env.run_with(&["profile", "import", "-"], Some(more.as_bytes())));
    assert!(pack(&env, 2).exists());
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["customers"], 900, "{o:?}");
}

#[test]
fn a_small_import_writes_a_file_per_profile() {
    let (env, created) = imported(20);
    assert!(!pack(&env, 1).exists());
    assert!(logs(&env).is_empty());
    for (id, _) in &created {
        assert!(env.customer_file(id).exists(), "{id}");
    }
}

#[test]
fn an_update_of_a_packed_profile_writes_its_own_file_and_leaves_the_pack() {
    let (env, created) = imported(300);
    let before = fs::read(pack(&env, 1)).unwrap();
    let (id, _) = &created[7];
    ok(env.body(
        &["profile", "update", id],
        &json!({"customer_profile_individual": {"email": "moved@example.com"}}),
    ));
    assert!(env.customer_file(id).exists());
    assert_eq!(
        fs::read(pack(&env, 1)).unwrap(),
        before,
        "a pack is never changed"
    );
    let o = ok(env.run(&["profile", "get", id]));
    assert_eq!(
        o.data()[0]["customer_profile_individual"]["email"],
        "moved@example.com"
    );
    let o = ok(env.run(&["profile", "list", "--email", "moved@example.com"]));
    assert_eq!(o.data().len(), 1);
    assert_eq!(with_email(&env, "ada@example.com"), 299);
    // An address of another packed profile: a change of its record too.
    let (other, _) = &created[200];
    ok(env.body(&["address", "create", other], &common::address_body(true)));
    assert!(env.customer_file(other).exists());
    let o = ok(env.run(&["address", "list", other]));
    assert_eq!(o.data().len(), 1, "{o:?}");
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["customers"], 300, "{o:?}");
    // The rebuild reads both kinds: the answers stay the same.
    fs::remove_file(env.path().join("index/profiles.ids")).unwrap();
    fs::remove_dir_all(env.path().join("index/keys")).unwrap();
    ok(env.store_check(true));
    let o = ok(env.store_check(false));
    assert_eq!(o.data()[0]["status"], "clean", "{o:?}");
    let o = ok(env.run(&["profile", "list", "--email", "moved@example.com"]));
    assert_eq!(o.data()[0]["customer_profile_id"], json!(id));
    let all = env.all_profiles();
    let order: Vec<&str> = all
        .iter()
        .map(|p| p["customer_profile_id"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = created.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(order, want);
    env.body(&["profile", "create"], &common::profile_body("pk-000299"))
        .refused(1, 21002);
}

/// The id of a created profile whose entry starts at or past `offset` of
/// pack 1.
fn entry_past(env: &Env, offset: u64) -> String {
    for log in logs(env) {
        for line in fs::read_to_string(&log).unwrap().lines() {
            let f: Vec<&str> = line.split(' ').collect();
            if f[2].parse::<u64>().unwrap() >= offset {
                return f[0].to_string();
            }
        }
    }
    panic!("no entry past {offset}");
}

#[test]
fn a_cut_pack_is_named_by_reads_and_check_and_never_repaired_away() {
    let (env, created) = imported(300);
    let p = pack(&env, 1);
    let len = fs::metadata(&p).unwrap().len();
    let lost = entry_past(&env, len / 2);
    let key = created
        .iter()
        .find(|(id, _)| *id == lost)
        .unwrap()
        .1
        .clone();
    let f = fs::OpenOptions::new().write(true).open(&p).unwrap();
    f.set_len(len / 2).unwrap();
    drop(f);
    let o = env.run(&["profile", "get", &lost]);
    o.refused(3, 30002).mentions("packs/1.jsonl");
    let before = env.snapshot();
    let o = env.store_check(false);
    let found = findings(&o);
    assert!(
        found
            .iter()
            .any(|f| f.contains("packed record of") && f.contains(&lost)
                || f.contains("more packed records cannot be read")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.contains("packs/1.jsonl")),
        "{found:?}"
    );
    // The repair rebuilds nothing from a store whose records it cannot all
    // read: the lost profile's key stays taken, the pack as it is.
    let o = env.store_check(true);
    assert_eq!(o.code, 3, "{o:?}");
    let after: Vec<_> = env
        .snapshot()
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().contains("payctl.lock"))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().contains("payctl.lock"))
        .collect();
    assert_eq!(
        after, before,
        "the repair changed a store it could not read"
    );
    // Its key is never taken again: the holder cannot be read, so the
    // create is refused as the store's fault, not granted.
    env.body(&["profile", "create"], &common::profile_body(&key))
        .refused(3, 30002)
        .mentions("packs/1.jsonl");
}

#[test]
fn a_link_in_place_of_a_pack_is_never_followed() {
    let (env, created) = imported(300);
    let p = pack(&env, 1);
    let outside = env.dir.path().join("outside.jsonl");
    fs::rename(&p, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &p).unwrap();
    let bytes = fs::read(&outside).unwrap();
    let o = env.run(&["profile", "get", &created[3].0]);
    o.refused(3, 30002).mentions("symbolic link");
    let body = json!({"customer_profile_individual": {"email": "x@example.com"}});
    env.body(&["profile", "update", &created[3].0], &body)
        .refused(3, 30002);
    let o = env.store_check(false);
    let found = findings(&o);
    assert!(
        found
            .iter()
            .any(|f| f.contains("packs/1.jsonl: is a symbolic link")),
        "{found:?}"
    );
    env.store_check(true);
    assert_eq!(
        fs::read(&outside).unwrap(),
        bytes,
        "the outside file changed"
    );
    assert!(fs::symlink_metadata(&p).unwrap().file_type().is_symlink());
}

#[test]
fn damaged_logs_and_strays_in_packs_are_named() {
    let (env, created) = imported(300);
    let log = logs(&env).remove(0);
    let text = fs::read_to_string(&log).unwrap();
    let first = text.lines().next().unwrap().to_string();
    let id = first.split(' ').next().unwrap().to_string();
    // A malformed line, a line naming an entry of another customer.
    let mut bad = text.clone();
    bad.push_str("not a line\n");
    fs::write(&log, &bad).unwrap();
    let found = findings(&env.store_check(false));
    assert!(
        found.iter().any(|f| f.contains("packed.log: line")
            && f.contains("is not `<id> <pack> <offset> <length>`")),
        "{found:?}"
    );
    // Its own line still finds it.
    ok(env.run(&["profile", "get", &id]));
    fs::write(&log, &text).unwrap();
    ok(env.store_check(false));
    // The same customer packed twice.
    fs::write(&log, format!("{text}{first}\n")).unwrap();
    let found = findings(&env.store_check(false));
    assert!(
        found
            .iter()
            .any(|f| f.contains(&format!("names {id} again"))),
        "{found:?}"
    );
    fs::write(&log, &text).unwrap();
    // A line pointing at another customer's entry.
    let other = &created.iter().find(|(c, _)| *c != id).unwrap().0;
    let other_line = logs(&env)
        .iter()
        .flat_map(|l| {
            fs::read_to_string(l)
                .unwrap()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .find(|l| l.starts_with(other.as_str()))
        .unwrap();
    let place = other_line.split_once(' ').unwrap().1;
    fs::write(&log, text.replacen(&first, &format!("{id} {place}"), 1)).unwrap();
    env.run(&["profile", "get", &id])
        .refused(3, 30002)
        .mentions("holds another customer");
    let found = findings(&env.store_check(false));
    assert!(
        found.iter().any(|f| f.contains("holds another customer")),
        "{found:?}"
    );
    // Named by its log's line and the id that line names.
    assert!(
        found.iter().any(|f| f.contains(&format!(
            "packed.log: line 1: the packed record of {id} cannot be read"
        ))),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.contains("packs/1.jsonl")),
        "overlapping entries not named: {found:?}"
    );
    fs::write(&log, &text).unwrap();
    ok(env.store_check(false));
    // A file in packs/ that is not a pack.
    fs::write(env.path().join("packs/notes.txt"), "x").unwrap();
    let found = findings(&env.store_check(false));
    assert!(
        found
            .iter()
            .any(|f| f.contains("packs/notes.txt: is not a pack")),
        "{found:?}"
    );
}

/// `store check` tiles each pack with the entries its logs name: a pack
/// that no log names, one they name that is missing, and one longer than
/// its entries are each named, and the store is clean again once each is
/// put back.
#[test]
fn a_pack_that_the_logs_do_not_tile_exactly_is_named() {
    let (env, created) = imported(300);
    let one = pack(&env, 1);
    let bytes = fs::read(&one).unwrap();
    let has = |found: &[String], path: &str, what: &str| {
        assert!(
            found.iter().any(|f| f.contains(path) && f.contains(what)),
            "{path}: {what}: {found:?}"
        );
    };
    // A second pack that no log names (a copy of the first).
    let two = pack(&env, 2);
    fs::write(&two, &bytes).unwrap();
    fs::set_permissions(&two, fs::Permissions::from_mode(0o600)).unwrap();
    let found = findings(&env.store_check(false));
    has(
        &found,
        "packs/2.jsonl",
        "no log of packed records names any of its entries",
    );
    fs::remove_file(&two).unwrap();
    ok(env.store_check(false));
    // Bytes after the last entry.
    let mut longer = bytes.clone();
    longer.extend_from_slice(b"{}\n");
    fs::write(&one, &longer).unwrap();
    let found = findings(&env.store_check(false));
    // (Sizes of six digits and more are shown by their last four, as any
    // long number is.)
    let last4 = |n: usize| format!("{n}")[format!("{n}").len().saturating_sub(4)..].to_string();
    has(
        &found,
        "packs/1.jsonl",
        &format!(
            "{} bytes, but the entries the logs of packed records name end at …{}",
            last4(longer.len()),
            last4(bytes.len())
        ),
    );
    // Each entry still reads: what is past them is no one's.
    ok(env.run(&["profile", "get", &created[299].0]));
    fs::write(&one, &bytes).unwrap();
    ok(env.store_check(false));
    // The pack gone: named, and a read of one of its profiles refused.
    let away = env.path().join("pack-away");
    fs::rename(&one, &away).unwrap();
    let found = findings(&env.store_check(false));
    has(
        &found,
        "packs/1.jsonl",
        "does not exist, yet a log of packed records names it",
    );
    assert_ne!(env.run(&["profile", "get", &created[0].0]).code, 0);
    fs::rename(&away, &one).unwrap();
    ok(env.store_check(false));
    ok(env.run(&["profile", "get", &created[0].0]));
}

/// A shard's log of packed records is read whole, so one larger than 64 MiB
/// (`packs::LOG_BYTES`, some 1.5 million entries) is refused by its size,
/// unread: a read of a customer of that shard and `store check` name it,
/// and nothing else is refused.
#[test]
fn a_log_of_packed_records_past_its_cap_is_refused_unread() {
    let (env, created) = imported(300);
    let log = logs(&env).remove(0);
    let text = fs::read(&log).unwrap();
    let first = String::from_utf8_lossy(&text)
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let other = created
        .iter()
        .map(|(id, _)| id)
        .find(|id| !String::from_utf8_lossy(&text).contains(id.as_str()))
        .unwrap()
        .clone();
    // Sparse: 64 MiB and one byte, written as a hole.
    fs::OpenOptions::new()
        .write(true)
        .open(&log)
        .unwrap()
        .set_len((64 << 20) + 1)
        .unwrap();
    env.run(&["profile", "get", &first])
        .refused(3, 30002)
        .mentions("above the limit");
    ok(env.run(&["profile", "get", &other]));
    let found = findings(&env.store_check(false));
    assert!(
        found
            .iter()
            .any(|f| f.contains("packed.log: cannot be read") && f.contains("above the limit")),
        "{found:?}"
    );
    fs::write(&log, &text).unwrap();
    ok(env.store_check(false));
    ok(env.run(&["profile", "get", &first]));
}

#[test]
fn a_hostile_id_never_reads_past_its_shard() {
    let (env, _) = imported(300);
    for id in ["csp_00", "csp_zz", "csp_ZZabc", "csp_0", "csp_00 1 0 5"] {
        let o = env.run(&["profile", "get", id]);
        assert_eq!(o.code, 1, "{id}: {o:?}");
        assert!(!o.stderr.contains("panicked"), "{o:?}");
        let _: &Value = &o.json;
    }
}
