//! Paging of every list: `--page-size`, `--page-number` or `--after KEY`,
//! creation order, `total_count` of every match, `last_evaluated_key` null on
//! the last page.

use serde::Serialize;

use crate::error::{Error, Result, code};
use crate::store::{IdPage, Window};

pub const DEFAULT_PAGE_SIZE: u32 = 50;
pub const MAX_PAGE_SIZE: u32 = 1000;

#[derive(Debug, Clone)]
pub struct PageRequest {
    pub size: u32,
    /// 1-based.
    pub number: Option<u32>,
    /// The `last_evaluated_key` of the previous page.
    pub after: Option<String>,
}

impl Default for PageRequest {
    fn default() -> Self {
        PageRequest {
            size: DEFAULT_PAGE_SIZE,
            number: None,
            after: None,
        }
    }
}

/// The page a list answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Paging {
    /// The records per page asked for (`page_size`, default 50).
    #[schemars(range(min = 1, max = MAX_PAGE_SIZE))]
    pub page_size: u32,
    /// This page's number, from 1.
    #[schemars(range(min = 1))]
    pub page_number: u32,
    /// How many records match, on every page.
    pub total_count: usize,
    /// The key of this page's last record, to send as `last_evaluated_key`
    /// for the next page; null on the last page.
    pub last_evaluated_key: Option<String>,
}

#[derive(Debug)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub paging: Paging,
}

impl<T> Page<T> {
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            paging: self.paging,
        }
    }
    pub fn try_map<U>(self, f: impl FnMut(T) -> Result<U>) -> Result<Page<U>> {
        Ok(Page {
            items: self.items.into_iter().map(f).collect::<Result<_>>()?,
            paging: self.paging,
        })
    }
}

/// Cut one page out of `all` (already filtered, in creation order).
pub fn paginate<T>(all: Vec<T>, key: impl Fn(&T) -> &str, req: &PageRequest) -> Result<Page<T>> {
    let total = all.len();
    let range = window(req)?.range(total, |after| Ok(all.iter().position(|x| key(x) == after)))?;
    let r = range.ok_or_else(not_a_key)?;
    let items: Vec<T> = all.into_iter().skip(r.start).take(r.len()).collect();
    let last = items.last().map(|x| key(x).to_string());
    Ok(page(items, req, r.start, r.end, total, last))
}

/// The page of a list that a backend cut itself, [`window`] of `req`
/// (see [`crate::store::Storage::profile_page`]). The same rules,
/// messages and paging as [`paginate`], without holding the whole list.
pub fn from_ids(req: &PageRequest, got: IdPage) -> Result<Page<String>> {
    let r = got.range.ok_or_else(not_a_key)?;
    let last = got.ids.last().cloned();
    Ok(page(got.ids, req, r.start, r.end, got.total, last))
}

/// The records `req` asks for, in the store's terms: its size and page
/// number checked (the key of `--after` is looked for by the list).
pub fn window(req: &PageRequest) -> Result<Window> {
    if req.size == 0 || req.size > MAX_PAGE_SIZE {
        return Err(Error::at(
            code::INVALID_VALUE,
            "page_size",
            format!("must be 1-{MAX_PAGE_SIZE}"),
        ));
    }
    let size = req.size as usize;
    let start = match (&req.after, req.number) {
        (Some(_), _) => 0,
        (None, Some(0)) => {
            return Err(Error::at(
                code::INVALID_VALUE,
                "page_number",
                "pages are numbered from 1",
            ));
        }
        (None, Some(n)) => (n as usize - 1).saturating_mul(size),
        (None, None) => 0,
    };
    Ok(Window {
        after: req.after.clone(),
        start,
        size,
    })
}

/// An `--after` that is not a key of the list.
fn not_a_key() -> Error {
    Error::one(
        code::INVALID_VALUE,
        "last_evaluated_key (--after): is not a key of this list (give the last_evaluated_key of the previous page)",
    )
}

/// The page of `items` at `start..end` of `total`; `last` is the key of its last record.
fn page<T>(
    items: Vec<T>,
    req: &PageRequest,
    start: usize,
    end: usize,
    total: usize,
    last: Option<String>,
) -> Page<T> {
    Page {
        paging: Paging {
            page_size: req.size,
            page_number: u32::try_from(start / req.size as usize + 1).unwrap_or(u32::MAX),
            total_count: total,
            last_evaluated_key: if end < total { last } else { None },
        },
        items,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("k{i}")).collect()
    }

    #[test]
    fn pages_and_keys() {
        let req = PageRequest {
            size: 2,
            number: None,
            after: None,
        };
        let p = paginate(ids(5), |s| s, &req).unwrap();
        assert_eq!(p.items, ["k0", "k1"]);
        assert_eq!(p.paging.last_evaluated_key.as_deref(), Some("k1"));
        let req = PageRequest {
            size: 2,
            number: None,
            after: Some("k3".into()),
        };
        let p = paginate(ids(5), |s| s, &req).unwrap();
        assert_eq!(p.items, ["k4"]);
        assert_eq!(p.paging.last_evaluated_key, None);
        assert_eq!(p.paging.page_number, 3);
        let req = PageRequest {
            size: 2,
            number: Some(3),
            after: None,
        };
        let p = paginate(ids(6), |s| s, &req).unwrap();
        assert_eq!(p.items, ["k4", "k5"]);
        assert_eq!(p.paging.last_evaluated_key, None);
        assert_eq!(p.paging.total_count, 6);
    }
}
