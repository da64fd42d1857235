//! The one SHA-256 helper: lower-case hex digests for the manifest, ETags, model file names and
//! the collector's change checks; base64 for the docs page's `Content-Security-Policy` hash.

use sha2::{Digest, Sha256};

/// Lower-case hex SHA-256 of `bytes` (64 characters).
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for b in digest {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 15)]));
    }
    hex
}

/// Standard base64 (with `=` padding) of the SHA-256 of `bytes`: the form a
/// `Content-Security-Policy` source hash (`'sha256-…'`) takes. Only a test needs it: the
/// policy is a constant the test holds to the page's style (`site::netlify::PAGE_CSP`).
#[cfg(test)]
pub(crate) fn sha256_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(44);
    for chunk in digest.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_base64_digest() {
        // `printf abc | openssl dgst -sha256 -binary | base64`
        assert_eq!(
            super::sha256_base64(b"abc"),
            "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
        );
    }

    #[test]
    fn known_digest() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
