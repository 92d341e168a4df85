//! Webhooks (CLI.md "Events … webhooks"): create, list, get, delete, their
//! delivery attempts, and `events resend`. Delivery itself is in
//! [`super::deliver`].
//!
//! A webhook receives the events committed from its creation on (its own
//! `webhook.created` the first of them: a way to see that the receiver is
//! reachable), whose type matches one of its globs.

use serde_json::Value;

use super::Ctx;
use super::body::{Obj, as_object};
use super::paging::{Page, PageRequest, paginate};
use crate::error::{Error, Errors, Result, code};
use crate::model::event::{self, NewEvent};
use crate::model::id;
use crate::model::webhook::{self, MAX_DESCRIPTION, MAX_GLOBS, MAX_URL, WebhookShown};
pub use crate::model::webhook::{Delivery, Outbox, Webhook};
use crate::store::Store;

/// The fields of a create's body.
pub const FIELDS: &[&str] = &["url", "events", "description"];

/// The answer of `events resend`: the event queued again for the webhook.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[schemars(rename = "WebhookResend")]
pub struct Resend {
    pub event_id: String,
    pub webhook_id: String,
    /// `queued`: the deliverer (`payctl serve`, `payctl webhook deliver`)
    /// sends it once more at its next pass, before the events in order.
    pub status: String,
}

/// Why `url` cannot be a webhook's URL, if it cannot: http or https, a
/// host, at most [`MAX_URL`] characters, no space or control character.
pub fn url_problem(url: &str) -> Option<String> {
    if url.is_empty() || url.len() > MAX_URL {
        return Some(format!("must be a URL of 1-{MAX_URL} characters"));
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("must not hold spaces or control characters".into());
    }
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
    else {
        return Some("must start with http:// or https://".into());
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') {
        return Some("must name a host (http://HOST[:PORT]/PATH)".into());
    }
    match ureq::http::Uri::try_from(url) {
        Ok(u) if u.host().is_some() => None,
        _ => Some("is not a valid URL".into()),
    }
}

/// Why `glob` cannot select events, if it cannot (as `events list --type`).
pub fn glob_problem(glob: &str) -> Option<String> {
    if glob.is_empty() || glob.len() > 200 || !glob.bytes().all(|b| b.is_ascii_graphic()) {
        return Some(
            "each must be an event type or a glob of one (`customer_profile.*`, `*`), 1-200 printable characters"
                .into(),
        );
    }
    if !glob.contains(['*', '?']) && !event::TYPES.contains(&glob) {
        return Some(format!(
            "`{glob}` is not an event type (one of: {})",
            event::TYPES.join(", ")
        ));
    }
    None
}

/// The webhook a create's body asks for (every problem reported at once).
fn parse(body: &Value, ctx: &Ctx) -> Result<Webhook> {
    let mut errs = Errors::new();
    let Some(obj) = as_object(body, "", &mut errs) else {
        return Err(errs.into_error());
    };
    obj.known(FIELDS, &mut errs);
    let url = match obj.get("url") {
        None | Some(Value::Null) => {
            errs.required("url");
            None
        }
        Some(_) => obj.string("url", &mut errs).and_then(|u| {
            let p = url_problem(u);
            if let Some(p) = &p {
                errs.invalid("url", p);
            }
            p.is_none().then(|| u.to_string())
        }),
    };
    let events = globs(&obj, &mut errs);
    let description = match obj.get("description") {
        None | Some(Value::Null) => None,
        Some(_) => obj.string("description", &mut errs).and_then(|d| {
            let n = d.chars().count();
            if n > MAX_DESCRIPTION || d.chars().any(char::is_control) {
                errs.invalid(
                    "description",
                    format!("must be 0-{MAX_DESCRIPTION} characters, without control characters (is {n})"),
                );
                None
            } else {
                Some(d.to_string())
            }
        }),
    };
    errs.into_result(|| {
        Some(Webhook {
            webhook_id: id::new_id(webhook::PREFIX),
            url: url?,
            events: events?,
            description,
            secret: webhook::new_secret(),
            created_datetime: ctx.now.clone(),
            created_by: ctx.actor.clone(),
        })
    })
}

fn globs(obj: &Obj<'_>, errs: &mut Errors) -> Option<Vec<String>> {
    let list = match obj.get("events") {
        None | Some(Value::Null) => return Some(vec!["*".to_string()]),
        Some(_) => obj.array("events", errs)?,
    };
    if list.is_empty() || list.len() > MAX_GLOBS {
        errs.invalid(
            "events",
            format!("must list 1-{MAX_GLOBS} event types or globs (omit it for every event: `*`)"),
        );
        return None;
    }
    let mut out = Vec::new();
    let mark = errs.mark();
    for (i, g) in list.iter().enumerate() {
        let at = format!("events[{i}]");
        match g.as_str() {
            Some(g) => match glob_problem(g) {
                Some(p) => errs.invalid(&at, p),
                None if !out.iter().any(|o| o == g) => out.push(g.to_string()),
                None => {}
            },
            None => errs.push(code::MALFORMED, &at, "must be a string"),
        }
    }
    errs.clean_since(mark).then_some(out)
}

