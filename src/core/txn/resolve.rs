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
    let apps = || catalog.programs.iter().flat_map(|p| &p.applications);
    if let Some(a) = &application {
        let found = look_up(
            r.program.map(|p| p.applications.as_slice()),
            apps,
            |x: &Application| x.application_id == *a || x.application_name == *a,
        );
        match (found, r.program) {
            (Found::Here(x), _) => r.application = Some(x),
            (found, Some(p)) => {
                let rule = match found {
                    Found::Elsewhere => format!("does not belong to the program {}", p.program_id),
                    _ => "is not an application of this Facilitator".to_string(),
                };
                errs.invalid_hinted("application_id", rule, "see `payctl program applications`");
            }
            (_, None) => errs.invalid(
                "application_id",
                "is not an application of this Facilitator",
            ),
        }
    }
    if let Some(t) = &template {
        let found = look_up(
            r.application.map(|a| a.transaction_templates.as_slice()),
            || apps().flat_map(|a| &a.transaction_templates),
            |x: &Template| x.transaction_template_id == *t || x.transaction_template_name == *t,
        );
        match (found, r.application) {
            (Found::Here(x), _) => r.template = Some(x),
            (found, Some(a)) => {
                let rule = match found {
                    Found::Elsewhere => {
                        format!("does not belong to the application {}", a.application_id)
                    }
                    _ => {
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
                    }
                };
                errs.invalid_hinted(
                    "transaction_template_id",
                    rule,
                    &format!("see `payctl template list {}`", a.application_id),
                );
            }
            (_, None) => errs.invalid(
                "transaction_template_id",
                "is not a transaction template of this Facilitator",
            ),
        }
    }
    r
}

/// Where a name of the catalog was looked for: among its parent's (the
/// program's applications, the application's templates) when the parent
/// resolved, else among all of the Facilitator's.
enum Found<'c, T> {
    Here(&'c T),
    /// Not the parent's, but another's.
    Elsewhere,
    Nowhere,
}

/// The one look-up of an application or a template by id or name.
fn look_up<'c, T: 'c, I: Iterator<Item = &'c T>>(
    parent: Option<&'c [T]>,
    all: impl Fn() -> I,
    matches: impl Fn(&T) -> bool,
) -> Found<'c, T> {
    let found = match parent {
        Some(here) => here.iter().find(|x| matches(x)),
        None => all().find(|x| matches(x)),
    };
    match found {
        Some(x) => Found::Here(x),
        None if parent.is_some() && all().any(&matches) => Found::Elsewhere,
        None => Found::Nowhere,
    }
}
