//! payctl on a real terminal, driven as a person would: tmux runs it in a
//! detached pane, keys are sent, the screen is read back. Prompts for
//! missing fields (text and choice lists), the confirmation of a delete,
//! Ctrl-C of a watching worker, colour and width of tables.
//!
//! Without tmux these tests print a note and pass (CI installs it: .ci/run).

use crate::common;

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Env, address_body};
use serde_json::Value;

static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// Whether tmux is there: the terminal tests are `#[ignore = "needs
/// tmux"]`, so when they are run (`--include-ignored`, as CI does) a
/// missing tmux fails them.
fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(ok, "tmux is not installed (apt-get install tmux)");
    ok
}

/// One tmux server of our own (its own socket) with one pane running a command.
struct Pane {
    socket: String,
}

impl Pane {
    /// Run `payctl ARGS` on a terminal `width` columns wide; when it ends the
    /// pane shows `EXIT=<code>` and stays open.
    fn payctl(env: &Env, width: u16, vars: &str, args: &str) -> Pane {
        let socket = format!(
            "payctl-test-{}-{}",
            std::process::id(),
            SESSIONS.fetch_add(1, Ordering::SeqCst)
        );
        let bin = assert_cmd::cargo::cargo_bin("payctl");
        let script = format!(
            "env -u PAYCTL_OUTPUT -u PAYCTL_DATA_DIR -u NO_COLOR PAYCTL_ACTOR=tester {vars} '{}' --data-dir '{}' {args}; echo \"EXIT=$?\"; sleep 600",
            bin.display(),
            env.path().display()
        );
        let st = Command::new("tmux")
            .args(["-L", &socket, "-f", "/dev/null", "new-session", "-d"])
            .args(["-x", &width.to_string(), "-y", "50", &script])
            .env_remove("TMUX")
            .status()
            .expect("tmux");
        assert!(st.success(), "tmux new-session failed");
        Pane { socket }
    }

    fn tmux(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux")
    }

    /// Type `keys` (tmux key names such as Enter, Down, C-c, or text).
    fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "0"];
        args.extend(keys);
        assert!(self.tmux(&args).status.success());
    }

    /// Type literal text followed by Enter.
    fn line(&self, text: &str) {
        assert!(
            self.tmux(&["send-keys", "-t", "0", "-l", text])
                .status
                .success()
        );
        self.send(&["Enter"]);
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "0"]).stdout).into_owned()
    }

    /// The screen with its colour escapes.
    fn screen_escaped(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-e", "-t", "0"]).stdout)
            .into_owned()
    }

    /// Wait until the screen shows `text` (at most 20 s); the screen.
    fn wait_for(&self, text: &str) -> String {
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let s = self.screen();
            if s.contains(text) {
                return s;
            }
            assert!(
                Instant::now() < end,
                "the screen never showed {text:?}:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait for the command to end; its exit code.
    fn exit_code(&self) -> i32 {
        let s = self.wait_for("EXIT=");
        let code = s
            .split("EXIT=")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .and_then(|c| c.parse().ok());
        code.unwrap_or_else(|| panic!("no exit code on screen:\n{s}"))
    }
}

impl Drop for Pane {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

fn profile_by_key(env: &Env, key: &str) -> Value {
    let o = env.run(&["profile", "list", "--customer-key", key]);
    assert_eq!(o.code, 0, "{o:?}");
    o.json["data"][0].clone()
}

#[test]
#[ignore = "needs tmux"]
fn profile_create_asks_for_missing_fields_with_a_choice_list() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    env.run(&["init"]);
    let p = Pane::payctl(&env, 200, "", "profile create -o json");
    p.wait_for("customer type");
    // A choice list by name: the second entry is Organization (2).
    p.send(&["Down", "Enter"]);
    p.wait_for("customer_key");
    // An answer that breaks the rule is refused on the spot and asked again.
    p.line("ab");
    p.wait_for("customer_key: must be 5-50 characters long");
    p.line("cust-tty-1");
    p.wait_for("first name");
    p.line("Grace");
    p.wait_for("last name");
    p.line("Hopper");
    p.wait_for("email");
    p.line("not-an-email");
    p.wait_for("is not a valid e-mail address");
    p.line("grace@example.com");
    p.wait_for("date of birth");
    p.line("2020-01-01");
    p.wait_for("age must be");
    p.line("1990-12-09");
    p.wait_for("mobile phone");
    p.line("+15550001111");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let got = profile_by_key(&env, "cust-tty-1");
    assert_eq!(got["customer_type_id"], 2);
    let ind = &got["customer_profile_individual"];
    assert_eq!(ind["first_name"], "Grace");
    assert_eq!(ind["last_name"], "Hopper");
    assert_eq!(ind["email"], "grace@example.com");
    assert_eq!(ind["date_of_birth"], "1990-12-09");
    assert_eq!(ind["mobile_phone"], "+15550001111");
    // The prompts went to stderr; stdout kept the envelope only.
    assert!(p.screen().contains("\"id\": \"csp_"), "{}", p.screen());
}

#[test]
#[ignore = "needs tmux"]
fn a_customer_key_in_use_is_asked_again() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    env.create_profile("cust-taken");
    let p = Pane::payctl(
        &env,
        200,
        "",
        "profile create --customer-type-id Individual --first-name Ada --last-name Byron \
         --email ada@example.com --date-of-birth 1990-12-10 --mobile-phone +15551234567",
    );
    p.wait_for("customer_key");
    p.line("cust-taken");
    p.wait_for("another customer profile already has this key");
    p.line("cust-free");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    assert_eq!(
        profile_by_key(&env, "cust-free")["customer_profile_individual"]["last_name"],
        "Byron"
    );
}

