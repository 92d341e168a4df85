//! `payctl webhook create|list|get|delete|deliveries|deliver` and `payctl
//! listen`: webhooks (POST /webhooks …), their delivery outside a server,
//! and forwarding the events to a local URL for development.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Subcommand;
use serde_json::{Value, json};

use super::Global;
use super::args::PageArgs;
use crate::api::endpoints::{Op, Params, Request};
use crate::core::deliver;
use crate::core::webhooks::{glob_problem, url_problem};
use crate::error::{Error, Result, code};
use crate::output::{RecordKind, Response};

pub const WEBHOOK_HELP: &str = "\
A webhook receives every event whose type matches one of its globs, from its creation on (its own
webhook.created first), as a POST of the event's JSON with `Content-Type: application/json`,
`Payctl-Event-Id` and `Payctl-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>`.
A 2xx answer delivers it; anything else, a redirect (never followed) or no answer within 10 s is
retried after 10 s, 20 s, 40 s… at most 1 h apart, for 24 h; then the delivery is marked failed and
the webhook moves on. Per webhook the events go out in sequence order, at least once: a deliverer
killed at any moment resends, at its next run, the event it had in flight. `payctl serve` delivers
in the background (--no-webhooks turns it off); `payctl webhook deliver` does it without a server.
The signing secret (whsec_…) is shown once, by `webhook create`; everywhere else its last 4 only.
Over HTTP the webhook routes need an admin key.

Examples:
  payctl webhook create --url https://hooks.example.com/payctl --events 'transaction.*,attachment.*'
  payctl webhook list -o table
  payctl webhook deliveries whk_… -o table          # each attempt: status, time, duration, next retry
  payctl events resend evt_… --webhook whk_…         # once more, out of order
  payctl webhook deliver --watch                     # deliver until Ctrl-C
  payctl listen --forward-to http://localhost:3000/hooks";

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum WebhookCommand {
    /// Create a webhook and print its signing secret, once (POST /webhooks)
    #[command(
        after_help = "Prints data: [{\"webhook_id\", \"url\", \"events\", \"description\", \"secret\": \"whsec_…\", …}]: the secret\n\
is shown this once (take it from -o json; -o id prints the webhook's id). Records webhook.created.\n\n\
Examples:\n  payctl webhook create --url https://hooks.example.com/payctl\n  \
payctl webhook create --url http://localhost:3000/in --events 'transaction.*,attachment.*' --description billing"
    )]
    Create {
        /// Where the events are POSTed: an http:// or https:// URL
        #[arg(long, value_name = "URL")]
        url: String,
        /// Only events of these types or globs (`transaction.*`), comma-separated or repeated [default: *]
        #[arg(long, value_name = "GLOB,…")]
        events: Vec<String>,
        /// What the webhook is for (0-500 characters)
        #[arg(long, value_name = "TEXT")]
        description: Option<String>,
    },
    /// List webhooks, oldest first, secrets masked (GET /webhooks)
    #[command(
        after_help = "Examples:\n  payctl webhook list -o table\n  payctl webhook list -o id"
    )]
    List {
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one webhook, its secret masked (GET /webhooks/{webhook_id})
    #[command(after_help = "Example:\n  payctl webhook get whk_0123456789abcdefghij")]
    Get {
        /// The webhook's id (whk_…)
        #[arg(value_name = "WHK")]
        whk: String,
    },
    /// Delete a webhook: no more deliveries; its attempts stay listed (DELETE /webhooks/{webhook_id})
    ///
    /// Asks for confirmation; where no one can be asked only --yes allows it.
    /// Records webhook.deleted. Answers data: [{"id": WHK}].
    #[command(after_help = "Example:\n  payctl webhook delete whk_0123456789abcdefghij --yes")]
    Delete {
        /// The webhook's id (whk_…)
        #[arg(value_name = "WHK")]
        whk: String,
    },
    /// List a webhook's delivery attempts, oldest first (GET /webhooks/{webhook_id}/deliveries)
    #[command(
        after_help = "Each attempt: event_id, event_type, attempt, created_datetime, status_code or error,\n\
duration_ms, outcome (delivered, retrying, failed), next_retry, resend.\n\n\
Example:\n  payctl webhook deliveries whk_0123456789abcdefghij -o table"
    )]
    Deliveries {
        /// The webhook's id (whk_…)
        #[arg(value_name = "WHK")]
        whk: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Deliver what is due to every webhook, without a server, then exit (or --watch)
    ///
    /// Each webhook gets its events in order until one waits for a retry; up to 8
    /// webhooks are served at once. Prints data: [{"delivered", "retrying", "failed"}].
    #[command(
        after_help = "Examples:\n  payctl webhook deliver                 # what is due now, then exit\n  \
payctl webhook deliver --watch         # until Ctrl-C (cron-free delivery without a server)"
    )]
    Deliver {
        /// Keep delivering new events and retries until Ctrl-C or SIGTERM
        #[arg(long)]
        watch: bool,
        /// With --watch: seconds between two looks at the log (0.1-60)
        #[arg(long, value_name = "SECS", default_value = "1")]
        interval: f64,
    },
}

