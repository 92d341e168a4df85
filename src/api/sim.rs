//! The routes of issue 37 (`/_payctl/snapshots…`, `/_payctl/reset`,
//! `/_payctl/rules…`: admin, as every route under `/_payctl/`), the reads
//! that `--after-polls` counts, and the request body of a rule in the
//! OpenAPI document.

use serde_json::{Value, json};

use super::endpoints::{Backend, Op, Request, body_of};
use crate::core::{self, Ctx, sim, snapshot};
use crate::error::{Error, Result, code};
use crate::model::sim_rule::RuleOn;
use crate::output::Response;
use crate::store::Store;

/// Serve a route of issue 37.
pub(super) fn serve(b: &dyn Backend, ctx: &Ctx, req: &Request) -> Result<Response> {
    let kind = req.endpoint.kind;
    let page = &req.query.page;
    let p = |i| req.param(i);
    if req.dry_run && req.endpoint.method != super::endpoints::Method::Get {
        return Err(Error::one(
            code::INVALID_VALUE,
            format!(
                "header Payctl-Dry-Run: {} {} has no dry run: nothing was changed",
                req.endpoint.method.as_str(),
                req.endpoint.path
            ),
        ));
    }
    Ok(match req.endpoint.op {
        Op::SnapshotSave => Response::one(kind, &snapshot::save(&b.write()?, ctx, p(0))?),
        Op::SnapshotList => Response::page(kind, snapshot::list(&b.read()?, page)?),
        Op::SnapshotRestore => Response::one(kind, &snapshot::restore(&b.write()?, ctx, p(0))?),
        Op::SnapshotDelete => Response::Id(snapshot::delete(&b.write()?, p(0))?),
        Op::Reset => Response::one(kind, &snapshot::reset(&b.write()?, ctx)?),
        Op::RuleAdd => Response::one(kind, &sim::add_rule(&b.write()?, ctx, &body_of(req))?),
        Op::RuleList => Response::page(kind, sim::list_rules(&b.read()?, page)?),
        Op::RuleDelete => Response::Id(sim::delete_rule(&b.write()?, p(0))?),
        other => {
            return Err(Error::store(
                code::STORE_IO,
                format!("{other:?} is not a route of issue 37"),
            ));
        }
    })
}

/// The store opened for reading for the GET `req` of a transaction, its
/// steps or a profile-program record, the read counted for `--after-polls`
/// first ([`sim::polled`]). Counting never fails the read: a store that
/// cannot take the count (a read-only one) answers all the same.
pub(super) fn polled(b: &dyn Backend, req: &Request) -> Result<Store> {
    let store = b.read()?;
    let what = match req.endpoint.op {
        Op::AttachmentGet => sim::Polled::Attachment {
            program_id: req.param(0),
            customer_id: req.param(1),
        },
        _ => sim::Polled::Transaction(req.param(0)),
    };
    let _ = sim::polled(&store, what);
    Ok(store)
}

/// `RuleCreate`: the body of `POST /_payctl/rules`, from the core's rules.
pub(super) fn rule_create_schema() -> Value {
    let fields = |on: RuleOn| match on {
        RuleOn::Attach => sim::attach_fields().join(", ") + ", tag:KEY",
        RuleOn::Step => sim::step_fields().join(", "),
    };
    json!({
        "type": "object",
        "additionalProperties": false,
        "required": ["on"],
        "description": "An outcome rule (`payctl sim rule add`): the first rule that matches an item decides; it needs at least one of `outcome`, `after`, `after_polls`.",
        "properties": {
            "on": {"type": "string", "enum": ["attach", "step"], "description": "the work it applies to"},
            "when": {"type": ["string", "null"], "minLength": 3, "maxLength": core::sim::MAX_WHEN,
                "pattern": "^[^=~]+[=~]",
                "description": format!("`FIELD=VALUE` or `FIELD~REGEX`; on attach: {}; on step: {}", fields(RuleOn::Attach), fields(RuleOn::Step))},
            "outcome": {"type": ["string", "null"], "enum": ["rejected", "failed", null],
                "description": "`rejected` on attach, `failed` on step"},
            "reason": {"type": ["string", "null"], "minLength": 1, "maxLength": core::sim::MAX_REASON,
                "description": "the status reason of the outcome (only with `outcome`)"},
            "after": {"type": ["integer", "null"], "minimum": 1, "maximum": core::sim::MAX_AFTER,
                "description": "seconds the item waits before the worker takes it"},
            "after_polls": {"type": ["integer", "null"], "minimum": 1, "maximum": core::sim::MAX_POLLS,
                "description": "the item is taken only after this many reads of it"}
        }
    })
}
