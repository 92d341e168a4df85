//! `payctl serve`'s access log: one line per request on stderr. Paths are
//! logged as the messages show ids (digit runs masked, see
//! [`masked_path`]); nothing else of the request is logged, so no secret
//! (a token, a body) can reach the log.

use super::endpoints;
use crate::output;

/// Text of a client's, shortened and escaped for a log line.
pub fn shown(s: &str, max: usize) -> String {
    let mut t: String = s
        .chars()
        .take(max)
        .collect::<String>()
        .escape_debug()
        .to_string();
    if s.chars().count() > max {
        t.push('…');
    }
    t
}

/// A requested path as the access log shows it: each segment as sent,
/// unless, once decoded, it has a run of digits that the messages mask (see
/// [`crate::error::shown_id`]): then that segment as they show it.
pub fn masked_path(path: &str) -> String {
    path.split('/')
        .map(|seg| {
            let decoded = endpoints::percent_decode(seg, false).unwrap_or_else(|| seg.to_string());
            let masked = output::mask::mask_text(&decoded);
            if masked == decoded {
                seg.to_string()
            } else {
                masked
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}
