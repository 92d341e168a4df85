//! The endpoint table itself: every route of the HTTP API, its method,
//! operation, records, query and body (see [`super::endpoints`], which
//! routes requests with it and serves them).

use super::endpoints::{Body, Endpoint, Kind, Method, Op, Query};

const fn ep(
    method: Method,
    path: &'static str,
    op: Op,
    kind: Kind,
    query: Query,
    body: Body,
    summary: &'static str,
) -> Endpoint {
    Endpoint {
        method,
        path,
        op,
        kind,
        query,
        body,
        alias: false,
        summary,
    }
}

const fn alias(e: Endpoint) -> Endpoint {
    Endpoint { alias: true, ..e }
}

const fn get(path: &'static str, op: Op, kind: Kind, query: Query, s: &'static str) -> Endpoint {
    ep(Method::Get, path, op, kind, query, Body::None, s)
}

/// The endpoint of the dictionary `name` (canonical), at `path`.
const fn dict(path: &'static str, name: &'static str, s: &'static str) -> Endpoint {
    get(path, Op::Dict, Kind::Dictionary(name), Query::Paging, s)
}

use Method::{Delete, Post, Put};

const CSP: &str = "/customer-profiles/{customer_profile_id}";

/// Every endpoint: spec section 4, then ours (marked so in the summary).
#[rustfmt::skip]
pub static ENDPOINTS: &[Endpoint] = &[
    // 4.1 Customer profiles
    ep(Post, "/customer-profiles", Op::ProfileCreate, Kind::Id, Query::None, Body::ProfileCreate, "Create a customer profile"),
    get("/customer-profiles", Op::ProfileList, Kind::Profile, Query::Profiles, "List customer profiles, oldest first"),
    get(CSP_PATH, Op::ProfileGet, Kind::Profile, Query::None, "Show one customer profile"),
    ep(Put, CSP_PATH, Op::ProfileUpdate, Kind::Id, Query::None, Body::ProfileUpdate, "Change a customer profile (partial)"),
    // 4.2 Addresses
    ep(Post, ADDRESSES, Op::AddressCreate, Kind::Id, Query::None, Body::AddressCreate, "Add an address to a customer profile"),
    get(ADDRESSES, Op::AddressList, Kind::Address, Query::Paging, "List the addresses of a customer profile"),
    get(ADDRESS, Op::AddressGet, Kind::Address, Query::None, "Show one address"),
    ep(Put, ADDRESS, Op::AddressUpdate, Kind::Id, Query::None, Body::AddressUpdate, "Change an address (partial)"),
    ep(Delete, ADDRESS, Op::AddressDelete, Kind::Id, Query::None, Body::None, "Delete an address that is not the default"),
    // 4.3 Payment instruments: the spec's create uses the underscore spelling,
    // the rest the hyphen; both spellings answer every method.
    ep(Post, INSTRUMENTS_U, Op::InstrumentCreate, Kind::Id, Query::None, Body::InstrumentCreate, "Add a bank-account payment instrument"),
    alias(ep(Post, INSTRUMENTS, Op::InstrumentCreate, Kind::Id, Query::None, Body::InstrumentCreate, "Add a bank-account payment instrument (hyphen spelling)")),
    get(INSTRUMENTS, Op::InstrumentList, Kind::Instrument, Query::Paging, "List the payment instruments of a customer profile"),
    alias(get(INSTRUMENTS_U, Op::InstrumentList, Kind::Instrument, Query::Paging, "List the payment instruments (underscore spelling)")),
    get(INSTRUMENT, Op::InstrumentGet, Kind::Instrument, Query::None, "Show one payment instrument"),
    alias(get(INSTRUMENT_U, Op::InstrumentGet, Kind::Instrument, Query::None, "Show one payment instrument (underscore spelling)")),
    ep(Put, INSTRUMENT, Op::InstrumentUpdate, Kind::Id, Query::None, Body::InstrumentUpdate, "Change the label, change reason or is_default of an instrument"),
    alias(ep(Put, INSTRUMENT_U, Op::InstrumentUpdate, Kind::Id, Query::None, Body::InstrumentUpdate, "Change an instrument (underscore spelling)")),
    // 4.4 Programs, applications and attachment
    get("/programs", Op::ProgramList, Kind::Program, Query::Paging, "List the Facilitator's programs"),
    get("/programs/{program_id}/applications", Op::ApplicationList, Kind::Application, Query::Paging, "List the applications of a program"),
    ep(Post, "/programs/{program_id}/customer-profiles", Op::Attach, Kind::Id, Query::None, Body::Attach, "Ask for a customer profile to be attached to a program"),
    get("/programs/{program_id}/customer-profiles", Op::AttachmentList, Kind::Attachment, Query::Paging, "List the profile-program records of a program"),
    get("/programs/{program_id}/customer-profiles/{customer_profile_id}", Op::AttachmentGet, Kind::Attachment, Query::None, "Show the profile-program record of one profile"),
    // 4.5 Templates
    get("/applications/{application_id}/transaction-templates", Op::TemplateList, Kind::Template, Query::Paging, "List the transaction templates of an application"),
    get("/transaction-templates/{transaction_template_id}/transaction-template-steps", Op::TemplateStepList, Kind::TemplateStep, Query::Paging, "List the steps of a transaction template"),
    // 4.6 Transactions
    ep(Post, "/transactions", Op::TxnCreate, Kind::Id, Query::None, Body::TxnCreate, "Create a transaction"),
    get("/transactions", Op::TxnList, Kind::Transaction, Query::Transactions, "List transactions, oldest first (ours)"),
    get("/transactions/{transaction_id}", Op::TxnGet, Kind::Transaction, Query::None, "Show one transaction (ours)"),
    get("/transactions/{transaction_id}/parameters", Op::TxnParameters, Kind::Parameter, Query::Paging, "List the stored parameters of a transaction"),
    get("/transactions/{transaction_id}/transaction-steps", Op::TxnSteps, Kind::Step, Query::Paging, "List the steps of a transaction"),
    // 4.7 Dictionaries
    get("/dictionaries", Op::DictNames, Kind::DictionaryName, Query::Paging, "The names of the dictionaries (ours)"),
    dict("/dictionaries/customer-types", "customer-types", "Customer types"),
    alias(dict("/dictionaries/customer_types", "customer-types", "Customer types (underscore spelling)")),
    dict("/dictionaries/address-types", "address-types", "Address types"),
    dict("/dictionaries/countries", "countries", "Countries"),
    get("/dictionaries/countries/{country_id}/states", Op::DictStates, Kind::Dictionary("states"), Query::Paging, "States of a country"),
    dict("/dictionaries/payment-instrument-types", "payment-instrument-types", "Payment instrument types"),
    dict("/dictionaries/payment-methods", "payment-methods", "Payment methods"),
    dict("/dictionaries/payment-instrument-ach-types", "payment-instrument-ach-types", "ACH types"),
    dict("/dictionaries/transfer-types", "transfer-types", "Transfer types"),
    dict("/dictionaries/destinations", "destinations", "Destinations"),
    dict("/dictionaries/account-codes", "account-codes", "Account codes"),
    dict("/dictionaries/cardinality", "cardinality", "Cardinalities"),
    dict("/dictionaries/parameter-types", "parameter-types", "Parameter types"),
    dict("/dictionaries/customer-profile-program-statuses", "customer-profile-program-statuses", "Statuses of a profile in a program (ours)"),
    dict("/dictionaries/payment-instrument-statuses", "payment-instrument-statuses", "Statuses of a payment instrument (ours)"),
    dict("/dictionaries/transaction-statuses", "transaction-statuses", "Statuses of a transaction (ours)"),
    dict("/dictionaries/transaction-step-statuses", "transaction-step-statuses", "Statuses of a transaction step (ours)"),
    // The event log (ours).
    get("/events", Op::EventList, Kind::Event, Query::Events, "List events, oldest first: every change, who made it and when (ours)"),
    get("/events/{event_id}", Op::EventGet, Kind::Event, Query::None, "Show one event (ours)"),
    ep(Post, "/events/{event_id}/resend", Op::EventResend, Kind::WebhookResend, Query::None, Body::EventResend, "Queue an event for a webhook once more (ours; admin)"),
    ep(Post, "/webhooks", Op::WebhookCreate, Kind::NewWebhook, Query::None, Body::WebhookCreate, "Create a webhook; its signing secret is in this answer only (ours; admin)"),
    get("/webhooks", Op::WebhookList, Kind::Webhook, Query::Paging, "List webhooks, oldest first (ours; admin)"),
    get("/webhooks/{webhook_id}", Op::WebhookGet, Kind::Webhook, Query::None, "Show one webhook (ours; admin)"),
    ep(Delete, "/webhooks/{webhook_id}", Op::WebhookDelete, Kind::Id, Query::None, Body::None, "Delete a webhook: no more deliveries (ours; admin)"),
    get("/webhooks/{webhook_id}/deliveries", Op::WebhookDeliveries, Kind::WebhookDelivery, Query::Paging, "List a webhook's delivery attempts, oldest first (ours; admin)"),
    // Many profiles at once (ours): under /_payctl/, where the spec has no
    // path, yet a writer's, as one create is (see `auth::needed`).
    ep(Post, "/_payctl/customer-profiles/import", Op::ProfileImport, Kind::Imported, Query::Import, Body::ProfileLines, "Create customer profiles from JSON Lines, all or none: every line is checked before any is written (ours; writer)"),
    // Administration (ours), under /_payctl/ only.
    get("/_payctl/health", Op::Health, Kind::Health, Query::None, "200 while the server runs (alive); the store is not opened"),
    get("/_payctl/ready", Op::Ready, Kind::Health, Query::None, "200 when the store answers: opened for reading and its worker queue read within 2 s; else 503 with Retry-After"),
    get("/_payctl/metrics", Op::Metrics, Kind::Document, Query::None, "The server's metrics in the Prometheus text format (text/plain; version=0.0.4)"),
    ep(Post, "/_payctl/worker", Op::Worker, Kind::WorkerSummary, Query::None, Body::None, "Run one pass of the background work now; answers its summary"),
    ep(Post, "/_payctl/snapshots/{name}", Op::SnapshotSave, Kind::Snapshot, Query::None, Body::None, "Save the store's records as a snapshot, replacing one of that name (admin)"),
    get("/_payctl/snapshots", Op::SnapshotList, Kind::Snapshot, Query::Paging, "List the snapshots, oldest first (admin)"),
    ep(Post, "/_payctl/snapshots/{name}/restore", Op::SnapshotRestore, Kind::Snapshot, Query::None, Body::None, "Replace every record with the snapshot's, at once (admin)"),
    ep(Delete, "/_payctl/snapshots/{name}", Op::SnapshotDelete, Kind::Id, Query::None, Body::None, "Delete a snapshot (admin)"),
    ep(Post, "/_payctl/reset", Op::Reset, Kind::Reset, Query::None, Body::None, "Remove every record; keep the catalog, keys, webhooks and rules (admin)"),
    get("/_payctl/rules", Op::RuleList, Kind::SimRule, Query::Paging, "List the outcome rules of the background work, in the order they apply (admin)"),
    ep(Post, "/_payctl/rules", Op::RuleAdd, Kind::SimRule, Query::None, Body::RuleCreate, "Add an outcome rule: what the worker does with the items it matches (admin)"),
    ep(Delete, "/_payctl/rules/{id}", Op::RuleDelete, Kind::Id, Query::None, Body::None, "Delete an outcome rule (admin)"),
    get("/openapi.json", Op::OpenApi, Kind::Document, Query::None, "This API as an OpenAPI 3.1 document"),
];

const CSP_PATH: &str = CSP;
const ADDRESSES: &str = "/customer-profiles/{customer_profile_id}/addresses";
const ADDRESS: &str = "/customer-profiles/{customer_profile_id}/addresses/{address_id}";
const INSTRUMENTS: &str = "/customer-profiles/{customer_profile_id}/payment-instruments";
const INSTRUMENTS_U: &str = "/customer-profiles/{customer_profile_id}/payment_instruments";
const INSTRUMENT: &str =
    "/customer-profiles/{customer_profile_id}/payment-instruments/{payment_instrument_id}";
const INSTRUMENT_U: &str =
    "/customer-profiles/{customer_profile_id}/payment_instruments/{payment_instrument_id}";