#[test]
#[ignore = "needs tmux"]
fn a_field_given_by_a_flag_is_not_asked_again() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    env.run(&["init"]);
    let before = env.snapshot();
    let p = Pane::payctl(
        &env,
        200,
        "",
        "profile create -o json --customer-type-id 1 --customer-key cust-flag --first-name Ada \
         --last-name Byron --email bad --date-of-birth 1990-12-10 --mobile-phone +15551234567",
    );
    assert_eq!(p.exit_code(), 1, "{}", p.screen());
    assert!(p.screen().contains("10001"), "{}", p.screen());
    assert_eq!(env.snapshot(), before);
    // --no-input on a terminal: nothing is asked.
    let p = Pane::payctl(&env, 200, "", "profile create --no-input -o json");
    assert_eq!(p.exit_code(), 1, "{}", p.screen());
    assert!(p.screen().contains("10002"), "{}", p.screen());
    assert_eq!(env.snapshot(), before);
}

#[test]
#[ignore = "needs tmux"]
fn address_create_asks_the_state_from_a_choice_list() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let csp = env.create_profile("cust-tty-addr");
    let p = Pane::payctl(
        &env,
        200,
        "",
        &format!(
            "address create {csp} --address-type-id Mailing --default true --first-name Ada \
             --last-name Byron --address-line1 '1 Main St' --city Springfield --zip 12345"
        ),
    );
    // Only the missing fields are asked: country, then state.
    p.wait_for("country");
    p.send(&["Enter"]);
    let s = p.wait_for("state");
    assert!(s.contains("AL  Alabama"), "{s}");
    // Alabama, Alaska, American Samoa, Arizona, Arkansas, California.
    p.send(&["Down", "Down", "Down", "Down", "Down", "Enter"]);
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let o = env.run(&["address", "list", &csp]);
    assert_eq!(o.json["data"][0]["state_id"], 6, "{o:?}");
    assert_eq!(o.json["data"][0]["country_id"], 1);
}

