//! The process: `main` parses the command line, `run` opens what the
//! command needs and prints its answer, `dispatch` calls the command.

use super::*;

/// The OS user name: $USER, $LOGNAME, else the passwd entry of our uid.
pub(super) fn os_user() -> String {
    use std::os::unix::fs::MetadataExt;
    if let Some(u) = ["USER", "LOGNAME"]
        .iter()
        .filter_map(|v| env::var(v))
        .find(|u| !u.is_empty())
    {
        return u;
    }
    let uid = std::fs::metadata("/proc/self").map(|m| m.uid()).ok();
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap_or_default();
    uid.and_then(|uid| {
        passwd.lines().find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.len() > 2 && f[2].parse() == Ok(uid)).then(|| f[0].to_string())
        })
    })
    .unwrap_or_else(|| "unknown".to_string())
}

pub(super) fn default_data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "payctl")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".payctl"))
}

/// Output format when clap could not parse the arguments (for the error
/// envelope); None: the default of the [`Ui`].
pub(super) fn format_from_raw_args() -> Option<Format> {
    let args: Vec<String> = std::env::args().collect();
    let mut it = args.iter().peekable();
    while let Some(a) = it.next() {
        let v = if a == "-o" || a == "--output" {
            it.peek().map(|s| s.as_str())
        } else {
            a.strip_prefix("--output=").or_else(|| a.strip_prefix("-o"))
        };
        if let Some(f) = v.and_then(|v| Format::from_str(v, true).ok()) {
            return Some(f);
        }
    }
    env::var("PAYCTL_OUTPUT").and_then(|v| Format::from_str(&v, true).ok())
}

/// What the environment says about output: `NO_COLOR` and `$COLUMNS`
/// (the [`Ui`] decides the rest from the streams).
pub(super) fn ui_settings(output: Option<Format>, color: ColorWhen, no_input: bool) -> Settings {
    Settings {
        output,
        color,
        no_input,
        no_headers: false,
        no_color: env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()),
        columns: env::var("COLUMNS").and_then(|c| c.trim().parse::<u16>().ok()),
    }
}

/// Environment variables of ours that, set but empty, mean "not set"
/// (as an operator clearing them with `VAR=` expects).
pub(super) const OUR_ENV: &[&str] = &[
    "PAYCTL_DATA_DIR",
    "PAYCTL_OUTPUT",
    "PAYCTL_ACTOR",
    "PAYCTL_NO_INPUT",
    "PAYCTL_BASE_URL",
    "PAYCTL_TOKEN",
    "PAYCTL_SERVE_TOKEN",
    "PAYCTL_CONTEXT",
    "PAYCTL_CONFIG",
    "PAYCTL_ID_SEED",
];

/// `PAYCTL_ID_SEED=N` (a testing aid): every id of this process from the
/// deterministic generator seeded with N (see `model::id`).
fn seed_ids() -> Result<()> {
    let Some(v) = env::var("PAYCTL_ID_SEED") else {
        if env::var_os("PAYCTL_ID_SEED").is_some() {
            return Err(Error::usage(
                "PAYCTL_ID_SEED: is not a whole number (not UTF-8)",
            ));
        }
        return Ok(());
    };
    let n = v.trim().parse::<u64>().map_err(|_| {
        Error::usage(format!(
            "PAYCTL_ID_SEED: `{}` is not a whole number 0-{}; unset it for random ids",
            crate::error::shown_id(&v),
            u64::MAX
        ))
    })?;
    crate::model::id::seed(n);
    Ok(())
}

