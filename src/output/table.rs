//! Tables for people (comfy-table): a list as rows, a single record as
//! field/value pairs with nested fields flattened to their JSON paths.

use std::io::{self, Write};

use comfy_table::{ContentArrangement, Table, presets};
use serde_json::Value;

use super::{Response, Style};

fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a) if a.iter().all(|x| x.get("key").is_some() && x.get("value").is_some()) => a
            .iter()
            .map(|t| format!("{}={}", t["key"].as_str().unwrap_or(""), t["value"].as_str().unwrap_or("")))
            .collect::<Vec<_>>()
            .join(", "),
        other => other.to_string(),
    }
}

fn flatten(prefix: &str, v: &Value, rows: &mut Vec<(String, String)>) {
    match v {
        Value::Object(map) => {
            for (k, val) in map {
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                if val.is_object() {
                    flatten(&path, val, rows);
                } else {
                    rows.push((path, cell(val)));
                }
            }
        }
        other => rows.push((prefix.to_string(), cell(other))),
    }
}

fn new_table() -> Table {
    let mut t = Table::new();
    t.load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic);
    t
}

/// Columns of a list: the scalar top-level fields of the first record, plus
/// scalar fields of nested objects one level down (e.g. the individual's names).
fn columns(first: &Value) -> Vec<String> {
    let mut cols = Vec::new();
    if let Some(map) = first.as_object() {
        for (k, v) in map {
            match v {
                Value::Object(inner) => {
                    for (ik, iv) in inner {
                        if !iv.is_object() && !iv.is_array() {
                            cols.push(format!("{k}.{ik}"));
                        }
                    }
                }
                _ if k.ends_with("_by") || k.starts_with("modified") => {}
                _ => cols.push(k.clone()),
            }
        }
    }
    cols
}

fn lookup<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.').fold(v, |acc, k| acc.get(k).unwrap_or(&Value::Null))
}

pub fn print(out: &mut impl Write, _style: Style, resp: &Response) -> io::Result<()> {
    match resp {
        Response::Id(id) => writeln!(out, "{id}"),
        Response::Raw(text) => out.write_all(text.as_bytes()),
        Response::Records(data) if data.len() == 1 => {
            let mut t = new_table();
            t.set_header(["field", "value"]);
            let mut rows = Vec::new();
            flatten("", &data[0], &mut rows);
            for (k, v) in rows {
                t.add_row([k, v]);
            }
            writeln!(out, "{t}")
        }
        Response::List { data, .. } | Response::Records(data) | Response::Unpaged(data) => {
            if data.is_empty() {
                return writeln!(out, "(no records)");
            }
            let cols = columns(&data[0]);
            let mut t = new_table();
            t.set_header(cols.iter().map(|c| c.rsplit('.').next().unwrap_or(c)));
            for rec in data {
                t.add_row(cols.iter().map(|c| cell(lookup(rec, c))));
            }
            writeln!(out, "{t}")?;
            if let Response::List { paging, .. } = resp {
                let more = match &paging.last_evaluated_key {
                    Some(k) => format!("; next page: --after {k}"),
                    None => String::new(),
                };
                writeln!(
                    out,
                    "page {} ({} per page), {} in all{more}",
                    paging.page_number, paging.page_size, paging.total_count
                )?;
            }
            Ok(())
        }
    }
}
