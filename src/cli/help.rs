//! The long texts of `--help`: exit codes and the environment after every
//! command's help, the examples of `payctl --help`, and how to install the
//! shell completions.

pub const AFTER_HELP: &str = "\
Exit codes: 0 success; 1 refused (validation, not found, conflict: see errors[].code);
2 usage error; 3 the store could not be used (lock timeout, corrupt file, I/O, newer format),
or the answer could not be written (stderr then says whether a change was committed, and its id);
4 the change was committed but --wait gave up (stdout has the answer, stderr what is pending).

Environment: PAYCTL_DATA_DIR, PAYCTL_DATABASE_URL, PAYCTL_OUTPUT, PAYCTL_ACTOR, PAYCTL_NO_INPUT,
PAYCTL_BASE_URL, PAYCTL_TOKEN, PAYCTL_CONTEXT, PAYCTL_CONFIG, PAYCTL_ID_SEED (tests), NO_COLOR.
Precedence: flags, then environment variables, then the context (`payctl config`), then defaults.

Examples:
  payctl demo
  CSP=$(payctl profile create --body profile.json -o id)
  payctl profile list --all -o jsonl | jq -r '.customer_key'";

/// The long help, also the EXTRA section of the man page.
pub const AFTER_LONG_HELP: &str = "\
EXIT CODES
  0  success
  1  the request was refused: validation, not found, conflict (see errors[].code)
  2  usage error (unknown command or flag; a destructive command without --yes where no one can be asked;
     an unknown --context, a config file that is not valid: the message names its file and line)
  3  the store could not be used: lock timeout, unreadable or corrupt file, I/O error, newer store format;
     or the answer could not be written to stdout: when a change was committed, stderr says
     \"the change was committed\" and names its id (a retry with the same --idempotency-key answers it)
  4  the change was committed, but what was asked beyond it did not finish: --wait gave up. stdout
     carries the answer (the id with -o id), stderr says what is still pending (30005): poll it,
     never create it again

ERROR CODES (errors[].code)
  10000 Invalid Usage              10001 Invalid Value              10002 Required Value Missing
  10003 Value Cannot Be Updated    10004 Unknown Field              10005 Malformed Body
  10006 Confirmation Required      10007 Unauthorized (HTTP 401)    10008 Method Not Allowed (HTTP 405)
  10009 Body Too Large (HTTP 413)  20001 Record Not Found           20002 Route Not Found (HTTP 404)
  21001 Customer Profile already attached to the program            21002 Customer key already in use
  21003 Default address cannot be deleted                           21004 Customer Profile not attached to the program
  21005 Idempotency key reused with another request                  21006 API key name already in use
  30001 Store busy                 30002 Store unreadable           30003 Store I/O error
  30004 Store format not supported 30005 Timed out (--wait gave up; exit 4)
  30006 Store check found problems 30009 Store owned by another user
  30010 Write would break an invariant (a bug in payctl: nothing written)
  30007 Service unreachable (remote mode: nothing was sent)
  30008 Unexpected response (remote mode: the answer is not the envelope)
  30020 Outcome Unknown (remote mode: sent, no answer; it may have been applied)
  30016 Database unreachable       30017 Database error             30018 Migration target not empty
  30019 Database serialization retries exhausted