/// How every answer but the create shows a webhook: the URL without its
/// password, the secret reduced to its last 4 characters.
pub fn shown(w: &Webhook) -> WebhookShown {
    WebhookShown {
        webhook_id: w.webhook_id.clone(),
        url: crate::mask::url_password(&w.url),
        events: w.events.clone(),
        description: w.description.clone(),
        secret: webhook::masked_secret(&w.secret),
        created_datetime: w.created_datetime.clone(),
        created_by: w.created_by.clone(),
    }
}

/// The event of a webhook created or deleted (its data: the webhook as
/// shown, never its secret).
fn event_of(w: &Webhook, event_type: &str, ctx: &Ctx) -> NewEvent {
    NewEvent {
        event_type: event_type.to_string(),
        record_id: w.webhook_id.clone(),
        customer_profile_id: None,
        actor: ctx.actor.clone(),
        created_datetime: ctx.now.clone(),
        data: serde_json::to_string(&shown(w)).expect("webhooks serialize"),
    }
}

/// `webhook create`: the webhook with its whole secret (shown this once).
pub fn create(store: &Store, ctx: &Ctx, body: &Value) -> Result<Webhook> {
    let w = parse(body, ctx)?;
    crate::mask::remember(&w.secret);
    // From its creation on: its own `webhook.created` is the first event
    // after the log's end as it is now.
    let outbox = Outbox {
        cursor: store.events_last()?,
        ..Outbox::default()
    };
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.put_webhook(&w, &outbox);
    tx.put_events(vec![event_of(&w, "webhook.created", ctx)]);
    tx.commit()?;
    Ok(w)
}

/// The webhook `id`, secret included, or 20001.
pub fn find(store: &Store, id: &str) -> Result<Webhook> {
    store
        .webhook(id)?
        .ok_or_else(|| Error::not_found("webhook", id))
}

/// `webhook get`.
pub fn get(store: &Store, id: &str) -> Result<WebhookShown> {
    Ok(shown(&find(store, id)?))
}

/// `webhook list`: oldest first.
pub fn list(store: &Store, req: &PageRequest) -> Result<Page<WebhookShown>> {
    let all: Vec<WebhookShown> = store.webhooks()?.iter().map(shown).collect();
    paginate(all, |w| &w.webhook_id, req)
}

/// `webhook delete`: no more deliveries; its attempts stay on record.
pub fn delete(store: &Store, ctx: &Ctx, id: &str) -> Result<String> {
    let w = find(store, id)?;
    let mut tx = store.begin_by(&ctx.actor, &ctx.now);
    tx.delete_webhook(&w.webhook_id);
    tx.put_events(vec![event_of(&w, "webhook.deleted", ctx)]);
    tx.commit()?;
    Ok(w.webhook_id)
}

/// `webhook deliveries`: every attempt, oldest first.
pub fn deliveries(store: &Store, id: &str, req: &PageRequest) -> Result<Page<Delivery>> {
    find(store, id)?;
    paginate(store.deliveries(id)?, |d| &d.delivery_id, req)
}

/// `events resend EVT --webhook WHK`: the event queued for the webhook
/// once more (out of order; one attempt, recorded with the others).
pub fn resend(store: &Store, event_id: &str, body: &Value) -> Result<Resend> {
    let Some(whk) = body.get("webhook_id").and_then(Value::as_str) else {
        let mut errs = Errors::new();
        if let Some(obj) = as_object(body, "", &mut errs) {
            obj.known(&["webhook_id"], &mut errs);
            match obj.get("webhook_id") {
                None | Some(Value::Null) => errs.required("webhook_id"),
                Some(_) => {
                    obj.string("webhook_id", &mut errs);
                }
            }
        }
        return Err(errs.into_error());
    };
    let mut errs = Errors::new();
    if let Some(obj) = as_object(body, "", &mut errs) {
        obj.known(&["webhook_id"], &mut errs);
    }
    errs.finish()?;
    let w = find(store, whk)?;
    let e = super::events::get(store, event_id)?;
    let mut outbox = store.outbox(&w.webhook_id)?;
    if !outbox.resend.contains(&e.event_id) {
        outbox.resend.push(e.event_id.clone());
        let mut tx = store.begin_without_events();
        tx.put_outbox(&w.webhook_id, &outbox);
        tx.commit()?;
    }
    Ok(Resend {
        event_id: e.event_id,
        webhook_id: w.webhook_id,
        status: "queued".into(),
    })
}
