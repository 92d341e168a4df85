//! `payctl events list|get|tail` and `payctl history ID`: the event log
//! (GET /events), locally or from a service.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Duration;

use clap::Subcommand;
use serde_json::Value;

use super::Global;
use super::args::PageArgs;
use crate::api::endpoints::{Op, Params, Request};
use crate::core::events::Filter;
use crate::core::paging::PageRequest;
use crate::error::{Error, Result, code};
use crate::output::Response;

pub const EVENTS_HELP: &str = "Every committed change records one event per changed record, in the same commit: \
customer_profile.created|updated, address.created|updated|deleted, payment_instrument.created|updated, \
attachment.requested|attached|rejected, transaction.created|processing|completed|failed, \
transaction_step.created|completed|failed|cancelled, webhook.created|deleted. Each carries the record \
after the change as a GET shows it (masked), the actor, the UTC time, a gapless sequence and a hash \
chained to the event before it, which `payctl store check` verifies.

Examples:
  payctl events list --type 'customer_profile.*' --since 2026-11-27
  payctl events list --record csp_… -o table
  payctl events tail --type 'transaction.*'      # one JSON line per new event, until Ctrl-C
  payctl history csp_…                            # one record's events, oldest first";

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum EventsCommand {
    /// List events, oldest first (GET /events)
    #[command(
        after_help = "Examples:\n  payctl events list --type 'customer_profile.*' --since 2026-11-27 -o table\n  payctl events list --record csp_… --all -o jsonl\n  payctl events list --type '*.failed' --page-size 100"
    )]
    List {
        #[command(flatten)]
        filter: FilterArgs,
        /// Only events created at or after this UTC time (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.ffffff][Z])
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
        #[command(flatten)]
        page: PageArgs,
    },
    /// Show one event (GET /events/{event_id})
    #[command(
        after_help = "Example:\n  payctl events get evt_… -o json | jq .data[0].data   # the record after the change"
    )]
    Get {
        /// The event's id (evt_…)
        #[arg(value_name = "EVT")]
        evt: String,
    },
    /// Follow new events, one JSON line each, until interrupted (polls GET /events)
    #[command(
        after_help = "Examples:\n  payctl events tail --type 'transaction.*'            # new events only, until Ctrl-C\n  payctl events tail --from 1 | jq -r .event_type      # the whole log, then what comes"
    )]
    Tail {
        #[command(flatten)]
        filter: FilterArgs,
        /// Start at this sequence (the events from it on, then the new ones); default: only new ones
        #[arg(long, value_name = "SEQ", value_parser = clap::value_parser!(u64).range(1..))]
        from: Option<u64>,
        /// Seconds between two looks at the log (0.1-60)
        #[arg(long, value_name = "SECS", default_value = "1")]
        interval: f64,
    },
    /// Queue an event for a webhook once more, out of order (POST /events/{event_id}/resend; admin)
    ///
    /// The deliverer (`payctl serve`, `payctl webhook deliver`) sends it at its next
    /// pass, one attempt, listed by `webhook deliveries` with resend: true.
    #[command(
        after_help = "Example:\n  payctl events resend evt_00000000010123456789 --webhook whk_0123456789abcdefghij"
    )]
    Resend {
        /// The event's id (evt_…)
        #[arg(value_name = "EVT")]
        evt: String,
        /// The webhook to send it to (whk_…)
        #[arg(long, value_name = "WHK")]
        webhook: String,
    },
}

#[derive(Debug, Clone, clap::Args)]
pub struct FilterArgs {
    /// Only events of this type or glob (`customer_profile.*`, `*.failed`); repeat, or separate with commas, for several
    #[arg(long = "type", value_name = "GLOB")]
    pub types: Vec<String>,
    /// Only the events of this record (an attachment's events carry its customer's id)
    #[arg(long, value_name = "ID")]
    pub record: Option<String>,
}

impl FilterArgs {
    fn types(&self) -> Vec<String> {
        self.types
            .iter()
            .flat_map(|t| t.split(','))
            .map(|t| t.trim().to_string())
            .collect()
    }
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    /// The record: a customer profile, an address, an instrument, a transaction or a step
    #[arg(value_name = "ID")]
    pub id: String,
    #[command(flatten)]
    pub page: PageArgs,
}

impl HistoryArgs {
    /// `history ID`: `events list --record ID`, every page unless paging
    /// is asked for.
    pub fn exec(self, g: &Global) -> Result<Response> {
        let query = Params {
            record_id: Some(self.id),
            ..Params::default()
        };
        let mut page = self.page;
        if page.page_number.is_none() && page.after.is_none() && page.page_size.is_none() {
            page.all = true;
        }
        g.list(Request::new(Op::EventList).query(query), &page)
    }
}

