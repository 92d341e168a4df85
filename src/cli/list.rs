//! Lists page by page: `--all` fetches every page in order (locally and
//! remotely, through the same endpoint table) and prints each as it comes,
//! so that a list of a million records is printed in the memory of a page.

use super::Global;
use super::args::PageArgs;
use crate::api::endpoints::Request;
use crate::core::paging::{MAX_PAGE_SIZE, PageRequest};
use crate::error::Result;
use crate::output::{Response, Stream};

impl Global {
    /// The page of `req` that `page` asks for, or with `--all` every page,
    /// printed as they come (the answer is then printed already: an empty
    /// `Raw`).
    pub fn list(&self, req: Request, page: &PageArgs) -> Result<Response> {
        if !page.all {
            return self.call(req.page(page.request()));
        }
        let size = page.page_size.unwrap_or(MAX_PAGE_SIZE);
        let mut stream = Stream::new(self.ui.style());
        let mut after: Option<String> = None;
        loop {
            let got = self.call(req.clone().page(PageRequest {
                size,
                number: None,
                after: after.clone(),
            }));
            let resp = match got {
                Ok(r) => r,
                Err(e) => {
                    if stream.is_open() {
                        let _ = self.ui.with_stdout(|out| stream.fail(out, &e));
                        self.stream_closed
                            .store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    return Err(e);
                }
            };
            let (next, total) = match &resp {
                Response::List { paging, .. } => {
                    (paging.last_evaluated_key.clone(), paging.total_count)
                }
                // Not a list: printed as it is.
                _ => return Ok(resp),
            };
            self.ui
                .with_stdout(|out| stream.page(out, &resp))
                .map_err(stdout_error)?;
            match next {
                Some(key) if Some(&key) != after.as_ref() => after = Some(key),
                _ => {
                    self.ui
                        .with_stdout(|out| stream.finish(out, total))
                        .map_err(stdout_error)?;
                    return Ok(Response::Raw(String::new()));
                }
            }
        }
    }
}

impl Global {
    /// In a table, the record a change answered with its id (an update, a
    /// create that waited): what a person wants to see, read with `get`.
    /// Every other format keeps the id, as scripts expect.
    pub fn shown(&self, resp: Response, get: impl FnOnce(&str) -> Request) -> Result<Response> {
        match &resp {
            Response::Id(id) if self.ui.format() == crate::output::Format::Table => {
                self.call(get(id))
            }
            _ => Ok(resp),
        }
    }
}

fn stdout_error(e: std::io::Error) -> crate::error::Error {
    crate::error::Error::store(
        crate::error::code::STORE_IO,
        format!("cannot write the list to stdout: {e}"),
    )
}
