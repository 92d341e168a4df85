//! The Facilitator's catalog: Programs, their Applications, Transaction
//! Templates and Template Steps (read-only for the Facilitator), and the
//! Facilitator's settings (age limits for `date_of_birth`).

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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Program {
    pub program_id: String,
    pub program_name: String,
    pub program_description: String,
    pub program_display_name: String,
    pub created_by: String,
    pub created_date_time: String,
    pub modified_by: String,
    pub modified_date_time: String,
    pub applications: Vec<Application>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Application {
    pub application_id: String,
    pub application_name: String,
    pub application_display_name: String,
    pub application_description: String,
    #[serde(flatten)]
    pub audit: Audit,
    pub transaction_templates: Vec<Template>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Template {
    pub transaction_template_id: String,
    pub application_id: String,
    pub transaction_template_name: String,
    pub transaction_template_display_name: String,
    pub transaction_template_description: String,
    #[serde(flatten)]
    pub audit: Audit,
    pub steps: Vec<TemplateStep>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParameterMapping {
    pub source: Option<String>,
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

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateStep {
    pub transaction_template_step_id: String,
    pub transaction_template_id: String,
    pub transfer_type_id: u32,
    pub sequence: u32,
    pub wait_to_complete: bool,
    pub is_optional: bool,
    pub source_customer_type_ids: Vec<u32>,
    pub target_customer_type_ids: Vec<u32>,
    pub destination_id: u32,
    pub account_code_id: u32,
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
