//! Generated documentation: shell completions (clap_complete) and man pages
//! (clap_mangen), both from the clap definitions. They are checked in under
//! `completions/` and `man/`; `tests/docs.rs` fails when they are stale.
//! Regenerate with `cargo run -- generate-docs .`.

use std::path::Path;

use clap::CommandFactory;
use clap_complete::Shell;

use super::Cli;
use crate::error::{Error, Result, code};

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
        let mut cmd = Cli::command();
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
    out
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
