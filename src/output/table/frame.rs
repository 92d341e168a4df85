//! The comfy-table frame: a new table fit to the terminal (or bare rows for
//! `--no-headers`), its header cells, and body cells coloured by the status
//! they name.

use comfy_table::{Attribute, Cell, Color, ContentArrangement, Table, presets};

use crate::output::Style;

pub(super) fn new_table(style: Style) -> Table {
    let mut t = Table::new();
    // `--no-headers`: rows only, columns separated by spaces (for `awk`).
    t.load_preset(if style.headers {
        presets::UTF8_FULL_CONDENSED
    } else {
        presets::NOTHING
    })
    .set_content_arrangement(ContentArrangement::Dynamic);
    if style.out_color {
        // Asked for (--color always) even when stdout is not a terminal.
        t.enforce_styling();
    }
    // A terminal that reports no width (a pty under `script`, some CI
    // runners) would wrap every column to one character: use $COLUMNS,
    // else 80.
    if t.width().is_some_and(|w| w < MIN_WIDTH) {
        t.set_width(style.columns.filter(|&c| c >= MIN_WIDTH).unwrap_or(80));
    }
    t
}

/// Below this, a terminal's reported width is taken as unknown.
const MIN_WIDTH: u16 = 10;

pub(super) fn header(style: Style, names: impl IntoIterator<Item = String>) -> Vec<Cell> {
    names
        .into_iter()
        .map(|h| {
            let c = Cell::new(crate::output::terminal_text(&h));
            if style.out_color {
                c.add_attribute(Attribute::Bold)
            } else {
                c
            }
        })
        .collect()
}

/// A cell, coloured by the status its text names when colour is on.
pub(super) fn body_cell(style: Style, text: String) -> Cell {
    let text = crate::output::terminal_text(&text).into_owned();
    if !style.out_color {
        return Cell::new(text);
    }
    let status = text.split_once(' ').map_or("", |(_, name)| name);
    let color = match status {
        "Completed" | "Attached" | "Active" => Some(Color::Green),
        "Failed" | "Rejected" => Some(Color::Red),
        "Pending" | "Created" | "Processing" => Some(Color::Yellow),
        "Cancelled" => Some(Color::DarkGrey),
        _ => None,
    };
    match color {
        Some(c) => Cell::new(text).fg(c),
        None => Cell::new(text),
    }
}
