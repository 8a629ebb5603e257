//! Fresh ids in each agent's own format: UUIDv4 session ids (claude, gemini), UUIDv7
//! thread ids (codex), and the mock model's `msg_mock_…` / `toolu_mock_…` / `call_mock_…`.
//! Randomness comes from std's hasher keys, which are seeded per process.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// 64 random bits.
pub fn random_u64() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher.write_u128(now_nanos());
    hasher.finish()
}

fn now_nanos() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default()
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    (now_nanos() / 1_000_000) as u64
}

/// `n` random lowercase hex digits.
pub fn hex(n: usize) -> String {
    let mut out = String::new();
    while out.len() < n {
        out.push_str(&format!("{:016x}", random_u64()));
    }
    out.truncate(n);
    out
}

fn format_uuid(bytes: [u8; 16]) -> String {
    let h: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

fn random_bytes() -> [u8; 16] {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&random_u64().to_be_bytes());
    bytes[8..].copy_from_slice(&random_u64().to_be_bytes());
    bytes
}

/// A random (version 4) UUID.
pub fn uuid_v4() -> String {
    let mut bytes = random_bytes();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    format_uuid(bytes)
}

/// A time-ordered (version 7) UUID, like Codex's thread and item ids.
pub fn uuid_v7() -> String {
    let mut bytes = random_bytes();
    bytes[..6].copy_from_slice(&now_ms().to_be_bytes()[2..]);
    bytes[6] = (bytes[6] & 0x0f) | 0x70;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    format_uuid(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuids_have_their_version_and_differ() {
        let (a, b) = (uuid_v4(), uuid_v4());
        assert_ne!(a, b);
        assert_eq!(a.len(), 36);
        assert_eq!(&a[14..15], "4");
        let v7 = uuid_v7();
        assert_eq!(&v7[14..15], "7");
        assert_eq!(hex(12).len(), 12);
    }
}
