//! Test support for chatmd's end-to-end tests: an in-process LSP client that drives the real
//! server over in-memory pipes with real `Content-Length` framing, and the fake agent CLI.

pub mod fake_agent;
pub mod lsp_client;
pub mod sim_editor;
pub mod views;

pub use lsp_client::{DEFAULT_TIMEOUT, TestClient, file_path, file_uri};
