//! The documentation is true to the code.
//!
//! - The generated files (completions/, man/, the book's command-line
//!   reference) are what the code generates now, and they work: bash loads
//!   the completion script, man renders the page.
//! - Every `sh` block of README.md and of the book (docs/src/) runs as
//!   written, so a renamed flag or a changed answer fails here; every
//!   relative link resolves; every error code and route is in the
//!   reference; the README's benchmark table names the newest results.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::bin;

const REGENERATE: &str = "run `cargo run -- generate-docs .` and commit completions/ and man/";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
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
fn the_man_pages_have_their_sections() {
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
}

#[test]
#[ignore = "needs man"]
fn the_man_page_renders() {
    assert!(
        has_tool("man"),
        "man is not installed (.ci/run installs it)"
    );
    let page = root().join("man/payctl.1");
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

// ---------------------------------------------------------------------------
// The README and the book (docs/): their examples run, their links resolve,
// and their tables name what the code has.

/// README.md and every page of the book's sources, in a stable order.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).into_iter().flatten() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    let mut out = vec![root().join("README.md")];
    let mut book = Vec::new();
    walk(&root().join("docs/src"), &mut book);
    book.sort();
    out.extend(book);
    out
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned()
}

/// A fenced code block: the line of its opening fence, its info string,
/// its text, and whether a `<!-- norun: why -->` comment stands right
/// before it.
struct Block {
    line: usize,
    info: String,
    body: String,
    norun: bool,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, String, bool)> = None;
    let mut body = String::new();
    let mut before = "";
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let t = line.trim_start();
        match &open {
            None if indent <= 3 && t.starts_with("```") => {
                let fence: String = t.chars().take_while(|&c| c == '`').collect();
                let info = t[fence.len()..].trim().to_string();
                let norun = before.trim_start().starts_with("<!-- norun");
                open = Some((i + 1, fence, info, norun));
                body.clear();
            }
            None => {
                if !line.trim().is_empty() {
                    before = line;
                }
            }
            Some((start, fence, info, norun)) => {
                if t.trim_end() == fence.as_str() {
                    out.push(Block {
                        line: *start,
                        info: info.clone(),
                        body: std::mem::take(&mut body),
                        norun: *norun,
                    });
                    open = None;
                    before = "";
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    out
}

/// The markdown text outside fenced blocks, with each line's number.
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        match &fence {
            None if t.starts_with("```") => {
                fence = Some(t.chars().take_while(|&c| c == '`').collect());
            }
            None => out.push((i + 1, line.to_string())),
            Some(f) => {
                if t.trim_end() == f.as_str() {
                    fence = None;
                }
            }
        }
    }
    out
}

fn has_tool(tool: &str) -> bool {
    Command::new("bash")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run the `sh` blocks of one file, in order, as one bash script with
/// `set -eo pipefail`, in a fresh directory and a fresh HOME, with the
/// payctl under test first on the PATH, stdin closed and no PAYCTL_*
/// variable: what a reader who copies them into a shell would get. Err
/// names the block that failed and shows the end of its output.
// Reads PATH to put the payctl under test first on it, as tests/it/common reads CI.
#[allow(clippy::disallowed_methods)]
fn run_examples(file: &Path, runnable: &[&Block]) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let (home, bin_dir, work, tmp) = (
        dir.path().join("home"),
        dir.path().join("bin"),
        dir.path().join("work"),
        dir.path().join("tmp"),
    );
    for d in [&home, &bin_dir, &work, &tmp] {
        std::fs::create_dir(d).unwrap();
    }
    std::os::unix::fs::symlink(bin(), bin_dir.join("payctl")).unwrap();
    let mut script = String::from("set -eo pipefail\n");
    for b in runnable {
        script.push_str(&format!(
            "printf '%s\\n' '### {}:{}' >&2\n{}\n",
            rel(file),
            b.line,
            b.body
        ));
    }
    let script_path = dir.path().join("examples.sh");
    std::fs::write(&script_path, &script).unwrap();
    let (out_path, err_path) = (dir.path().join("stdout"), dir.path().join("stderr"));
    let mut cmd = Command::new("bash");
    cmd.arg(&script_path)
        .current_dir(&work)
        .stdin(std::process::Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy();
        if k.starts_with("PAYCTL_")
            || k.starts_with("XDG_")
            || ["NO_COLOR", "COMPLETE", "CARGO_TARGET_DIR"].contains(&k.as_ref())
        {
            cmd.env_remove(k.as_ref());
        }
    }
    let path = std::env::join_paths(
        std::iter::once(bin_dir.clone()).chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        )),
    )
    .unwrap();
    // `mktemp -d` in an example makes its directory in here, removed with it.
    cmd.env("HOME", &home).env("PATH", path).env("TMPDIR", &tmp);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().expect("bash");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if started.elapsed() > std::time::Duration::from_secs(300) {
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    // Whatever a failed block left running (a server in the background).
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(std::process::Stdio::null())
        .status();
    let _ = child.wait();
    if status.is_some_and(|s| s.success()) {
        return Ok(());
    }
    let err = std::fs::read_to_string(&err_path).unwrap_or_default();
    let out = std::fs::read_to_string(&out_path).unwrap_or_default();
    let block = err
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .next_back()
        .unwrap_or("before the first block")
        .to_string();
    let tail = |s: &str, n: usize| -> String {
        let lines: Vec<&str> = s.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    };
    Err(format!(
        "the example at {block} failed ({}):\n--- stderr (end) ---\n{}\n--- stdout (end) ---\n{}",
        status.map_or("no end within 300 s".to_string(), |s| s.to_string()),
        tail(&err, 25),
        tail(&out, 15)
    ))
}

