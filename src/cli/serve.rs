//! `payctl serve`: the options of the HTTP server; the server itself is
//! `api::server`.

use std::net::SocketAddr;
use std::time::Duration;

use super::Global;
use crate::api::{Local, server};
use crate::error::{Error, Result};
use crate::output::Response;

pub const SERVE_HELP: &str = "\
Every endpoint of the spec's section 4 at the spec's paths, relative to http://ADDR:PORT
(both payment_instruments and payment-instruments), with the bodies, envelopes, error codes
and masking of `-o json`. Lists take page_size, page_number, last_evaluated_key; GET
/customer-profiles also first_name, last_name, email, customer_key, tag=KEY:VALUE.
Statuses: 200, 201 created, 400 invalid, 401 token, 404 not found (record or path), 405,
409 conflict, 413 body too large, 431 headers too large, 500 store unusable, 503 store busy
(Retry-After). Administration: GET /_payctl/health, POST /_payctl/worker (one pass of the
background work, answering its summary); GET /openapi.json describes it all.

Writes are audited with the `X-Payctl-Actor` header of the request when given (1-64
characters; remote mode sends its --actor), else with serve's own --actor.
Once listening it prints `listening on http://ADDR:PORT` on stderr, then one access-log line
per request (method, path, status, milliseconds) unless --quiet. SIGTERM or Ctrl-C stops
accepting, finishes the requests and the worker batch in hand, and exits 0.

Examples:
  payctl serve
  payctl serve --listen 127.0.0.1:0 --no-worker     # a free port; drive the worker by POST /_payctl/worker
  PAYCTL_SERVE_TOKEN=s3cret payctl serve --listen 0.0.0.0:8080
  PAYCTL_BASE_URL=http://127.0.0.1:8080 payctl profile list";

// The arguments of `payctl serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address and port to listen on (port 0: a free one). Beyond loopback, --token is required
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    pub listen: SocketAddr,
    /// Require `Authorization: Bearer TOKEN` on every request (compared in constant time)
    #[arg(
        long,
        env = "PAYCTL_SERVE_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    pub token: Option<String>,
    /// Run no background worker: leave it to `payctl worker` or to POST /_payctl/worker
    #[arg(long)]
    pub no_worker: bool,
    /// Seconds between passes of the background worker (0.01-86400)
    #[arg(long, default_value_t = 2.0, value_name = "SECS", conflicts_with = "no_worker", value_parser = super::worker::parse_interval)]
    pub worker_interval: f64,
    /// Largest request body in bytes (larger: 413)
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..=(64 << 20)))]
    pub max_body: u64,
    /// Seconds a client has to send its headers, and then its body (then the connection is closed, or 400)
    #[arg(long, default_value_t = 30.0, value_name = "SECS", value_parser = super::args::parse_secs)]
    pub request_timeout: f64,
    /// No access log on stderr
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

impl ServeArgs {
    pub fn exec(self, g: &Global) -> Result<Response> {
        // Open once before listening: creates or upgrades the store (with
        // its notes) and fails early on a store that cannot be used.
        drop(g.write()?);
        let token = self.token.filter(|t| !t.is_empty());
        if token.as_ref().is_some_and(|t| t.len() < 16) {
            return Err(Error::usage(
                "--token: use at least 16 characters (e.g. `openssl rand -hex 16`)",
            ));
        }
        server::serve(server::Config {
            listen: self.listen,
            token,
            worker_interval: (!self.no_worker)
                .then(|| Duration::from_secs_f64(self.worker_interval)),
            max_body: self.max_body as usize,
            request_timeout: Duration::from_secs_f64(self.request_timeout.max(0.1)),
            quiet: self.quiet,
            actor: g.actor.clone(),
            store: Local {
                data_dir: g.data_dir.clone(),
                database_url: g.database_url.clone(),
                lock_timeout: g.lock_timeout,
                kept: g.database_url.is_none().then(Default::default),
            },
            ui: g.ui,
        })?;
        Ok(Response::Raw(String::new()))
    }
}