impl EventsCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            EventsCommand::List {
                filter,
                since,
                page,
            } => {
                let query = Params {
                    page: page.request(),
                    event_types: filter.types(),
                    record_id: filter.record.clone(),
                    since,
                    ..Params::default()
                };
                g.list(Request::new(Op::EventList).query(query), &page)
            }
            EventsCommand::Get { evt } => g.call(Request::new(Op::EventGet).at([evt])),
            EventsCommand::Resend { evt, webhook } => g.call(
                Request::new(Op::EventResend)
                    .at([evt])
                    .body(serde_json::json!({ "webhook_id": webhook })),
            ),
            EventsCommand::Tail {
                filter,
                from,
                interval,
            } => tail(g, &filter, from, interval),
        }
    }
}

/// One page of the whole log (no filter): the cursor of `tail` moves over
/// every event, the filter is applied to what it reads.
fn page_of_log(g: &Global, page: PageRequest) -> Result<(Vec<Value>, usize, Option<String>)> {
    match g.call(Request::new(Op::EventList).query(Params {
        page,
        ..Params::default()
    }))? {
        Response::List { paging, data, .. } => {
            Ok((data, paging.total_count, paging.last_evaluated_key))
        }
        _ => Err(Error::one(
            code::UNEXPECTED_RESPONSE,
            "GET /events did not answer a list",
        )),
    }
}

/// Where `tail` and `webhook listen` start following the log: after the
/// event at position `start(total)` (1-based) of its `total` events; from
/// its first event when that position is 0 or past the end (`None`).
pub(super) fn cursor_at(g: &Global, start: impl FnOnce(usize) -> usize) -> Result<Option<String>> {
    let (_, total, _) = page_of_log(
        g,
        PageRequest {
            size: 1,
            number: Some(1),
            after: None,
        },
    )?;
    let start = start(total);
    if start == 0 || start > total {
        return Ok(None);
    }
    let (data, _, _) = page_of_log(
        g,
        PageRequest {
            size: 1,
            number: Some(u32::try_from(start).unwrap_or(u32::MAX)),
            after: None,
        },
    )?;
    Ok(data
        .first()
        .and_then(|e| e["event_id"].as_str())
        .map(str::to_string))
}

/// The events after `cursor` (a page at most), the cursor moved past them,
/// and whether more follow.
pub(super) fn follow(g: &Global, cursor: &mut Option<String>) -> Result<(Vec<Value>, bool)> {
    let (data, _, next) = page_of_log(
        g,
        PageRequest {
            size: crate::core::paging::MAX_PAGE_SIZE,
            number: if cursor.is_none() { Some(1) } else { None },
            after: cursor.clone(),
        },
    )?;
    if let Some(last) = data.last().and_then(|e| e["event_id"].as_str()) {
        *cursor = Some(last.to_string());
    }
    Ok((data, next.is_some()))
}

fn tail(g: &Global, args: &FilterArgs, from: Option<u64>, interval: f64) -> Result<Response> {
    if !(0.1..=60.0).contains(&interval) {
        return Err(Error::usage("--interval: must be 0.1-60 seconds"));
    }
    let filter = Filter {
        types: args.types(),
        record_id: args.record.clone(),
        since: None,
    };
    filter.check().map_err(|e| {
        Error::usage(format!(
            "--type/--record: {}",
            e.errors.first().map_or("", |a| a.message.as_str())
        ))
    })?;
    let stop = super::worker::interrupt::install();
    // The cursor: the id of the last event read (None: before the first).
    let mut cursor = cursor_at(g, |total| match from {
        Some(seq) => seq.saturating_sub(1) as usize,
        None => total,
    })?;
    let pause = Duration::from_secs_f64(interval);
    while !stop.load(Ordering::SeqCst) {
        let (data, more) = follow(g, &mut cursor)?;
        let shown: Vec<&Value> = data
            .iter()
            .filter(|v| {
                filter.matches_fields(
                    v["event_type"].as_str().unwrap_or(""),
                    v["record_id"].as_str().unwrap_or(""),
                )
            })
            .collect();
        if !shown.is_empty() {
            g.ui.with_stdout(|out| {
                for v in &shown {
                    writeln!(out, "{v}")?;
                }
                Ok(())
            })
            .map_err(|e| Error::one(code::STORE_IO, format!("stdout: {e}")))?;
        }
        if !more {
            let end = std::time::Instant::now() + pause;
            while std::time::Instant::now() < end && !stop.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    }
    Ok(Response::Raw(String::new()))
}
