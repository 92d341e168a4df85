//! `payctl demo`: the whole lifecycle on a scratch store, printing each command
//! and its output, as a tour. It runs this very binary, as a user would.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Global;
use crate::error::{Error, Result, code};
use crate::output::Response;

// The tour runs on a temporary store, removed at the end, unless --keep or
// --data-dir (then that store is used and kept). It goes to stderr; stdout
// gets one record naming the profile and the transaction made, the
// transaction's status and its steps (`-o json` for scripts).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  payctl demo\n  payctl demo --data-dir /tmp/payctl-tour -o json | jq '.data[0].transaction_steps'"
)]
pub struct DemoArgs {
    /// Keep the scratch store instead of removing it at the end
    #[arg(long)]
    pub keep: bool,
}

struct Tour {
    exe: PathBuf,
    dir: PathBuf,
    ui: crate::output::ui::Ui,
}

impl Tour {
    fn base(&self) -> Command {
        let mut c = Command::new(&self.exe);
        c.arg("--data-dir").arg(&self.dir).arg("--no-input");
        c.env_remove("PAYCTL_OUTPUT");
        // The tour is of a scratch directory: never of a database that
        // PAYCTL_DATABASE_URL names (its records are not the demo's to write).
        c.env_remove("PAYCTL_DATABASE_URL");
        // Nor of a context: `--data-dir` names the store, and the config
        // file is not the tour's to depend on.
        c.env_remove("PAYCTL_CONTEXT");
        c
    }

    /// Run `args`, show the command and its table output.
    fn show(&self, what: &str, args: &[&str]) -> Result<()> {
        self.ui.err_line(format_args!("\n# {what}"));
        self.ui
            .err_line(format_args!("$ payctl {}", shell_words(args)));
        let out = self
            .base()
            .args(args)
            .args(["-o", "table"])
            .output()
            .map_err(|e| Error::usage(format!("demo: cannot run payctl: {e}")))?;
        self.ui.err_text(&String::from_utf8_lossy(&out.stdout));
        self.ui.err_text(&String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            return Err(Error::one(
                code::INVALID_VALUE,
                format!("demo: `payctl {}` failed", args.join(" ")),
            ));
        }
        Ok(())
    }

    /// Run `args` quietly with `-o json`; the envelope's data.
    fn data(&self, args: &[&str]) -> Result<serde_json::Value> {
        let out = self
            .base()
            .args(args)
            .args(["-o", "json"])
            .output()
            .map_err(|e| Error::usage(format!("demo: cannot run payctl: {e}")))?;
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        if !out.status.success() {
            return Err(Error::one(
                code::INVALID_VALUE,
                format!("demo: `payctl {}` failed", args.join(" ")),
            ));
        }
        Ok(v["data"].clone())
    }

    /// Run `args` with `-o id` and return the first id.
    fn id(&self, what: &str, args: &[&str]) -> Result<String> {
        self.ui.err_line(format_args!("\n# {what}"));
        self.ui
            .err_line(format_args!("$ payctl {} -o id", shell_words(args)));
        let out = self
            .base()
            .args(args)
            .args(["-o", "id"])
            .output()
            .map_err(|e| Error::usage(format!("demo: cannot run payctl: {e}")))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        self.ui.err_text(&text);
        self.ui.err_text(&String::from_utf8_lossy(&out.stderr));
        match text.lines().next() {
            Some(id) if out.status.success() => Ok(id.to_string()),
            _ => Err(Error::one(
                code::INVALID_VALUE,
                format!("demo: `payctl {}` failed", args.join(" ")),
            )),
        }
    }
}

