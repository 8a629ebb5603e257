//! What an ACP prompt carries besides its text: the message's attachments (`#file:`,
//! `#diff`, `#diagnostics:`). An agent that takes embedded context
//! (`promptCapabilities.embeddedContext`) gets each as a `resource` block with its
//! text; one that does not gets a file as a `resource_link` (it reads the file
//! itself) and anything else, which has no file to link, as text.

use std::path::PathBuf;

use agent_client_protocol::v1::schema::{
    ContentBlock, EmbeddedResource, EmbeddedResourceResource, ResourceLink, TextContent,
    TextResourceContents,
};

/// One attachment, as an ACP turn needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptAttachment {
    /// The reference as written, with what it is (`#file:a.rs (a.rs, 3 lines)`).
    pub title: String,
    /// The file, for a `#file:` reference.
    pub file: Option<PathBuf>,
    /// The file's lines it holds, when not all of them.
    pub lines: Option<(u64, u64)>,
    /// What it holds.
    pub text: String,
    /// The whole attachment as prompt text, for an agent that takes no resource.
    pub as_text: String,
    /// Where a resource without a file says it comes from (`chatmd://diff`).
    pub uri: String,
}

impl PromptAttachment {
    /// The URI of the resource: the file's (`file:///...`, with `#L40-80` for some of
    /// its lines), else `uri`.
    fn resource_uri(&self) -> String {
        let Some(file) = &self.file else {
            return self.uri.clone();
        };
        let mut uri = file_uri(file);
        if let Some((first, last)) = self.lines {
            uri.push_str(&format!("#L{first}-{last}"));
        }
        uri
    }
}

/// The content blocks that follow the prompt's text.
pub(super) fn blocks(list: &[PromptAttachment], embedded: bool) -> Vec<ContentBlock> {
    list.iter()
        .map(|a| match (&a.file, embedded) {
            (_, true) => {
                let contents = TextResourceContents::new(a.text.clone(), a.resource_uri())
                    .mime_type("text/plain".to_owned());
                ContentBlock::Resource(EmbeddedResource::new(
                    EmbeddedResourceResource::TextResourceContents(contents),
                ))
            }
            (Some(file), false) => {
                let name = file
                    .file_name()
                    .map_or_else(|| a.title.clone(), |n| n.to_string_lossy().into_owned());
                ContentBlock::ResourceLink(
                    ResourceLink::new(name, file_uri(file)).description(a.title.clone()),
                )
            }
            (None, false) => ContentBlock::Text(TextContent::new(a.as_text.clone())),
        })
        .collect()
}

/// `file://` and the absolute path, bytes outside the URI path characters escaped.
fn file_uri(path: &std::path::Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn file_part() -> PromptAttachment {
        PromptAttachment {
            title: "#file:src/pay me.rs:2-3 (src/pay me.rs, lines 2-3 of 9)".into(),
            file: Some(PathBuf::from("/ws/src/pay me.rs")),
            lines: Some((2, 3)),
            text: "b\nc\n".into(),
            as_text: "attached ...".into(),
            uri: String::new(),
        }
    }

    fn diff_part() -> PromptAttachment {
        PromptAttachment {
            title: "#diff (...)".into(),
            file: None,
            lines: None,
            text: "+x\n".into(),
            as_text: "attached #diff (...):\n```\n+x\n```\n".into(),
            uri: "chatmd://diff".into(),
        }
    }

    #[test]
    fn embedded_context_gets_resources_with_their_text() {
        let blocks = blocks(&[file_part(), diff_part()], true);
        assert_eq!(
            serde_json::to_value(blocks).unwrap(),
            json!([
                {"type": "resource", "resource": {"uri": "file:///ws/src/pay%20me.rs#L2-3",
                    "text": "b\nc\n", "mimeType": "text/plain"}},
                {"type": "resource", "resource": {"uri": "chatmd://diff", "text": "+x\n",
                    "mimeType": "text/plain"}},
            ])
        );
    }

    #[test]
    fn without_it_a_file_is_a_link_and_the_rest_text() {
        let blocks = blocks(&[file_part(), diff_part()], false);
        assert_eq!(
            serde_json::to_value(blocks).unwrap(),
            json!([
                {"type": "resource_link", "name": "pay me.rs", "uri": "file:///ws/src/pay%20me.rs",
                    "description": "#file:src/pay me.rs:2-3 (src/pay me.rs, lines 2-3 of 9)"},
                {"type": "text", "text": "attached #diff (...):\n```\n+x\n```\n"},
            ])
        );
    }
}
