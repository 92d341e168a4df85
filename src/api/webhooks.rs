//! The webhook routes of the endpoint table (`/webhooks`, `POST
//! /events/{id}/resend`): admin only on a server with keys (see
//! [`super::auth::needed`]).

use super::endpoints::{Backend, Op, Request, body_of};
use crate::core::{self, Ctx};
use crate::error::Result;
use crate::output::Response;

/// Serve one of the webhook operations.
pub fn serve(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<Response> {
    // A dry run of a webhook change would still create or delete it: refused.
    if req.dry_run && req.endpoint.method != super::endpoints::Method::Get {
        return Err(crate::error::Error::at(
            crate::error::code::INVALID_VALUE,
            "header Payctl-Dry-Run",
            "webhooks and resends have no dry run: nothing was written",
        ));
    }
    let kind = req.endpoint.kind;
    let page = &req.query.page;
    let p = |i| req.param(i);
    Ok(match req.endpoint.op {
        Op::WebhookCreate => Response::one(
            kind,
            &core::webhooks::create(&b.write()?, ctx, &body_of(req))?,
        ),
        Op::WebhookList => Response::page(kind, core::webhooks::list(&b.read()?, page)?),
        Op::WebhookGet => Response::one(kind, &core::webhooks::get(&b.read()?, p(0))?),
        Op::WebhookDelete => Response::Id(core::webhooks::delete(&b.write()?, ctx, p(0))?),
        Op::WebhookDeliveries => {
            Response::page(kind, core::webhooks::deliveries(&b.read()?, p(0), page)?)
        }
        Op::EventResend => Response::one(
            kind,
            &core::webhooks::resend(&b.write()?, p(0), &body_of(req))?,
        ),
        other => {
            return Err(crate::error::Error::usage(format!(
                "{other:?} is not a webhook operation"
            )));
        }
    })
}
