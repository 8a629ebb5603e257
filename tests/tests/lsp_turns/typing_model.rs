//! A model-based check of the live document: seeded random interleavings of the user's
//! typing (at the end of the file, between sections, on the last line of a streaming
//! section, on a heading) while two members stream, under every simulated editor and
//! report shape. After the run: every marker typed is in the file exactly once, in the
//! order typed where they went to the same place; every answer is its agent's whole
//! output, contiguous, in its own section under a status comment that ends `done`.
//! A failing seed is printed; add it to the seeds below when fixing it.

use chatmd_tests::sim_editor::{At, Behaviour, Reports};

use crate::setup::{Setup, send};

const REVIEWER: &str = "alpha beta gamma delta epsilon zeta eta theta";
const TESTER: &str = "one two three four five six";

async fn run(behaviour: Behaviour, reports: Reports, split: bool, seed: u64) {
    let s = Setup::new(&[
        (
            "reviewer",
            &[
                ("FAKE_AGENT_TEXT", REVIEWER),
                ("FAKE_AGENT_CHUNKS", "8"),
                ("FAKE_AGENT_DELAY_MS", "40"),
            ],
        ),
        (
            "tester",
            &[
                ("FAKE_AGENT_TEXT", TESTER),
                ("FAKE_AGENT_CHUNKS", "6"),
                ("FAKE_AGENT_DELAY_MS", "55"),
            ],
        ),
    ]);
    let chat = "# Notes\n\n## @me\n@reviewer look. @tester test.\n";
    let (mut editor, uri) = s.open_chat(behaviour, "team/m.chat.md", chat).await;
    editor.reports = reports;
    editor.split_echo = split;
    let mut state = seed.max(1);
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut markers = Vec::new();
    for n in 0..10 {
        let marker = format!("«{seed}:{n}»");
        let at = match next() % 4 {
            0 => At::After("# Notes".into()),
            1 => At::After("## @me".into()),
            2 => At::Before("\n## @tester".into()),
            _ => At::End,
        };
        let text = if next() % 3 == 0 {
            format!("\n{marker}\n")
        } else {
            marker.clone()
        };
        editor.type_before_edit(2 + (next() % 8) as usize, &uri, at, &text);
        markers.push(marker);
    }
    send(&mut editor, &uri).await;
    editor
        .run_until("both answers", |e| {
            let t = e.text(&uri);
            t.matches("status=done").count() == 2 && !t.contains("status=streaming")
        })
        .await;
    // Typing still due when the answers ended is typed now, then the stub lands.
    let text = editor.text(&uri).to_string();
    let context = format!("{behaviour:?} {reports:?} split={split} seed {seed}: {text:?}");
    for marker in &markers {
        let typed = usize::from(editor.typed.iter().any(|t| t.contains(marker.as_str())));
        assert_eq!(
            text.matches(marker.as_str()).count(),
            typed,
            "{marker}: {context}"
        );
    }
    for (member, answer) in [("reviewer", REVIEWER), ("tester", TESTER)] {
        let heading = format!("## @{member}\n<!-- chatmd id=");
        let at = text
            .find(&heading)
            .unwrap_or_else(|| panic!("@{member}'s section: {context}"));
        let section = &text[at..];
        let status_end = section.find("-->\n").expect("status comment") + 4;
        assert!(
            section[..status_end].contains("status=done"),
            "@{member} ends done on its own line: {context}"
        );
        assert!(
            section[status_end..].starts_with(answer),
            "@{member}'s answer whole and contiguous right under its status: {context}"
        );
        assert_eq!(text.matches(answer).count(), 1, "{context}");
    }
    assert_eq!(text.matches("<!-- chatmd").count(), 2, "{context}");
}

async fn every_seed(behaviour: Behaviour, reports: Reports, split: bool) {
    for seed in [1, 5, 23, 101, 777] {
        run(behaviour, reports, split, seed).await;
    }
}

#[tokio::test]
async fn random_typing_with_ranges_vscode() {
    every_seed(Behaviour::VsCode, Reports::Ranges, false).await;
}

#[tokio::test]
async fn random_typing_with_ranges_neovim() {
    every_seed(Behaviour::Neovim, Reports::Ranges, false).await;
}

#[tokio::test]
async fn random_typing_with_a_split_echo_neovim() {
    every_seed(Behaviour::Neovim, Reports::Ranges, true).await;
}

#[tokio::test]
async fn random_typing_with_whole_text_reports_vscode() {
    every_seed(Behaviour::VsCode, Reports::WholeText, false).await;
}

#[tokio::test]
async fn random_typing_with_whole_text_reports_neovim() {
    every_seed(Behaviour::Neovim, Reports::WholeText, false).await;
}

#[tokio::test]
async fn random_typing_with_many_small_reports_vscode() {
    every_seed(Behaviour::VsCode, Reports::ManySmall, false).await;
}
