//! The editor's side of an agent's file requests: `chatmd/readBuffer` answered with the
//! buffer (unsaved changes included) or `null`, and an agent's annotated
//! `workspace/applyEdit` applied the way VS Code applies one: a file that is not open
//! is opened in a buffer (from the disk, or empty when the edit creates it) and edited
//! there, unsaved; an edit the server was told of (a chat) is echoed as `didChange`.

use serde_json::{Value, json};

use super::text::offset;
use super::{Doc, SimEditor};

pub(super) async fn read_buffer(editor: &mut SimEditor, id: Value, params: &Value) {
    let uri = params["uri"].as_str().expect("readBuffer names a uri");
    let answer = match editor.docs.get(uri) {
        Some(doc) => json!({"text": doc.text}),
        None => Value::Null,
    };
    editor.client.respond(id, answer).await;
}

pub(super) async fn agent_edit(editor: &mut SimEditor, id: Value, params: Value) {
    editor.edits += 1;
    let utf8 = editor.utf8;
    for change in params["edit"]["documentChanges"]
        .as_array()
        .expect("an agent's edit comes as documentChanges")
    {
        let uri = change["uri"]
            .as_str()
            .or(change["textDocument"]["uri"].as_str())
            .expect("a change names its uri")
            .to_string();
        if !editor.docs.contains_key(&uri) {
            let path = crate::lsp_client::file_path(&uri);
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let doc = Doc {
                text,
                version: 1,
                synced: false,
            };
            editor.docs.insert(uri.clone(), doc);
        }
        if change["kind"] == "create" {
            continue;
        }
        let doc = editor.docs.get_mut(&uri).expect("opened above");
        let mut edits: Vec<(std::ops::Range<usize>, String)> = change["edits"]
            .as_array()
            .expect("edits")
            .iter()
            .map(|e| {
                assert!(
                    e["annotationId"].is_string(),
                    "every edit of an agent's write is annotated: {e}"
                );
                let start = offset(&doc.text, &e["range"]["start"], utf8);
                let end = offset(&doc.text, &e["range"]["end"], utf8);
                (
                    start..end,
                    e["newText"].as_str().expect("newText").to_owned(),
                )
            })
            .collect();
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        for (range, new) in edits {
            doc.text.replace_range(range, &new);
        }
        doc.version += 1;
        if doc.synced {
            let (version, text) = (doc.version, doc.text.clone());
            editor
                .client
                .change(&uri, version, json!([{"text": text}]))
                .await;
        }
    }
    editor.file_edits.push(params);
    editor.client.respond(id, json!({"applied": true})).await;
}
