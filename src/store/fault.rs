//! Fault injection for crash tests: when `PAYCTL_FAULT` names a point of the
//! write path (`after-write`, `after-sync`, `after-rename`, `before-dir-sync`,
//! `after-journal`, `before-journal-remove`), the process aborts there, as a
//! power cut or `kill -9` would stop it. `PAYCTL_FAULT=after-rename:3` aborts
//! at the third time the point is reached. Unset, this costs one env lookup.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

static TARGET: OnceLock<Option<(String, u32)>> = OnceLock::new();
static HITS: AtomicU32 = AtomicU32::new(0);

pub fn point(name: &str) {
    let target = TARGET.get_or_init(|| {
        let v = std::env::var("PAYCTL_FAULT").ok()?;
        let (n, count) = match v.split_once(':') {
            Some((n, c)) => (n.to_string(), c.parse().unwrap_or(1)),
            None => (v, 1),
        };
        Some((n, count))
    });
    if let Some((n, count)) = target
        && n == name
        && HITS.fetch_add(1, Ordering::SeqCst) + 1 >= *count
    {
        std::process::abort();
    }
}
