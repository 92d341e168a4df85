//! What monitors and load balancers ask `payctl serve`: `GET /_payctl/ready`
//! (the store answers within [`READY_WITHIN`]) and `GET /_payctl/metrics`
//! (see [`super::metrics`]). `GET /_payctl/health` says only that the
//! server is alive, without the store, so that a store held busy for a
//! while never gets a live server restarted.

use std::time::Duration;

use super::Local;
use super::endpoints::{self, Op, Request};
use crate::core::Ctx;
use crate::error::{Error, Result, code};
use crate::output::Response;

/// How long readiness waits for the store's lock or the database.
pub const READY_WITHIN: Duration = Duration::from_secs(2);

/// `store` waiting at most [`READY_WITHIN`] for its lock or a connection.
fn bounded(store: &Local) -> Local {
    let mut b = store.clone();
    b.lock_timeout = b.lock_timeout.min(READY_WITHIN);
    b
}

/// Run `f` on a blocking thread; a store that has not answered within
/// [`READY_WITHIN`] (and a little more, for the lock's own wait) is busy.
async fn within<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    let busy = || {
        Error::store(
            code::STORE_BUSY,
            format!(
                "the store did not answer within {} s",
                READY_WITHIN.as_secs()
            ),
        )
    };
    match tokio::time::timeout(
        READY_WITHIN + Duration::from_millis(500),
        tokio::task::spawn_blocking(f),
    )
    .await
    {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => Err(Error::store(
            code::STORE_IO,
            format!("the readiness check failed inside the server: {e}"),
        )),
        Err(_) => Err(busy()),
    }
}

/// `GET /_payctl/ready`: the table's answer, the store opened for reading
/// and its worker queue read (a query on PostgreSQL), within the bound.
pub async fn ready(store: &Local, actor: &str) -> Result<Response> {
    let b = bounded(store);
    let ctx = Ctx::new(actor, chrono::Utc::now().naive_utc());
    within(move || endpoints::call(&b, &ctx, &Request::new(Op::Ready))).await
}

/// `GET /_payctl/metrics`: the exposition, with the queue depth read now
/// when the store answers within the bound; not to be cached, as every
/// answer.
pub async fn metrics(store: &Local) -> axum::response::Response {
    use axum::http::{HeaderValue, header};
    let b = bounded(store);
    let depth = within(move || {
        use endpoints::Backend;
        Ok(b.read()?.queue()?.len())
    })
    .await
    .ok();
    let mut r = axum::response::Response::new(super::metrics::render(depth).into());
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
    );
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