/// The command that parses `argv`: the whole tree, or, when the line names
/// top-level commands, the root with those alone. Before it parses, clap
/// copies each global option into every top-level command (13 options, 30
/// commands: a fifth of a `profile get`'s instructions), whichever the line
/// names. Help, a version, completion and a line that names no command (an
/// error, with its suggestions) get the whole tree; a global option's value
/// that spells a command's name only keeps that command too.
pub(crate) fn parser_for(argv: &[String]) -> clap::Command {
    let full = <Cli as clap::CommandFactory>::command();
    const WHOLE: &[&str] = &["-h", "--help", "help", "-V", "--version"];
    if argv.iter().any(|a| WHOLE.contains(&a.as_str())) {
        return full;
    }
    let named = |c: &clap::Command| {
        argv.iter()
            .any(|a| a == c.get_name() || c.get_all_aliases().any(|x| x == a))
    };
    if !full.get_subcommands().any(named) {
        return full;
    }
    let mut root = <super::GlobalArgs as clap::Args>::augment_args(clap::Command::new(
        full.get_name().to_string(),
    ))
    .args_override_self(full.is_args_override_self())
    .subcommand_required(full.is_subcommand_required_set())
    .arg_required_else_help(full.is_arg_required_else_help_set());
    for c in full.get_subcommands().filter(|c| named(c)) {
        root = root.subcommand(c.clone());
    }
    root
}

/// Run payctl; the exit code.
pub fn main() -> i32 {
    for var in OUR_ENV {
        if env::var_os(var).is_some_and(|v| v.is_empty()) {
            // SAFETY: nothing else runs yet; no other thread reads the environment.
            unsafe { std::env::remove_var(var) };
        }
    }
    // `COMPLETE=bash payctl …`: the shell asks for candidates (answered,
    // then exit). Unset, this is one environment lookup: nothing is built.
    complete::if_asked();
    // Sensitive values on the command line are masked in every message.
    let argv: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    // One clap command for both (building it is a good part of a point
    // operation's start-up).
    let mut cmd = parser_for(&argv);
    for secret in usage::secret_args(&cmd, &argv) {
        crate::output::mask::remember(&secret);
    }
    let refused = |e: clap::Error| {
        let ui = Ui::new(ui_settings(format_from_raw_args(), ColorWhen::Auto, true));
        usage::report(&e, &ui)
    };
    let m = match cmd.try_get_matches_from_mut(std::env::args_os()) {
        Ok(m) => m,
        Err(e) => return refused(e),
    };
    let parsed = <Cli as clap::FromArgMatches>::from_arg_matches(&m)
        .map(|mut c| {
            c.data_dir_on_command_line = on_command_line(&m, "data_dir");
            c.sources = sources(&m);
            if let Command::Config(config::ConfigCommand::SetContext(a)) = &mut c.command {
                // clap copies the global options' environment values
                // into these: set-context takes what was typed only.
                if !on_command_line(&m, "base_url") {
                    a.base_url = None;
                }
                if !on_command_line(&m, "data_dir") {
                    a.data_dir = None;
                }
                if !on_command_line(&m, "database_url") {
                    a.database_url = None;
                }
            }
            c
        })
        .map_err(|e| e.format(&mut cmd));
    let cli = match parsed {
        Ok(c) => c,
        Err(e) => return refused(e),
    };
    let code = run(cli, Some((&cmd, &m)));
    // Dropping the whole command tree costs as much as building it; the
    // process ends after this run (`main` returns its exit code).
    std::mem::forget(m);
    std::mem::forget(cmd);
    code
}

