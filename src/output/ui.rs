//! The one owner of stdout and stderr (as cargo's `Shell`, gh's `IOStreams`):
//! the output format, colour, whether a person can be asked (prompts), and
//! every write to the two streams go through a [`Ui`]. Commands, the worker's
//! `--watch` lines, `payctl serve`'s log lines, progress bars and prompts all
//! write here, so what reaches a stream is decided in one place; the lints
//! (`print_stdout`, `print_stderr`, `disallowed-methods` on `std::io::stdout`
//! and `std::io::stderr`, see `clippy.toml`) keep it so.
//!
//! It lives in `output/`, not `cli/`: the HTTP server (`api::server`) writes
//! its log lines through it too, and `cli/` depends on `api/`, never the
//! reverse; `output/` is the layer both already use to render. What it
//! decides from the environment (`NO_COLOR`, `$COLUMNS`) is read by `cli/`,
//! the only layer that reads the environment, and handed in as [`Settings`];
//! whether the streams are terminals it asks itself.

// This module is the only place allowed to touch the process's streams.
#![allow(clippy::disallowed_methods)]

use std::fmt::Display;
use std::io::{self, IsTerminal, Write};

use super::{Format, Response, Style};
use crate::error::Error;

/// `--color`: when tables and error lines are coloured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    Auto,
    Always,
    Never,
}

/// What the command line and the environment say about output.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// `-o` / `PAYCTL_OUTPUT`; None: table on a terminal, else json.
    pub output: Option<Format>,
    pub color: ColorWhen,
    /// `--no-input` / `PAYCTL_NO_INPUT`: never prompt.
    pub no_input: bool,
    /// `NO_COLOR` is set (and not empty).
    pub no_color: bool,
    /// `$COLUMNS`, when it is a number: the width of a terminal that reports none.
    pub columns: Option<u16>,
    /// `--no-headers`: tables without their header row and footer.
    pub no_headers: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            output: None,
            color: ColorWhen::Auto,
            no_input: false,
            no_color: false,
            columns: None,
            no_headers: false,
        }
    }
}

/// The streams of the process and how to write on them. Cheap to copy: the
/// streams themselves are the process's, locked per write.
#[derive(Debug, Clone, Copy)]
pub struct Ui {
    format: Format,
    stdout_tty: bool,
    stderr_tty: bool,
    out_color: bool,
    err_color: bool,
    interactive: bool,
    columns: Option<u16>,
    headers: bool,
}

fn color_enabled(when: ColorWhen, terminal: bool, no_color: bool) -> bool {
    match when {
        ColorWhen::Never => false,
        ColorWhen::Always => true,
        ColorWhen::Auto => terminal && !no_color,
    }
}

impl Ui {
    /// Decide, from `s` and which streams are terminals: the format (table
    /// on a terminal, else json), colour on each stream, and prompts (only
    /// when stdin is a terminal and `--no-input` was not given).
    pub fn new(s: Settings) -> Ui {
        let stdout_tty = io::stdout().is_terminal();
        let stderr_tty = io::stderr().is_terminal();
        Ui {
            format: s.output.unwrap_or(if stdout_tty {
                Format::Table
            } else {
                Format::Json
            }),
            stdout_tty,
            stderr_tty,
            out_color: color_enabled(s.color, stdout_tty, s.no_color),
            err_color: color_enabled(s.color, stderr_tty, s.no_color),
            interactive: !s.no_input && io::stdin().is_terminal(),
            columns: s.columns,
            headers: !s.no_headers,
        }
    }

    /// The output format (`-o`).
    pub fn format(&self) -> Format {
        self.format
    }

    /// Prompts are possible: stdin is a terminal and `--no-input` was not given.
    pub fn interactive(&self) -> bool {
        self.interactive
    }

    /// Colour on stdout (tables, help).
    pub fn out_color(&self) -> bool {
        self.out_color
    }

    /// Colour on stderr (error lines, clap's errors).
    pub fn err_color(&self) -> bool {
        self.err_color
    }

    /// How the renderers print: pretty JSON on a terminal.
    pub fn style(&self) -> Style {
        Style {
            format: self.format,
            pretty: self.stdout_tty,
            color: self.err_color,
            out_color: self.out_color,
            columns: self.columns,
            headers: self.headers,
        }
    }

    /// One line on stderr: a note, a warning, a log line. A stderr that
    /// cannot be written is not an error of the command's.
    pub fn err_line(&self, line: impl Display) {
        let _ = writeln!(io::stderr().lock(), "{line}");
    }

    /// Text on stderr as it is (no newline added).
    pub fn err_text(&self, text: &str) {
        let _ = io::stderr().lock().write_all(text.as_bytes());
    }

    /// Text on stdout as it is, flushed (help and version).
    pub fn out_text(&self, text: &str) -> io::Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(text.as_bytes())?;
        out.flush()
    }

    /// Run `f` on stdout, locked, then flush it.
    pub fn with_stdout<T>(
        &self,
        f: impl FnOnce(&mut io::StdoutLock) -> io::Result<T>,
    ) -> io::Result<T> {
        let mut out = io::stdout().lock();
        let v = f(&mut out)?;
        out.flush()?;
        Ok(v)
    }

    /// Print a command's answer on stdout in the format, flushed.
    pub fn print(&self, resp: &Response) -> io::Result<()> {
        let mut out = io::stdout().lock();
        super::print(&mut out, self.style(), resp)?;
        out.flush()
    }

    /// Print a failure: the envelope on stdout in json format,
    /// `error[CODE]: message` lines on stderr otherwise; flushed.
    pub fn print_error(&self, err: &Error) -> io::Result<()> {
        self.print_error_in(self.style(), err)
    }

    /// [`Ui::print_error`] in another style (a usage error's compact envelope).
    pub fn print_error_in(&self, style: Style, err: &Error) -> io::Result<()> {
        let mut out = io::stdout().lock();
        let mut err_out = io::stderr().lock();
        super::print_error(&mut out, &mut err_out, style, err)?;
        out.flush()
    }

    /// A progress bar on stderr, drawn only when stderr is a terminal
    /// (hidden otherwise: nothing is written).
    pub fn progress_bar(&self) -> indicatif::ProgressBar {
        if self.stderr_tty {
            indicatif::ProgressBar::with_draw_target(
                Some(0),
                indicatif::ProgressDrawTarget::stderr(),
            )
        } else {
            indicatif::ProgressBar::hidden()
        }
    }

    /// Whether progress can be shown (stderr is a terminal).
    pub fn shows_progress(&self) -> bool {
        self.stderr_tty
    }

    /// The terminal prompts are drawn on (stderr, so that stdout keeps only
    /// the answer): `dialoguer`'s `interact_on`.
    pub fn prompt_term(&self) -> dialoguer::console::Term {
        dialoguer::console::Term::stderr()
    }
}