/// `payctl listen`.
#[derive(Debug, clap::Args)]
pub struct ListenArgs {
    /// POST each event here, signed: an http:// or https:// URL
    #[arg(long, value_name = "URL")]
    pub forward_to: String,
    /// Only events of these types or globs, comma-separated or repeated [default: *]
    #[arg(long, value_name = "GLOB,…")]
    pub events: Vec<String>,
    /// The signing secret [default: a new whsec_… each run, printed on stderr]
    #[arg(
        long,
        env = "PAYCTL_LISTEN_SECRET",
        hide_env_values = true,
        value_name = "SECRET"
    )]
    pub secret: Option<String>,
    /// Seconds between two looks at the log (0.1-60)
    #[arg(long, value_name = "SECS", default_value = "1")]
    pub interval: f64,
}

/// The globs of `--events` (comma-separated or repeated), each checked.
fn globs(flag: &str, given: &[String]) -> Result<Vec<String>> {
    let out: Vec<String> = given
        .iter()
        .flat_map(|e| e.split(','))
        .map(|g| g.trim().to_string())
        .collect();
    for g in &out {
        if let Some(p) = glob_problem(g) {
            return Err(Error::usage(format!("{flag}: {p}")));
        }
    }
    Ok(out)
}

fn check_interval(secs: f64) -> Result<Duration> {
    if !(0.1..=60.0).contains(&secs) {
        return Err(Error::usage("--interval: must be 0.1-60 seconds"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// How delivery runs: the contract's timings, but for the first retry's
/// delay and the time an event is given up after, which
/// `PAYCTL_WEBHOOK_BACKOFF_MS` and `PAYCTL_WEBHOOK_GIVE_UP_MS` shorten for
/// tests.
pub fn deliver_options() -> deliver::Options {
    let ms = |name| super::env::var(name).and_then(|v| v.parse().ok());
    let mut o = deliver::Options::default();
    if let Some(ms) = ms("PAYCTL_WEBHOOK_BACKOFF_MS") {
        o.backoff = Duration::from_millis(ms);
    }
    if let Some(ms) = ms("PAYCTL_WEBHOOK_GIVE_UP_MS") {
        o.give_up = Duration::from_millis(ms);
    }
    o
}

/// Sleep `pause`, or until `stop` is set.
fn nap(pause: Duration, stop: &AtomicBool) {
    let end = std::time::Instant::now() + pause;
    while std::time::Instant::now() < end && !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

impl WebhookCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            WebhookCommand::Create {
                url,
                events,
                description,
            } => {
                let mut body = json!({ "url": url });
                let events = globs("--events", &events)?;
                if !events.is_empty() {
                    body["events"] = json!(events);
                }
                if let Some(d) = description {
                    body["description"] = json!(d);
                }
                g.call(Request::new(Op::WebhookCreate).body(body))
            }
            WebhookCommand::List { page } => {
                let query = Params {
                    page: page.request(),
                    ..Params::default()
                };
                g.list(Request::new(Op::WebhookList).query(query), &page)
            }
            WebhookCommand::Get { whk } => g.call(Request::new(Op::WebhookGet).at([whk])),
            WebhookCommand::Delete { whk } => {
                if g.ui.interactive() && !g.yes {
                    g.call(Request::new(Op::WebhookGet).at([whk.as_str()]))?;
                }
                g.confirm(&format!("delete webhook {}", crate::error::shown_id(&whk)))?;
                g.call(Request::new(Op::WebhookDelete).at([whk]))
            }
            WebhookCommand::Deliveries { whk, page } => {
                let query = Params {
                    page: page.request(),
                    ..Params::default()
                };
                g.list(
                    Request::new(Op::WebhookDeliveries).at([whk]).query(query),
                    &page,
                )
            }
            WebhookCommand::Deliver { watch, interval } => {
                g.local_only("webhook deliver")?;
                deliver_here(g, watch, check_interval(interval)?)
            }
        }
    }
}

fn deliver_here(g: &Global, watch: bool, pause: Duration) -> Result<Response> {
    let opts = deliver_options();
    let stop: &AtomicBool = if watch {
        super::worker::interrupt::install()
    } else {
        super::worker::interrupt::flag()
    };
    let read = || g.read();
    let write = || g.write();
    let open = deliver::Open {
        read: &read,
        write: &write,
        listed: None,
    };
    if !watch {
        let s = deliver::run_once(&open, &opts, stop)?;
        return Ok(Response::one(RecordKind::Summary, &s));
    }
    let total = std::sync::Mutex::new(deliver::Summary::default());
    let report = |r: Result<deliver::Summary>| match r {
        Ok(s) => {
            if s.delivered + s.retrying + s.failed > 0 {
                g.ui.err_line(format_args!(
                    "webhooks: {} delivered, {} to retry, {} failed",
                    s.delivered, s.retrying, s.failed
                ));
            }
            let mut t = total.lock().unwrap_or_else(|e| e.into_inner());
            t.delivered += s.delivered;
            t.retrying += s.retrying;
            t.failed += s.failed;
        }
        Err(e) => g.ui.err_line(format_args!("note: webhooks: {e}")),
    };
    deliver::run_until(&open, &opts, stop, pause, &report);
    let total = total.into_inner().unwrap_or_else(|e| e.into_inner());
    Ok(Response::one(RecordKind::Summary, &total))
}

impl ListenArgs {
    /// Follow the events from now on (GET /events, here or through
    /// --base-url) and POST each that matches, signed, to --forward-to.
    pub fn exec(self, g: &Global) -> Result<Response> {
        if let Some(p) = url_problem(&self.forward_to) {
            return Err(Error::usage(format!("--forward-to: {p}")));
        }
        let types = globs("--events", &self.events)?;
        let pause = check_interval(self.interval)?;
        let secret = match self.secret.filter(|s| !s.is_empty()) {
            Some(s) if s.len() > 200 || !s.bytes().all(|b| b.is_ascii_graphic()) => {
                return Err(Error::usage(
                    "--secret (PAYCTL_LISTEN_SECRET): must be 1-200 printable ASCII characters without spaces",
                ));
            }
            Some(s) => s,
            None => crate::model::webhook::new_secret(),
        };
        let stop = super::worker::interrupt::install();
        let agent = deliver::agent(deliver_options().timeout);
        let shown = crate::mask::url_password(&self.forward_to);
        let mut cursor = super::events::cursor_at(g, |total| total)?;
        g.ui.err_line(format_args!(
            "Ready: forwarding events to {shown}; the signing secret is {secret} (Ctrl-C to quit)"
        ));
        while !stop.load(Ordering::SeqCst) {
            let (data, more) = super::events::follow(g, &mut cursor)?;
            for e in &data {
                let ty = e["event_type"].as_str().unwrap_or("");
                if !types.is_empty()
                    && !types
                        .iter()
                        .any(|t| crate::model::event::type_matches(t, ty))
                {
                    continue;
                }
                forward(g, &agent, &self.forward_to, &shown, &secret, e)?;
            }
            if !more {
                nap(pause, stop);
            }
        }
        Ok(Response::Raw(String::new()))
    }
}

/// POST one event to the URL; one line on stdout saying how it went.
fn forward(
    g: &Global,
    agent: &ureq::Agent,
    url: &str,
    shown: &str,
    secret: &str,
    e: &Value,
) -> Result<()> {
    let id = e["event_id"].as_str().unwrap_or("");
    let body = serde_json::to_vec(e).expect("JSON serializes");
    let sent = deliver::post(agent, url, secret, id, &body);
    let status = match (sent.status, &sent.error) {
        (Some(s), _) => s.to_string(),
        (None, Some(err)) => format!("error: {err}"),
        (None, None) => "error".to_string(),
    };
    let line = format!(
        "{} {} {id} -> POST {shown} {status} ({} ms)",
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S"),
        e["event_type"].as_str().unwrap_or(""),
        sent.duration_ms
    );
    g.ui.with_stdout(|out| writeln!(out, "{line}"))
        .map_err(|e| Error::one(code::STORE_IO, format!("stdout: {e}")))
}
