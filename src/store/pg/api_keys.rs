//! API keys in the database: rows of `payctl_keys` (see schema.rs), looked
//! up by their primary key, the secret's SHA-256. A server asks the
//! database at each request (one indexed row), so a key created or revoked
//! by any process, or another server on the same database, counts at once.

use postgres::types::Type;

use super::PgStore;
use crate::error::Result;
use crate::model::api_key::{ApiKey, Role};

const COLUMNS: &str = "name, role, hash, created, expires, revoked, last_used";

impl PgStore {
    fn api_key_of(&self, r: &postgres::Row) -> Result<ApiKey> {
        let role: String = r.get(1);
        Ok(ApiKey {
            name: r.get(0),
            role: Role::parse(&role)
                .ok_or_else(|| self.corrupt(format!("payctl_keys: the role `{role}`")))?,
            hash: r.get(2),
            created: r.get(3),
            expires: r.get(4),
            revoked: r.get(5),
            last_used: r.get(6),
        })
    }

    pub fn api_key(&self, hash: &str) -> Result<Option<ApiKey>> {
        let sql = format!("SELECT {COLUMNS} FROM payctl_keys WHERE hash = $1");
        self.row(&sql, &[Type::TEXT], &[&hash])?
            .map(|r| self.api_key_of(&r))
            .transpose()
    }

    pub fn api_keys(&self) -> Result<Vec<ApiKey>> {
        let sql = format!("SELECT {COLUMNS} FROM payctl_keys ORDER BY created, name");
        self.rows(&sql, &[], &[])?
            .iter()
            .map(|r| self.api_key_of(r))
            .collect()
    }

    pub fn has_api_keys(&self) -> Result<bool> {
        Ok(self
            .row("SELECT EXISTS (SELECT 1 FROM payctl_keys)", &[], &[])?
            .is_some_and(|r| r.get::<_, bool>(0)))
    }
}

/// The statements of a write transaction's keys (see `PgTx::write`).
pub(super) fn write(
    c: &mut postgres::Client,
    keys: &[ApiKey],
    used: &[(String, String)],
) -> std::result::Result<(), postgres::Error> {
    for k in keys {
        c.execute(
            "INSERT INTO payctl_keys (hash, name, role, created, expires, revoked) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (hash) DO UPDATE SET name = EXCLUDED.name, role = EXCLUDED.role, \
             created = EXCLUDED.created, expires = EXCLUDED.expires, revoked = EXCLUDED.revoked",
            &[
                &k.hash,
                &k.name,
                &k.role.as_str(),
                &k.created,
                &k.expires,
                &k.revoked,
            ],
        )?;
    }
    for (hash, at) in used {
        c.execute(
            "UPDATE payctl_keys SET last_used = $2 WHERE hash = $1 \
             AND (last_used IS NULL OR last_used < $2)",
            &[hash, at],
        )?;
    }
    Ok(())
}
