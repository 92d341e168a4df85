//! Webhook delivery in the background of `payctl serve` (see
//! `core::deliver`): a thread of its own, which looks at the log about
//! once a second (sooner when a retry falls due), serves up to 8 webhooks
//! at once, and stops with the server once the attempts in hand are
//! recorded.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::Local;
use super::endpoints::Backend;
use crate::core::deliver;
use crate::output::ui::Ui;

/// How long the deliverer waits between two passes with nothing due.
const PAUSE: Duration = Duration::from_secs(1);

/// Start delivering on serve's store, unless `--no-webhooks`.
pub(super) fn start(
    cfg: &super::server::Config,
    stop: &Arc<AtomicBool>,
) -> Option<std::thread::JoinHandle<()>> {
    let opts = cfg.webhooks.clone()?;
    Some(spawn(
        cfg.store.clone(),
        opts,
        cfg.ui,
        cfg.quiet,
        stop.clone(),
    ))
}

/// Wait for the deliverer to record the attempts in hand (once `stop` is set).
pub(super) async fn finish(h: Option<std::thread::JoinHandle<()>>) {
    if let Some(h) = h {
        let _ = tokio::task::spawn_blocking(move || h.join()).await;
    }
}

/// Start delivering on `store` until `stop` is set.
fn spawn(
    store: Local,
    opts: deliver::Options,
    ui: Ui,
    quiet: bool,
    stop: Arc<AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let read = || store.read();
        let write = || store.write();
        let listed = || store.kept.as_ref().and_then(|k| k.group.held_webhooks());
        let open = deliver::Open {
            read: &read,
            write: &write,
            listed: Some(&listed),
        };
        let report = |r: crate::error::Result<deliver::Summary>| match r {
            Ok(s) if s.delivered + s.retrying + s.failed > 0 && !quiet => {
                ui.err_line(format_args!(
                    "webhooks: {} delivered, {} to retry, {} failed",
                    s.delivered, s.retrying, s.failed
                ))
            }
            Ok(_) => {}
            Err(e) => ui.err_line(format_args!(
                "note: webhooks: {}",
                crate::output::mask::mask_text(&e.to_string())
            )),
        };
        deliver::run_until(&open, &opts, &stop, PAUSE, &report);
    })
}
