//! The program, application and template a create body names (by id or
//! name), and why one does not resolve: kept apart because the parameters
//! are checked against what resolves here.

use crate::core::body::Obj;
use crate::error::Errors;
use crate::model::catalog::{Application, Catalog, Program, Template};

/// The program, application and template a create body names, as far as they resolve.
#[derive(Default)]
pub(super) struct Resolved<'c> {
    pub(super) program: Option<&'c Program>,
    pub(super) application: Option<&'c Application>,
    pub(super) template: Option<&'c Template>,
}

pub(super) fn resolve<'c>(errs: &mut Errors, o: &Obj, catalog: &'c Catalog) -> Resolved<'c> {
    let mut r = Resolved::default();
    let field = |errs: &mut Errors, name: &str| -> Option<String> {
        match o.string(name, errs) {
            Some(s) => Some(s.to_string()),
            None => {
                if !o.has(name) {
                    errs.required(name);
                }
                None
            }
        }
    };
    let program = field(errs, "program_id");
    let application = field(errs, "application_id");
    let template = field(errs, "transaction_template_id");

    if let Some(p) = &program {
        r.program = catalog
            .programs
            .iter()
            .find(|x| x.program_id == *p || x.program_name == *p);
        if r.program.is_none() {
            errs.invalid_hinted(
                "program_id",
                "is not a program of this Facilitator",
                "see `payctl program list`",
            );
        }
    }
    if let Some(a) = &application {
        let matches = |x: &&Application| x.application_id == *a || x.application_name == *a;
        match r.program {
            Some(p) => {
                r.application = p.applications.iter().find(matches);
                if r.application.is_none() {
                    let elsewhere = catalog
                        .programs
                        .iter()
                        .flat_map(|p| &p.applications)
                        .any(|x| matches(&x));
                    let rule = if elsewhere {
                        format!("does not belong to the program {}", p.program_id)
                    } else {
                        "is not an application of this Facilitator".to_string()
                    };
                    errs.invalid_hinted(
                        "application_id",
                        rule,
                        "see `payctl program applications`",
                    );
                }
            }
            None => {
                r.application = catalog
                    .programs
                    .iter()
                    .flat_map(|p| &p.applications)
                    .find(matches);
                if r.application.is_none() {
                    errs.invalid(
                        "application_id",
                        "is not an application of this Facilitator",
                    );
                }
            }
        }
    }
    if let Some(t) = &template {
        let matches =
            |x: &&Template| x.transaction_template_id == *t || x.transaction_template_name == *t;
        let all = || {
            catalog
                .programs
                .iter()
                .flat_map(|p| &p.applications)
                .flat_map(|a| &a.transaction_templates)
        };
        match r.application {
            Some(a) => {
                r.template = a.transaction_templates.iter().find(matches);
                if r.template.is_none() {
                    let rule = if all().any(|x| matches(&x)) {
                        format!("does not belong to the application {}", a.application_id)
                    } else {
                        let names: Vec<&str> = a
                            .transaction_templates
                            .iter()
                            .map(|x| x.transaction_template_name.as_str())
                            .collect();
                        match crate::core::body::suggest(t, &names) {
                            Some(n) => {
                                format!("is not a transaction template; did you mean `{n}`?")
                            }
                            None => "is not a transaction template".to_string(),
                        }
                    };
                    errs.invalid_hinted(
                        "transaction_template_id",
                        rule,
                        &format!("see `payctl template list {}`", a.application_id),
                    );
                }
            }
            None => {
                r.template = all().find(matches);
                if r.template.is_none() {
                    errs.invalid(
                        "transaction_template_id",
                        "is not a transaction template of this Facilitator",
                    );
                }
            }
        }
    }
    r
}