/// Run the parsed command line; `parsed` (the command and its matches)
/// lets a refusal name the flags its fields came from.
pub fn run(cli: Cli, parsed: Option<(&clap::Command, &clap::ArgMatches)>) -> i32 {
    let g = &cli.global;
    let ui = Ui::new(Settings {
        no_headers: g.no_headers,
        ..ui_settings(g.output, g.color, g.no_input)
    });
    let actor = g
        .actor
        .clone()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(os_user);
    // Where the store is: flags, then the environment, then the context.
    // The commands that open no store of the user's do not read the config
    // file (`config` edits it; `demo` uses a scratch store).
    let resolved = match &cli.command {
        Command::Config(_) => Ok(config::Resolved::default()),
        Command::Completions { .. }
        | Command::GenerateDocs { .. }
        | Command::Openapi
        | Command::Demo(_) => Ok(config::Resolved::given(g)),
        _ => config::resolve(g, &cli.sources, &config::path()),
    };
    let (resolved, resolve_err) = match resolved {
        Ok(r) => (r, None),
        Err(e) => (config::Resolved::default(), Some(e)),
    };
    if let Some(note) = &resolved.note {
        ui.err_line(note);
    }
    let remote = resolved
        .base_url
        .as_deref()
        .map(|url| {
            // A token that is not UTF-8 would be dropped unseen by `var`.
            let token = env::var("PAYCTL_TOKEN");
            if token.is_none() && env::var_os("PAYCTL_TOKEN").is_some() {
                return Err(Error::usage(
                    "PAYCTL_TOKEN: is not valid UTF-8 (a token is visible ASCII only); \
                     nothing was sent",
                ));
            }
            let client = Client::new(
                url,
                resolved.token.clone(),
                &actor,
                Duration::from_secs_f64(g.http_timeout.max(0.001)),
            )?;
            match g.ca_cert.as_deref().filter(|p| !p.as_os_str().is_empty()) {
                Some(ca) => {
                    let flag = format!("--ca-cert {}", ca.display());
                    client.trusting(&flag, &serve::read_pem("--ca-cert", ca, false)?)
                }
                None => Ok(client),
            }
        })
        .transpose();
    let (remote, remote_err) = match remote {
        Ok(r) => (r, resolve_err),
        Err(e) => (None, resolve_err.or(Some(e))),
    };
    let global = Global {
        data_dir: resolved.data_dir.unwrap_or_else(default_data_dir),
        database_url: resolved.database_url,
        data_dir_explicit: cli.data_dir_on_command_line,
        actor,
        yes: g.yes,
        stream_closed: Default::default(),
        lock_timeout: Duration::from_secs_f64(g.lock_timeout.clamp(0.0, 1e9)),
        ui,
        remote,
        unfinished: std::sync::Mutex::new(None),
        context: resolved.context,
        outcomes: Default::default(),
    };
    let mut result = match remote_err.or_else(|| seed_ids().err()) {
        Some(e) => Err(e),
        None => check_actor(&global.actor, g.actor.is_some())
            .and_then(|()| dispatch(cli.command, &global)),
    };
    if let (Err(e), Some((cmd, m))) = (&mut result, parsed) {
        flags::name_flags(e, cmd, m);
    }
    // A change committed but not finished (a full disk): the answer is the
    // change's, and this says what is left for the next payctl.
    for w in global.outcomes.take_warnings() {
        ui.err_line(format_args!("warning: {}", output::mask::mask_text(&w)));
    }
    let unfinished = global
        .unfinished
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    let (flushed, code) = match (&result, unfinished) {
        // Committed, not finished: the answer on stdout (the id a script
        // needs), what is still pending on stderr, exit 4.
        (Ok(resp), Some(pending)) => {
            let flushed = ui.print(resp);
            let mut on_stderr = ui.style();
            on_stderr.format = Format::Table;
            let _ = ui.print_error_in(on_stderr, &pending);
            (flushed, 4)
        }
        (Ok(resp), None) => (ui.print(resp), 0),
        // A `--all` list closed its JSON envelope with the error already.
        (Err(e), _)
            if global
                .stream_closed
                .load(std::sync::atomic::Ordering::Relaxed) =>
        {
            (Ok(()), e.exit_code())
        }
        (Err(e), _) => (ui.print_error(e), e.exit_code()),
    };
    let committed = global.outcomes.committed() > 0;
    match flushed {
        // A closed pipe (`payctl profile list | head`) ends quietly, unless
        // the answer it lost is a change's.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe && !committed => code,
        Err(e) => {
            ui.err_line(format_args!("error: writing output: {e}"));
            if committed {
                // The answer never reached the caller, but the change is
                // made: say so, with its ids (exit 3: see docs/src/reference/exit-codes.md).
                ui.err_line(committed_note(&result));
            }
            3
        }
        Ok(()) => code,
    }
}

