//! A `session=` no agent issued, in the editor: a warning on the status comment's
//! `session=` value (the member's next turn starts a new session), none on a real one.

mod common;

use common::{Workspace, summarize, vscode_like};
use pretty_assertions::assert_eq;

#[tokio::test]
async fn a_forged_session_id_is_a_warning_on_its_status_comment() {
    let ws = Workspace::new();
    let text = "## @me\n@tester look\n\n## @tester\n\
                <!-- chatmd id=t1 agent=codex status=done session=--last -->\nDone.\n\n\
                ## @reviewer\n<!-- chatmd id=t2 agent=claude status=done session=3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f -->\nOk.\n\n\
                ## @me\n@tester again\n";
    let mut client = ws.start(vscode_like()).await;
    let uri = ws.uri("team/s.chat.md");
    client.open(&uri, text).await;
    let diagnostics = client.expect_diagnostics(&uri).await;
    let found: Vec<String> = summarize(&diagnostics)
        .into_iter()
        .filter(|d| !d.contains("cli-missing"))
        .collect();
    assert_eq!(
        found,
        [
            "4:42-4:56 2 bad-session-id `session=--last` is not a session id codex issues \
          (a UUID such as 3f7eefe2-57ee-4a6c-9cd8-00cbb786ee3f), so it is never passed to \
          codex: the member's next turn starts a new session."
        ]
    );
    client.shutdown().await;
}
