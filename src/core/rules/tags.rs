//! Tags of a profile or an instrument: an array of `key`/`value` pairs read
//! and checked, and compared as an order-free set.

use super::{TAG_LEN, at_most, caps, key_text};
use crate::core::body::Obj;
use crate::error::Errors;
use crate::model::Tag;

/// Read and check an array of tags (`key`, `value`: 3-50 of [`KEY_CHARS`](super::KEY_CHARS)).
pub fn tags(errs: &mut Errors, obj: &Obj, name: &str, unique_keys: bool) -> Option<Vec<Tag>> {
    let arr = obj.array(name, errs)?;
    if !at_most(errs, &obj.at(name), arr.len(), caps::TAGS, "tags") {
        return None;
    }
    let mut out = Vec::new();
    let mut ok = true;
    for (i, v) in arr.iter().enumerate() {
        let path = format!("{}[{i}]", obj.at(name));
        let Some(t) = crate::core::body::as_object(v, &path, errs) else {
            ok = false;
            continue;
        };
        t.known(&["key", "value"], errs);
        let mut pair = [None, None];
        for (slot, field) in pair.iter_mut().zip(["key", "value"]) {
            let Some(s) = t.string(field, errs) else {
                if !t.has(field) {
                    errs.required(&t.at(field));
                }
                continue;
            };
            if key_text(errs, &t.at(field), s, TAG_LEN.0, TAG_LEN.1) {
                *slot = Some(s.to_string());
            }
        }
        match pair {
            [Some(key), Some(value)] => {
                if unique_keys && out.iter().any(|x: &Tag| x.key == key) {
                    errs.invalid(&t.at("key"), "tag keys must be unique");
                    ok = false;
                }
                out.push(Tag { key, value })
            }
            _ => ok = false,
        }
    }
    ok.then_some(out)
}

/// Tags as an order-free set, for comparing a non-updatable field.
pub fn same_tags(a: &[Tag], b: &[Tag]) -> bool {
    let mut a: Vec<_> = a.iter().map(|t| (&t.key, &t.value)).collect();
    let mut b: Vec<_> = b.iter().map(|t| (&t.key, &t.value)).collect();
    a.sort();
    b.sort();
    a == b
}
