//! A form: the required fields of a create body, how each is asked for and
//! checked; and a create run asking for what the body lacks, and again for
//! the fields it refuses that were asked in this run.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::Dict;
use crate::cli::Global;
use crate::error::{ApiError, Error, ErrorKind, Result};
use crate::output::mask::message;
use crate::output::ui::Ui;

/// How a field is asked for.
pub enum Ask {
    /// Free text.
    Text,
    /// A sensitive value (an account or routing number): typed without echo,
    /// then shown as its last 4 digits only.
    Secret,
    /// Yes or no.
    Bool,
    /// A choice list of a dictionary's values, by name; the answer is the id.
    Dict(Dict),
    /// A choice list of (value, label), e.g. the catalog's programs.
    OneOf(Vec<(Value, String)>),
    /// `KEY=VALUE` pairs separated by commas, as a tags array.
    Tags,
}

/// A required field of a create body.
pub struct Field {
    /// The field's JSON path (dot-separated), as error messages name it.
    pub path: &'static str,
    /// What the prompt says (a rule it states comes from core).
    pub prompt: String,
    pub ask: Ask,
}

/// The messages of the errors of field `path` in a body.
pub type Check<'a> = Box<dyn Fn(&Value, &str) -> Vec<String> + 'a>;

/// The required fields of a create, and how an answer is checked.
pub struct Form<'a> {
    pub fields: Vec<Field>,
    pub check: Check<'a>,
}

fn get<'v>(body: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(body, |v, k| v.get(k))
        .filter(|v| !v.is_null())
}

fn set(body: &mut Value, path: &str, value: Value) {
    let mut cur = body;
    let parts: Vec<&str> = path.split('.').collect();
    for (i, k) in parts.iter().enumerate() {
        let Some(map) = cur.as_object_mut() else {
            return;
        };
        if i + 1 == parts.len() {
            map.insert(k.to_string(), value);
            return;
        }
        let slot = map
            .entry(k.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        cur = slot;
    }
}

fn remove(body: &mut Value, path: &str) {
    let (parent, last) = match path.rsplit_once('.') {
        Some((p, l)) => (p.split('.').try_fold(&mut *body, |v, k| v.get_mut(k)), l),
        None => (Some(body), path),
    };
    if let Some(Value::Object(m)) = parent {
        m.remove(last);
    }
}

/// `KEY=VALUE, KEY=VALUE` as a tags array.
fn parse_tags(text: &str) -> std::result::Result<Value, String> {
    let mut tags = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| "expected KEY=VALUE pairs separated by commas".to_string())?;
        tags.push(serde_json::json!({"key": k.trim(), "value": v.trim()}));
    }
    Ok(Value::Array(tags))
}

fn unreadable(path: &str, e: dialoguer::Error) -> Error {
    Error::usage(format!("{path}: no answer could be read ({e})"))
}

