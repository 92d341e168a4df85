//! The generated documentation checked in under completions/ and man/ is what
//! the code generates now, and it works: bash loads the completion script,
//! man renders the page.

use std::path::Path;
use std::process::Command;

const REGENERATE: &str = "run `cargo run -- generate-docs .` and commit completions/ and man/";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("payctl")
}

#[test]
fn completions_and_man_pages_are_up_to_date() {
    let files = payctl::cli::docs::files();
    assert!(files.len() > 5);
    let mut stale = Vec::new();
    for (rel, bytes) in &files {
        match std::fs::read(root().join(rel)) {
            Ok(on_disk) if &on_disk == bytes => {}
            Ok(_) => stale.push(format!("{rel} differs")),
            Err(_) => stale.push(format!("{rel} is missing")),
        }
    }
    // Nothing left over from a command that no longer exists.
    let known: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    for dir in ["completions", "man"] {
        for e in std::fs::read_dir(root().join(dir)).into_iter().flatten() {
            let e = e.unwrap();
            let rel = format!("{dir}/{}", e.file_name().to_string_lossy());
            if !known.contains(&rel.as_str()) {
                stale.push(format!("{rel} is not generated any more"));
            }
        }
    }
    assert!(stale.is_empty(), "{}: {REGENERATE}", stale.join("; "));
}

#[test]
fn the_completions_command_prints_the_checked_in_scripts() {
    for (shell, file) in [
        ("bash", "payctl.bash"),
        ("zsh", "_payctl"),
        ("fish", "payctl.fish"),
        ("powershell", "_payctl.ps1"),
        ("elvish", "payctl.elv"),
    ] {
        let o = Command::new(bin())
            .args(["completions", shell])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{shell}");
        let on_disk = std::fs::read(root().join("completions").join(file)).unwrap();
        assert!(o.stdout == on_disk, "{shell}: {REGENERATE}");
    }
}

#[test]
fn bash_loads_the_completion_script() {
    let o = Command::new("bash")
        .current_dir(root())
        .args(["-c", "source completions/payctl.bash && complete -p payctl"])
        .output()
        .expect("bash");
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("payctl"), "{out}");
    // And it completes: subcommands, then dictionary names of a flag.
    let complete = |line: &str| -> Vec<String> {
        let words: Vec<&str> = line.split(' ').collect();
        let script = format!(
            "source completions/payctl.bash; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT={}; _payctl payctl '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            words
                .iter()
                .map(|w| format!("'{w}'"))
                .collect::<Vec<_>>()
                .join(" "),
            words.len() - 1,
            line.len(),
            words[words.len() - 1],
            words[words.len() - 2],
        );
        let o = Command::new("bash")
            .current_dir(root())
            .args(["-c", &script])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(String::from)
            .collect()
    };
    let subs = complete("payctl pro");
    assert!(
        subs.contains(&"profile".to_string()) && subs.contains(&"program".to_string()),
        "{subs:?}"
    );
    let states = complete("payctl address create csp_x --state-id C");
    assert_eq!(states, ["CA", "CO", "CT"]);
    let types = complete("payctl instrument create csp_x --type-id ");
    assert_eq!(types, ["Funding", "Withdrawal"]);
}

#[test]
#[allow(clippy::print_stderr)] // says on stderr why the rendering check is skipped
fn the_man_page_renders() {
    let has_man = Command::new("bash")
        .args(["-c", "command -v man"])
        .output()
        .is_ok_and(|o| o.status.success());
    let page = root().join("man/payctl.1");
    let text = std::fs::read_to_string(&page).unwrap();
    for section in [
        "EXIT CODES",
        "ERROR CODES",
        "ENVIRONMENT",
        "FILES",
        "EXAMPLES",
    ] {
        assert!(text.contains(section), "man/payctl.1 lacks {section}");
    }
    for sub in [
        "profile-create",
        "address-delete",
        "program-attach",
        "worker",
        "demo",
    ] {
        assert!(
            root().join(format!("man/payctl-{sub}.1")).exists(),
            "no man page for {sub}"
        );
    }
    if !has_man {
        eprintln!("note: `man` is not installed; the rendering check is skipped");
        return;
    }
    let o = Command::new("man")
        .arg("-l")
        .arg(&page)
        .env("MANPAGER", "cat")
        .env("PAGER", "cat")
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let shown = String::from_utf8_lossy(&o.stdout);
    assert!(shown.contains("payctl"), "{shown}");
    assert!(shown.contains("EXIT CODES"), "{shown}");
}
