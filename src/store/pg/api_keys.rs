//! API keys in the database: rows of `payctl_keys` (see schema.rs), looked
//! up by their primary key, the secret's SHA-256. A server asks the
//! database at each request (one indexed row), so a key created or revoked
//! by any process, or another server on the same database, counts at once.

use super::PgStore;
use crate::error::Result;
use crate::model::api_key::{ApiKey, Role};

pub(super) const COLUMNS: &str = "name, role, hash, created, expires, revoked, last_used";

impl PgStore {
    pub(super) fn api_key_of(&self, r: &postgres::Row) -> Result<ApiKey> {
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
}

/// The statements of a write transaction's keys (see `PgStore::apply`): one
/// for the keys and one for their use, whatever their number (a
/// migration's thousands of keys included).
pub(super) fn write(
    c: &mut postgres::Client,
    keys: &[ApiKey],
    used: &[(String, String)],
) -> std::result::Result<(), postgres::Error> {
    if !keys.is_empty() {
        let col = |f: fn(&ApiKey) -> String| keys.iter().map(f).collect::<Vec<String>>();
        let opt = |f: fn(&ApiKey) -> Option<String>| keys.iter().map(f).collect::<Vec<_>>();
        c.execute(
            "INSERT INTO payctl_keys (hash, name, role, created, expires, revoked) \
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], \
               $5::text[], $6::text[]) \
             ON CONFLICT (hash) DO UPDATE SET name = EXCLUDED.name, role = EXCLUDED.role, \
             created = EXCLUDED.created, expires = EXCLUDED.expires, revoked = EXCLUDED.revoked",
            &[
                &col(|k| k.hash.clone()),
                &col(|k| k.name.clone()),
                &col(|k| k.role.as_str().to_string()),
                &col(|k| k.created.clone()),
                &opt(|k| k.expires.clone()),
                &opt(|k| k.revoked.clone()),
            ],
        )?;
    }
    if !used.is_empty() {
        // The latest use of each key.
        let mut latest: std::collections::BTreeMap<&str, &str> = Default::default();
        for (h, at) in used {
            let slot = latest.entry(h.as_str()).or_insert(at.as_str());
            if at.as_str() > *slot {
                *slot = at.as_str();
            }
        }
        let (hashes, ats): (Vec<&str>, Vec<&str>) = latest.into_iter().unzip();
        c.execute(
            "UPDATE payctl_keys k SET last_used = u.at \
             FROM unnest($1::text[], $2::text[]) AS u (hash, at) \
             WHERE k.hash = u.hash AND (k.last_used IS NULL OR k.last_used < u.at)",
            &[&hashes, &ats],
        )?;
    }
    Ok(())
}
