//! Changes to the config's contexts, made in the document so that the
//! file's comments, order and layout are kept: a context created or
//! changed, made current, deleted; the text that is then written.

use toml_edit::{InlineTable, Item, Table, value};

use super::{CONTEXTS, CURRENT, Config};

impl Config {
    /// Create context `name` or change it: each `(key, Some(v))` of
    /// `changes` sets the key, each `(key, None)` removes it; the other keys
    /// are kept. Whether the context is new.
    pub fn set(&mut self, name: &str, changes: &[(&str, Option<String>)]) -> bool {
        let root = self.doc.as_table_mut();
        if root.get(CONTEXTS).and_then(Item::as_table_like).is_none() {
            let mut t = Table::new();
            // `[contexts.NAME]` headers only, no empty `[contexts]`.
            t.set_implicit(true);
            root.insert(CONTEXTS, Item::Table(t));
        }
        // A file that writes `contexts = { … }` gets its new context inline too.
        let inline = matches!(root.get(CONTEXTS), Some(Item::Value(_)));
        let contexts = root
            .get_mut(CONTEXTS)
            .and_then(Item::as_table_like_mut)
            .expect("contexts is a table");
        let created = contexts.get(name).is_none();
        if created {
            let item = if inline {
                Item::Value(InlineTable::new().into())
            } else {
                Item::Table(Table::new())
            };
            contexts.insert(name, item);
        }
        let ctx = contexts
            .get_mut(name)
            .and_then(Item::as_table_like_mut)
            .expect("the context is a table");
        for (key, v) in changes {
            match v {
                Some(v) => match ctx.get_mut(key).and_then(Item::as_value_mut) {
                    // Keep the decoration (a trailing comment) of a value replaced.
                    Some(old) => {
                        let decor = old.decor().clone();
                        *old = v.as_str().into();
                        *old.decor_mut() = decor;
                    }
                    None => {
                        ctx.insert(key, value(v.as_str()));
                    }
                },
                None => {
                    ctx.remove(key);
                }
            }
        }
        created
    }

    /// Make `name` the current context; false when there is no such context.
    pub fn use_context(&mut self, name: &str) -> bool {
        if self.get(name).is_none() {
            return false;
        }
        let root = self.doc.as_table_mut();
        match root.get_mut(CURRENT).and_then(Item::as_value_mut) {
            Some(old) => {
                let decor = old.decor().clone();
                *old = name.into();
                *old.decor_mut() = decor;
            }
            None => {
                // Top-level keys are written before the first table.
                root.insert(CURRENT, value(name));
            }
        }
        true
    }

    /// Delete context `name`: None when there is no such context, else
    /// whether it was the current one (`current-context` is then removed).
    pub fn delete(&mut self, name: &str) -> Option<bool> {
        self.get(name)?;
        let was_current = self.current().as_deref() == Some(name);
        let root = self.doc.as_table_mut();
        if let Some(c) = root.get_mut(CONTEXTS).and_then(Item::as_table_like_mut) {
            c.remove(name);
        }
        if was_current {
            root.remove(CURRENT);
        }
        Some(was_current)
    }

    /// The file's text as it would be written (a context deleted from the
    /// top leaves no blank first line).
    pub fn text(&self) -> String {
        let text = self.doc.to_string();
        text.trim_start_matches('\n').to_string()
    }
}
