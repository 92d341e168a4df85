//! `payctl key create|list|revoke`: the API keys of `payctl serve`, managed
//! on the store itself (a directory or `--database-url`), never over HTTP.

use clap::Subcommand;

use super::Global;
use crate::error::{Error, Result};
use crate::model::api_key::Role;
use crate::output::{RecordKind, Response};

pub const KEY_HELP: &str = "\
Once a store holds a key, `payctl serve` on it requires `Authorization: Bearer SECRET` on every
request but GET /_payctl/health (401, 10007, otherwise), and a role that allows the request
(403, 10010): reader every GET (the OpenAPI document included); writer also every create,
update, delete and attach; admin also /_payctl/* (the worker). The token of `serve --token` is
one more admin credential, named `token`. A write's audit actor is the key's name, or
`NAME:ACTOR` with an `X-Payctl-Actor` header (remote mode sends its --actor).

The store keeps the SHA-256 of each secret, never the secret: `key create` prints it once.
Keys are never removed: a revoked key stays listed, its name taken for ever (audit fields name
it), and revoking every key never opens the server. A key created or revoked counts for every
running server of the store from its next request, without a restart. Keys live in the store,
so servers sharing a database share them; they are managed here only, never in remote mode.

A team's set-up:
  payctl key create dashboards --role reader           # read-only dashboards
  payctl key create billing-svc --role writer          # one writer per client service
  payctl key create ci --role admin --expires-in 90    # CI: the worker and resets
  payctl key list
  payctl key revoke billing-svc                        # refused at once by every server
  PAYCTL_TOKEN=pk_… PAYCTL_BASE_URL=https://payctl.internal payctl profile list";

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum RoleArg {
    /// Every GET (and HEAD), the OpenAPI document included
    Reader,
    /// Reader, and every create, update, delete and attach
    Writer,
    /// Writer, and the administration routes /_payctl/* (the worker)
    Admin,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Reader => Role::Reader,
            RoleArg::Writer => Role::Writer,
            RoleArg::Admin => Role::Admin,
        }
    }
}

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum KeyCommand {
    /// Create an API key and print its secret, once
    #[command(
        after_help = "Prints data: [{\"name\", \"role\", \"secret\": \"pk_…\", \"created\", \"expires\"}]. The secret is shown\n\
this once: the store keeps only its SHA-256. `-o id` prints the key's name (its id), not the secret:\n\
take the secret from -o json. A second key of a name is refused (21006), revoked keys' names included.\n\n\
Examples:\n  payctl key create dashboards --role reader\n  payctl key create ci --role admin --expires-in 90 -o json | jq -r '.data[0].secret' > ci.key"
    )]
    Create {
        /// The key's name: 1-64 of A-Z a-z 0-9 _ . -, unique in the store (revoked keys keep
        /// theirs); `token` and `SYSTEM` are reserved
        name: String,
        /// What the key may do: reader, writer or admin (each also what the one before may)
        #[arg(long, value_enum, value_name = "ROLE")]
        role: RoleArg,
        /// Days until the key is refused (1-3650) [default: never]
        #[arg(long, value_name = "DAYS", value_parser = clap::value_parser!(u32).range(1..=3650))]
        expires_in: Option<u32>,
    },
    /// List the keys: name, role, created, expires, last used, revoked (never a secret or its hash)
    #[command(
        after_help = "Last use is recorded by each server at most once a minute per key.\n\nExample:\n  payctl key list -o json | jq -r '.data[] | select(.revoked == null) | .name'"
    )]
    List,
    /// Revoke a key: every server of the store refuses it from its next request
    #[command(
        after_help = "The key stays listed with the time it was revoked; revoking it again answers the same.\nAn unknown name is 20001.\n\nExample:\n  payctl key revoke billing-svc"
    )]
    Revoke {
        /// The key's name
        name: String,
    },
}

impl KeyCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        if g.remote.is_some() {
            return Err(Error::usage(
                "`payctl key` manages the keys of the store itself, never over HTTP: run it \
                 where the store is (--data-dir or --database-url), without --base-url / \
                 PAYCTL_BASE_URL",
            ));
        }
        match self {
            KeyCommand::Create {
                name,
                role,
                expires_in,
            } => {
                let store = g.write()?;
                let now = chrono::Utc::now().naive_utc();
                let c = crate::core::api_keys::create(&store, now, &name, role.into(), expires_in)?;
                g.ui.err_line(
                    "note: the secret is shown this once; the store keeps only its SHA-256",
                );
                Ok(Response::Records(
                    RecordKind::NewApiKey,
                    vec![serde_json::json!({
                        "name": c.key.name,
                        "role": c.key.role,
                        "secret": c.secret,
                        "created": c.key.created,
                        "expires": c.key.expires,
                    })],
                ))
            }
            KeyCommand::List => {
                let keys = g.read()?.api_keys()?;
                Ok(Response::Records(
                    RecordKind::ApiKey,
                    keys.iter().map(|k| k.shown()).collect(),
                ))
            }
            KeyCommand::Revoke { name } => {
                let store = g.write()?;
                let k = crate::core::api_keys::revoke(&store, &g.ctx().now, &name)?;
                Ok(Response::Records(RecordKind::ApiKey, vec![k.shown()]))
            }
        }
    }
}
