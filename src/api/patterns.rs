//! The regular expressions of the OpenAPI document that the server's own
//! text rules stand for: a string with none of the characters every field
//! refuses (as UTF-8 classes), and the percent-encoded `X-Payctl-Actor`.
//! Generated from the rules' own tables, so the document cannot disagree
//! with the validators.

use crate::core::rules;

/// The code points [`rules::forbidden_char`] refuses in every stored string
/// (and the surrogates, which are no characters: a lone one in a JSON string
/// is refused as malformed), as inclusive ranges.
fn forbidden_ranges() -> &'static [(u32, u32)] {
    static RANGES: std::sync::LazyLock<Vec<(u32, u32)>> = std::sync::LazyLock::new(|| {
        let mut out: Vec<(u32, u32)> = Vec::new();
        for u in 0..=0x10FFFFu32 {
            let bad = match char::from_u32(u) {
                Some(c) => rules::forbidden_char(c).is_some(),
                None => true,
            };
            if !bad {
                continue;
            }
            match out.last_mut() {
                Some((_, hi)) if *hi + 1 == u => *hi = u,
                _ => out.push((u, u)),
            }
        }
        out
    });
    &RANGES
}

/// The allowed code points: the complement of [`forbidden_ranges`].
fn allowed_ranges() -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut next = 0u32;
    for &(lo, hi) in forbidden_ranges() {
        if lo > next {
            out.push((next, lo - 1));
        }
        next = hi + 1;
    }
    if next <= 0x10FFFF {
        out.push((next, 0x10FFFF));
    }
    out
}

/// One code point in a character class: `\uXXXX` in the Basic Multilingual
/// Plane (every regex dialect reads it), the character itself above (there
/// is no escape that ECMA-262, Python and Rust all read; a JSON Schema
/// pattern is read with Unicode semantics).
fn class_char(u: u32) -> String {
    if u <= 0xFFFF {
        format!("\\u{u:04X}")
    } else {
        char::from_u32(u).expect("a scalar value").to_string()
    }
}

/// A regex for text that holds no character [`rules::clean_text`] refuses
/// (control, line and paragraph separator, bidirectional and other
/// invisible format characters, non-characters).
pub fn clean_text_pattern() -> String {
    static PATTERN: std::sync::LazyLock<String> =
        std::sync::LazyLock::new(build_clean_text_pattern);
    PATTERN.clone()
}

fn build_clean_text_pattern() -> String {
    let mut p = String::from("^[^");
    // The surrogates are no characters: a JSON string cannot carry one
    // (serde_json refuses a lone escaped one) and a regex cannot name them.
    let surrogate = |u: u32| (0xD800..=0xDFFF).contains(&u);
    for &(lo, hi) in forbidden_ranges().iter().filter(|(lo, _)| !surrogate(*lo)) {
        p.push_str(&class_char(lo));
        if hi > lo {
            p.push('-');
            p.push_str(&class_char(hi));
        }
    }
    p.push_str("]*$");
    p
}

/// The UTF-8 byte ranges of the code points `lo..=hi` (all scalar values),
/// as sequences of byte ranges: the algorithm of `utf8-ranges`.
fn utf8_sequences(lo: u32, hi: u32, out: &mut Vec<Vec<(u8, u8)>>) {
    if lo > hi {
        return;
    }
    for max in [0x7F, 0x7FF, 0xFFFF] {
        if lo <= max && max < hi {
            utf8_sequences(lo, max, out);
            utf8_sequences(max + 1, hi, out);
            return;
        }
    }
    if hi <= 0x7F {
        out.push(vec![(lo as u8, hi as u8)]);
        return;
    }
    for i in 1..4 {
        let m: u32 = (1 << (6 * i)) - 1;
        if lo & !m != hi & !m {
            if lo & m != 0 {
                utf8_sequences(lo, lo | m, out);
                utf8_sequences((lo | m) + 1, hi, out);
                return;
            }
            if hi & m != m {
                utf8_sequences(lo, (hi & !m) - 1, out);
                utf8_sequences(hi & !m, hi, out);
                return;
            }
        }
    }
    let enc = |u: u32| -> Vec<u8> {
        let mut b = [0u8; 4];
        char::from_u32(u)
            .expect("a scalar value")
            .encode_utf8(&mut b)
            .as_bytes()
            .to_vec()
    };
    out.push(enc(lo).into_iter().zip(enc(hi)).collect());
}

/// A class of the hex digits `lo..=hi` (values 0-15), either case.
fn hex_class(lo: u8, hi: u8) -> String {
    let mut chars: Vec<char> = Vec::new();
    for n in lo..=hi {
        let c = char::from_digit(u32::from(n), 16).expect("a nibble");
        chars.push(c.to_ascii_uppercase());
        if c.is_ascii_alphabetic() {
            chars.push(c);
        }
    }
    chars.sort_unstable();
    if chars.len() == 1 {
        return chars[0].to_string();
    }
    let mut s = String::from("[");
    let mut i = 0;
    while i < chars.len() {
        let mut j = i;
        while j + 1 < chars.len() && chars[j + 1] as u32 == chars[j] as u32 + 1 {
            j += 1;
        }
        s.push(chars[i]);
        if j >= i + 2 {
            s.push('-');
        }
        if j > i {
            s.push(chars[j]);
        }
        i = j + 1;
    }
    s.push(']');
    s
}

/// `%XX` for every byte of `lo..=hi`, hex digits in either case.
fn percent_byte_range(lo: u8, hi: u8) -> String {
    let (lh, ll, hh, hl) = (lo >> 4, lo & 15, hi >> 4, hi & 15);
    let mut alts = Vec::new();
    if lh == hh {
        alts.push(format!("{}{}", hex_class(lh, lh), hex_class(ll, hl)));
    } else {
        let first = if ll == 0 { lh } else { lh + 1 };
        let last = if hl == 15 { hh } else { hh - 1 };
        if ll != 0 {
            alts.push(format!("{}{}", hex_class(lh, lh), hex_class(ll, 15)));
        }
        if first <= last {
            alts.push(format!("{}{}", hex_class(first, last), hex_class(0, 15)));
        }
        if hl != 15 {
            alts.push(format!("{}{}", hex_class(hh, hh), hex_class(0, hl)));
        }
    }
    if alts.len() == 1 {
        format!("%{}", alts[0])
    } else {
        format!("%(?:{})", alts.join("|"))
    }
}

/// The `X-Payctl-Actor` rule as one regex: the header's visible ASCII with
/// no leading or trailing space (the server trims them), read as
/// percent-encoded UTF-8 (`%` then two hex digits, the bytes a valid UTF-8
/// character), 1-64 characters once decoded, none that
/// [`rules::clean_text`] refuses. With `maxLength` 768 (the header's bytes:
/// 64 characters of 4 UTF-8 bytes, each `%XX`) it is exactly what `payctl
/// serve` accepts.
pub fn actor_pattern(max_chars: usize) -> String {
    let mut encoded = Vec::new();
    for (lo, hi) in allowed_ranges() {
        let mut seqs = Vec::new();
        utf8_sequences(lo, hi, &mut seqs);
        for seq in seqs {
            encoded.push(
                seq.iter()
                    .map(|&(a, b)| percent_byte_range(a, b))
                    .collect::<String>(),
            );
        }
    }
    // A character sent as itself: visible ASCII but `%` (a space only inside).
    let plain = "[!-$&-~]";
    let token = format!("(?:{plain}|{})", encoded.join("|"));
    let inner = format!("(?:{token}| )");
    format!(
        "^{token}(?:{inner}{{0,{}}}{token})?$",
        max_chars.saturating_sub(2)
    )
}