#[test]
#[ignore = "needs tmux"]
fn instrument_create_asks_program_numbers_and_tags() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let csp = env.create_profile("cust-tty-pin");
    let prm = env.program_id();
    assert_eq!(env.run(&["program", "attach", &prm, &csp]).code, 0);
    assert_eq!(env.run(&["worker"]).code, 0);
    let p = Pane::payctl(
        &env,
        200,
        "",
        &format!(
            "instrument create {csp} --type-id Funding --payment-method-id ACH \
             --ach-type-id Checking --label Main"
        ),
    );
    let s = p.wait_for("program");
    assert!(s.contains(&prm), "{s}");
    p.send(&["Enter"]);
    p.wait_for("account number");
    p.line("12");
    p.wait_for("4-17 digits");
    p.line("000123456789");
    let s = p.wait_for("routing number");
    // Typed like a password; once entered, only its last 4 digits are shown.
    assert!(
        !s.contains("000123456789"),
        "the account number is echoed:\n{s}"
    );
    assert!(s.contains("…6789"), "{s}");
    p.line("021000021");
    let s = p.wait_for("default instrument");
    assert!(
        !s.contains("021000021"),
        "the routing number is echoed:\n{s}"
    );
    assert!(s.contains("…0021"), "{s}");
    p.send(&["y"]);
    p.wait_for("change reason");
    p.line("Initial setup");
    p.wait_for("tags");
    p.line("novalue");
    p.wait_for("KEY=VALUE");
    p.line("source=terminal");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let o = env.run(&["instrument", "list", &csp]);
    let pin = &o.json["data"][0];
    assert_eq!(pin["program_id"], prm.as_str());
    assert_eq!(pin["is_default"], true);
    assert_eq!(pin["payment_instrument_change_reason"], "Initial setup");
    assert_eq!(pin["payment_instrument_tags"][0]["value"], "terminal");
    assert_eq!(pin["payment_instrument_ach"]["account_number"], "6789");
}

/// In remote mode the prompts offer the service's programs, never the
/// local store's (which is not where the create goes, and is not created).
#[test]
#[ignore = "needs tmux"]
fn remote_prompts_ask_the_service() {
    if !have_tmux() {
        return;
    }
    let served = Env::new();
    let csp = served.create_profile("cust-tty-remote");
    let prm = served.program_id();
    assert_eq!(served.run(&["program", "attach", &prm, &csp]).code, 0);
    assert_eq!(served.run(&["worker"]).code, 0);
    let server = common::serve::Server::start(&served, &["--quiet"]);
    let local = Env::new();
    let p = Pane::payctl(
        &local,
        200,
        &format!("PAYCTL_BASE_URL={}", server.base),
        &format!(
            "instrument create {csp} --type-id Funding --payment-method-id ACH \
             --ach-type-id Checking --label Main --account-number 000123456789 \
             --routing-number 021000021 --change-reason Setup --tag via=remote"
        ),
    );
    let s = p.wait_for("program");
    assert!(s.contains(&prm), "the service's program is offered: {s}");
    p.send(&["Enter"]);
    p.wait_for("default instrument");
    p.send(&["y"]);
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let o = served.run(&["instrument", "list", &csp]);
    assert_eq!(o.json["data"][0]["program_id"], prm.as_str(), "{o:?}");
    assert!(!local.path().exists(), "no local store was created");
}

/// The date of birth is checked on the spot against the Facilitator's age
/// limits of the store the command speaks to: the service's, remotely
/// (a dry run of the create through the endpoint table).
#[test]
#[ignore = "needs tmux"]
fn a_remote_date_of_birth_is_checked_against_the_services_age_limits() {
    if !have_tmux() {
        return;
    }
    let served = Env::new();
    served.run(&["init"]);
    let server = common::serve::Server::start(&served, &["--quiet"]);
    let local = Env::new();
    let p = Pane::payctl(
        &local,
        200,
        &format!("PAYCTL_BASE_URL={}", server.base),
        "profile create -o json --customer-type-id Individual --customer-key cust-tty-age \
         --first-name Ada --last-name Byron --email ada@example.com",
    );
    p.wait_for("date of birth");
    p.line("2020-01-01");
    // On the spot: before the next field is asked (not by the create at
    // the end).
    let s = p.wait_for("age must be");
    assert!(s.contains("18") && !s.contains("mobile phone"), "{s}");
    p.line("1990-12-10");
    p.wait_for("mobile phone");
    p.line("+15551234567");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let got = profile_by_key(&served, "cust-tty-age");
    assert_eq!(
        got["customer_profile_individual"]["date_of_birth"],
        "1990-12-10"
    );
    assert!(!local.path().exists(), "no local store was created");
}

