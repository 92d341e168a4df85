//! `serve --rate-limit N`: at most N requests a second per credential, with
//! bursts of N (a token bucket per key: governor's keyed GCRA limiter, whose
//! buckets refill continuously, so a client that keeps to N a second is
//! never refused).
//!
//! A request is counted against the credential it presents: a hash of the
//! secret of its `Authorization` header (the bearer token or API key; the
//! secret itself is not kept), so each key has its own bucket with no change
//! here when keys come. A request without one is counted against its
//! client's address. The check runs at the edge, before the credential is
//! checked and before anything is executed, so a refused request (429,
//! 10012, `Retry-After`) changed nothing and may be sent again whatever its
//! method; a wrong credential only spends its own bucket.
//!
//! `GET /_payctl/health` and `/_payctl/ready` are never limited: a load
//! balancer or an orchestrator polls them, and a refusal there would take
//! the server out of service for being busy.

use std::hash::BuildHasher;
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::extract::ConnectInfo;
use axum::http::{HeaderMap, header};
use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota};

use crate::error::{ApiError, Error, code};

/// Paths that are never limited (see the module doc).
const UNLIMITED: [&str; 2] = ["/_payctl/health", "/_payctl/ready"];
/// Checks between two sweeps of the buckets of credentials and addresses
/// not seen for a second (a full bucket is the same as none).
const SWEEP_EVERY: u64 = 4096;

/// Whose bucket a request spends.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Who {
    /// The hash of the secret of the `Authorization` header.
    Credential(u64),
    /// A request without credential: its client's address.
    Address(IpAddr),
}

pub struct Limiter {
    per_second: NonZeroU32,
    buckets: DefaultKeyedRateLimiter<Who>,
    /// Hashes secrets with keys of this process's own (SipHash, randomly
    /// keyed): a bucket's key says nothing about the secret.
    hasher: std::hash::RandomState,
    checks: AtomicU64,
}

impl Limiter {
    pub fn new(per_second: NonZeroU32) -> Limiter {
        Limiter {
            per_second,
            buckets: DefaultKeyedRateLimiter::keyed(Quota::per_second(per_second)),
            hasher: std::hash::RandomState::new(),
            checks: AtomicU64::new(0),
        }
    }

    /// None: the request may go on; else whose bucket is empty and how
    /// long it needs to hold one request again.
    fn wait(&self, req: &axum::extract::Request) -> Option<(Who, Duration)> {
        if UNLIMITED.contains(&req.uri().path()) {
            return None;
        }
        let peer = req
            .extensions()
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip());
        let who = self.who(req.headers(), peer);
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.buckets.retain_recent();
            self.buckets.shrink_to_fit();
        }
        match self.buckets.check_key(&who) {
            Ok(()) => None,
            Err(not_until) => Some((who, not_until.wait_time_from(self.buckets.clock().now()))),
        }
    }

    fn who(&self, headers: &HeaderMap, peer: Option<IpAddr>) -> Who {
        match headers.get(header::AUTHORIZATION) {
            Some(v) => {
                let v = v.as_bytes();
                // The secret of `Bearer SECRET`; any other scheme whole.
                let secret = match v.get(..7) {
                    Some(p) if p.eq_ignore_ascii_case(b"bearer ") => &v[7..],
                    _ => v,
                };
                Who::Credential(self.hasher.hash_one(secret))
            }
            None => Who::Address(peer.unwrap_or(IpAddr::from([0, 0, 0, 0]))),
        }
    }

    /// The refusal of a request over the limit (10012: 429, with
    /// `Retry-After: 1`, as a bucket of N a second holds a request again
    /// within 1/N s); None when it may go on.
    pub fn check(&self, req: &axum::extract::Request) -> Option<Error> {
        let (who, wait) = self.wait(req)?;
        let secs = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
        let n = self.per_second;
        let whose = match who {
            Who::Credential(_) => "with this credential",
            Who::Address(_) => "from this address without a credential",
        };
        Some(Error::refused(vec![ApiError::new(
            code::TOO_MANY_REQUESTS,
            format!(
                "more than {n} request(s) a second {whose} (the server's --rate-limit); \
                 nothing was done: retry after {secs} s (Retry-After)"
            ),
        )]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(auth: Option<&str>) -> axum::extract::Request {
        let mut b = axum::http::Request::builder().uri("/customer-profiles");
        if let Some(a) = auth {
            b = b.header("Authorization", a);
        }
        let mut r = b.body(axum::body::Body::empty()).unwrap();
        r.extensions_mut()
            .insert(ConnectInfo(SocketAddr::from(([127, 0, 0, 1], 4000))));
        r
    }

    #[test]
    fn each_credential_and_address_has_a_bucket_of_n() {
        let l = Limiter::new(NonZeroU32::new(2).unwrap());
        for who in [None, Some("Bearer a-secret"), Some("bearer another")] {
            assert!(l.check(&req(who)).is_none());
            assert!(l.check(&req(who)).is_none());
            let e = l.check(&req(who)).expect("the third is refused");
            assert_eq!(super::super::status_of(&e), 429);
            assert!(e.first_message().contains("retry after 1 s"), "{e:?}");
        }
        // Health and readiness are never limited.
        let mut h = req(None);
        *h.uri_mut() = "/_payctl/ready".parse().unwrap();
        assert!(l.check(&h).is_none());
    }
}
