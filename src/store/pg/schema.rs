//! The database's schema, created by the first command in an empty
//! database, and its version (refused when newer than this payctl's).
//!
//! Every aggregate is one JSONB row (`doc`) beside the columns that lists,
//! filters and races need: a creation sequence (`seq`), the customer_key
//! (UNIQUE: the database decides which of two creates wins), lower-cased
//! names and e-mail, a transaction's program and status. Profile-program
//! records (`payctl_attachments`, primary key program and customer) are
//! derived from the customer aggregates on every commit. The worker's
//! pending items are rows of `payctl_queue`, claimed with
//! `FOR UPDATE SKIP LOCKED`. Idempotency records are rows of
//! `payctl_idempotency`. API keys are rows of `payctl_keys`, the SHA-256 of
//! the secret their primary key (a request's key is one index lookup) and
//! their name UNIQUE.

/// The schema version this payctl writes and reads.
/// 2: indexes on the filtered columns of `payctl_customers` (a version-1
/// database gets them in place at its next open);
/// 3: indexes on the status, template and program of `payctl_transactions`
/// with its creation sequence (`txn list` filters; a version-1 or 2
/// database gets them in place at its next open);
/// 4: `payctl_counts`, the number of customers kept in [`COUNT_SLOTS`] rows
/// that commits add to (a page's `total_count` without a `count(*)` of the
/// table; an older database gets it, counted once, at its next open);
/// 5: `payctl_keys`, the API keys of `payctl serve` (a payctl of version 4
/// would serve a database that has keys without asking for one; an older
/// database gets the empty table at its next open);
/// 6: `payctl_events` and `payctl_event_head`, the event log (a payctl of
/// version 5 would change records without their events; an older database
/// gets the empty log at its next open);
/// 7: the tables of issue 37, rules, read counts and snapshots
/// (`snapshot::TABLES`), and `payctl_webhook_docs` and `payctl_webhook_log`,
/// the webhooks, their outboxes and their delivery attempts (a payctl of
/// version 6 would ignore the rules and not deliver; an older database gets
/// the empty tables at its next open);
/// 8: `payctl_stamp`, the stamps of the customers and of the API keys,
/// bumped by triggers in every transaction that changes them (see [`STAMP`]; a
/// payctl of version 7 would change them without moving the stamp, and a
/// server would keep answers that no longer hold; an older database gets
/// it at its next open).
pub const SCHEMA_VERSION: u32 = 8;

/// The rows of `payctl_counts` that hold the number of customers: a commit
/// adds its new customers to one of them, chosen at random, so that
/// concurrent creates seldom wait for the same row; the count is their sum.
pub const COUNT_SLOTS: i32 = 16;

/// A lock number of `pg_advisory_xact_lock` that serializes the creation of
/// the schema by concurrent first commands.
pub const CREATE_LOCK: i64 = 0x7061_7963_746c; // "payctl"

