//! The Facilitator's catalog: Programs, their Applications, Transaction
//! Templates and Template Steps (read-only for the Facilitator), and the
//! Facilitator's settings (age limits for `date_of_birth`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Audit;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facilitator {
    pub min_age: u32,
    pub max_age: u32,
}

impl Default for Facilitator {
    fn default() -> Self {
        Facilitator {
            min_age: 18,
            max_age: 120,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Catalog {
    pub facilitator: Facilitator,
    pub programs: Vec<Program>,
}

// The API shows each catalog record without its children (a program
// without its applications, ...: `core::program`), and so do their schemas
// (`schemars(skip)`); each child list is a request of its own.

/// A Program of the Facilitator (spec 2.4); read-only. Note the
/// `created_date_time` spelling of its audit fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Program {
    /// The program's id: `prm_` and letters and digits.
    pub program_id: String,
    /// Unique in the catalog; accepted wherever a program_id is.
    pub program_name: String,
    /// What the program is for.
    pub program_description: String,
    /// Its name as people read it.
    pub program_display_name: String,
    /// Who loaded it into the store's catalog.
    pub created_by: String,
    /// When: UTC, ISO 8601 without a zone, microseconds.
    #[schemars(regex(pattern = crate::model::limits::TIME_PATTERN))]
    pub created_date_time: String,
    /// Who changed it last.
    pub modified_by: String,
    /// When: UTC, ISO 8601 without a zone, microseconds.
    #[schemars(regex(pattern = crate::model::limits::TIME_PATTERN))]
    pub modified_date_time: String,
    #[schemars(skip)]
    pub applications: Vec<Application>,
}

/// An Application of a Program (spec 2.4); read-only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Application {
    /// The application's id: `app_` and letters and digits.
    pub application_id: String,
    /// Unique in its program; accepted wherever an application_id is.
    pub application_name: String,
    /// Its name as people read it.
    pub application_display_name: String,
    /// What the application is for.
    pub application_description: String,
    #[serde(flatten)]
    pub audit: Audit,
    #[schemars(skip)]
    pub transaction_templates: Vec<Template>,
}

/// A Transaction Template of an Application (spec 2.6); read-only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Template {
    /// The template's id: `trt_` and letters and digits.
    pub transaction_template_id: String,
    /// The application it belongs to.
    pub application_id: String,
    /// Unique in its application; accepted wherever a
    /// transaction_template_id is.
    pub transaction_template_name: String,
    /// Its name as people read it.
    pub transaction_template_display_name: String,
    /// What a transaction of this template does.
    pub transaction_template_description: String,
    #[serde(flatten)]
    pub audit: Audit,
    #[schemars(skip)]
    pub steps: Vec<TemplateStep>,
}

/// Which parameters of a transaction a template step moves funds from and
/// to: a parameter name (`@source_customers`, `@targets`, `@facilitator`,
/// `@target_checks`), or null.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ParameterMapping {
    /// The parameter funds move from, or null.
    pub source: Option<String>,
    /// The parameter funds move to, or null.
    pub target: Option<String>,
}

impl ParameterMapping {
    /// The parameter names this mapping refers to (`@…`).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        [self.source.as_deref(), self.target.as_deref()]
            .into_iter()
            .flatten()
            .filter(|n| n.starts_with('@'))
    }
}

/// A step of a Transaction Template (spec 2.6); read-only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TemplateStep {
    /// The step's id: `tts_` and letters and digits.
    pub transaction_template_step_id: String,
    /// The template it belongs to.
    pub transaction_template_id: String,
    /// A transfer type (`GET /dictionaries/transfer-types`).
    pub transfer_type_id: u32,
    /// Its place in the template: steps run in this order.
    pub sequence: u32,
    /// Whether the next step waits until this one completes.
    pub wait_to_complete: bool,
    /// Whether a transaction may leave its parameters out.
    pub is_optional: bool,
    /// The customer types the source may have (`GET /dictionaries/customer-types`).
    pub source_customer_type_ids: Vec<u32>,
    /// The customer types the target may have.
    pub target_customer_type_ids: Vec<u32>,
    /// A destination (`GET /dictionaries/destinations`).
    pub destination_id: u32,
    /// An account code (`GET /dictionaries/account-codes`).
    pub account_code_id: u32,
    /// Which parameters it moves funds from and to.
    pub parameter_mapping: ParameterMapping,
    #[serde(flatten)]
    pub audit: Audit,
}

impl Catalog {
    pub fn program(&self, id: &str) -> Option<&Program> {
        self.programs.iter().find(|p| p.program_id == id)
    }
    pub fn application(&self, id: &str) -> Option<(&Program, &Application)> {
        self.programs.iter().find_map(|p| {
            p.applications
                .iter()
                .find(|a| a.application_id == id)
                .map(|a| (p, a))
        })
    }
    pub fn template(&self, id: &str) -> Option<(&Application, &Template)> {
        self.programs
            .iter()
            .flat_map(|p| &p.applications)
            .find_map(|a| {
                a.transaction_templates
                    .iter()
                    .find(|t| t.transaction_template_id == id)
                    .map(|t| (a, t))
            })
    }
}
