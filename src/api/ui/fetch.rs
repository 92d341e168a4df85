//! How a console page reads the store: through the endpoint table, exactly
//! as `GET` over HTTP would, with the caller's role checked by the same
//! rule ([`auth::allow`]) and the answer taken from the masked envelope
//! ([`output::success_envelope`]). A page therefore shows what the API
//! answers, masking included, and cannot disagree with it.

use std::collections::HashMap;

use serde_json::Value;

use crate::api::Local;
use crate::api::auth::{self, Caller};
use crate::api::endpoints::{self, Endpoint, Op, Params, Request};
use crate::core::Ctx;
use crate::core::paging::{MAX_PAGE_SIZE, PageRequest, Paging};
use crate::error::Result;
use crate::output;

/// A page's reader of the API: the store, and who is looking.
pub struct Api {
    pub store: Local,
    pub caller: Caller,
    ctx: Ctx,
}

/// One answer: its records and, for a list, its paging.
pub struct Answer {
    pub data: Vec<Value>,
    pub paging: Option<Paging>,
}

impl Api {
    pub fn new(store: Local, caller: Caller) -> Api {
        let actor = match &caller {
            Caller::Key { name, .. } => name.clone(),
            _ => "console".to_string(),
        };
        Api {
            store,
            caller,
            ctx: Ctx::new(&actor, chrono::Utc::now().naive_utc()),
        }
    }

    /// `GET` of the endpoint of `op` with the path's `ids` and `query`.
    pub fn get(&self, op: Op, ids: &[&str], query: Params) -> Result<Answer> {
        self.get_at(Endpoint::of(op), ids, query)
    }

    fn get_at(&self, endpoint: &'static Endpoint, ids: &[&str], query: Params) -> Result<Answer> {
        let req = Request::to(endpoint).at(ids.iter().copied()).query(query);
        auth::allow(&self.caller, endpoint, "GET", &req.path())?;
        let resp = endpoints::call(&self.store, &self.ctx, &req)?;
        let mut envelope = output::success_envelope(&resp);
        let data = match envelope["data"].take() {
            Value::Array(a) => a,
            _ => Vec::new(),
        };
        let paging = serde_json::from_value(envelope["paging"].take()).ok();
        Ok(Answer { data, paging })
    }

    /// The one record of a get.
    pub fn one(&self, op: Op, ids: &[&str]) -> Result<Value> {
        Ok(self
            .get(op, ids, Params::default())?
            .data
            .into_iter()
            .next()
            .unwrap_or(Value::Null))
    }

    /// A list of up to `size` records (its first page).
    pub fn first(&self, op: Op, ids: &[&str], size: u32) -> Result<Answer> {
        let query = Params {
            page: PageRequest {
                size: size.min(MAX_PAGE_SIZE),
                ..Default::default()
            },
            ..Default::default()
        };
        self.get(op, ids, query)
    }

    /// The dictionary `name` (`transaction-statuses`) as id to display name.
    pub fn dict(&self, name: &str) -> Dict {
        let Some(endpoint) = Endpoint::dictionary(name) else {
            return Dict::default();
        };
        let query = Params {
            page: PageRequest {
                size: MAX_PAGE_SIZE,
                ..Default::default()
            },
            ..Default::default()
        };
        // A dictionary is a label: a page without it shows the bare ids.
        let data = self
            .get_at(endpoint, &[], query)
            .map(|a| a.data)
            .unwrap_or_default();
        Dict::from_records(&data)
    }

    /// The states of the country `country_id`, as id to display name.
    pub fn states(&self, country_id: &str) -> Dict {
        let data = self
            .first(Op::DictStates, &[country_id], MAX_PAGE_SIZE)
            .map(|a| a.data)
            .unwrap_or_default();
        Dict::from_records(&data)
    }

    /// The `name_field` of the record of `records` whose `id_field` is
    /// `id`; the id itself when none is.
    pub fn name_of(records: &[Value], id_field: &str, id: &Value, name_field: &str) -> String {
        records
            .iter()
            .find(|r| &r[id_field] == id)
            .and_then(|r| r[name_field].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| text(id))
    }
}

/// A dictionary's entries: id (as text) to display name.
#[derive(Debug, Default)]
pub struct Dict(HashMap<String, String>);

impl Dict {
    /// From the records of a dictionary endpoint: the first field is the id;
    /// the name is the `…_display_name`, else the `…_name`.
    fn from_records(records: &[Value]) -> Dict {
        let mut map = HashMap::new();
        for r in records {
            let Some(obj) = r.as_object() else { continue };
            let Some(id) = obj.values().next() else {
                continue;
            };
            let field = |suffix: &str| {
                obj.iter()
                    .find(|(k, v)| k.ends_with(suffix) && v.is_string())
                    .and_then(|(_, v)| v.as_str())
            };
            if let Some(name) = field("_display_name").or_else(|| field("_name")) {
                map.insert(text(id), name.to_string());
            }
        }
        Dict(map)
    }

    /// The name of `id`, or the id itself when the dictionary has none.
    pub fn name(&self, id: &Value) -> String {
        let key = text(id);
        self.0.get(&key).cloned().unwrap_or(key)
    }
}

/// A JSON value as a page shows it: a string without its quotes, a number
/// with its exact digits, null as empty.
pub fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