fn shell_words(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_.@:/=+".contains(c))
            {
                a.to_string()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn scratch_dir() -> PathBuf {
    let n: u64 = rand::random();
    std::env::temp_dir().join(format!("payctl-demo-{n:016x}"))
}

impl DemoArgs {
    /// The tour goes to stderr (it is a show for people); stdout gets the
    /// summary record, so `payctl demo -o json` stays scriptable.
    pub fn exec(self, g: &Global, explicit_dir: bool) -> Result<Response> {
        let exe = std::env::current_exe().map_err(|e| Error::usage(format!("demo: {e}")))?;
        let dir = if explicit_dir {
            g.data_dir.clone()
        } else {
            scratch_dir()
        };
        let tour = Tour {
            exe,
            dir: dir.clone(),
            ui: g.ui,
        };
        let result = run(&tour);
        let keep = self.keep || explicit_dir;
        if !keep {
            remove_scratch(&dir);
        }
        let (csp, trn, txn, steps) = result?;
        g.ui.err_line(format_args!(
            "\nThat was the whole lifecycle. {}",
            if keep {
                format!("The store is at {}.", dir.display())
            } else {
                "The scratch store was removed (keep it with --keep).".to_string()
            }
        ));
        Ok(Response::Records(
            crate::output::RecordKind::Summary,
            vec![serde_json::json!({
                "customer_profile_id": csp,
                "transaction_id": trn,
                "transaction_status_id": txn["transaction_status_id"],
                "transaction_steps": steps,
                "data_dir": if keep { Some(dir.display().to_string()) } else { None },
            })],
        ))
    }
}

fn remove_scratch(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}

/// What the tour made: the profile, the transaction, its record and its steps.
type Made = (String, String, serde_json::Value, serde_json::Value);

fn run(t: &Tour) -> Result<Made> {
    let key = format!("demo-{:08x}", rand::random::<u32>());
    t.show(
        "Dictionaries hold the values other requests refer to by number",
        &["dict", "list", "address-types"],
    )?;
    let csp = t.id(
        "Create a customer profile",
        &[
            "profile",
            "create",
            "--customer-type-id",
            "1",
            "--customer-key",
            &key,
            "--first-name",
            "Ada",
            "--last-name",
            "Lovelace",
            "--email",
            "ada@example.com",
            "--date-of-birth",
            "1990-12-10",
            "--mobile-phone",
            "+15551234567",
            "--ssn",
            "123456789",
            "--tag",
            "segment=retail",
        ],
    )?;
    t.show(
        "Read it back: the SSN is shown as its last 4 digits",
        &["profile", "get", &csp],
    )?;
    t.show(
        "Give it a default mailing address (dictionary values by id or by name)",
        &[
            "address",
            "create",
            &csp,
            "--address-type-id",
            "Mailing",
            "--default",
            "true",
            "--country-id",
            "US",
            "--state-id",
            "AR",
            "--first-name",
            "Ada",
            "--last-name",
            "Lovelace",
            "--address-line1",
            "1 Main St",
            "--city",
            "Springfield",
            "--zip",
            "12345",
        ],
    )?;
    t.show(
        "The catalog: the Facilitator's programs",
        &["program", "list"],
    )?;
    let prm = t.id("The program's id", &["program", "list"])?;
    t.show(
        "Attach the customer to the program (processed in the background)",
        &["program", "attach", &prm, &csp, "--reason", "New customer"],
    )?;
    t.show(
        "The attachment is Pending (1) until the worker runs",
        &["program", "profile", &prm, &csp],
    )?;
    t.show("The worker does the background work", &["worker"])?;
    t.show(
        "Now it is Attached (10)",
        &["program", "profile", &prm, &csp],
    )?;
    t.show(
        "Add a funding bank account (numbers are shown as their last 4 digits)",
        &[
            "instrument",
            "create",
            &csp,
            "--program",
            &prm,
            "--type-id",
            "Funding",
            "--payment-method-id",
            "ACH",
            "--default",
            "true",
            "--label",
            "Main checking",
            "--change-reason",
            "Initial setup",
            "--account-number",
            "000123456789",
            "--routing-number",
            "021000021",
            "--ach-type-id",
            "Checking",
            "--tag",
            "source=onboarding",
        ],
    )?;
    let app = t.id(
        "The program's application",
        &["program", "applications", &prm],
    )?;
    t.show("Its transaction templates", &["template", "list", &app])?;
    let trn = t.id(
        "Create an ACH funding transaction of 125.50 from the customer's bank account",
        &[
            "txn",
            "create",
            "--program",
            &prm,
            "--application",
            &app,
            "--template",
            "ach_funding",
            "--param",
            &format!("@source_customers={csp}:125.50"),
        ],
    )?;
    t.show(
        "Its parameters, amounts exact",
        &["txn", "parameters", &trn],
    )?;
    t.show(
        "No steps yet: the worker creates them",
        &["txn", "steps", &trn],
    )?;
    t.show("Run the worker", &["worker"])?;
    t.show("The steps, completed", &["txn", "steps", &trn])?;
    t.show("The transaction, Completed (60)", &["txn", "get", &trn])?;
    t.show("And the store is sound", &["store", "check"])?;
    let txn = t.data(&["txn", "get", &trn])?[0].clone();
    let steps = t
        .data(&["txn", "steps", &trn])?
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| {
                    serde_json::json!({
                        "transaction_step_id": s["transaction_step_id"],
                        "sequence": s["sequence"],
                        "transaction_step_status_id": s["transaction_step_status_id"],
                    })
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();
    Ok((csp, trn, txn, serde_json::Value::Array(steps)))
}
