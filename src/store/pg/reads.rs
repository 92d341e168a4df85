//! The records read all at once: every key's holder (an import), every
//! customer and every transaction. The reads by id or by key are the
//! storage interface's, in interface.rs.

use super::*;

impl PgStore {
    pub fn key_index(&self) -> Result<PgKeyIndex> {
        let owners = self.with(|c| {
            Ok(
                c.query("SELECT customer_key, id FROM payctl_customers", &[])?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect(),
            )
        })?;
        Ok(PgKeyIndex { owners })
    }

    fn docs<T: serde::de::DeserializeOwned>(
        &self,
        what: &str,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<T>> {
        let rows: Vec<String> = self.with(|c| {
            Ok(c.query(sql, params)?
                .into_iter()
                .map(|r| r.get::<_, String>(0))
                .collect())
        })?;
        rows.iter().map(|t| self.doc(what, t)).collect()
    }

    /// Every customer in creation order (for a check or a migration).
    pub fn all_customers(&self) -> Result<Vec<Customer>> {
        self.docs(
            "a customer",
            "SELECT doc::text FROM payctl_customers ORDER BY seq",
            &[],
        )
    }

    /// Every transaction in creation order.
    pub fn all_txns(&self) -> Result<Vec<TxnFile>> {
        self.docs(
            "a transaction",
            "SELECT doc::text FROM payctl_transactions ORDER BY seq",
            &[],
        )
    }
}

/// The stamps of the customers and of the API keys (see
/// [`schema::STAMP`]): two indexed rows, one statement (prepared once on a
/// pooled connection); `None` when a row is missing.
pub(super) fn read_stamps(
    c: &mut pool::Prep<'_>,
) -> std::result::Result<Option<(i64, i64)>, postgres::Error> {
    let rows = c.query(
        "SELECT name, n FROM payctl_stamp WHERE name IN ('customers', 'keys')",
        &[],
    )?;
    let of = |name: &str| {
        rows.iter()
            .find(|r| r.get::<_, &str>(0) == name)
            .map(|r| r.get::<_, i64>(1))
    };
    Ok(of("customers").zip(of("keys")))
}