ENVIRONMENT
  PAYCTL_DATA_DIR   the store (like --data-dir)
  PAYCTL_DATABASE_URL  a PostgreSQL database as the store (like --database-url)
  PAYCTL_OUTPUT     table, json, jsonl or id (like -o)
  PAYCTL_ACTOR      the name written to created_by / modified_by (like --actor)
  PAYCTL_NO_INPUT   never prompt (like --no-input)
  PAYCTL_ALLOW_OTHER_OWNER=1  write a store whose directory another user owns (refused otherwise: 30009)
  PAYCTL_BASE_URL   remote mode: the service to send commands to (like --base-url)
  PAYCTL_TOKEN      remote mode: sent as `Authorization: Bearer` (wins over a context's token-env)
  PAYCTL_CONTEXT    the context of the config file to use (like --context)
  PAYCTL_CONFIG     the config file (default: $XDG_CONFIG_HOME/payctl/config.toml)
  PAYCTL_SERVE_TOKEN  serve: the token every request must carry (like serve --token)
  PAYCTL_ID_SEED    a testing aid: ids from a deterministic generator seeded with this whole number,
                    the same for the same requests in the same order (serve warns when it is set)
  NO_COLOR          no colour on a terminal

FILES
  ~/.config/payctl/config.toml  the contexts (`payctl config`; $XDG_CONFIG_HOME, or PAYCTL_CONFIG)
  ~/.local/share/payctl   the default store (the platform data dir)
  <store>/payctl.lock     the writers' turn (a writer waits here; readers pass through); the
                          store's directory is the lock readers share and a writer holds
  <store>/meta.json       the format version
  <store>/catalog.json    programs, applications, templates, the Facilitator's settings
  <store>/customers/      one file per customer (profile, addresses, instruments, attachments)
  <store>/transactions/   one file per transaction (parameters, steps)
  <store>/index/, queue/  derived indexes and the worker's queue (rebuilt by `store check --repair`)
  <store>/idempotency/    the --idempotency-key records of the last 24 hours (never rebuilt or removed by repair)
  <store>/keys.json       the API keys of `payctl serve` (the SHA-256 of each secret, never the secret);
                          keys-used.json their last use (`payctl key`)
  <store>/rules.json      the outcome rules of `payctl sim rule`; sim/ the reads they count
  <store>/snapshots/      the snapshots of `payctl store snapshot` (restore.json while one is restored)

EXAMPLES
  payctl demo
  CSP=$(payctl profile create --body profile.json -o id)
  payctl program attach \"$(payctl program list -o id)\" \"$CSP\" && payctl worker
  payctl profile list --all -o jsonl | jq -r '.customer_key'";

/// `payctl completions --help`: the dynamic completion's install lines,
/// and what the static scripts are for (see `complete`).
pub const COMPLETIONS_HELP: &str = "\
Dynamic completion (recommended): payctl answers each TAB itself, so it completes subcommands
and flags, and also the ids and names of the store: profiles, addresses, instruments, programs,
applications, templates, transactions, statuses and contexts. Add your shell's line to its
start-up file, then open a new shell:
  bash        echo 'source <(COMPLETE=bash payctl)' >> ~/.bashrc
  zsh         echo 'source <(COMPLETE=zsh payctl)' >> ~/.zshrc        # after compinit
  fish        echo 'COMPLETE=fish payctl | source' > ~/.config/fish/completions/payctl.fish
  PowerShell  add these two lines to $PROFILE:
                $env:COMPLETE = \"powershell\"; payctl | Out-String | Invoke-Expression
                Remove-Item Env:\\COMPLETE
  elvish      echo 'eval (E:COMPLETE=elvish payctl | slurp)' >> ~/.config/elvish/rc.elv
The script is generated at each start of the shell, so it always matches the payctl installed.
Ids are read from the store the command line names: --data-dir, --database-url, --base-url or
--context typed before the word, else PAYCTL_DATA_DIR, PAYCTL_DATABASE_URL, PAYCTL_BASE_URL,
PAYCTL_CONTEXT, else the current context, else the default store. Completing only reads: a
store that does not exist is not created (nothing is completed), nothing is prompted or printed,
and at most 1000 candidates that start with what is typed are offered (profiles and transactions:
found among the first 5000). An address or instrument id is completed after the customer
profile id typed before it.

Static scripts (this command): subcommands, flags and fixed values (formats, dictionary names)
only, no ids, and the global options right after `payctl` only; they do not run payctl. For a
package that installs completion files, or a system where payctl is not on PATH when the shell
starts. Regenerate them after an upgrade.

Examples:
  source <(COMPLETE=bash payctl)
  payctl completions bash > ~/.local/share/bash-completion/completions/payctl
  payctl completions zsh > ~/.zfunc/_payctl   # with fpath+=(~/.zfunc) before compinit";
