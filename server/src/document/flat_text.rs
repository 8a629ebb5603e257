//! A text as it was opened: one string and where its lines start. An editor opens a
//! 10 MB chat and mostly reads it; holding it this way costs the string and 4 bytes a
//! line, where a rope costs its own copy beside the string requests read. The first
//! edit turns it into a rope (see [`Text`](super::text::Text)).

use std::sync::Arc;

/// A string with the start of each of its lines, by the rope's rule of what breaks a
/// line (`\n`, `\r`, `\r\n`).
#[derive(Clone, Debug)]
pub(super) struct FlatText {
    pub(super) text: Arc<String>,
    /// The byte where each line starts; the first is 0.
    starts: Arc<Vec<u32>>,
}

impl FlatText {
    /// The text given back for one of 4 GiB or more, whose offsets do not fit the table.
    pub(super) fn new(text: String) -> Result<FlatText, String> {
        if u32::try_from(text.len()).is_err() {
            return Err(text);
        }
        let bytes = text.as_bytes();
        // About one line in 48 bytes in a chat: room for them without doubling.
        let mut starts = Vec::with_capacity(bytes.len() / 48 + 1);
        starts.push(0);
        for at in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            // `\r\n` is one break: the line starts after its `\n`.
            if bytes[at] == b'\r' && bytes.get(at + 1) == Some(&b'\n') {
                continue;
            }
            starts.push((at + 1) as u32);
        }
        starts.shrink_to_fit();
        Ok(FlatText {
            text: Arc::new(text),
            starts: Arc::new(starts),
        })
    }

    /// [`FlatText::new`] with the table made already (`starts`, first 0), by whoever
    /// read the text (see `lsp::framing::json_string`).
    pub(super) fn with_starts(text: String, mut starts: Vec<u32>) -> Result<FlatText, String> {
        if u32::try_from(text.len()).is_err() || starts.first() != Some(&0) {
            return Err(text);
        }
        // Grown as the lines were found: up to half of it is room (0.8 MB of 4 MB in
        // a 10 MB chat of short CRLF lines), kept while the chat is as opened.
        starts.shrink_to_fit();
        let flat = FlatText {
            text: Arc::new(text),
            starts: Arc::new(starts),
        };
        // Checked on texts up to 1 MiB only: the check copies the text, which for a
        // 256 MB chat would double a debug build's peak memory.
        if cfg!(debug_assertions) && flat.text.len() <= 1 << 20 {
            assert_eq!(
                flat.starts,
                FlatText::new(flat.text.to_string()).map_or_else(|_| Arc::default(), |f| f.starts),
                "the table given is the table of the text"
            );
        }
        Ok(flat)
    }

    #[cfg(test)]
    pub(super) fn starts(&self) -> Vec<u32> {
        self.starts.to_vec()
    }

    pub(super) fn len_lines(&self) -> usize {
        self.starts.len()
    }

    /// Where `line` (< [`FlatText::len_lines`]) starts.
    pub(super) fn line_to_byte(&self, line: usize) -> usize {
        self.starts[line] as usize
    }

    /// The line `byte` (<= the length) is on; a line's break belongs to it.
    pub(super) fn byte_to_line(&self, byte: usize) -> usize {
        self.starts.partition_point(|&start| start as usize <= byte) - 1
    }
}
