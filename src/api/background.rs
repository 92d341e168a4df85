//! What `payctl serve` runs beside its requests: the background worker's
//! passes, and the wait for the signal that stops it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Local;
use super::endpoints;
use crate::output::{self, ui::Ui};

/// A line on stderr, through the [`Ui`].
macro_rules! say {
    ($ui:expr, $($arg:tt)*) => {
        $ui.err_line(format_args!($($arg)*))
    };
}

/// SIGTERM or Ctrl-C.
pub(super) async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

/// The background work every `every`, until shutdown; the batch in hand is
/// finished and committed first.
pub(super) async fn worker_loop(
    store: Local,
    halt: Arc<AtomicBool>,
    (quiet, ui): (bool, Ui),
    every: Duration,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.changed() => return,
        }
        let (s, h) = (store.clone(), halt.clone());
        let pass = tokio::task::spawn_blocking(move || endpoints::worker_run(&s, &h)).await;
        match pass {
            Ok(Ok(run)) => {
                if !run.summary.is_empty() && !quiet {
                    say!(
                        ui,
                        "worker: {}",
                        serde_json::to_string(&run.summary).unwrap_or_default()
                    );
                }
                for e in &run.held {
                    say!(ui, "note: worker: {}", output::mask::mask_text(&e.message));
                }
            }
            Ok(Err(e)) => say!(
                ui,
                "note: worker: {}; retrying in {} s",
                output::mask::mask_text(&e.to_string()),
                every.as_secs_f64()
            ),
            Err(e) => say!(ui, "note: worker: {e}"),
        }
        if halt.load(Ordering::SeqCst) {
            return;
        }
    }
}
