//! A permission request asked in the editor's own dialog (`window/showMessageRequest`)
//! as well as in the file, for editors whose plugin turns it on (`permissionDialog`).
//! Whichever answer comes first wins: a click in a dialog whose request was answered
//! in the file meanwhile is not taken, and the block records how it was answered.

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{MessageActionItem, MessageType};

use crate::turns::{Answers, Asked, PermissionAnswer};

/// Shows the request with the agent's options as buttons; a choice goes to `answers`.
pub(super) fn ask(client: &Client, asked: Asked<'_>, answers: &Answers) {
    let message = match asked.request.is_question() {
        true => format!(
            "@{} {} ({})",
            asked.member, asked.request.summary, asked.block
        ),
        false => format!(
            "@{} asks permission to {} ({})",
            asked.member, asked.request.summary, asked.block
        ),
    };
    let actions: Vec<MessageActionItem> = asked
        .request
        .options
        .iter()
        .map(|o| MessageActionItem {
            title: o.name.clone(),
            properties: Default::default(),
        })
        .collect();
    let (client, answers, block) = (client.clone(), answers.clone(), asked.block.to_string());
    tokio::spawn(async move {
        let chosen = client
            .show_message_request(MessageType::WARNING, message, Some(actions))
            .await;
        if let Ok(Some(item)) = chosen {
            let answer = PermissionAnswer {
                block,
                option: item.title,
                by: Some("the editor's dialog".into()),
                reply: None,
            };
            let _ = answers.send(answer).await;
        }
    });
}
