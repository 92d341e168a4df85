//! Usage errors (clap's) rendered by us, so that no sensitive value typed on
//! the command line is echoed whole on stderr or in the envelope.
//!
//! clap quotes the arguments it refuses (`unexpected argument '000123456789'
//! found`, `invalid value '…' for '--ssn <SSN>'`). Before its message is
//! printed, every argument that is known to be sensitive (the value of
//! `--ssn`, `--account-number`, `--routing-number`, in either `--flag value`
//! or `--flag=value` form) and every other argument that is a long run of
//! digits and not the value of a known ordinary option (a stray SSN or account
//! number, `--ssn 123456789 987654321`) is reduced to its last 4 characters.
//! The value of an ordinary option (`--page-number 4294967296`) is left whole,
//! so that the message stays true.

use std::collections::HashSet;

use crate::error::Error;
use crate::output::mask::{self, SENSITIVE};
use crate::output::ui::Ui;
use crate::output::{Format, Style};

/// The long names (without `--`) of the options that take a value, over the
/// whole command tree, and of those whose value is sensitive.
fn options(cmd: &clap::Command) -> (HashSet<String>, HashSet<String>) {
    let mut ordinary = HashSet::new();
    let mut sensitive = HashSet::new();
    fn walk(cmd: &clap::Command, ordinary: &mut HashSet<String>, sensitive: &mut HashSet<String>) {
        for a in cmd.get_arguments() {
            if !a.get_action().takes_values() {
                continue;
            }
            let secret = SENSITIVE.contains(&a.get_id().as_str());
            let mut names: Vec<String> = a
                .get_long_and_visible_aliases()
                .unwrap_or_default()
                .into_iter()
                .map(|l| format!("--{l}"))
                .collect();
            if let Some(s) = a.get_short() {
                names.push(format!("-{s}"));
            }
            for n in names {
                if secret {
                    sensitive.insert(n);
                } else {
                    ordinary.insert(n);
                }
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, ordinary, sensitive);
        }
    }
    walk(cmd, &mut ordinary, &mut sensitive);
    (ordinary, sensitive)
}

/// A run of at least 5 digits, possibly with the separators people type in
/// SSNs and account numbers (`123-45-6789`, `1234 5678 9012`).
fn digit_run(s: &str) -> bool {
    s.bytes().filter(u8::is_ascii_digit).count() >= 5
        && s.bytes().all(|b| b.is_ascii_digit() || b" -.".contains(&b))
}

/// The arguments of `args` (without the program name) that must not be shown
/// whole in a usage error.
pub fn secret_args(cmd: &clap::Command, args: &[String]) -> Vec<String> {
    // Only a run of digits or the value of a sensitive option can be kept
    // here: a command line with neither (most) does not need the option
    // names of the whole command tree (walking it was a tenth of the CPU of
    // a `profile get`). The sensitive options have long names only.
    let names_secret = |a: &str| {
        a.starts_with("--")
            && SENSITIVE.iter().any(|s| {
                a.trim_start_matches('-')
                    .split('=')
                    .next()
                    .unwrap_or_default()
                    .replace('-', "_")
                    .contains(s)
            })
    };
    if !args.iter().any(|a| digit_run(a) || names_secret(a)) {
        return Vec::new();
    }
    // The subcommands' arguments are built when one is run (`defer` on
    // every subcommand enum: building them all was most of a point
    // operation's start-up); their names are needed here.
    let mut built = cmd.clone();
    built.build();
    let (ordinary, sensitive) = options(&built);
    let mut out = Vec::new();
    let mut it = args.iter().peekable();
    let mut positional_only = false;
    while let Some(a) = it.next() {
        if positional_only {
            if digit_run(a) {
                out.push(a.clone());
            }
            continue;
        }
        if a == "--" {
            positional_only = true;
            continue;
        }
        if let Some((flag, value)) = a.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            if sensitive.contains(flag) || (!ordinary.contains(flag) && digit_run(value)) {
                out.push(value.to_string());
            }
            continue;
        }
        if sensitive.contains(a.as_str()) {
            // Its value, unless the flag was left without one (`--ssn
            // --email x`: clap then names `--email`, which is no secret).
            let option = |v: &String| {
                v == "--"
                    || ordinary.contains(v.split('=').next().unwrap_or(v))
                    || sensitive.contains(v.split('=').next().unwrap_or(v))
            };
            if it.peek().is_some_and(|v| !option(v))
                && let Some(v) = it.next()
            {
                out.push(v.clone());
            }
            continue;
        }
        if ordinary.contains(a.as_str()) {
            // Its value is an ordinary one: shown as typed.
            it.next();
            continue;
        }
        if digit_run(a) {
            out.push(a.clone());
        }
    }
    out
}

