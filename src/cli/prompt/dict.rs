//! Dictionary values named by name: on flags (a clap value parser), in
//! completions and in choice lists, resolved to their ids.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};

use crate::catalog::dictionaries as dict;

/// A dictionary whose values flags and prompts accept by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dict {
    CustomerType,
    AddressType,
    Country,
    State,
    InstrumentType,
    PaymentMethod,
    AchType,
}

/// One value of a dictionary: its id, the name a flag takes (no spaces) and
/// the name people read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub id: u32,
    pub name: &'static str,
    pub display: &'static str,
}

fn entries(e: &'static [dict::Entry]) -> Vec<Choice> {
    e.iter()
        .map(|e| Choice {
            id: e.id,
            name: e.name,
            display: e.display_name,
        })
        .collect()
}

/// Lower case without spaces, `_` and `-`: `Customers of Program` and
/// `customers_of_program` are the same name.
fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

impl Dict {
    /// The name of the dictionary for `payctl dict list NAME`.
    pub fn list_name(self) -> &'static str {
        match self {
            Dict::CustomerType => "customer-types",
            Dict::AddressType => "address-types",
            Dict::Country => "countries",
            Dict::State => "states",
            Dict::InstrumentType => "payment-instrument-types",
            Dict::PaymentMethod => "payment-methods",
            Dict::AchType => "payment-instrument-ach-types",
        }
    }

    /// The values, in id order. States go by their USPS code (`CA`), the
    /// United States by `US`.
    pub fn choices(self) -> Vec<Choice> {
        match self {
            Dict::CustomerType => entries(dict::CUSTOMER_TYPES),
            Dict::AddressType => entries(dict::ADDRESS_TYPES),
            Dict::InstrumentType => entries(dict::PAYMENT_INSTRUMENT_TYPES),
            // Instruments take only ACH: Check is never offered (in help,
            // completions or prompts) since it is always refused there.
            Dict::PaymentMethod => entries(dict::PAYMENT_METHODS)
                .into_iter()
                .filter(|c| c.id == crate::core::instrument::ACH_METHOD)
                .collect(),
            Dict::AchType => entries(dict::ACH_TYPES),
            Dict::Country => dict::COUNTRIES
                .iter()
                .map(|c| Choice {
                    id: c.id,
                    name: c.two_letter_code,
                    display: c.display_name,
                })
                .collect(),
            Dict::State => dict::STATES
                .iter()
                .map(|s| Choice {
                    id: s.id,
                    name: s.short_name,
                    display: s.name,
                })
                .collect(),
        }
    }

    /// The id a user's text names: a whole number is taken as it is (the
    /// rules of the body check it later, as before names were accepted);
    /// otherwise a name, display name or (states, countries) code, in any
    /// case, with or without spaces.
    pub fn resolve(self, text: &str) -> Option<u32> {
        if let Ok(n) = text.parse::<u32>() {
            return Some(n);
        }
        let want = norm(text);
        if want.is_empty() {
            return None;
        }
        let extra: Vec<(u32, &str)> = match self {
            Dict::Country => dict::COUNTRIES
                .iter()
                .flat_map(|c| [(c.id, c.name), (c.id, c.three_letter_code)])
                .collect(),
            _ => Vec::new(),
        };
        self.choices()
            .iter()
            .flat_map(|c| [(c.id, c.name), (c.id, c.display)])
            .chain(extra)
            .find(|(_, n)| norm(n) == want)
            .map(|(id, _)| id)
    }
}

/// The value parser of a dictionary-valued flag: an id or a name (see
/// [`Dict::resolve`]); the names are its possible values, so that shell
/// completions offer them.
#[derive(Debug, Clone, Copy)]
pub struct DictParser(pub Dict);

impl TypedValueParser for DictParser {
    type Value = u32;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> std::result::Result<u32, clap::Error> {
        let text = value.to_str().unwrap_or("");
        if let Some(id) = self.0.resolve(text) {
            return Ok(id);
        }
        let flag = arg.map_or_else(|| "the value".to_string(), |a| format!("'{a}'"));
        let some: Vec<String> = self
            .0
            .choices()
            .iter()
            .take(4)
            .map(|c| format!("{} {}", c.id, c.name))
            .collect();
        let more = if self.0.choices().len() > 4 {
            ", …"
        } else {
            ""
        };
        // The value itself is not repeated (house rule: messages never echo values).
        let msg = format!(
            "invalid value for {flag}: expected an id or a name from `payctl dict list {}` ({}{more})",
            self.0.list_name(),
            some.join(", ")
        );
        let mut cmd = cmd.clone();
        Err(clap::Error::raw(clap::error::ErrorKind::InvalidValue, msg).format(&mut cmd))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.choices().into_iter().map(|c| {
            PossibleValue::new(c.name).help(format!("{} (id {})", c.display, c.id))
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_ids() {
        assert_eq!(Dict::State.resolve("CA"), Some(6));
        assert_eq!(Dict::State.resolve("california"), Some(6));
        assert_eq!(Dict::State.resolve("district of columbia"), Some(10));
        assert_eq!(Dict::State.resolve("6"), Some(6));
        assert_eq!(Dict::State.resolve("99"), Some(99));
        assert_eq!(Dict::State.resolve("Atlantis"), None);
        assert_eq!(Dict::State.resolve(""), None);
        assert_eq!(Dict::AddressType.resolve("Mailing"), Some(1));
        assert_eq!(Dict::InstrumentType.resolve("funding"), Some(1));
        assert_eq!(Dict::AchType.resolve("Checking"), Some(2));
        assert_eq!(Dict::CustomerType.resolve("customers of program"), Some(4));
        assert_eq!(Dict::Country.resolve("USA"), Some(1));
        assert_eq!(Dict::Country.resolve("United States"), Some(1));
    }
}
