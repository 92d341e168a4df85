//! Tables for people (comfy-table). A list shows, per kind of record, the
//! columns an operator scans (the whole record is one `get` or `-o json`
//! away); a single record shows every field as field/value pairs, nested
//! fields flattened to their JSON paths. Dictionary and status ids are shown
//! with their names ("10 Attached"). On a terminal the table fits its width;
//! colour only when [`Style::out_color`] says so.
//!
//! This file prints a response; the columns of each kind of record are in
//! [`columns`], a value's text (dictionary names included) in [`values`],
//! and the comfy-table frame and its cells in [`frame`].

mod columns;
mod frame;
mod values;

use std::io::{self, Write};

use comfy_table::{Cell, ColumnConstraint};

use super::{Response, Style};
use columns::{Col, generic, layout, lookup};
use frame::{body_cell, header, new_table};
use values::{flatten, text};

pub use columns::{TEMPLATE_NAME, TOTAL};

pub fn print(out: &mut impl Write, style: Style, resp: &Response) -> io::Result<()> {
    print_rows(out, style, resp, true)
}

/// A page of a list printed whole (`--all`): its rows without the page's
/// footer, which names a next page that the list fetches itself.
pub fn print_rows(
    out: &mut impl Write,
    style: Style,
    resp: &Response,
    footer: bool,
) -> io::Result<()> {
    match resp {
        Response::Id(id) => writeln!(out, "{}", super::terminal_text(id)),
        Response::Raw(text) => out.write_all(text.as_bytes()),
        Response::Spooled(s) => Ok(super::spool::print(out, style, s)?),
        Response::Records(_, data) if data.len() == 1 => {
            let mut t = new_table(style);
            if style.headers {
                t.set_header(header(style, ["field".into(), "value".into()]));
            }
            let mut rows = Vec::new();
            flatten("", &data[0], &mut rows);
            for (k, v) in rows {
                t.add_row(vec![
                    Cell::new(super::terminal_text(&k)),
                    body_cell(style, v),
                ]);
            }
            writeln!(out, "{t}")
        }
        Response::List { kind, data, .. } | Response::Records(kind, data) => {
            if data.is_empty() {
                if style.headers {
                    writeln!(out, "(no records)")?;
                }
            } else {
                let mut t = new_table(style);
                // On a terminal of a known width a long cell is cut with an
                // ellipsis, never wrapped a character per line.
                let one_line = t.width().is_some();
                t.set_truncation_indicator("…");
                let row = |cells: Vec<Cell>| {
                    let mut r = comfy_table::Row::from(cells);
                    if one_line {
                        r.max_height(1);
                    }
                    r
                };
                match layout(*kind) {
                    Some(cols) => {
                        let is_id = |c: &Col| {
                            c.header.ends_with("_id")
                                || ["customer_key", "template"].contains(&c.header.as_ref())
                        };
                        let cells: Vec<Vec<String>> = data
                            .iter()
                            .map(|rec| cols.iter().map(|c| c.cell(rec)).collect())
                            .collect();
                        // On a narrow terminal the last columns that are not
                        // identifiers are left out until the rest fits with
                        // a few characters each (`-o json` has everything).
                        let mut keep: Vec<usize> = (0..cols.len()).collect();
                        if let Some(width) = t.width().filter(|_| one_line) {
                            let widest = |i: usize| {
                                cells
                                    .iter()
                                    .map(|r| r[i].chars().count())
                                    .chain([cols[i].header.chars().count()])
                                    .max()
                                    .unwrap_or(0)
                            };
                            let need = |keep: &[usize]| {
                                keep.iter()
                                    .map(|&i| {
                                        if is_id(&cols[i]) {
                                            widest(i)
                                        } else {
                                            widest(i).min(10)
                                        }
                                    })
                                    .sum::<usize>()
                                    + 3 * keep.len()
                                    + 1
                            };
                            while need(&keep) > usize::from(width) {
                                match keep.iter().rposition(|&i| !is_id(&cols[i])) {
                                    Some(at) if keep.len() > 1 => {
                                        keep.remove(at);
                                    }
                                    _ => break,
                                }
                            }
                        }
                        if style.headers {
                            let mut h = comfy_table::Row::from(header(
                                style,
                                keep.iter().map(|&i| cols[i].header.to_string()),
                            ));
                            if one_line {
                                h.max_height(1);
                            }
                            t.set_header(h);
                        }
                        for r in &cells {
                            t.add_row(row(keep
                                .iter()
                                .map(|&i| body_cell(style, r[i].clone()))
                                .collect()));
                        }
                        // Identifiers are never cut (people copy them); the
                        // other columns give way, cut with an ellipsis.
                        for (at, &i) in keep.iter().enumerate() {
                            if is_id(&cols[i])
                                && let Some(column) = t.column_mut(at)
                            {
                                column.set_constraint(ColumnConstraint::ContentWidth);
                            }
                        }
                    }
                    None => {
                        let cols = generic(&data[0]);
                        if style.headers {
                            t.set_header(header(style, cols.iter().map(|(h, _)| h.clone())));
                        }
                        for rec in data {
                            t.add_row(row(cols
                                .iter()
                                .map(|(_, p)| body_cell(style, text(lookup(rec, p))))
                                .collect()));
                        }
                    }
                }
                writeln!(out, "{t}")?;
            }
            if let Response::List { paging, .. } = resp
                && footer
                && style.headers
            {
                let more = match &paging.last_evaluated_key {
                    Some(k) => format!("; next page: --after {}", super::terminal_text(k)),
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