#[test]
#[ignore = "needs jq and curl"]
fn the_readme_and_the_book_examples_run_as_written() {
    let mut jobs = Vec::new();
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        let all = blocks(&text);
        let runnable: Vec<&Block> = all.iter().filter(|b| b.info == "sh" && !b.norun).collect();
        if runnable.is_empty() {
            continue;
        }
        let script: String = runnable.iter().map(|b| b.body.as_str()).collect();
        let missing: Vec<&str> = ["jq", "curl"]
            .into_iter()
            .filter(|t| script.contains(&format!("{t} ")) && !has_tool(t))
            .collect();
        assert!(
            missing.is_empty(),
            "{}: its examples need {missing:?} (.ci/run installs them)",
            rel(&file)
        );
        jobs.push((file, all));
    }
    assert!(
        jobs.iter().any(|(f, _)| f.ends_with("README.md")),
        "the README's examples were not run"
    );
    assert!(jobs.len() >= 10, "only {} files with examples", jobs.len());
    // A few files at a time: each runs dozens of payctl processes.
    let next = std::sync::Mutex::new(jobs.iter());
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                loop {
                    let job = next.lock().unwrap().next();
                    let Some((file, all)) = job else { break };
                    let runnable: Vec<&Block> =
                        all.iter().filter(|b| b.info == "sh" && !b.norun).collect();
                    if let Err(e) = run_examples(file, &runnable) {
                        failures.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} file(s) with a failing example (run the blocks by hand to see why; \
         mark a block that cannot run with <!-- norun: why -->):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_quick_start_is_a_runnable_block() {
    // The README's quick start is what a newcomer copies first: it stays a
    // `sh` block (run above), under its heading, and touches no file of the
    // checkout (it may be run from one).
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let at = text
        .find("\n## Quick start")
        .expect("a `## Quick start` section");
    let section = &text[at + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    let b = blocks(section);
    let qs = b.iter().find(|b| b.info == "sh").expect("a sh block");
    assert!(!qs.norun, "the quick start must run");
    let redirect = regex::Regex::new(r"(^|\s)>>?\s*[^\s&]").unwrap();
    assert!(
        !redirect.is_match(&qs.body),
        "the quick start writes no file: {}",
        qs.body
    );
}

/// mdBook's and GitHub's id of a heading: lower case, spaces to `-`, only
/// letters, digits, `-` and `_` kept.
fn anchor(heading: &str) -> String {
    let text = heading.replace('`', "");
    // [text](link) -> text
    let re = regex::Regex::new(r"\[([^\]]*)\]\([^)]*\)").unwrap();
    let text = re.replace_all(&text, "$1");
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_ascii_lowercase())
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

fn anchors(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    prose(&text)
        .into_iter()
        .filter_map(|(_, l)| {
            let t = l.trim_start();
            let hashes = t.chars().take_while(|&c| c == '#').count();
            (1..=6)
                .contains(&hashes)
                .then(|| t[hashes..].trim_start())
                .filter(|rest| t[hashes..].starts_with(' ') && !rest.is_empty())
                .map(anchor)
        })
        .collect()
}

#[test]
fn every_relative_link_of_the_readme_and_the_book_resolves() {
    let link = regex::Regex::new(r#"\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)"#).unwrap();
    let refdef = regex::Regex::new(r"^\s{0,3}\[[^\]^]+\]:\s*(\S+)").unwrap();
    let span = regex::Regex::new(r"``.*?``|`[^`]*`").unwrap();
    let mut bad = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in prose(&text) {
            let plain = span.replace_all(&line, "");
            let targets: Vec<String> = link
                .captures_iter(&plain)
                .chain(refdef.captures_iter(&plain))
                .map(|c| c[1].to_string())
                .collect();
            for t in targets {
                if t.contains("://") || t.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, frag) = t.split_once('#').unwrap_or((&t, ""));
                let target = if path.is_empty() {
                    file.clone()
                } else {
                    file.parent().unwrap().join(path)
                };
                if !target.exists() {
                    bad.push(format!("{}:{n}: {t}: no such file", rel(&file)));
                    continue;
                }
                let target = target.canonicalize().unwrap();
                if !target.starts_with(root().canonicalize().unwrap()) {
                    bad.push(format!("{}:{n}: {t}: outside the repository", rel(&file)));
                    continue;
                }
                if !frag.is_empty()
                    && target.extension().is_some_and(|x| x == "md")
                    && !anchors(&target).iter().any(|a| a == frag)
                {
                    bad.push(format!("{}:{n}: {t}: no heading #{frag} there", rel(&file)));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} links found");
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

#[test]
fn the_book_lists_every_page_and_points_nowhere_outside() {
    let summary = std::fs::read_to_string(root().join("docs/src/SUMMARY.md")).unwrap();
    let mut missing = Vec::new();
    for file in markdown_files().into_iter().skip(1) {
        let r = rel(&file);
        let page = r.trim_start_matches("docs/src/");
        if page != "SUMMARY.md" && !summary.contains(&format!("]({page})")) {
            missing.push(page.to_string());
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for bad in ["../shared", "service-spec", "CLI.md"] {
            assert!(
                !text.contains(bad),
                "{r} names {bad}: the project points nowhere outside itself"
            );
        }
    }
    assert!(
        missing.is_empty(),
        "pages SUMMARY.md does not list: {missing:?}"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    for bad in ["../shared", "service-spec", "CLI.md"] {
        assert!(!readme.contains(bad), "README.md names {bad}");
    }
    let lines = readme.lines().count();
    assert!(
        lines <= 350,
        "README.md has {lines} lines: move detail into docs/"
    );
}

#[test]
fn every_error_code_is_in_the_reference() {
    let code = regex::Regex::new(r"pub const [A-Z_]+: u32 = (\d{5});").unwrap();
    let src = std::fs::read_to_string(root().join("src/error.rs")).unwrap();
    let table = std::fs::read_to_string(root().join("docs/src/reference/error-codes.md")).unwrap();
    let codes: Vec<&str> = code
        .captures_iter(&src)
        .map(|c| c.get(1).unwrap().as_str())
        .collect();
    assert!(codes.len() > 30, "{codes:?}");
    let missing: Vec<&&str> = codes
        .iter()
        .filter(|c| !table.contains(&format!("| {c} |")))
        .collect();
    assert!(
        missing.is_empty(),
        "error codes of src/error.rs without a row in docs/src/reference/error-codes.md: {missing:?}"
    );
}

#[test]
fn every_route_is_in_the_http_reference() {
    let page = std::fs::read_to_string(root().join("docs/src/reference/http-api.md")).unwrap();
    let missing: Vec<String> = payctl::api::endpoints::ENDPOINTS
        .iter()
        .filter(|e| !e.alias)
        .map(|e| format!("| `{}` | `{}` |", e.method.as_str(), e.path))
        .filter(|row| !page.contains(row.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "routes of the endpoint table without a row in docs/src/reference/http-api.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_readme_shows_the_newest_benchmark_results() {
    // bench/results/<date>-<HHMM>-<kind>.md: the README's table names the
    // newest file of each kind it shows.
    let mut files: Vec<String> = std::fs::read_dir(root().join("bench/results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md") && n != "README.md")
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let kind = |name: &str| name.get(16..).unwrap_or("").to_string();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let named: Vec<&String> = files
        .iter()
        .filter(|f| readme.contains(&format!("bench/results/{f}")))
        .collect();
    assert!(
        !named.is_empty(),
        "the README names no file of bench/results/"
    );
    for f in named {
        let newest = files.iter().rev().find(|g| kind(g) == kind(f)).unwrap();
        assert_eq!(
            f, newest,
            "the README's performance table shows {f}, but {newest} is newer: update the table"
        );
    }
}
