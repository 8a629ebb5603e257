use super::*;
use std::time::Duration;

/// A `didOpen` large enough to be staged, of a chat saying `words`.
fn large_open(words: &str) -> Vec<u8> {
    let text = format!("## @me\n{words}\n{}\n", "x".repeat(STAGE_FROM));
    json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": "file:///ws/a.chat.md", "languageId": "chatmd", "version": 1, "text": text}}})
    .to_string()
    .into_bytes()
}

/// The key of the stand-in `stage` answered with.
fn key_of(stand_in: Result<Option<Vec<u8>>, Vec<u8>>) -> StagedKey {
    let stand_in = stand_in.ok().flatten().expect("staged");
    let message: serde_json::Value = serde_json::from_slice(&stand_in).unwrap();
    assert_eq!(message["method"], StagedSync::METHOD);
    serde_json::from_value(message["params"].clone()).unwrap()
}

fn opened_text(staged: Option<Staged>) -> String {
    match staged {
        Some(Staged::Open(doc)) => doc.text.to_string(),
        _ => panic!("not a staged didOpen"),
    }
}

/// A server busy for longer than any timeout still gets every sync: the guard waits
/// for room as long as it takes, and drops none. (The guard used to drop the oldest
/// after 5 s; a server busy that long on a loaded machine lost an edit.)
#[tokio::test]
async fn a_slow_server_gets_every_staged_sync() {
    let staged = StagedSyncs::default();
    staged.serving(true);
    let first = key_of(staged.stage(large_open("first")).await);
    let second = key_of(staged.stage(large_open("second")).await);
    let third = tokio::spawn({
        let staged = staged.clone();
        async move { key_of(staged.stage(large_open("third")).await) }
    });
    // The server busy with something else for a while.
    tokio::time::sleep(Duration::from_secs(6)).await;
    assert!(!third.is_finished(), "the third waits for room");
    assert!(opened_text(staged.take(first)).starts_with("## @me\nfirst\n"));
    let third = third.await.unwrap();
    assert!(opened_text(staged.take(second)).starts_with("## @me\nsecond\n"));
    assert!(opened_text(staged.take(third)).starts_with("## @me\nthird\n"));
}

/// Before `initialize` and after `shutdown` the server drops notifications: a large
/// sync then goes the usual way (and what waited is let go), so the guard never waits
/// for a stand-in that will not be taken.
#[tokio::test]
async fn nothing_is_staged_while_the_server_does_not_serve() {
    let staged = StagedSyncs::default();
    assert!(staged.stage(large_open("early")).await.is_err());
    staged.serving(true);
    let waiting = key_of(staged.stage(large_open("kept")).await);
    staged.serving(false);
    assert!(staged.take(waiting).is_none());
    assert!(staged.stage(large_open("late")).await.is_err());
}
