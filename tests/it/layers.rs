//! The layers of src/, held by a check rather than by habit: each top-level
//! module may name (through `crate::`) only the modules below it, so no
//! import goes upward and no two modules depend on each other.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The top-level modules of src/, lowest first: a module may use only the
/// ones before it. `model`, `mask` and `limits` are leaves; `error` builds
/// every error; `text` holds the text checks every layer applies; the
/// catalog, the store, core (the spec's rules), the output, the config
/// file, the endpoint table and its transports (`api`), and the command
/// line on top.
const LAYERS: &[&str] = &[
    "model", "mask", "limits", "error", "text", "catalog", "store", "core", "output", "config",
    "api", "cli",
];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its comments (string contents are kept: a
/// `crate::` path in a string is rare and would only make the check
/// stricter).
fn code_of(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
        } else if let Some(r) = rest.strip_prefix('"') {
            // Skip a string literal, so that "https://..." is no comment.
            let mut end = r.len();
            let mut esc = false;
            for (i, c) in r.char_indices() {
                match c {
                    '\\' if !esc => esc = true,
                    '"' if !esc => {
                        end = i + 1;
                        break;
                    }
                    _ => esc = false,
                }
            }
            out.push_str("\"\"");
            rest = &r[end.min(r.len())..];
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The top-level modules that `code` names through `crate::`, including
/// those of a group (`crate::{a::x, b}`).
fn named(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `$crate::` or part of a longer name
        }
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut tok, mut expect) = (1, String::new(), true);
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => expect = true,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if depth == 1 && expect && (c.is_alphanumeric() || c == '_') {
                    tok.push(c);
                } else if !tok.is_empty() {
                    out.push(std::mem::take(&mut tok));
                    expect = false;
                }
            }
            if !tok.is_empty() {
                out.push(tok);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

#[test]
fn modules_import_only_the_layers_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    files.sort();
    let rank: BTreeMap<&str, usize> = LAYERS.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs");
        if module == "lib" || module == "main" {
            continue;
        }
        let Some(&mine) = rank.get(module) else {
            wrong.push(format!(
                "src/{first}: a top-level module missing from LAYERS in {}",
                file!()
            ));
            continue;
        };
        let code = code_of(&std::fs::read_to_string(f).unwrap());
        for other in named(&code) {
            match rank.get(other.as_str()) {
                Some(&theirs) if theirs > mine => wrong.push(format!(
                    "{}: {module} uses crate::{other}, a layer above it",
                    rel.display()
                )),
                _ => {}
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "imports against the layers (lowest first: {}):\n{}",
        LAYERS.join(", "),
        wrong.join("\n")
    );
}

#[test]
fn the_layer_check_sees_groups_and_skips_comments() {
    let code = code_of(
        "use crate::{api::x, core::{a, b}};\n// crate::cli\nlet s = \"//\"; crate::store::y",
    );
    assert_eq!(named(&code), ["api", "core", "store"]);
}
