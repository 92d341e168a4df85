//! Generated documentation: shell completions (clap_complete), man pages
//! (clap_mangen) and the book's command-line reference (every command's
//! `--help`, `docs/src/reference/cli.md`), all from the clap definitions.
//! They are checked in under `completions/`, `man/` and `docs/`;
//! `tests/it/docs.rs` fails when they are stale. Regenerate with
//! `cargo run -- generate-docs .`.

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;
use crate::error::{Error, Result, code};

/// The command the static completion scripts are made from: the global
/// options completed where they are declared (right after `payctl`), not
/// repeated in every one of the sixty subcommands' lists, which made the
/// bash script 230 KB. (The dynamic completion, `COMPLETE=bash payctl`,
/// completes them everywhere.)
pub fn static_command() -> clap::Command {
    let mut cmd = Cli::command();
    let globals: Vec<clap::Id> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.get_id().clone())
        .collect();
    for id in globals {
        cmd = cmd.mut_arg(id, |a| a.global(false));
    }
    cmd
}

/// Every generated file: (relative path, contents).
pub fn files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for shell in [
        Shell::Bash,
        Shell::Zsh,
        Shell::Fish,
        Shell::PowerShell,
        Shell::Elvish,
    ] {
        let mut cmd = static_command();
        let mut buf = Vec::new();
        clap_complete::generate(shell, &mut cmd, "payctl", &mut buf);
        let name = match shell {
            Shell::Bash => "payctl.bash",
            Shell::Zsh => "_payctl",
            Shell::Fish => "payctl.fish",
            Shell::PowerShell => "_payctl.ps1",
            _ => "payctl.elv",
        };
        out.push((format!("completions/{name}"), buf));
    }
    // The top page carries the long help: exit codes, error codes, environment, files.
    let mut cmd = Cli::command().after_help(super::AFTER_LONG_HELP);
    cmd.build();
    man_pages(&cmd, "payctl", &mut out);
    out.push((CLI_REFERENCE.to_string(), cli_reference().into_bytes()));
    out
}

/// The book's page of every command's `--help`.
pub const CLI_REFERENCE: &str = "docs/src/reference/cli.md";

/// Every command's long help (what `payctl … --help` prints), one section a
/// command with a heading the book can link to (`#payctl-profile-create`),
/// wrapped at 100 columns whatever the terminal.
fn cli_reference() -> String {
    let mut cmd = Cli::command().term_width(100).max_term_width(100);
    cmd.build();
    let mut md = String::from(
        "# Command-line reference\n\n\
         <!-- Generated from the commands' --help by `cargo run -- generate-docs .`; \
         tests/it/docs.rs fails when it is stale. Do not edit. -->\n\n\
         Every command's `--help`, as `payctl COMMAND --help` prints it. The same \
         text is in the man pages (`man -l man/payctl-profile-create.1`); \
         [Commands and global options](commands.md) is the overview.\n",
    );
    help_sections(&cmd, "payctl", &mut md);
    md
}

fn help_sections(cmd: &clap::Command, name: &str, md: &mut String) {
    let help = cmd.clone().render_long_help().to_string();
    md.push_str(&format!("\n## {name}\n\n```text\n"));
    // The global options are listed once, under `payctl`: in a subcommand's
    // help they run from their heading to the next line that is not indented.
    let mut globals = false;
    for line in help.lines() {
        if name != "payctl" && line == "Global options:" {
            globals = true;
            md.push_str("Global options: see `payctl --help`\n");
            continue;
        }
        if globals {
            if line.is_empty() || line.starts_with(' ') {
                continue;
            }
            globals = false;
            md.push('\n');
        }
        md.push_str(without_env_value(line).trim_end());
        md.push('\n');
    }
    md.push_str("```\n");
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        help_sections(sub, &format!("{name} {}", sub.get_name()), md);
    }
}

/// `[env: PAYCTL_DATA_DIR=/srv/x]` as `[env: PAYCTL_DATA_DIR]`: the page must
/// not depend on the environment it was generated in.
fn without_env_value(line: &str) -> String {
    let Some(start) = line.find("[env: ") else {
        return line.to_string();
    };
    let rest = &line[start..];
    match (rest.find('='), rest.find(']')) {
        (Some(eq), Some(end)) if eq < end => {
            format!("{}{}{}", &line[..start], &rest[..eq], &rest[end..])
        }
        _ => line.to_string(),
    }
}

fn man_pages(cmd: &clap::Command, name: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let mut buf = Vec::new();
    let page = cmd.clone().name(name.to_string());
    clap_mangen::Man::new(page)
        .render(&mut buf)
        .expect("rendering to memory");
    out.push((format!("man/{name}.1"), buf));
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        man_pages(sub, &format!("{name}-{}", sub.get_name()), out);
    }
}

/// Write every generated file under `dir`; the paths written.
pub fn generate(dir: &Path) -> Result<Vec<String>> {
    let mut written = Vec::new();
    for (rel, bytes) in files() {
        let path = dir.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| {
                Error::one(code::INVALID_VALUE, format!("{}: {e}", parent.display()))
            })?;
        }
        std::fs::write(&path, bytes)
            .map_err(|e| Error::one(code::INVALID_VALUE, format!("{}: {e}", path.display())))?;
        written.push(rel);
    }
    Ok(written)
}
