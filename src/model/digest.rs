//! The SHA-256 of bytes as lower-case hex: the hash chain of the event log,
//! an API key's stored hash, a record of the group commit's journal log.

use sha2::{Digest, Sha256};

/// The SHA-256 of `bytes`, as 64 lower-case hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    sha256_hex_of(&[bytes])
}

/// [`sha256_hex`] of `parts` one after the other, without joining them.
pub fn sha256_hex_of(parts: &[&[u8]]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    let mut out = String::with_capacity(64);
    for b in h.finalize() {
        out.push(HEX[usize::from(b >> 4)] as char);
        out.push(HEX[usize::from(b & 15)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_hash_of_abc_is_the_standard_one() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
