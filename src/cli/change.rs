//! A create or an update of a record from flags, as `address`,
//! `instrument` and `profile` do it: the body (`--body`) with the field
//! flags over it; a create asks on a terminal for what the body lacks and
//! is sent with `--idempotency-key`; an update's answer is shown as the
//! record in a table. Each command keeps its endpoint, its flags and its form.

use serde_json::Value;

use super::Global;
use super::args::{BodyArg, DryRunArg, IdempotencyArg};
use super::prompt::{self, Form};
use crate::api::endpoints::Request;
use crate::error::Result;
use crate::output::Response;

/// A command's field flags, each set one written over the body.
pub trait Fields {
    fn over(&self, body: Value) -> Value;
}

impl Global {
    /// `req` (its endpoint and path) with the body of `body` and `fields`,
    /// asked for with `form` on a terminal (see [`prompt::create_asking`]).
    pub fn create<'g>(
        &'g self,
        req: Request,
        body: &BodyArg,
        fields: &impl Fields,
        idem: &IdempotencyArg,
        dry: &DryRunArg,
        form: impl FnOnce() -> Result<Form<'g>>,
    ) -> Result<Response> {
        idem.check()?;
        let body = fields.over(body.read()?);
        prompt::create_asking(self, body, form, |body| {
            self.call(
                req.clone()
                    .body(body.clone())
                    .idempotency_key(idem.idempotency_key.clone())
                    .dry_run(dry.dry_run),
            )
        })
    }

    /// `req` with the body of `body` and `fields`; in a table, the record
    /// read back with `get` (see [`Global::shown`]).
    pub fn update(
        &self,
        req: Request,
        body: &BodyArg,
        fields: &impl Fields,
        dry: &DryRunArg,
        get: impl FnOnce(&str) -> Request,
    ) -> Result<Response> {
        let body = fields.over(body.read()?);
        let updated = self.call(req.body(body).dry_run(dry.dry_run))?;
        self.shown(updated, get)
    }
}
