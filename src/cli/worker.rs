//! `payctl worker`: the background work of the service (CLI.md "The worker").

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Global;
use crate::api::endpoints::Backend;
use crate::api::endpoints::{Op, Request};
use crate::core::worker::Summary;
use crate::error::{Error, ErrorKind, Result, code};
use crate::output::{RecordKind, Response};

// The arguments of `payctl worker` (its help is on `Command::Worker`).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  payctl worker\n  payctl worker --watch --interval 0.5\n\nWith --watch, each pass that did something prints its summary as one JSON line\non stderr; the total is printed on stdout when the worker is interrupted.\nA pass that finds the store busy (--lock-timeout) is noted on stderr and retried."
)]
pub struct WorkerArgs {
    /// Keep polling the queue until interrupted (Ctrl-C or SIGTERM)
    #[arg(long)]
    pub watch: bool,
    /// Seconds between polls with --watch (fractions allowed, 0.01-86400)
    #[arg(long, requires = "watch", default_value_t = 2.0, allow_negative_numbers = true, value_parser = parse_interval, value_name = "SECS")]
    pub interval: f64,
}

pub fn parse_interval(s: &str) -> std::result::Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| "expected a number of seconds".to_string())?;
    if v.is_finite() && (0.01..=86400.0).contains(&v) {
        Ok(v)
    } else {
        Err("must be 0.01-86400 seconds".to_string())
    }
}

/// Sleep `d`, waking early when `stop` is set; whether it was set.
fn sleep_unless_stopped(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    loop {
        if stop.load(Ordering::SeqCst) {
            return true;
        }
        let now = Instant::now();
        if now >= end {
            return false;
        }
        std::thread::sleep((end - now).min(Duration::from_millis(50)));
    }
}

/// The summary's count of the items a rule holds back.
const WAITING: &str = "items_waiting";

impl WorkerArgs {
    /// Remote mode: each pass is `POST /_payctl/worker` on the service.
    fn exec_remote(self, g: &Global) -> Result<Response> {
        let pass = || g.call(Request::new(Op::Worker));
        if !self.watch {
            return pass();
        }
        let stop = interrupt::install();
        let interval = Duration::from_secs_f64(self.interval);
        let mut total = serde_json::Map::new();
        loop {
            match pass() {
                Ok(Response::Records(_, d)) => {
                    if let Some(s) = d.first().and_then(|s| s.as_object()) {
                        // What waits is counted again by each pass: the
                        // total says what waits now, and a pass that only
                        // found items waiting did nothing.
                        let did = |k: &str| k != WAITING;
                        if s.iter()
                            .any(|(k, v)| did(k) && v.as_u64().is_some_and(|n| n > 0))
                        {
                            g.ui.err_line(serde_json::Value::Object(s.clone()));
                        }
                        total.remove(WAITING);
                        for (k, v) in s {
                            let before = total.get(k).and_then(|t| t.as_u64()).filter(|_| did(k));
                            let sum = before.unwrap_or(0) + v.as_u64().unwrap_or(0);
                            total.insert(k.clone(), sum.into());
                        }
                    }
                }
                Ok(_) => {}
                Err(e) if e.has_code(code::STORE_BUSY) || e.has_code(code::UNREACHABLE) => {
                    g.ui.err_line(format_args!("note: {e}; retrying"))
                }
                Err(e) => return Err(e),
            }
            if sleep_unless_stopped(interval, stop) {
                break;
            }
        }
        if total.is_empty() {
            return Ok(Response::one(
                RecordKind::WorkerSummary,
                &Summary::default(),
            ));
        }
        Ok(Response::Records(
            RecordKind::WorkerSummary,
            vec![serde_json::Value::Object(total)],
        ))
    }