#[test]
#[ignore = "needs tmux"]
fn address_delete_asks_for_confirmation() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let csp = env.create_profile("cust-tty-del");
    env.body(&["address", "create", &csp], &address_body(true))
        .id();
    let keep = env
        .body(&["address", "create", &csp], &address_body(false))
        .id();
    let gone = env
        .body(&["address", "create", &csp], &address_body(false))
        .id();
    let count = || {
        env.run(&["address", "list", &csp]).json["data"]
            .as_array()
            .unwrap()
            .len()
    };

    // n: declined, not a usage error: nothing changes, exit 1.
    let before = env.snapshot();
    let p = Pane::payctl(&env, 200, "", &format!("address delete {csp} {keep}"));
    p.wait_for(&format!("delete address {keep}?"));
    p.send(&["n"]);
    assert_eq!(p.exit_code(), 1, "{}", p.screen());
    assert!(p.screen().contains("not confirmed"), "{}", p.screen());
    assert!(p.screen().contains("error[10006]"), "{}", p.screen());
    assert!(!p.screen().contains("Invalid Usage"), "{}", p.screen());
    assert_eq!(env.snapshot(), before);
    assert_eq!(count(), 3);

    // y: deleted.
    let p = Pane::payctl(&env, 200, "", &format!("address delete {csp} {gone}"));
    p.wait_for(&format!("delete address {gone}?"));
    p.send(&["y"]);
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    assert_eq!(count(), 2);
    let o = env.run(&["address", "get", &csp, &gone]);
    o.refused(1, 20001);
    assert_eq!(env.run(&["address", "get", &csp, &keep]).code, 0);
}

/// Issue 37: a restore, a delete of a snapshot and a reset ask first; a
/// no changes nothing (exit 1); an unknown snapshot is refused before
/// anyone is asked.
#[test]
#[ignore = "needs tmux"]
fn snapshot_restore_and_reset_ask_for_confirmation() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    env.create_profile("cust-tty-snap");
    let o = env.run(&["store", "snapshot", "save", "base"]);
    assert_eq!(o.code, 0, "{o:?}");
    env.create_profile("cust-tty-later");
    let before = env.snapshot();
    for args in [
        "store snapshot restore base",
        "store snapshot delete base",
        "store reset",
    ] {
        let p = Pane::payctl(&env, 200, "", args);
        p.wait_for("?");
        p.send(&["n"]);
        assert_eq!(p.exit_code(), 1, "{args}: {}", p.screen());
        assert!(p.screen().contains("nothing was changed"), "{}", p.screen());
        assert_eq!(env.snapshot(), before, "{args}");
    }
    let p = Pane::payctl(&env, 200, "", "store snapshot restore none");
    assert_eq!(p.exit_code(), 1, "{}", p.screen());
    assert!(p.screen().contains("error[20001]"), "{}", p.screen());
    let p = Pane::payctl(&env, 200, "", "store snapshot restore base");
    p.wait_for("restore the snapshot `base`");
    p.send(&["y"]);
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let o = env.run(&["profile", "list"]);
    assert_eq!(o.json["paging"]["total_count"], 1, "{o:?}");
}

#[test]
#[ignore = "needs tmux"]
fn ctrl_c_stops_a_watching_worker_cleanly() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let prm = env.program_id();
    let p = Pane::payctl(&env, 200, "", "worker --watch --interval 0.1 -o json");
    let csp = env.create_profile("cust-tty-watch");
    assert_eq!(env.run(&["program", "attach", &prm, &csp]).code, 0);
    let end = Instant::now() + Duration::from_secs(20);
    while env.run(&["program", "profile", &prm, &csp]).json["data"][0]["customer_profile_program_status_id"]
        != 10
    {
        assert!(Instant::now() < end, "the watcher never attached");
        std::thread::sleep(Duration::from_millis(50));
    }
    p.send(&["C-c"]);
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    assert!(
        p.screen().contains("\"attachments_processed\": 1"),
        "{}",
        p.screen()
    );
    assert_eq!(env.run(&["store", "check"]).code, 0);
}

