//! The records chatmd keeps in status comments about what a session saw. Whatever the
//! text, `SeenRecord::parse` does not panic, and a record it accepts renders back to the
//! same value; a chat whose answers carry any `seen=` (and `session=`, `next=`) values
//! gives the seen problems without a panic or an overflow, each on a message of the
//! chat, on character boundaries; a `session=` the agent never issued is flagged by
//! the chat's problems and is never what `chatmd` resumes.
//!
//! Input: cut at every 0xFF. The first piece is a `seen=` value to parse on its own;
//! the others are the values of each answer's `seen=` (a chat of `## @me` questions
//! and `## @reviewer` answers is built from them). With one piece, it is also read as
//! a whole chat.
#![no_main]

use std::path::PathBuf;

use chatmd::agents::session_id::is_session_id_of;
use chatmd::conversation::problems::{CliLookup, check};
use chatmd::conversation::roster::Roster;
use chatmd::conversation::seen::{self, SeenRecord};
use chatmd::document::chat::Chat;
use chatmd::document::status::StatusComment;
use chatmd::team::{Member, Team};
use libfuzzer_sys::fuzz_target;

struct AllInstalled;

impl CliLookup for AllInstalled {
    fn missing(
        &self,
        _: &Member,
    ) -> Option<(chatmd::agents::program::ProgramError, Option<String>)> {
        None
    }
}

fuzz_target!(|data: &[u8]| {
    let mut pieces = data.split(|&b| b == 0xFF);
    let first = String::from_utf8_lossy(pieces.next().unwrap_or_default()).into_owned();
    if let Some(record) = SeenRecord::parse(&first) {
        let rendered = record.render();
        assert_eq!(SeenRecord::parse(&rendered), Some(record), "{first:?}");
    }
    let values: Vec<String> = pieces
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let text = if values.is_empty() {
        first
    } else {
        let mut text = String::new();
        for (i, value) in values.iter().enumerate() {
            let mut status = StatusComment::new();
            status.set("id", format!("t{i}"));
            status.set("agent", if i % 2 == 0 { "claude" } else { "acp" });
            status.set("status", "done");
            status.set("session", value.as_str());
            status.set("seen", value.as_str());
            if i % 3 == 2 {
                status.set("next", "tell");
            }
            text.push_str(&format!(
                "## @me\n@reviewer q{i}\n\n## @reviewer\n{}\na{i}\n\n",
                status.render()
            ));
        }
        text.push_str("## @me\n@reviewer again\n");
        text
    };
    let chat = Chat::parse(&text);
    let mut team = Team::empty(PathBuf::from("/team"));
    team.members = vec![Member::new("reviewer", "claude", PathBuf::from("/team/reviewer"))];
    let roster = Roster::new(&team, chat.front_matter.as_ref());
    for problem in seen::problems(&text, &chat, &roster) {
        let range = problem.range.clone();
        assert!(text.get(range.clone()).is_some(), "{range:?} in {text:?}");
    }
    let problems = check(&text, &chat, &roster, &AllInstalled);
    for message in &chat.messages {
        let Some(Ok(status)) = message.status(&text) else {
            continue;
        };
        let (Some(agent), Some(session)) = (status.agent(), status.session()) else {
            continue;
        };
        let range = message.status_range().expect("a status line");
        let flagged = problems
            .iter()
            .any(|p| p.code == "bad-session-id" && range.start <= p.range.start && p.range.end <= range.end);
        assert_eq!(flagged, !is_session_id_of(agent, session), "{session:?} of {agent}");
    }
});
