//! Text of a document handed to requests without a copy each: a message's, or the
//! text from a byte on (see `state::Document::part` and `text_from`).

use std::sync::Arc;

/// A message's text: in the document's own string, in a caller's buffer, or bytes `at`
/// of a text shared by the requests of one version.
pub enum Part<'a> {
    Borrowed(&'a str),
    Shared {
        text: Arc<String>,
        at: std::ops::Range<usize>,
    },
}

impl std::ops::Deref for Part<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Part::Borrowed(part) => part,
            Part::Shared { text, at } => &text[at.clone()],
        }
    }
}

/// The text of a document from a byte on, shared: `&str` of it.
pub struct TextFrom {
    pub(super) text: Arc<String>,
    pub(super) skip: usize,
}

impl std::ops::Deref for TextFrom {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text[self.skip..]
    }
}