    pub fn exec(self, g: &Global) -> Result<Response> {
        if g.remote.is_some() {
            return self.exec_remote(g);
        }
        let stop = interrupt::install();
        let progress = Progress::new(&g.ui);
        // The endpoint's own operation (as `serve` runs it), on the local
        // store: each batch opens it, the moment to count what is left.
        let backend = Counted {
            g,
            progress: &progress,
        };
        let run_once = || crate::api::endpoints::worker_run(&backend, stop);
        if !self.watch {
            let run = run_once();
            if let Some(p) = &progress {
                p.done();
            }
            let run = run?;
            if run.held.is_empty() {
                return Ok(Response::one(RecordKind::WorkerSummary, &run.summary));
            }
            // Exit 3 naming each item left queued; what was done is committed.
            g.ui.err_line(format_args!(
                "note: done before the items below: {}",
                serde_json::to_string(&run.summary).expect("summary serializes")
            ));
            return Err(Error {
                kind: ErrorKind::Store,
                errors: run.held,
            });
        }
        let interval = Duration::from_secs_f64(self.interval);
        let mut total = Summary::default();
        loop {
            let pass = run_once();
            if let Some(p) = &progress {
                p.done();
            }
            match pass {
                Ok(run) => {
                    let s = run.summary;
                    if !s.is_empty() {
                        g.ui.err_line(serde_json::to_string(&s).expect("summary serializes"));
                    }
                    for e in &run.held {
                        g.ui.err_line(format_args!(
                            "note: {}",
                            crate::output::mask::message(&e.message)
                        ));
                    }
                    total.add(&s);
                    // What waits now, not the sum of the passes.
                    total.items_waiting = s.items_waiting;
                }
                // Interrupted while waiting for the lock: stop like between passes.
                Err(_) if stop.load(Ordering::SeqCst) => break,
                Err(e) if e.has_code(code::STORE_BUSY) => {
                    g.ui.err_line(format_args!("note: {e}; retrying"))
                }
                Err(e) => return Err(e),
            }
            if sleep_unless_stopped(interval, stop) {
                break;
            }
        }
        Ok(Response::one(RecordKind::WorkerSummary, &total))
    }
}

/// The local store as the worker's endpoint opens it, once per batch,
/// telling the progress bar how many items are still queued.
struct Counted<'a> {
    g: &'a Global,
    progress: &'a Option<Progress>,
}

impl Backend for Counted<'_> {
    fn read(&self) -> Result<crate::store::Store> {
        self.g.read()
    }
    fn write(&self) -> Result<crate::store::Store> {
        let store = self.g.write()?;
        if let Some(p) = self.progress {
            p.left(store.queue()?.len());
        }
        Ok(store)
    }
}

/// A progress bar on stderr, only when stderr is a terminal: items of the
/// queue done out of those there were when the run began (more when items
/// arrive meanwhile). Updated once per batch; cleared when the run ends.
struct Progress {
    ui: crate::output::ui::Ui,
    bar: std::sync::Mutex<Option<indicatif::ProgressBar>>,
}

impl Progress {
    fn new(ui: &crate::output::ui::Ui) -> Option<Progress> {
        ui.shows_progress().then(|| Progress {
            ui: *ui,
            bar: std::sync::Mutex::new(None),
        })
    }

    /// `left` items are still queued.
    fn left(&self, left: usize) {
        let mut slot = self.bar.lock().unwrap_or_else(|e| e.into_inner());
        let bar = match &*slot {
            Some(bar) => bar,
            None if left == 0 => return,
            None => {
                let bar = self.ui.progress_bar();
                bar.set_length(left as u64);
                let bar = bar.with_style(
                    indicatif::ProgressStyle::with_template(
                        "worker {bar:40} {pos}/{len} queue items ({elapsed})",
                    )
                    .expect("a valid template"),
                );
                slot.insert(bar)
            }
        };
        let done = bar.position();
        let total = bar.length().unwrap_or(0).max(done + left as u64);
        bar.set_length(total);
        bar.set_position(total - left as u64);
    }

    /// The run ended: clear the bar (a pass of --watch starts a new one).
    fn done(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}

/// Ctrl-C / SIGTERM: ask the worker to stop after the batch in hand, or to
/// stop waiting for the store's lock (every command's lock wait watches the
/// same flag, which only the worker's handlers ever set).
///
/// With `signal-hook`: the handler only stores to an atomic; a second
/// signal, once the flag is set, stops the process at once (the default
/// action).
pub(super) mod interrupt {
    use std::sync::atomic::AtomicBool;
    use std::sync::{Arc, OnceLock};

    static STOP: OnceLock<Arc<AtomicBool>> = OnceLock::new();

    /// The flag the handlers set.
    pub fn flag() -> &'static AtomicBool {
        STOP.get_or_init(|| Arc::new(AtomicBool::new(false)))
    }

    /// Install the handlers (once is enough; again is harmless) and return the flag.
    pub fn install() -> &'static AtomicBool {
        let stop = STOP.get_or_init(|| Arc::new(AtomicBool::new(false)));
        for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Registration fails only for a forbidden signal; these are not.
            let _ = signal_hook::flag::register_conditional_default(sig, Arc::clone(stop));
            let _ = signal_hook::flag::register(sig, Arc::clone(stop));
        }
        stop
    }
}
