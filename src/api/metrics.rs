//! `GET /_payctl/metrics`: the server's metrics in the Prometheus text
//! exposition format, recorded with the `metrics` facade and rendered by
//! `metrics-exporter-prometheus`. The recorder is installed by `payctl
//! serve` only, once per process ([`install`]); elsewhere (the CLI) the
//! facade's calls do nothing.
//!
//! - `payctl_http_requests_total{method,route,status}`: requests answered,
//!   by the endpoint table's route template (`/customer-profiles/{customer_profile_id}`,
//!   never the path as sent: no id reaches a label) or `unmatched`;
//! - `payctl_http_request_duration_seconds{method,route}`: a histogram;
//! - `payctl_commits_total`: writes committed by requests (creates,
//!   updates, deletes, attaches; a replay by `Idempotency-Key` is not one);
//! - `payctl_worker_items_processed_total{kind}`: attachments and
//!   transactions the worker of this server processed (its own loop and
//!   `POST /_payctl/worker`);
//! - `payctl_worker_queue_depth`: items waiting for the worker, read from
//!   the store at each scrape (the last value read when the store is busy).

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use super::endpoints::{self, Method, Route};
use crate::core::summary::Summary;
use crate::error::{Error, Result, code};

const REQUESTS: &str = "payctl_http_requests_total";
const DURATION: &str = "payctl_http_request_duration_seconds";
const COMMITS: &str = "payctl_commits_total";
const PROCESSED: &str = "payctl_worker_items_processed_total";
const QUEUE: &str = "payctl_worker_queue_depth";
/// The latency histogram's upper bounds, in seconds.
const BUCKETS: [f64; 14] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
/// How often the histograms' samples are folded into their buckets.
const UPKEEP: Duration = Duration::from_secs(5);

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Install the recorder, once per process; its handle renders the text.
pub fn install() -> Result<&'static PrometheusHandle> {
    if let Some(h) = HANDLE.get() {
        return Ok(h);
    }
    let failed = |e: &dyn std::fmt::Display| {
        Error::store(code::STORE_IO, format!("cannot set up the metrics: {e}"))
    };
    let handle = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(DURATION.into()), &BUCKETS)
        .map_err(|e| failed(&e))?
        .install_recorder()
        .map_err(|e| failed(&e))?;
    metrics::describe_counter!(
        REQUESTS,
        "Requests answered, by method, route template and status"
    );
    metrics::describe_histogram!(
        DURATION,
        metrics::Unit::Seconds,
        "Time to answer a request, by method and route template"
    );
    metrics::describe_counter!(
        COMMITS,
        "Writes committed by requests (creates, updates, deletes, attaches; not replays)"
    );
    metrics::describe_counter!(
        PROCESSED,
        "Queue items the worker of this server processed, by kind"
    );
    metrics::describe_gauge!(QUEUE, "Items waiting for the worker (read at each scrape)");
    // Present from the first scrape, before any work.
    metrics::counter!(COMMITS).absolute(0);
    for kind in ["attachment", "transaction"] {
        metrics::counter!(PROCESSED, "kind" => kind).absolute(0);
    }
    Ok(HANDLE.get_or_init(|| handle))
}

/// Fold the histograms' samples in, every [`UPKEEP`], for ever (the
/// exporter leaves it to its caller): a task of serve's runtime.
pub async fn upkeep() {
    loop {
        tokio::time::sleep(UPKEEP).await;
        if let Some(h) = HANDLE.get() {
            h.run_upkeep();
        }
    }
}

/// The exposition, with the worker's queue depth as `depth` says (None:
/// not read now, the last value stays).
pub fn render(depth: Option<usize>) -> String {
    if let Some(n) = depth {
        metrics::gauge!(QUEUE).set(n as f64);
    }
    HANDLE.get().map(|h| h.render()).unwrap_or_default()
}

/// The route template of a request, as the endpoint table names it.
fn route_of(method: &str, path: &str) -> &'static str {
    let method = if method == "HEAD" {
        Some(Method::Get)
    } else {
        Method::parse(method)
    };
    let segments: Option<Vec<String>> = path
        .split('/')
        .skip(1)
        .map(|s| endpoints::percent_decode(s, false))
        .collect();
    match segments.map(|s| endpoints::route(method, &s)) {
        Some(Route::Found(e, _)) => e.path,
        _ if super::ui::owns(path) => super::ui::route_of(path),
        _ => "unmatched",
    }
}

/// One request answered.
pub fn request(method: &str, path: &str, resp: &axum::response::Response, took: Duration) {
    let route = route_of(method, path);
    let method: &'static str = match method {
        "GET" => "GET",
        "HEAD" => "HEAD",
        "POST" => "POST",
        "PUT" => "PUT",
        "DELETE" => "DELETE",
        _ => "other",
    };
    let status = resp.status().as_u16();
    metrics::counter!(REQUESTS, "method" => method, "route" => route, "status" => status.to_string())
        .increment(1);
    metrics::histogram!(DURATION, "method" => method, "route" => route).record(took.as_secs_f64());
    let write = matches!(method, "POST" | "PUT" | "DELETE");
    let replayed = resp.headers().contains_key("idempotent-replayed");
    if write
        && resp.status().is_success()
        && route != "unmatched"
        && !route.starts_with("/_payctl/")
        && !replayed
    {
        metrics::counter!(COMMITS).increment(1);
    }
}

/// What a worker pass of this server did.
pub fn worker_ran(s: &Summary) {
    metrics::counter!(PROCESSED, "kind" => "attachment").increment(s.attachments_processed);
    metrics::counter!(PROCESSED, "kind" => "transaction").increment(s.transactions_processed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_the_tables_templates_never_ids() {
        assert_eq!(
            route_of("GET", "/customer-profiles/csp_abc123"),
            "/customer-profiles/{customer_profile_id}"
        );
        assert_eq!(
            route_of("HEAD", "/customer-profiles/csp_abc123/addresses/cpa_1"),
            "/customer-profiles/{customer_profile_id}/addresses/{address_id}"
        );
        assert_eq!(route_of("PATCH", "/customer-profiles"), "unmatched");
        assert_eq!(route_of("GET", "/nowhere/123"), "unmatched");
        assert_eq!(route_of("GET", "/a/%ff"), "unmatched");
    }
}
