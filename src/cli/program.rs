//! `payctl program …`: Programs, their Applications, and attaching customer
//! profiles to a Program (spec 2.4, 2.5, 4.4).

use std::time::{Duration, Instant};

use clap::Subcommand;
use clap_complete::ArgValueCompleter;

use super::Global;
use super::args::{BodyArg, IdempotencyArg, PageArgs, Patch};
use super::complete;
use crate::api::endpoints::{Op, Request};
use crate::error::{Error, Result, code};
use crate::model::status::attachment::PENDING;
use crate::output::Response;

// `--wait [--timeout SECS]` of commands whose effect the worker completes.
#[derive(Debug, Clone, clap::Args)]
pub struct WaitArgs {
    /// Wait until the worker has processed the request (poll every 200 ms)
    #[arg(long)]
    pub wait: bool,
    /// Seconds to wait with --wait; then the answer is printed as without --wait, 30005
    /// (Timed out) on stderr says what is still pending, and the exit code is 4
    #[arg(long, requires = "wait", default_value_t = 60.0, value_name = "SECS", value_parser = super::args::parse_secs)]
    pub timeout: f64,
}

impl WaitArgs {
    /// How long to wait, if at all.
    pub fn limit(&self) -> Option<Duration> {
        self.wait.then(|| Duration::from_secs_f64(self.timeout))
    }
}

/// Poll `done` every 200 ms until it is true or `limit` passes. The request
/// itself was committed before: giving up (30005 after `limit`, or a read
/// that fails meanwhile) is recorded with [`Global::unfinished`], so that the
/// command still answers what it created (stdout) and exits 4, with what is
/// still pending on stderr. `poll` says how to look at it later.
pub fn wait_until(
    g: &Global,
    limit: Duration,
    what: &str,
    poll: &str,
    mut done: impl FnMut() -> Result<bool>,
) {
    let end = Instant::now() + limit;
    let gave_up = loop {
        match done() {
            Ok(true) => return,
            Ok(false) => {}
            Err(e) => break Some(e),
        }
        let now = Instant::now();
        if now >= end {
            break None;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(200)));
    };
    let why = match &gave_up {
        None => format!(
            "not processed within the --timeout of {} s; is `payctl worker --watch` running?",
            limit.as_secs_f64()
        ),
        Some(_) => "stopped waiting: it could not be read (see above)".to_string(),
    };
    let mut err = gave_up.unwrap_or_else(|| Error::store(code::TIMEOUT, ""));
    err.errors.retain(|e| e.code != code::TIMEOUT);
    err.errors.push(crate::error::ApiError::new(
        code::TIMEOUT,
        format!(
            "{what} was committed and is still pending: {why} It stays queued for the \
             worker; poll it with `{poll}`, never create it again"
        ),
    ));
    g.unfinished(err);
}

/// The CSP argument put into the spec's body (`customer_profile_id`); a
/// different id already in the body is refused as the core refuses it.
fn with_csp(mut body: serde_json::Value, csp: Option<&str>) -> Result<serde_json::Value> {
    const FIELD: &str = "customer_profile_id";
    let (Some(csp), Some(obj)) = (csp, body.as_object_mut()) else {
        return Ok(body);
    };
    match obj.get(FIELD) {
        None => {
            obj.insert(FIELD.into(), csp.into());
        }
        Some(serde_json::Value::String(sent)) if sent != csp => {
            let mut errs = crate::error::Errors::new();
            errs.invalid(
                FIELD,
                "differs from the CSP argument; give it once, or the same in both",
            );
            errs.finish()?;
        }
        // The same id, or a value of the wrong type (refused by the core).
        Some(_) => {}
    }
    Ok(body)
}

