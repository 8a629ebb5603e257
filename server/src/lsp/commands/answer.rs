//! `chatmd.answer`: the user's answer to a permission block. It goes to the running
//! turn whose agent asked (the agent hears it at once and the turn records it over the
//! block); a block no running turn waits for cannot be answered any more.

use std::sync::Mutex;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::oneshot;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::MessageType;

use super::failed;
use crate::lsp::ext::CommandArgs;
use crate::lsp::state::{State, lock};
use crate::turns::{AnswerError, PermissionAnswer};

/// How long the turn may take to take the answer in (it writes the block first).
const TAKEN_WITHIN: Duration = Duration::from_secs(30);

pub(super) async fn answer(
    client: &Client,
    state: &Mutex<State>,
    args: CommandArgs,
) -> Result<Value> {
    let uri = args.uri()?;
    let block = args
        .request
        .clone()
        .ok_or_else(|| Error::invalid_params("chatmd.answer needs `request`: the request id"))?;
    let option = args.option.clone().ok_or_else(|| {
        Error::invalid_params(
            "chatmd.answer needs `option`: an option's name, id or kind (allow_once)",
        )
    })?;
    let answers = lock(state).running.answers_for(uri.as_str(), &block);
    let result = match answers {
        None => Err(AnswerError::NotWaiting { block }),
        Some(answers) => {
            let (reply, taken) = oneshot::channel();
            let answer = PermissionAnswer {
                block: block.clone(),
                option: option.clone(),
                by: None,
                reply: Some(reply),
            };
            if answers.send(answer).await.is_err() {
                Err(AnswerError::NotWaiting { block })
            } else {
                match tokio::time::timeout(TAKEN_WITHIN, taken).await {
                    Ok(Ok(result)) => result,
                    // The round ended before it took the answer in.
                    Ok(Err(_)) => Err(AnswerError::NotWaiting { block }),
                    Err(_) => {
                        return Err(failed("the turn did not take the answer in within 30 s"));
                    }
                }
            }
        }
    };
    match result {
        Ok(record) => Ok(json!({ "answered": true, "option": option, "record": record })),
        Err(why) => {
            let why = why.to_string();
            client.show_message(MessageType::WARNING, &why).await;
            Ok(json!({ "answered": false, "reason": why }))
        }
    }
}
