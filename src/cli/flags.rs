//! Errors that name the flag: a refusal about a field whose value came from
//! a flag says so (`application_id: … (the value of --application)`), and a required
//! field that is missing says which flag gives it. Worked out only when a
//! request was refused, from the parsed command line and the command's
//! arguments (the flags' help lines start with the field they set).

use clap::parser::ValueSource;

use crate::error::{Error, ErrorKind, code};

/// The leaf subcommand of `m` in `cmd`, and its matches.
fn leaf<'a>(
    cmd: &'a clap::Command,
    m: &'a clap::ArgMatches,
) -> (&'a clap::Command, &'a clap::ArgMatches) {
    match m.subcommand() {
        Some((name, sub)) => match cmd.find_subcommand(name) {
            Some(c) => leaf(c, sub),
            None => (cmd, m),
        },
        None => (cmd, m),
    }
}

/// The JSON field a flag sets: the `field:` its help line starts with, else
/// the flag's own id; `--param` and `--tag` set a list of the body.
fn field_of(arg: &clap::Arg) -> Option<String> {
    let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
    if let Some((head, _)) = help.split_once(':')
        && !head.is_empty()
        && head.chars().all(|c| c.is_ascii_lowercase() || c == '_')
    {
        return Some(head.to_string());
    }
    Some(arg.get_id().as_str().to_string())
}

/// Whether the error at JSON `path` concerns the field `field` that a flag
/// with id `id` sets.
fn concerns(path: &str, field: &str, id: &str) -> bool {
    let last = path
        .split(['.', '['])
        .rfind(|s| !s.is_empty() && !s.ends_with(']'))
        .unwrap_or(path);
    let first = path.split(['.', '[']).next().unwrap_or(path);
    last == field
        || first == field
        || (id == "param" && first == "transaction_parameters")
        || (id == "tags" && first.ends_with("_tags"))
}

/// Name the flags in the messages of `err` (a refusal), for the command
/// line `m` of `cmd`.
pub fn name_flags(err: &mut Error, cmd: &clap::Command, m: &clap::ArgMatches) {
    if err.kind != ErrorKind::Refused {
        return;
    }
    let (leaf_cmd, leaf_m) = leaf(cmd, m);
    let flags: Vec<(String, String, bool)> = leaf_cmd
        .get_arguments()
        .filter(|a| !a.is_global_set() && a.get_long().is_some())
        .filter_map(|a| {
            let long = a.get_long()?;
            let given = leaf_m.try_contains_id(a.get_id().as_str()).unwrap_or(false)
                && leaf_m.value_source(a.get_id().as_str()) == Some(ValueSource::CommandLine);
            Some((field_of(a)?, format!("--{long}"), given))
        })
        .collect();
    // With a --body the missing field is the body's to give: its message
    // stays as the service words it.
    let body_given = leaf_m.try_contains_id("body").unwrap_or(false)
        && leaf_m.value_source("body") == Some(ValueSource::CommandLine);
    for e in &mut err.errors {
        let Some(path) = e.path.clone() else {
            continue;
        };
        let id_of = |flag: &str| flag.trim_start_matches("--").replace('-', "_");
        let Some((_, flag, given)) = flags
            .iter()
            .find(|(field, flag, _)| concerns(&path, field, &id_of(flag)))
        else {
            continue;
        };
        // The message keeps its `path: rule` shape; the flag follows.
        if !e.message.starts_with(&format!("{path}: ")) {
            continue;
        }
        if *given {
            e.message.push_str(&format!(" (the value of {flag})"));
        } else if e.code == code::REQUIRED && !body_given {
            e.message
                .push_str(&format!(": give {flag} (or the field in a --body)"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_meet_their_fields() {
        assert!(concerns("application_id", "application_id", "application"));
        assert!(concerns(
            "customer_profile_individual.first_name",
            "first_name",
            "first_name"
        ));
        assert!(concerns("transaction_parameters[0]", "param", "param"));
        assert!(concerns("payment_instrument_tags[1].key", "tags", "tags"));
        assert!(!concerns("customer_key", "first_name", "first_name"));
    }
}
