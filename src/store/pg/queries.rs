//! The queries across records: the profile summaries and their order, the
//! field lookups, the transactions matching a query and the counts. The
//! program lookup, the worker's queue and the idempotency records are the
//! storage interface's, in interface.rs.

use super::*;

impl PgStore {
    /// Profile summaries in creation order, from the columns and the
    /// profile's own fields (the addresses and instruments are not read).
    pub fn profiles(&self) -> Result<Vec<ProfileSummary>> {
        self.summaries("", &[])
    }

    fn summaries(
        &self,
        filter: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<ProfileSummary>> {
        let sql = format!(
            "SELECT id, customer_key, \
               coalesce(doc #>> '{{profile,customer_profile_individual,first_name}}', ''), \
               coalesce(doc #>> '{{profile,customer_profile_individual,last_name}}', ''), \
               coalesce(doc #>> '{{profile,customer_profile_individual,email}}', ''), \
               coalesce(doc #>> '{{profile,customer_profile_tags}}', '[]') \
             FROM payctl_customers c {filter} ORDER BY seq"
        );
        let rows: Vec<(String, String, String, String, String, String)> = self.with(|c| {
            Ok(c.query(sql.as_str(), params)?
                .into_iter()
                .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
                .collect())
        })?;
        rows.into_iter()
            .map(|(id, customer_key, first_name, last_name, email, tags)| {
                Ok(ProfileSummary {
                    tags: self.doc(&format!("the tags of customer {id}"), &tags)?,
                    id,
                    customer_key,
                    first_name,
                    last_name,
                    email,
                })
            })
            .collect()
    }

    /// The profiles whose `field` is `value` (normalized: see
    /// [`Field::normal`]), their ids in creation order, from
    /// the column's index (the tags' GIN index), never a scan of every row.
    pub fn profiles_with(&self, field: Field, value: &str) -> Result<Vec<String>> {
        // The rows of the first PREFETCHED matches come with them (see
        // `prefetched`); a store opened for writing reads each row itself
        // (and locks it).
        let doc = if self.mode == Mode::Exclusive {
            "NULL::text".to_string()
        } else {
            format!("CASE WHEN row_number() OVER (ORDER BY seq) <= {PREFETCHED} THEN doc::text END")
        };
        let rows: Vec<(String, Option<String>)> = match field {
            Field::Tag => {
                let (k, v) = value.split_once('=').unwrap_or((value, ""));
                let probe = serde_json::json!([{"key": k, "value": v}]).to_string();
                let sql = format!(
                    "SELECT id, {doc} FROM payctl_customers c \
                     WHERE doc -> 'profile' -> 'customer_profile_tags' @> $1::text::jsonb \
                     ORDER BY seq"
                );
                self.rows(&sql, &[Type::TEXT], &[&probe])?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
            _ => {
                let column = match field {
                    Field::Email => "email_lc",
                    Field::FirstName => "first_name_lc",
                    _ => "last_name_lc",
                };
                let sql = format!(
                    "SELECT id, {doc} FROM payctl_customers c WHERE {column} = $1 \
                     ORDER BY seq"
                );
                self.rows(&sql, &[Type::TEXT], &[&value])?
                    .into_iter()
                    .map(|r| (r.get(0), r.get(1)))
                    .collect()
            }
        };
        let mut prefetched = self.prefetched.lock().unwrap_or_else(|e| e.into_inner());
        Ok(rows
            .into_iter()
            .map(|(id, doc)| {
                if let Some(doc) = doc {
                    prefetched.insert(id.clone(), doc);
                }
                id
            })
            .collect())
    }

    /// The number of customers, from the count that commits keep
    /// (`payctl_counts`, see [`schema::COUNT_SLOTS`]), not a `count(*)` of
    /// the table (which reads every row of an index).
    pub fn profile_count(&self) -> Result<usize> {
        let n: i64 = self
            .row(
                "SELECT coalesce(sum(n), 0)::bigint FROM payctl_counts WHERE name = 'customers'",
                &[],
                &[],
            )?
            .map_or(0, |r| r.get(0));
        Ok(usize::try_from(n).unwrap_or(0))
    }

    pub fn profile_ids(&self, start: usize, end: usize) -> Result<Vec<String>> {
        let offset = i64::try_from(start).unwrap_or(i64::MAX);
        let limit = i64::try_from(end.saturating_sub(start)).unwrap_or(i64::MAX);
        if self.mode == Mode::Exclusive || limit > PREFETCHED {
            return Ok(self
                .rows(
                    "SELECT id FROM payctl_customers ORDER BY seq OFFSET $1 LIMIT $2",
                    &[Type::INT8, Type::INT8],
                    &[&offset, &limit],
                )?
                .into_iter()
                .map(|r| r.get(0))
                .collect());
        }
        // A page: its rows come with its ids (see `prefetched`).
        let rows = self.rows(
            "SELECT id, doc::text FROM payctl_customers ORDER BY seq OFFSET $1 LIMIT $2",
            &[Type::INT8, Type::INT8],
            &[&offset, &limit],
        )?;
        let mut prefetched = self.prefetched.lock().unwrap_or_else(|e| e.into_inner());
        Ok(rows
            .into_iter()
            .map(|r| {
                let id: String = r.get(0);
                prefetched.insert(id.clone(), r.get(1));
                id
            })
            .collect())
    }

    pub fn profile_position(&self, cid: &str) -> Result<Option<usize>> {
        let n: Option<i64> = self
            .row(
                "SELECT (SELECT count(*) FROM payctl_customers o WHERE o.seq < c.seq) \
                 FROM payctl_customers c WHERE c.id = $1",
                &[Type::TEXT],
                &[&cid],
            )?
            .map(|r| r.get(0));
        Ok(n.map(|n| usize::try_from(n).unwrap_or(0)))
    }

    /// The ids, in creation order, of the transactions with status
    /// `status`, one of `templates` and one of `programs` (each when
    /// given), from the indexes on those columns.
    pub fn txns_matching(&self, q: &TxnQuery) -> Result<Vec<String>> {
        let mut cond: Vec<String> = Vec::new();
        let status = q.status.map(|s| s as i32);
        let templates: Vec<String> = q.templates.clone().unwrap_or_default();
        let programs: Vec<String> = q.programs.clone().unwrap_or_default();
        let mut params: Vec<&(dyn ToSql + Sync)> = Vec::new();
        if let Some(s) = &status {
            params.push(s);
            cond.push(format!("status_id = ${}", params.len()));
        }
        if q.templates.is_some() {
            params.push(&templates);
            cond.push(format!("template_id = ANY(${})", params.len()));
        }
        if q.programs.is_some() {
            params.push(&programs);
            cond.push(format!("program_id = ANY(${})", params.len()));
        }
        let filter = if cond.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", cond.join(" AND "))
        };
        let sql = format!("SELECT id FROM payctl_transactions {filter} ORDER BY seq");
        self.with(|c| {
            Ok(c.query(sql.as_str(), &params)?
                .into_iter()
                .map(|r| r.get(0))
                .collect())
        })
    }

    pub fn txns(&self) -> Result<Vec<TxnSummary>> {
        Ok(self.all_txns()?.iter().map(TxnSummary::of).collect())
    }

    /// Rows per table of the store (for `store migrate`'s verification).
    pub fn attachment_count(&self) -> Result<usize> {
        let n: i64 = self.with(|c| {
            Ok(c.query_one("SELECT count(*) FROM payctl_attachments", &[])?
                .get(0))
        })?;
        Ok(usize::try_from(n).unwrap_or(0))
    }
}
