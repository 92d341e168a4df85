//! `payctl template …`: Transaction Templates and their Steps (spec 2.4, 2.6, 4.5).

use clap::Subcommand;
use clap_complete::ArgValueCompleter;

use super::Global;
use super::args::PageArgs;
use super::complete;
use crate::api::endpoints::{Op, Request};
use crate::error::Result;
use crate::output::Response;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub enum TemplateCommand {
    /// List the Transaction Templates of an Application (GET /applications/{id}/transaction-templates)
    #[command(
        after_help = "Examples:\n  payctl template list app_0123456789abcdefghij\n  APP=$(payctl program applications $PRM -o id | head -n1); payctl template list $APP"
    )]
    List {
        /// The application_id (app_…)
        #[arg(add = ArgValueCompleter::new(complete::applications))]
        app: String,
        #[command(flatten)]
        page: PageArgs,
    },
    /// List the Steps of a Transaction Template in sequence order
    /// (GET /transaction-templates/{id}/transaction-template-steps)
    #[command(after_help = "Example:\n  payctl template steps trt_0123456789abcdefghij")]
    Steps {
        /// The transaction_template_id (trt_…)
        #[arg(add = ArgValueCompleter::new(complete::templates))]
        trt: String,
        #[command(flatten)]
        page: PageArgs,
    },
}

impl TemplateCommand {
    pub fn exec(self, g: &Global) -> Result<Response> {
        match self {
            TemplateCommand::List { app, page } => {
                g.list(Request::new(Op::TemplateList).at([app]), &page)
            }
            TemplateCommand::Steps { trt, page } => {
                g.list(Request::new(Op::TemplateStepList).at([trt]), &page)
            }
        }
    }
}
