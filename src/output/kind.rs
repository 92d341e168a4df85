//! What the records of an answer are. Every answer says it (the endpoint
//! table declares the kind each endpoint returns; the few answers without an
//! endpoint name theirs), and `-o id` and `-o table` render from the kind:
//! its id field here, its columns in `table.rs`, never from which keys a
//! record happens to have. A new kind of record is rendered only once it is
//! declared, not by accident.

use std::borrow::Cow;

/// The kind of the records of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// `data: [{"id": …}]` of a create, an update or a delete.
    Id,
    Profile,
    Address,
    Instrument,
    Program,
    Application,
    Template,
    TemplateStep,
    /// A profile-program record (attachment).
    Attachment,
    Transaction,
    /// A stored parameter of a transaction.
    Parameter,
    /// A step of a transaction.
    Step,
    /// An entry of the dictionary of that (canonical) name.
    Dictionary(&'static str),
    /// `{"dictionary_name"}`: the names of the dictionaries.
    DictionaryName,
    /// A line created by `profile import`: `{"id", "customer_key", "line"}`.
    Imported,
    /// The worker's counts.
    WorkerSummary,
    /// A context of the config file (`payctl config`): `{"name", "current",
    /// "base_url", "data_dir", "database_url", "token_env"}`.
    Context,
    Health,
    /// The OpenAPI document itself (not an envelope).
    Document,
    /// An API key as `key list` and `key revoke` show it (never its secret
    /// or hash); its id is its name.
    ApiKey,
    /// A key just created, with its secret (shown once); its id is its name.
    NewApiKey,
    /// An event of the log (`events list`, `history`).
    Event,
    /// A webhook as every answer but its create shows it (secret masked).
    Webhook,
    /// A webhook just created, with its whole signing secret (shown once).
    NewWebhook,
    /// A delivery attempt of a webhook.
    WebhookDelivery,
    /// An event queued again for a webhook (`events resend`).
    WebhookResend,
    /// A report of ours that is not a record (store check, migrate, demo,
    /// generate-docs): no id; its scalar fields as columns.
    Summary,
    /// A snapshot of the store (`store snapshot`); its id is its name.
    Snapshot,
    /// An outcome rule of the background work (`sim rule`).
    SimRule,
    /// What `store reset` removed: no id.
    Reset,
}

impl RecordKind {
    /// The field that identifies a record of this kind (what `-o id`
    /// prints); None for what is not a record.
    pub fn id_field(self) -> Option<Cow<'static, str>> {
        use RecordKind::*;
        Some(Cow::Borrowed(match self {
            Id | Imported => "id",
            Profile | Attachment => "customer_profile_id",
            Address => "address_id",
            Instrument => "payment_instrument_id",
            Program => "program_id",
            Application => "application_id",
            Template => "transaction_template_id",
            TemplateStep => "transaction_template_step_id",
            Transaction => "transaction_id",
            Parameter => "transaction_parameter_id",
            Step => "transaction_step_id",
            Event | WebhookResend => "event_id",
            Webhook | NewWebhook => "webhook_id",
            WebhookDelivery => "delivery_id",
            DictionaryName => "dictionary_name",
            Context | ApiKey | NewApiKey => "name",
            Snapshot => "snapshot_name",
            SimRule => "rule_id",
            Dictionary(name) => {
                return crate::catalog::dictionaries::id_field(name).map(Cow::Owned);
            }
            WorkerSummary | Health | Document | Summary | Reset => return None,
        }))
    }
}