/// What a command whose output could not be written says on stderr about
/// the change it committed.
pub(super) fn committed_note(result: &Result<Response>) -> String {
    let ids: Vec<String> = match result {
        Ok(Response::Id(id)) => vec![id.clone()],
        Ok(Response::Records(_, data)) | Ok(Response::List { data, .. }) => data
            .iter()
            .filter_map(|v| v.get("id").and_then(|i| i.as_str()).map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    match ids.as_slice() {
        [] => "the change was committed: the store holds it although its answer was lost".into(),
        [id] => format!(
            "the change was committed: id {id} (its answer could not be written; a create \
             retried with the same --idempotency-key answers it again)"
        ),
        many => format!(
            "the change was committed: {} records were created, ids: {}",
            many.len(),
            many.join(" ")
        ),
    }
}

pub use crate::limits::MAX_ACTOR;

/// The actor is written to records and shown in tables: it follows the rules
/// of a field (1-64 characters, no control, format or bidirectional
/// characters), checked before anything is opened.
pub(super) fn check_actor(actor: &str, given: bool) -> Result<()> {
    let from = if given {
        "--actor (PAYCTL_ACTOR)"
    } else {
        "the OS user name (give --actor)"
    };
    let n = actor.chars().count();
    if n > MAX_ACTOR {
        return Err(Error::usage(format!(
            "{from}: must be 1-{MAX_ACTOR} characters long (is {n})"
        )));
    }
    crate::core::rules::clean_text(actor).map_err(|rule| Error::usage(format!("{from}: {rule}")))
}

pub(super) fn dispatch(cmd: Command, g: &Global) -> Result<Response> {
    match cmd {
        Command::Profile(c) => c.exec(g),
        Command::Address(c) => c.exec(g),
        Command::Instrument(c) => c.exec(g),
        Command::Program(c) => c.exec(g),
        Command::Template(c) => c.exec(g),
        Command::Txn(c) => c.exec(g),
        Command::Dict(c) => c.exec(g),
        Command::Events(c) => c.exec(g),
        Command::History(c) => c.exec(g),
        Command::Webhook(c) => c.exec(g),
        Command::Listen(c) => c.exec(g),
        Command::Worker(c) => c.exec(g),
        Command::Store(c) => c.exec(g),
        Command::Sim(c) => c.exec(g),
        Command::Config(c) => c.exec(&config::path(), g.ui),
        Command::Init(a) => {
            g.local_only("init")?;
            init(a, g)
        }
        Command::Demo(a) => {
            g.local_only("demo")?;
            a.exec(g, g.data_dir_explicit)
        }
        Command::Serve(a) => {
            g.local_only("serve")?;
            a.exec(g)
        }
        Command::Key(c) => c.exec(g),
        Command::Openapi => Ok(Response::Raw(format!(
            "{}\n",
            serde_json::to_string_pretty(&crate::api::openapi::document())
                .map_err(|e| Error::usage(format!("openapi: {e}")))?
        ))),
        Command::GenerateDocs { dir } => docs::generate(&dir).map(|written| {
            Response::Records(
                output::RecordKind::Summary,
                written
                    .into_iter()
                    .map(|p| serde_json::json!({"path": p}))
                    .collect(),
            )
        }),
        Command::Completions { shell } => {
            let mut cmd = super::docs::static_command();
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut cmd, "payctl", &mut buf);
            Ok(Response::Raw(String::from_utf8_lossy(&buf).into_owned()))
        }
    }
}

pub(super) fn init(a: InitArgs, g: &Global) -> Result<Response> {
    let ctx = g.ctx();
    let catalog = match &a.catalog {
        Some(path) => {
            let text = read_catalog(path)?;
            crate::catalog::load(&text, crate::model::status::SYSTEM, &ctx.now)?
        }
        None => crate::catalog::builtin(crate::model::status::SYSTEM, &ctx.now),
    };
    let store = match &g.database_url {
        Some(url) => Store::init_database(url, &catalog)?,
        None => Store::init(&g.data_dir, g.wait(), &catalog)?,
    };
    store.report_to(&g.outcomes);
    g.ui.err_line(format_args!(
        "note: created a new store at {}",
        store.describe()
    ));
    let programs = catalog
        .programs
        .iter()
        .map(|p| serde_json::json!({"program_id": p.program_id, "program_name": p.program_name}))
        .collect();
    Ok(Response::Records(output::RecordKind::Program, programs))
}

/// The text of an `init --catalog` file, refused past
/// [`caps::CATALOG_BYTES`](crate::core::rules::caps::CATALOG_BYTES) without
/// reading more than one byte beyond it.
pub(super) fn read_catalog(path: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let max = crate::core::rules::caps::CATALOG_BYTES;
    let cannot = |e: &dyn std::fmt::Display| {
        Error::one(
            code::MALFORMED,
            format!(
                "--catalog: cannot read {}: {e}",
                crate::output::mask::mask_text(&path.display().to_string())
            ),
        )
    };
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(|e| cannot(&e))?;
    if bytes.len() as u64 > max {
        return Err(Error::one(
            code::MALFORMED,
            format!("--catalog: is larger than {} MiB", max >> 20),
        ));
    }
    String::from_utf8(bytes).map_err(|e| cannot(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a command line parses to (or the error it is refused with).
    fn parsed(mut cmd: clap::Command, line: &[&str]) -> String {
        let argv = std::iter::once("payctl").chain(line.iter().copied());
        match cmd.try_get_matches_from_mut(argv) {
            Ok(m) => match <Cli as clap::FromArgMatches>::from_arg_matches(&m) {
                Ok(c) => format!("{c:?}"),
                Err(e) => format!("{:?}: {}", e.kind(), e.format(&mut cmd).render()),
            },
            Err(e) => format!("{:?}: {}", e.kind(), e.render()),
        }
    }

    /// The pruned root parses every line exactly as the whole tree does,
    /// refusals and their messages included.
    #[test]
    fn the_pruned_command_parses_as_the_whole_tree() {
        let lines: &[&[&str]] = &[
            &["profile", "get", "csp_x"],
            &["--data-dir", "/d", "profile", "list", "--all"],
            &["profile", "list", "--data-dir", "/x", "-o", "json"],
            &["-o", "json", "txn", "list", "--status", "60"],
            &["--actor", "profile", "txn", "list"],
            &["profile", "create", "--body", "-"],
            &["profile", "get"],
            &["profile", "gett", "x"],
            &["profile", "get", "x", "--bogus"],
            &["--bogus", "profile", "get", "x"],
            &["store", "check", "--repair"],
            &["webhook", "create", "--url", "http://127.0.0.1:9/x"],
            &["events", "tail", "--from", "3"],
            &["config", "set-context", "ci", "--data-dir", "/d"],
            &["address", "list", "csp_1", "--page-size", "5"],
            &[
                "txn",
                "create",
                "--program",
                "p",
                "--param",
                "@targets=csp_a:1",
            ],
            &["dict", "list", "states", "--country", "1"],
            &["worker"],
            &["-o", "yaml", "profile", "get", "x"],
        ];
        for line in lines {
            let argv: Vec<String> = line.iter().map(|s| s.to_string()).collect();
            let full = <Cli as clap::CommandFactory>::command();
            let pruned = parser_for(&argv);
            assert!(
                pruned.get_subcommands().count() < full.get_subcommands().count()
                    || line.iter().any(|a| a.starts_with("--bogus")),
                "{line:?} was not pruned"
            );
            assert_eq!(parsed(pruned, line), parsed(full, line), "{line:?}");
        }
        // No command named: the whole tree, for its suggestions.
        let full = <Cli as clap::CommandFactory>::command()
            .get_subcommands()
            .count();
        for line in [&["profil", "get"][..], &["--help"], &["profile", "--help"]] {
            let argv: Vec<String> = line.iter().map(|s| s.to_string()).collect();
            assert_eq!(
                parser_for(&argv).get_subcommands().count(),
                full,
                "{line:?}"
            );
        }
    }
}