#[test]
#[ignore = "needs tmux"]
fn tables_fit_the_terminal_and_colour_it_unless_no_color() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    for i in 0..3 {
        env.create_profile(&format!("cust-tty-table-{i}"));
    }
    let p = Pane::payctl(&env, 80, "", "profile list");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let s = p.screen();
    assert!(s.contains("customer_key"), "{s}");
    assert!(s.contains("3 in all"), "{s}");
    for line in s.lines() {
        assert!(
            line.chars().count() <= 80,
            "wider than the terminal: {line}"
        );
    }
    assert!(
        p.screen_escaped().contains("\x1b["),
        "no colour on a terminal"
    );

    let p = Pane::payctl(&env, 80, "NO_COLOR=1", "profile list");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    assert!(
        !p.screen_escaped().contains("\x1b["),
        "{}",
        p.screen_escaped()
    );
    let p = Pane::payctl(&env, 80, "", "profile list --color never");
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    assert!(!p.screen_escaped().contains("\x1b["));

    // 70 columns: a row stays on one line (a long e-mail is cut or its
    // column left out, never wrapped a character per line); ids stay whole.
    let mut body = common::profile_body("cust-tty-long-mail");
    body["customer_profile_individual"]["email"] =
        serde_json::json!("augusta.ada.king.countess.of.lovelace@analytical-engine.example.com");
    let csp = env.body(&["profile", "create"], &body).id();
    let p = Pane::payctl(
        &env,
        70,
        "",
        "profile list --customer-key cust-tty-long-mail",
    );
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let s = p.screen();
    let rows: Vec<&str> = s.lines().filter(|l| l.contains("│")).collect();
    assert_eq!(
        rows.len(),
        2,
        "the header and one row of one line each:\n{s}"
    );
    assert!(s.contains(&csp), "{s}");
    assert!(s.contains("cust-tty-long-mail"), "{s}");
    for line in s.lines() {
        assert!(
            line.chars().count() <= 70,
            "wider than the terminal: {line}"
        );
    }
    let p = Pane::payctl(
        &env,
        200,
        "",
        "profile list --customer-key cust-tty-long-mail",
    );
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    assert!(
        p.screen()
            .contains("augusta.ada.king.countess.of.lovelace@analytical-engine.example.com"),
        "{}",
        p.screen()
    );
    // --no-headers: the rows only, without borders.
    let p = Pane::payctl(
        &env,
        200,
        "",
        "profile list --customer-key cust-tty-long-mail --no-headers",
    );
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let s = p.screen();
    assert!(
        !s.contains("customer_key") && !s.contains('│') && !s.contains("in all"),
        "{s}"
    );
    assert!(s.contains(&csp), "{s}");
}

/// `profile import` on a terminal: one bar per stage with honest counts
/// (the bytes checked of the file's size, then the profiles written of
/// those to write), each left finished; from stdin, whose size is unknown,
/// the bytes read without a bar that pretends to be full.
#[test]
#[ignore = "needs tmux"]
fn import_shows_one_honest_bar_per_stage() {
    if !have_tmux() {
        return;
    }
    let env = Env::new();
    let file = env.dir.path().join("profiles.jsonl");
    std::fs::write(&file, common::profile_lines("cust-bar", 3000)).unwrap();
    let p = Pane::payctl(
        &env,
        120,
        "",
        &format!("profile import {} -o id > /dev/null", file.display()),
    );
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let s = p.screen();
    let checking: Vec<&str> = s.lines().filter(|l| l.starts_with("checking")).collect();
    let writing: Vec<&str> = s.lines().filter(|l| l.starts_with("writing")).collect();
    assert_eq!(checking.len(), 1, "{s}");
    assert_eq!(writing.len(), 1, "{s}");
    assert!(
        writing[0].contains("3,000/3,000") || writing[0].contains("3000/3000"),
        "{s}"
    );
    assert!(!s.contains(" 0/0"), "{s}");

    let p = Pane::payctl(
        &env,
        120,
        "",
        &format!(
            "profile import - --skip-existing -o id < {} > /dev/null",
            file.display()
        ),
    );
    assert_eq!(p.exit_code(), 0, "{}", p.screen());
    let s = p.screen();
    assert!(
        s.lines()
            .any(|l| l.starts_with("checking") && l.contains("read")),
        "{s}"
    );
    assert!(
        !s.contains(" 0/0") && !s.lines().any(|l| l.starts_with("writing")),
        "{s}"
    );
}
