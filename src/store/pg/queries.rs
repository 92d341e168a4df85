//! The queries across records: the profile summaries and their order, the
//! field and program lookups, the transactions matching a query, the
//! worker's queue, the idempotency records and the counts.

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

    pub fn program_customers(&self, program_id: &str) -> Result<Vec<String>> {
        Ok(self
            .rows(
                "SELECT customer_id FROM payctl_attachments WHERE program_id = $1 ORDER BY seq",
                &[Type::TEXT],
                &[&program_id],
            )?
            .into_iter()
            .map(|r| r.get(0))
            .collect())
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

    pub fn queue(&self) -> Result<Vec<QueueItem>> {
        let names: Vec<String> = self.with(|c| {
            Ok(c.query("SELECT name FROM payctl_queue ORDER BY name", &[])?
                .into_iter()
                .map(|r| r.get(0))
                .collect())
        })?;
        Ok(names.iter().filter_map(|n| QueueItem::parse(n)).collect())
    }

    /// Whether `item` is queued; a store opened for writing claims it until
    /// its commit (`FOR UPDATE SKIP LOCKED`: an item another worker holds is
    /// not queued for this one).
    pub fn is_queued(&self, item: &QueueItem) -> bool {
        let sql = if self.mode == Mode::Exclusive {
            "SELECT 1 FROM payctl_queue WHERE name = $1 FOR UPDATE SKIP LOCKED"
        } else {
            "SELECT 1 FROM payctl_queue WHERE name = $1"
        };
        let name = item.file_name();
        self.row(sql, &[Type::TEXT], &[&name])
            .is_ok_and(|r| r.is_some())
    }

    /// The live record of idempotency key `key`. A store opened for
    /// writing first claims the key until its commit (a transaction-scoped
    /// advisory lock on the key's hash, in a family of its own): of two
    /// requests with one key, the second waits for the first to commit or
    /// roll back, then reads the record it left (READ COMMITTED: each
    /// statement sees what was committed before it), so a key is executed
    /// once and every caller gets its answer, on one server or several.
    pub fn idempotency_record(&self, key: &str, now: i64) -> Result<Option<idempotency::Record>> {
        if self.mode == Mode::Exclusive {
            self.rows(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 1013))",
                &[Type::TEXT],
                &[&key],
            )?;
        }
        let row: Option<(String, i64, String)> = self
            .row(
                "SELECT fp, at, result FROM payctl_idempotency WHERE key = $1",
                &[Type::TEXT],
                &[&key],
            )?
            .map(|r| (r.get(0), r.get(1), r.get(2)));
        let Some((fp, at, result)) = row else {
            return Ok(None);
        };
        let rec = idempotency::Record {
            key: key.to_string(),
            fp,
            at,
            result: self.doc("an idempotency record", &result)?,
        };
        Ok((!rec.expired(now)).then_some(rec))
    }

    /// Every live idempotency record (for `store migrate`).
    pub fn idempotency_records(&self, now: i64) -> Result<Vec<idempotency::Record>> {
        let rows: Vec<(String, String, i64, String)> = self.with(|c| {
            Ok(c.query(
                "SELECT key, fp, at, result FROM payctl_idempotency ORDER BY at, key",
                &[],
            )?
            .into_iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
        })?;
        let mut out = Vec::new();
        for (key, fp, at, result) in rows {
            let rec = idempotency::Record {
                key,
                fp,
                at,
                result: self.doc("an idempotency record", &result)?,
            };
            if !rec.expired(now) {
                out.push(rec);
            }
        }
        Ok(out)
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