/// `text` with every argument of `secrets` reduced to its last 4 characters.
pub fn scrub(text: &str, secrets: &[String]) -> String {
    let mut secrets: Vec<&String> = secrets.iter().filter(|s| s.chars().count() > 4).collect();
    // Longest first, so that `--ssn=123456789` is masked before `123456789`.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut out = text.to_string();
    for s in secrets {
        out = out.replace(s.as_str(), &format!("…{}", mask::last4(s)));
    }
    out
}

/// clap lists hidden subcommands among the valid ones of "requires a
/// subcommand"; the maintainers' `generate-docs` is not for operators.
fn tidy(text: &str) -> String {
    text.replace(", generate-docs", "")
}

/// Print clap's error (or help) with the secrets of the command line masked;
/// the envelope too in json format. The exit code.
pub fn report(e: &clap::Error, ui: &Ui) -> i32 {
    use clap::error::ErrorKind as K;
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cmd = <super::Cli as clap::CommandFactory>::command();
    let secrets = secret_args(&cmd, &args);
    let help = matches!(e.kind(), K::DisplayHelp | K::DisplayVersion);
    let color = if help { ui.out_color() } else { ui.err_color() };
    let styled = e.render();
    let text = if color {
        styled.ansi().to_string()
    } else {
        styled.to_string()
    };
    let text = tidy(&scrub(&text, &secrets));
    match e.kind() {
        K::DisplayHelp | K::DisplayVersion => {
            // Help and version go to stdout, as clap prints them.
            let _ = ui.out_text(&text);
            return 0;
        }
        _ => ui.err_text(&text),
    }
    if e.kind() != K::DisplayHelpOnMissingArgumentOrSubcommand
        && matches!(ui.format(), Format::Json | Format::Jsonl)
    {
        // clap's first paragraph, on one line: the error and what it names on
        // the lines below it (the missing arguments, the possible values),
        // without the usage line and the tips.
        let plain = tidy(&scrub(&e.render().to_string(), &secrets));
        let first = plain
            .split("\n\n")
            .next()
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let first = first.trim_start_matches("error: ");
        let err = Error::usage(if first.is_empty() {
            "invalid usage"
        } else {
            first
        });
        let style = Style {
            format: Format::Json,
            pretty: false,
            color: false,
            out_color: false,
            columns: None,
            headers: true,
        };
        let _ = ui.print_error_in(style, &err);
    }
    2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn finds_what_is_sensitive_and_only_that() {
        let cmd = <super::super::Cli as clap::CommandFactory>::command();
        let s = secret_args(
            &cmd,
            &args("profile create --ssn 123456789 987654321 --first-name 12345678"),
        );
        assert_eq!(s, vec!["123456789", "987654321"]);
        let s = secret_args(&cmd, &args("instrument update a b --account-number=12"));
        assert_eq!(s, vec!["12"]);
        let s = secret_args(&cmd, &args("profile list --page-number 4294967296"));
        assert!(s.is_empty(), "{s:?}");
        let s = secret_args(&cmd, &args("profile create --ssn --email 123456789"));
        assert_eq!(s, Vec::<String>::new());
        let s = secret_args(&cmd, &args("instrument get CSP pin_x 000-12-3456"));
        assert_eq!(s, vec!["000-12-3456"]);
        // Without digits, only a sensitive option's value can be one.
        let s = secret_args(&cmd, &args("profile update csp_x --ssn abcdefg"));
        assert_eq!(s, vec!["abcdefg"]);
        let s = secret_args(&cmd, &args("instrument create csp_x --routing-number=abc"));
        assert_eq!(s, vec!["abc"]);
        let s = secret_args(&cmd, &args("profile get csp_ocvxnwi6yaga3lq86k4z -o json"));
        assert!(s.is_empty(), "{s:?}");
    }

    #[test]
    fn scrubs_longest_first() {
        let t = scrub(
            "'--ssn=123456789' and '123456789' and 1-50",
            &["123456789".into(), "--ssn=123456789".into()],
        );
        assert_eq!(t, "'…6789' and '…6789' and 1-50");
    }
}
