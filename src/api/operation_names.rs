//! What a client generator names its code after: each operation's id (its
//! function) and tag (its module), short and stable.

use super::endpoints::{Endpoint, Op};

/// A short camelCase id per operation (`createCustomerProfile`,
/// `listAddresses`), the name a generated client gives its function; a
/// dictionary's is `list` and its name (`listCustomerTypes`); an alias
/// spelling's ends in `Alias` (and the operation is deprecated).
pub(super) fn operation_id(e: &Endpoint) -> String {
    let base = match e.op {
        Op::ProfileCreate => "createCustomerProfile".to_string(),
        Op::ProfileList => "listCustomerProfiles".into(),
        Op::ProfileGet => "getCustomerProfile".into(),
        Op::ProfileUpdate => "updateCustomerProfile".into(),
        Op::AddressCreate => "createAddress".into(),
        Op::AddressList => "listAddresses".into(),
        Op::AddressGet => "getAddress".into(),
        Op::AddressUpdate => "updateAddress".into(),
        Op::AddressDelete => "deleteAddress".into(),
        Op::InstrumentCreate => "createPaymentInstrument".into(),
        Op::InstrumentList => "listPaymentInstruments".into(),
        Op::InstrumentGet => "getPaymentInstrument".into(),
        Op::InstrumentUpdate => "updatePaymentInstrument".into(),
        Op::ProgramList => "listPrograms".into(),
        Op::ApplicationList => "listApplications".into(),
        Op::Attach => "attachCustomerProfile".into(),
        Op::AttachmentList => "listProgramCustomerProfiles".into(),
        Op::AttachmentGet => "getProgramCustomerProfile".into(),
        Op::TemplateList => "listTransactionTemplates".into(),
        Op::TemplateStepList => "listTransactionTemplateSteps".into(),
        Op::TxnCreate => "createTransaction".into(),
        Op::TxnList => "listTransactions".into(),
        Op::TxnGet => "getTransaction".into(),
        Op::TxnParameters => "listTransactionParameters".into(),
        Op::TxnSteps => "listTransactionSteps".into(),
        Op::DictNames => "listDictionaries".into(),
        Op::Dict => {
            let name = e.path.rsplit('/').next().unwrap_or("");
            let mut id = String::from("list");
            for word in name.split(['-', '_']).filter(|w| !w.is_empty()) {
                let mut c = word.chars();
                if let Some(first) = c.next() {
                    id.push(first.to_ascii_uppercase());
                    id.extend(c);
                }
            }
            id
        }
        Op::DictStates => "listStates".into(),
        Op::Health => "getHealth".into(),
        Op::Ready => "getReadiness".into(),
        Op::Metrics => "getMetrics".into(),
        Op::Worker => "runWorker".into(),
        Op::OpenApi => "getOpenApiDocument".into(),
        Op::EventList => "listEvents".into(),
        Op::EventGet => "getEvent".into(),
        Op::SnapshotSave => "saveSnapshot".into(),
        Op::SnapshotList => "listSnapshots".into(),
        Op::SnapshotRestore => "restoreSnapshot".into(),
        Op::SnapshotDelete => "deleteSnapshot".into(),
        Op::Reset => "resetStore".into(),
        Op::RuleAdd => "addRule".into(),
        Op::RuleList => "listRules".into(),
        Op::RuleDelete => "deleteRule".into(),
        Op::EventResend => "resendEvent".into(),
        Op::WebhookCreate => "createWebhook".into(),
        Op::WebhookList => "listWebhooks".into(),
        Op::WebhookGet => "getWebhook".into(),
        Op::WebhookDelete => "deleteWebhook".into(),
        Op::WebhookDeliveries => "listWebhookDeliveries".into(),
        Op::ProfileImport => "importCustomerProfiles".into(),
    };
    if e.alias {
        format!("{base}Alias")
    } else {
        base
    }
}

/// The resource an operation belongs to: one tag each (a generated client's
/// module).
pub(super) fn tag(op: Op) -> &'static str {
    match op {
        Op::ProfileCreate
        | Op::ProfileList
        | Op::ProfileGet
        | Op::ProfileUpdate
        | Op::ProfileImport => "Customer profiles",
        Op::AddressCreate
        | Op::AddressList
        | Op::AddressGet
        | Op::AddressUpdate
        | Op::AddressDelete => "Addresses",
        Op::InstrumentCreate | Op::InstrumentList | Op::InstrumentGet | Op::InstrumentUpdate => {
            "Payment instruments"
        }
        Op::ProgramList
        | Op::ApplicationList
        | Op::Attach
        | Op::AttachmentList
        | Op::AttachmentGet => "Programs",
        Op::TemplateList | Op::TemplateStepList => "Transaction templates",
        Op::TxnCreate | Op::TxnList | Op::TxnGet | Op::TxnParameters | Op::TxnSteps => {
            "Transactions"
        }
        Op::DictNames | Op::Dict | Op::DictStates => "Dictionaries",
        Op::EventList | Op::EventGet => "Events",
        Op::EventResend
        | Op::WebhookCreate
        | Op::WebhookList
        | Op::WebhookGet
        | Op::WebhookDelete
        | Op::WebhookDeliveries => "Webhooks",
        Op::Health | Op::Ready | Op::Metrics | Op::Worker | Op::OpenApi => "Administration",
        Op::SnapshotSave
        | Op::SnapshotList
        | Op::SnapshotRestore
        | Op::SnapshotDelete
        | Op::Reset => "Snapshots",
        Op::RuleAdd | Op::RuleList | Op::RuleDelete => "Outcome rules",
    }
}