/// The number `field` of the first record of an answer.
pub fn first_u64(resp: &Response, field: &str) -> Option<u64> {
    match resp {
        Response::Records(_, d) | Response::List { data: d, .. } => d.first()?.get(field)?.as_u64(),
        _ => None,
    }
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum ProgramCommand {
    /// List the Facilitator's Programs (GET /programs)
    #[command(
        after_help = "Examples:\n  payctl program list\n  PRM=$(payctl program list -o id | head -n1)"
    )]
    List {
        #[command(flatten)]
        page: PageArgs,
    },
    /// List the Applications of a Program (GET /programs/{id}/applications)
    #[command(after_help = "Example:\n  payctl program applications prm_0123456789abcdefghij")]
    Applications {
        /// The program_id (prm_…)
        #[arg(add = ArgValueCompleter::new(complete::programs))]
        prm: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Ask for a customer profile to be attached to a Program (POST /programs/{id}/customer-profiles)
    ///
    /// The record starts Pending (1); `payctl worker` makes it Attached (10).
    /// Poll it with `payctl program profile PRM CSP`. Attaching a profile that
    /// is Pending or Attached is refused with 21001; a Rejected (20) one may be
    /// attached again. Without --reason (or a reason in --body) the reason is
    /// stored as an empty string; a reason has at most 256 characters.
    ///
    /// With --wait, payctl then polls the record (every 200 ms, as a reader)
    /// until the worker has processed it (Attached or Rejected), and answers
    /// as without --wait; a background `payctl worker --watch` must be running.
    /// When --timeout passes first, the attach stays requested: the answer is
    /// printed as without --wait, stderr says what is pending (30005), exit 4.
    #[command(
        after_help = "Examples:\n  payctl program attach prm_0123456789abcdefghij csp_0123456789abcdefghij --reason \"new member\"\n  payctl program attach $PRM $CSP --wait --timeout 30   # with `payctl worker --watch` running elsewhere\n  payctl program attach prm_0123456789abcdefghij --body attach.json\n\nThe --body holds the request: {\"customer_profile_id\": \"csp_…\",\n\"customer_profile_program_status_reason\": \"…\"}; a CSP argument given as well must be the same id."
    )]
    Attach {
        /// The program_id (prm_…)
        #[arg(add = ArgValueCompleter::new(complete::programs))]
        prm: String,
        /// The customer_profile_id (csp_…); may come from --body instead
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: Option<String>,
        /// customer_profile_program_status_reason: why the profile is attached (0-256 characters)
        #[arg(long, value_name = "TEXT")]
        reason: Option<String>,
        #[command(flatten)]
        body: BodyArg,
        #[command(flatten)]
        wait: WaitArgs,
        #[command(flatten)]
        idem: IdempotencyArg,
        #[command(flatten)]
        dry: super::args::DryRunArg,
    },
    /// List the profile-program records of a Program, in any status (GET /programs/{id}/customer-profiles)
    #[command(
        after_help = "Example:\n  payctl program profiles prm_0123456789abcdefghij --page-size 100"
    )]
    Profiles {
        /// The program_id (prm_…)
        #[arg(add = ArgValueCompleter::new(complete::programs))]
        prm: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show the profile-program record of one profile (GET /programs/{id}/customer-profiles/{csp})
    ///
    /// A Pending record is shown too (status 1), so that scripts can poll it.
    /// A profile that has no record for the program is refused with 10001, as the service answers it.
    #[command(
        after_help = "Example:\n  payctl program profile prm_0123456789abcdefghij csp_0123456789abcdefghij\n  # wait until attached:\n  until [ \"$(payctl program profile $PRM $CSP -o json | jq '.data[0].customer_profile_program_status_id')\" = 10 ]; do sleep 2; done"
    )]
    Profile {
        /// The program_id (prm_…)
        #[arg(add = ArgValueCompleter::new(complete::programs))]
        prm: String,
        /// The customer_profile_id (csp_…)
        #[arg(add = ArgValueCompleter::new(complete::profiles))]
        csp: String,
    },
}

impl ProgramCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            ProgramCommand::List { page } => g.list(Request::new(Op::ProgramList), &page),
            ProgramCommand::Applications { prm, page } => {
                g.list(Request::new(Op::ApplicationList).at([prm]), &page)
            }
            ProgramCommand::Attach {
                prm,
                csp,
                reason,
                body,
                wait,
                idem,
                dry,
            } => {
                idem.check()?;
                let mut p = Patch::new();
                p.str("customer_profile_program_status_reason", &reason);
                let body = with_csp(p.over(body.read()?), csp.as_deref())?;
                let attached = g.call(
                    Request::new(Op::Attach)
                        .at([prm.as_str()])
                        .body(body)
                        .idempotency_key(idem.idempotency_key)
                        .dry_run(dry.dry_run),
                )?;
                if let (Some(limit), Response::Id(id)) = (wait.limit(), &attached) {
                    wait_until(
                        g,
                        limit,
                        &format!("the attachment of customer profile {id} to program {prm}"),
                        &format!("payctl program profile {prm} {id}"),
                        || {
                            let got = g.call(
                                Request::new(Op::AttachmentGet).at([prm.as_str(), id.as_str()]),
                            )?;
                            let status = first_u64(&got, "customer_profile_program_status_id");
                            Ok(status != Some(PENDING.into()))
                        },
                    );
                    return g.shown(attached, |id| {
                        Request::new(Op::AttachmentGet).at([prm.as_str(), id])
                    });
                }
                Ok(attached)
            }
            ProgramCommand::Profiles { prm, page } => {
                g.list(Request::new(Op::AttachmentList).at([prm]), &page)
            }
            ProgramCommand::Profile { prm, csp } => {
                let shown = (crate::error::shown_id(&csp), crate::error::shown_id(&prm));
                g.call(Request::new(Op::AttachmentGet).at([prm, csp]))
                    .inspect_err(|e| {
                        // The envelope's message is the spec's, exactly ("Invalid
                        // Value"); a person at a table also reads why.
                        if g.ui.format() != crate::output::Format::Json
                            && e.has_code(crate::error::code::INVALID_VALUE)
                        {
                            g.ui.err_line(format_args!(
                                "note: customer profile {} has no record for program {} (not attached)",
                                shown.0, shown.1
                            ));
                        }
                    })
            }
        }
    }
}
