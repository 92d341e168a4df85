//! The text checks every layer applies, whatever the record: no control,
//! format or bidirectional characters in a value, no key twice in a JSON
//! object, and the JSON paths that messages name. A leaf: it names no other
//! module of the crate, so the catalog's loader, the output and core's rules
//! share it.

/// Invisible format characters (Unicode category Cf), as ranges. U+200C and
/// U+200D (zero-width non-joiner and joiner) are left out on purpose: Persian
/// and Indic names need them.
const FORMAT_CHARS: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200B),
    (0x200E, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
];

/// Why `c` may not be in a stored string, if it may not: control characters
/// (escape sequences reach terminals, NUL downstream systems), line and
/// paragraph separators (they break table rows), bidirectional overrides
/// and isolates and other invisible format characters (they make text read
/// otherwise than it is), and non-characters. Letters of every script,
/// combining marks, emoji and U+200C/U+200D are fine.
pub fn forbidden_char(c: char) -> Option<&'static str> {
    let u = c as u32;
    if c.is_control() {
        Some("a control character")
    } else if matches!(u, 0x2028 | 0x2029) {
        Some("a line or paragraph separator")
    } else if matches!(u, 0x202A..=0x202E | 0x2066..=0x2069 | 0x200E | 0x200F | 0x061C) {
        Some("a bidirectional control")
    } else if FORMAT_CHARS.iter().any(|&(lo, hi)| (lo..=hi).contains(&u)) {
        Some("an invisible format character")
    } else if (0xFDD0..=0xFDEF).contains(&u) || u & 0xFFFE == 0xFFFE {
        Some("a non-character")
    } else {
        None
    }
}

/// The rule every stored string follows: no [`forbidden_char`]. The message
/// names the first such code point (never the text around it).
pub fn clean_text(s: &str) -> Result<(), String> {
    match s
        .chars()
        .find_map(|c| forbidden_char(c).map(|why| (c, why)))
    {
        None => Ok(()),
        Some((c, why)) => Err(format!(
            "must not contain U+{:04X} ({why}): control characters, line and paragraph \
             separators, bidirectional and other invisible format characters and \
             non-characters are refused",
            c as u32
        )),
    }
}

/// The first key that an object of the JSON `text` holds twice, as a
/// message naming it by its path (`a.b[2].key`) and its position; `None`
/// when every object's keys are distinct, or when `text` is not JSON (its
/// syntax error is the parser's to report). serde_json keeps the last of a
/// repeated key; a body must not be read one way here and another way by the
/// next system, so a repeated key is refused (10005), at any depth.
pub fn duplicate_key(text: &str) -> Option<String> {
    use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

    /// Where a value is, written out only for the message (a line of an
    /// import is checked here, and most have no repeated key).
    #[derive(Clone, Copy)]
    enum At<'p> {
        Root,
        Key(&'p At<'p>, &'p str),
        Index(&'p At<'p>, usize),
    }
    impl At<'_> {
        fn path(&self) -> String {
            match self {
                At::Root => String::new(),
                At::Key(up, name) => join(&up.path(), name),
                At::Index(up, i) => format!("{}[{i}]", up.path()),
            }
        }
    }

    struct Unique<'p>(At<'p>);
    impl<'de> DeserializeSeed<'de> for Unique<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Unique<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0usize;
            loop {
                if seq
                    .next_element_seed(Unique(At::Index(&self.0, i)))?
                    .is_none()
                {
                    return Ok(());
                }
                i += 1;
            }
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::HashSet::new();
            while let Some(key) = map.next_key::<String>()? {
                if seen.contains(&key) {
                    return Err(A::Error::custom(format!(
                        "has the key `{}` twice in one object: a repeated key is refused \
                         (which one should win is not guessed)",
                        crate::error::shown_id(&At::Key(&self.0, &key).path())
                    )));
                }
                map.next_value_seed(Unique(At::Key(&self.0, &key)))?;
                seen.insert(key);
            }
            Ok(())
        }
    }

    let mut de = serde_json::Deserializer::from_str(text);
    match Unique(At::Root).deserialize(&mut de) {
        Err(e) if e.is_data() => Some(e.to_string()),
        _ => None,
    }
}

pub fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}
