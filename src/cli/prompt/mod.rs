//! Asking a person: dictionary values named by name (on flags, in completions
//! and in choice lists), and the required fields a create body still lacks.
//!
//! Prompts happen only when [`Ui::interactive`](crate::output::ui::Ui::interactive)
//! (stdin is a terminal and `--no-input` was not given); they go to the Ui's
//! prompt terminal, stderr (dialoguer), so stdout keeps
//! only the requested output. Each answer is checked with the rules of the
//! body before it is taken; the create itself then checks the whole body
//! again, and when it refuses only fields that were asked for in this run
//! (a customer_key already in use, a program the customer is not attached
//! to), those fields are asked again. A field given by `--body` or a flag is
//! never asked again: its error ends the command as without a terminal.
//!
//! The dictionaries named by name are in `dict.rs`; a form of required
//! fields and the asking in `form.rs`; the forms of the create commands in
//! `creates.rs`.

mod creates;
mod dict;
mod form;

pub use creates::{address_form, instrument_form, profile_form};
pub use dict::{Choice, Dict, DictParser};
pub use form::{Ask, Check, Field, Form, create_asking};