pub const TABLES: &str = "
CREATE TABLE IF NOT EXISTS payctl_meta (
    name text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_customers (
    id text PRIMARY KEY,
    seq bigserial NOT NULL UNIQUE,
    customer_key text NOT NULL UNIQUE,
    first_name_lc text NOT NULL,
    last_name_lc text NOT NULL,
    email_lc text NOT NULL,
    doc jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_transactions (
    id text PRIMARY KEY,
    seq bigserial NOT NULL UNIQUE,
    program_id text NOT NULL,
    template_id text NOT NULL,
    status_id integer NOT NULL,
    doc jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_attachments (
    program_id text NOT NULL,
    customer_id text NOT NULL REFERENCES payctl_customers (id),
    seq bigserial NOT NULL UNIQUE,
    PRIMARY KEY (program_id, customer_id)
);
CREATE TABLE IF NOT EXISTS payctl_queue (
    name text PRIMARY KEY
);
CREATE TABLE IF NOT EXISTS payctl_idempotency (
    key text PRIMARY KEY,
    fp text NOT NULL,
    at bigint NOT NULL,
    result text NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_keys (
    hash text PRIMARY KEY,
    name text NOT NULL UNIQUE,
    role text NOT NULL,
    created text NOT NULL,
    expires text,
    revoked text,
    last_used text
);
CREATE TABLE IF NOT EXISTS payctl_events (
    seq bigint PRIMARY KEY,
    record_id text NOT NULL,
    line text NOT NULL
);
CREATE INDEX IF NOT EXISTS payctl_events_record ON payctl_events (record_id, seq);
CREATE TABLE IF NOT EXISTS payctl_event_head (
    one integer PRIMARY KEY CHECK (one = 1),
    seq bigint NOT NULL,
    hash text NOT NULL
);
INSERT INTO payctl_event_head (one, seq, hash)
    VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000')
    ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS payctl_webhook_docs (
    name text PRIMARY KEY,
    body text NOT NULL
);
CREATE TABLE IF NOT EXISTS payctl_webhook_log (
    seq bigserial PRIMARY KEY,
    name text NOT NULL,
    line text NOT NULL
);
CREATE INDEX IF NOT EXISTS payctl_webhook_log_name ON payctl_webhook_log (name, seq);
CREATE TABLE IF NOT EXISTS payctl_counts (
    name text NOT NULL,
    slot integer NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (name, slot)
);
";

/// The count's rows, the customers counted once (no commit adds to the
/// table meanwhile: the lock waits for those under way and holds off the
/// next until this transaction ends). Does nothing where the rows exist.
pub const COUNTS: &str = "
LOCK TABLE payctl_customers IN SHARE MODE;
INSERT INTO payctl_counts (name, slot, n)
    SELECT 'customers', s, CASE WHEN s = 0 THEN (SELECT count(*) FROM payctl_customers) ELSE 0 END
    FROM generate_series(0, 15) AS s
    ON CONFLICT DO NOTHING;
";

/// The stamps of what `payctl serve` keeps between requests (see
/// `api::cache`): a row per kind of record kept, `customers` (the answers
/// of a profile's GET) and `keys` (the API keys), whose number a
/// statement-level trigger bumps in every transaction that changes one of
/// them (a key's time of last use aside), whoever runs it (any payctl, a
/// restore, a hand-made `UPDATE`). The bump is part of the writer's
/// transaction, so a commit acknowledged to anyone moved the stamp for
/// every statement that starts after it; a server reads both rows before it
/// reads the store for a request. Each starts at a random number, so that
/// a store made again in a database (dropped, created) does not take up the
/// numbers of the one before. A writer locks its row from its first
/// change to its commit, which is why a commit changes the customers last,
/// next to the event log's head (see tx.rs); two rows, so that creates do
/// not drop the keys kept. Replaced in place at each upgrade (`CREATE OR
/// REPLACE`, the triggers dropped and created again).
pub const STAMP: &str = "
CREATE TABLE IF NOT EXISTS payctl_stamp (
    name text PRIMARY KEY,
    n bigint NOT NULL
);
INSERT INTO payctl_stamp (name, n)
    SELECT k, (random() * 4503599627370496)::bigint FROM unnest(ARRAY['customers', 'keys']) AS k
    ON CONFLICT DO NOTHING;
CREATE OR REPLACE FUNCTION payctl_bump_stamp() RETURNS trigger LANGUAGE plpgsql AS
    'BEGIN UPDATE payctl_stamp SET n = n + 1 WHERE name = TG_ARGV[0]; RETURN NULL; END';
DROP TRIGGER IF EXISTS payctl_customers_stamp ON payctl_customers;
CREATE TRIGGER payctl_customers_stamp
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON payctl_customers
    FOR EACH STATEMENT EXECUTE FUNCTION payctl_bump_stamp('customers');
DROP TRIGGER IF EXISTS payctl_keys_stamp ON payctl_keys;
CREATE TRIGGER payctl_keys_stamp
    AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF hash, name, role, created, expires, revoked
    ON payctl_keys
    FOR EACH STATEMENT EXECUTE FUNCTION payctl_bump_stamp('keys');
";

/// The indexes of `profile list`'s filters: the lower-cased names and
/// e-mail, and the tags (`@>` on the profile's tag array); and of `txn
/// list`'s: status, template and program, each with the creation sequence
/// (the matches come out in creation order from the index alone).
pub const INDEXES: &str = "
CREATE INDEX IF NOT EXISTS payctl_transactions_status ON payctl_transactions (status_id, seq);
CREATE INDEX IF NOT EXISTS payctl_transactions_template ON payctl_transactions (template_id, seq);
CREATE INDEX IF NOT EXISTS payctl_transactions_program ON payctl_transactions (program_id, seq);
CREATE INDEX IF NOT EXISTS payctl_customers_first_name ON payctl_customers (first_name_lc);
CREATE INDEX IF NOT EXISTS payctl_customers_last_name ON payctl_customers (last_name_lc);
CREATE INDEX IF NOT EXISTS payctl_customers_email ON payctl_customers (email_lc);
CREATE INDEX IF NOT EXISTS payctl_customers_tags ON payctl_customers
    USING gin ((doc -> 'profile' -> 'customer_profile_tags') jsonb_path_ops);
";

/// The tables a store has, for `store migrate` (a target must have none of
/// their rows) and for the check of a database in an unexpected state.
pub const RECORD_TABLES: [&str; 9] = [
    "payctl_customers",
    "payctl_transactions",
    "payctl_attachments",
    "payctl_queue",
    "payctl_idempotency",
    "payctl_keys",
    "payctl_events",
    "payctl_webhook_docs",
    "payctl_webhook_log",
];

#[cfg(test)]
mod tests {
    #[test]
    fn the_count_rows_are_the_slots() {
        let series = format!("generate_series(0, {})", super::COUNT_SLOTS - 1);
        assert!(super::COUNTS.contains(&series), "{}", super::COUNTS);
    }
}
