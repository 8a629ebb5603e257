//! The pure document layer: text with LSP-compatible positions, the fence-aware line
//! scanner and the chat model. No I/O, no async, no LSP types.

pub mod foreign;
pub mod front_matter;
pub mod status;
pub mod text;

/// A byte range into a document's text.
pub type ByteRange = std::ops::Range<usize>;
