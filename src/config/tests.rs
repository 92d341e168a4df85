//! The config file's tests: reading, changing, checking.

use super::*;

fn parse(text: &str) -> Result<Config> {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).unwrap();
    Config::load(&path)
}

#[test]
fn the_contract_example_reads() {
    let c = parse(
        "current-context = \"staging\"\n[contexts.staging]\nbase-url = \"https://payctl.staging.example\"\ntoken-env = \"STAGING_PAYCTL_TOKEN\"   # never stored\n[contexts.local]\ndata-dir = \"/srv/payctl\"\n",
    )
    .unwrap();
    assert_eq!(c.current().as_deref(), Some("staging"));
    assert_eq!(c.names(), ["staging", "local"]);
    let s = c.get("staging").unwrap();
    assert_eq!(s.token_env.as_deref(), Some("STAGING_PAYCTL_TOKEN"));
    assert_eq!(s.line, Some(2));
    assert_eq!(c.get("local").unwrap().data_dir, Some("/srv/payctl".into()));
}

#[test]
fn a_change_keeps_comments_and_other_keys() {
    let mut c = parse(
        "# mine\ncurrent-context = \"a\"\n[contexts.a]\nbase-url = \"http://x\" # the old one\ntoken-env = \"T\"\n",
    )
    .unwrap();
    c.set("a", &[(BASE_URL, Some("http://y".into()))]);
    c.set("b", &[(DATA_DIR, Some("/d".into()))]);
    let t = c.text();
    assert!(t.starts_with("# mine\n"), "{t}");
    assert!(t.contains("base-url = \"http://y\" # the old one"), "{t}");
    assert!(t.contains("token-env = \"T\""), "{t}");
    assert!(t.contains("[contexts.b]\ndata-dir = \"/d\""), "{t}");
    assert!(!t.contains("[contexts]\n"), "{t}");
}

#[test]
fn a_fresh_file_names_its_current_context_first() {
    let mut c = parse("").unwrap();
    c.set("a", &[(DATA_DIR, Some("/d".into()))]);
    assert!(c.use_context("a"));
    assert!(!c.use_context("b"));
    let t = c.text();
    assert!(t.starts_with("current-context = \"a\"\n"), "{t}");
    assert_eq!(c.delete("a"), Some(true));
    assert_eq!(c.current(), None);
    assert_eq!(c.delete("a"), None);
}

#[test]
fn inline_and_dotted_contexts_read_and_change() {
    let mut c = parse("contexts = { a = { data-dir = \"/a\" } }\n").unwrap();
    c.set("b", &[(DATA_DIR, Some("/b".into()))]);
    assert_eq!(c.names(), ["a", "b"]);
    let reread = parse(&c.text()).unwrap();
    assert_eq!(reread.get("b").unwrap().data_dir, Some("/b".into()));
    let c = parse("contexts.a.data-dir = \"/a\"\n").unwrap();
    assert_eq!(c.get("a").unwrap().data_dir, Some("/a".into()));
}

#[test]
fn problems_name_the_line() {
    let msg = |text: &str| {
        parse(text).err().expect("refused").errors[0]
            .message
            .clone()
    };
    let m = msg("[contexts.a]\ndata-dir = \"/a\"\nbase-url = \n");
    assert!(m.contains("line 3") && m.contains("not valid TOML"), "{m}");
    let m = msg("[contexts.a]\n\nbase_url = \"http://x\"\n");
    assert!(
        m.contains("line 3") && m.contains("did you mean `base-url`"),
        "{m}"
    );
    let m = msg("current-context = 3\n");
    assert!(m.contains("line 1") && m.contains("string"), "{m}");
    let m = msg("[contexts.a]\ndata-dir = 7\n");
    assert!(m.contains("line 2"), "{m}");
    let m = msg("contexts = 1\n");
    assert!(m.contains("must be a table"), "{m}");
    let m = msg("current_context = \"a\"\n");
    assert!(m.contains("did you mean `current-context`"), "{m}");
}

#[test]
fn relative_data_dirs_are_the_files_neighbours() {
    let dir = tempfile::TempDir::new().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "[contexts.a]\ndata-dir = \"store\"\n").unwrap();
    let c = Config::load(&path).unwrap();
    assert_eq!(c.get("a").unwrap().data_dir, Some(dir.path().join("store")));
}

#[test]
fn names_and_variables_are_checked() {
    assert!(check_name("staging-2.eu_west").is_ok());
    for bad in ["", "-x", "a b", "a/b", &"x".repeat(65)] {
        assert!(check_name(bad).is_err(), "{bad}");
    }
    assert!(check_env_name("STAGING_TOKEN").is_ok());
    assert!(check_env_name("_T1").is_ok());
    for bad in ["", "1X", "ghp-abc.def", "A B"] {
        assert!(check_env_name(bad).is_err(), "{bad}");
    }
}
