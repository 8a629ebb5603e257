//! The one workspace `chatmd.toml` trusted without `chatmd trust`: the demo team's, in
//! the chatmd source tree this binary was built from, with the content it was built with.
//!
//! Why that is safe: whoever built chatmd from that tree already ran its code (its
//! build, its `cargo run`), so the demo's `cargo test` asks for nothing new. Both
//! conditions must hold: another folder (a repository that copies the demo's file) or
//! another content (a change to the file since the build) needs trust as usual, and a
//! binary built elsewhere (a release) names a source tree that is not on this machine.

use std::path::Path;

/// Where the demo's `chatmd.toml` was when this binary was built.
const DEMO_CONFIG_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/demo/chatmd.toml");

/// Its content at build time (cargo rebuilds chatmd when the file changes).
const DEMO_CONFIG: &[u8] = include_bytes!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../examples/demo/chatmd.toml"
));

/// Whether the file with this store `identity` and `content` is the built-from demo's.
pub(super) fn is_own_demo(identity: &Path, content: &[u8]) -> bool {
    content == DEMO_CONFIG && identity == super::file_identity(Path::new(DEMO_CONFIG_PATH))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_built_from_file_with_its_built_content_counts() {
        let own = super::super::file_identity(Path::new(DEMO_CONFIG_PATH));
        assert!(is_own_demo(&own, DEMO_CONFIG));
        let mut changed = DEMO_CONFIG.to_vec();
        changed.extend_from_slice(b"\n[members.x]\nenv = { LD_PRELOAD = \"./evil.so\" }\n");
        assert!(!is_own_demo(&own, &changed), "a changed demo needs trust");
        let copy = tempfile::tempdir().expect("temp dir");
        let elsewhere = super::super::file_identity(&copy.path().join("chatmd.toml"));
        assert!(
            !is_own_demo(&elsewhere, DEMO_CONFIG),
            "a copy elsewhere needs trust"
        );
    }
}