impl Form<'_> {
    /// Ask for every field of the form the body lacks; remember which.
    fn ask_missing(
        &self,
        ui: &Ui,
        body: &mut Value,
        asked: &mut HashSet<&'static str>,
    ) -> Result<()> {
        if !body.is_object() {
            return Ok(());
        }
        for f in &self.fields {
            if get(body, f.path).is_some() {
                continue;
            }
            let value = self.ask(ui, body, f)?;
            set(body, f.path, value);
            asked.insert(f.path);
        }
        Ok(())
    }

    /// The errors of `f` if `body` had `value` there, joined for the prompt.
    fn errors_with(
        &self,
        body: &Value,
        f: &Field,
        value: Value,
    ) -> std::result::Result<(), String> {
        let mut trial = body.clone();
        set(&mut trial, f.path, value);
        let errs = (self.check)(&trial, f.path);
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("; "))
        }
    }

    fn ask(&self, ui: &Ui, body: &Value, f: &Field) -> Result<Value> {
        let term = ui.prompt_term();
        let choose = |labels: &[String]| -> Result<usize> {
            dialoguer::Select::new()
                .with_prompt(&f.prompt)
                .items(labels)
                .default(0)
                .max_length(12)
                .interact_on(&term)
                .map_err(|e| unreadable(f.path, e))
        };
        loop {
            let value = match &f.ask {
                Ask::Text => {
                    let text: String = dialoguer::Input::new()
                        .with_prompt(&f.prompt)
                        .allow_empty(true)
                        .validate_with(|s: &String| {
                            self.errors_with(body, f, Value::String(s.clone()))
                        })
                        .interact_text_on(&term)
                        .map_err(|e| unreadable(f.path, e))?;
                    Value::String(text)
                }
                Ask::Secret => {
                    let text: String = dialoguer::Password::new()
                        .with_prompt(&f.prompt)
                        .allow_empty_password(true)
                        .report(false)
                        .validate_with(|s: &String| {
                            self.errors_with(body, f, Value::String(s.clone()))
                        })
                        .interact_on(&term)
                        .map_err(|e| unreadable(f.path, e))?;
                    crate::output::mask::remember(&text);
                    ui.err_line(format_args!(
                        "{}: …{} (hidden; last 4 shown)",
                        f.prompt,
                        crate::output::mask::last4(&text)
                    ));
                    Value::String(text)
                }
                Ask::Tags => {
                    let text: String = dialoguer::Input::new()
                        .with_prompt(&f.prompt)
                        .allow_empty(true)
                        .validate_with(|s: &String| self.errors_with(body, f, parse_tags(s)?))
                        .interact_text_on(&term)
                        .map_err(|e| unreadable(f.path, e))?;
                    parse_tags(&text).unwrap_or(Value::Null)
                }
                Ask::Bool => Value::Bool(
                    dialoguer::Confirm::new()
                        .with_prompt(&f.prompt)
                        .default(false)
                        .interact_on(&term)
                        .map_err(|e| unreadable(f.path, e))?,
                ),
                Ask::Dict(d) => {
                    let choices = d.choices();
                    let labels: Vec<String> = choices
                        .iter()
                        .map(|c| match d {
                            Dict::State | Dict::Country => format!("{:<3} {}", c.name, c.display),
                            _ => c.display.to_string(),
                        })
                        .collect();
                    Value::from(choices[choose(&labels)?].id)
                }
                Ask::OneOf(options) => {
                    let labels: Vec<String> = options.iter().map(|(_, l)| l.clone()).collect();
                    options[choose(&labels)?].0.clone()
                }
            };
            // Text answers were checked as they were typed; a choice is checked here.
            match self.errors_with(body, f, value.clone()) {
                Ok(()) => return Ok(value),
                Err(why) => ui.err_line(message(&why)),
            }
        }
    }

    /// The field of `self` that error `e` is about.
    fn named(&self, e: &ApiError) -> Option<&'static str> {
        self.fields
            .iter()
            .map(|f| f.path)
            .find(|p| e.path.as_deref() == Some(*p))
    }
}

/// Run `create` with `body`; on a terminal, first ask for the required fields
/// the body lacks (the [`Form`] is built only then), and when the create
/// refuses only fields asked in this run, show why and ask them again.
pub fn create_asking<'g, T>(
    g: &'g Global,
    mut body: Value,
    form: impl FnOnce() -> Result<Form<'g>>,
    mut create: impl FnMut(&Value) -> Result<T>,
) -> Result<T> {
    if !g.ui.interactive() || !body.is_object() {
        return create(&body);
    }
    let form = form()?;
    let mut asked = HashSet::new();
    form.ask_missing(&g.ui, &mut body, &mut asked)?;
    loop {
        let err = match create(&body) {
            Err(e) if e.kind == ErrorKind::Refused => e,
            other => return other,
        };
        let named: Vec<Option<&'static str>> = err.errors.iter().map(|e| form.named(e)).collect();
        if named.iter().any(|n| n.is_none_or(|p| !asked.contains(p))) {
            return Err(err);
        }
        for e in &err.errors {
            g.ui.err_line(format_args!("error[{}]: {}", e.code, message(&e.message)));
        }
        for p in named.into_iter().flatten() {
            remove(&mut body, p);
        }
        form.ask_missing(&g.ui, &mut body, &mut asked)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        let mut v = serde_json::json!({"a": {"b": 1}});
        set(&mut v, "a.c", Value::from(2));
        set(&mut v, "d.e", Value::from(3));
        assert_eq!(get(&v, "a.c"), Some(&Value::from(2)));
        assert_eq!(get(&v, "d.e"), Some(&Value::from(3)));
        remove(&mut v, "a.b");
        assert_eq!(get(&v, "a.b"), None);
        assert_eq!(
            parse_tags("k=v, x = y").unwrap(),
            serde_json::json!([{"key": "k", "value": "v"}, {"key": "x", "value": "y"}])
        );
        assert!(parse_tags("kv").is_err());
    }
}
