//! The short hashes of `seen=` records: of a message as agents get it, and of a record's
//! digits as numbers that compare as the digits do.

use super::NOT_GIVEN;
use crate::conversation::prompt::cleaned_text;
use crate::document::chat::Message;

/// A short hash of a message as agents get it: its handle and its cleaned text (so a
/// status comment changing, or line breaks, do not count as an edit).
pub fn message_hash(text: &str, message: &Message) -> String {
    format!("{:06x}", message_hash_value(text, message))
}

/// [`message_hash`] as the number its hex digits write.
pub fn message_hash_value(text: &str, message: &Message) -> u32 {
    let handle = message.handle(text).to_ascii_lowercase();
    hash_value(&[&handle, "\n", &cleaned_text(text, message)])
}

/// A short hash of `pieces` one after the other: six hex digits.
pub fn short_hash(pieces: &[&str]) -> String {
    format!("{:06x}", hash_value(pieces))
}

/// [`short_hash`] as a number (below 2^24).
fn hash_value(pieces: &[&str]) -> u32 {
    // FNV-1a: stable across builds and platforms, unlike std's hasher.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in pieces.iter().flat_map(|p| p.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    (hash >> 40) as u32
}

/// A hash of a parsed record as a number that equals a [`message_hash_value`] exactly
/// when the two hashes' digits are equal: [`NOT_GIVEN_VALUE`] for [`NOT_GIVEN`], and a
/// value no message hash has for digits a message hash never writes (upper case).
pub fn record_hash_value(hash: &str) -> u32 {
    if hash == NOT_GIVEN {
        return NOT_GIVEN_VALUE;
    }
    let lower = hash
        .bytes()
        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    match u32::from_str_radix(hash, 16) {
        Ok(value) if lower => value,
        _ => MATCHES_NO_MESSAGE,
    }
}

/// [`NOT_GIVEN`] as a [`record_hash_value`]: above every message hash (24 bits).
pub const NOT_GIVEN_VALUE: u32 = u32::MAX;
const MATCHES_NO_MESSAGE: u32 = u32::MAX - 1;
