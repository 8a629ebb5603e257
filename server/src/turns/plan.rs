//! What a run needs besides the document, and the command line of one member's turn:
//! its agent kind, the prompt, the session it resumes, and whether the program is
//! there at all.

use std::path::PathBuf;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::TurnError;
use crate::agents::{AgentEntry, Invocation, Registry, plan_turn};
use crate::conversation::attached::{self, Attachment};
use crate::conversation::prompt::given_messages;
use crate::conversation::prompt::{
    PromptRequest, build_council_prompt, build_prompt, holds, instructions_hash,
    role_loaded_by_cli, slash_command,
};
use crate::conversation::roster::Roster;
use crate::conversation::routing::council::{self, Stage};
use crate::conversation::running::{SessionReport, session_report};
use crate::conversation::seen::{NextTurn, SeenRecord, Told, correction, told};
use crate::team::{self, Member};

/// What a run needs besides the document.
pub struct Context {
    /// The workspace root (config paths are contained in it).
    pub workspace_root: PathBuf,
    /// The chat file's path (its folder is the default team folder).
    pub chat_path: PathBuf,
    pub registry: Arc<Registry>,
    pub cancel: CancellationToken,
    /// Members asked explicitly (`--to`); otherwise the routing rules decide.
    pub targets: Option<Vec<String>>,
    /// Folders searched for agent CLIs before `PATH` (an editor's `agentPath`).
    pub agent_path: Option<std::ffi::OsString>,
    /// The user's own config folder: what they trust in workspaces.
    pub user_config: team::UserConfig,
    /// The one owner of what runs, where members' processes are kept between turns
    /// (`turns/runs/kept`, run on by `turns/warm`); `None`: every turn starts its agent.
    pub runs: Option<super::runs::Runs>,
}

/// A member's turn, ready to run.
pub(super) struct Planned {
    pub invocation: Invocation,
    /// The turn as a new session, when `invocation` resumes one (`turns/resume.rs`).
    pub fallback: Option<Invocation>,
    /// The session `invocation` resumes (or forks).
    pub session: Option<super::resume::Resuming>,
    pub entry: AgentEntry,
    /// The `seen=` record of `invocation`, and of `fallback` (`conversation::seen`):
    /// only for a member that resumes (for the others the file is all they know).
    pub seen: Option<String>,
    pub fallback_seen: Option<String>,
    /// The instructions the session holds after this turn (`held=`,
    /// `conversation::prompt::held`): only for a member that resumes.
    pub held: Option<String>,
    /// What the resumed session had reported of its usage (`conversation::running`).
    pub session_report: SessionReport,
    /// The council round the turn is in (`conversation::routing::council`), marked in
    /// its status comment.
    pub council: Option<council::Mark>,
    /// What the user is told before the turn starts (a session id that was not passed).
    pub notice: Option<String>,
    /// The turn as the kept processes see it: a member that keeps its sessions, whose
    /// agent may be kept running.
    pub warm: Option<super::warm::WarmTurn>,
}

/// The command line of one member's turn, or why it cannot start; for a member that
/// resumes a session, also the same turn as a new session with the whole prompt, run
/// when the CLI cannot find the session (see `turns/resume.rs`).
pub(super) fn plan(
    ctx: &Context,
    snapshot: &super::Snapshot,
    roster: &Roster,
    member: &Member,
    message: usize,
    attachments: &[Attachment],
) -> Result<Planned, TurnError> {
    let (text, chat) = (&*snapshot.text, &*snapshot.chat);
    if let Some(why) = roster.team.trust_refusal(&member.handle) {
        return Err(TurnError::Untrusted { why });
    }
    let entry = ctx
        .registry
        .entry(&member.agent)
        .ok_or_else(|| TurnError::UnknownAgent {
            agent: member.agent.clone(),
        })?;
    // A trusted `chatmd.toml` may name the program; the kind's protocol stays.
    let own_program = member.command.as_ref().map(|program| AgentEntry {
        program: program.clone(),
        install_hint: None,
        ..entry.clone()
    });
    let entry = own_program.as_ref().unwrap_or(entry);
    if entry.adapter.two_way() && crate::agents::program::member_program(entry, member).is_empty() {
        return Err(TurnError::NoAcpAgent {
            member: member.handle.clone(),
        });
    }
    if entry.adapter.needs_named_program() && entry.program.is_empty() {
        return Err(TurnError::NoProgram {
            member: member.handle.clone(),
        });
    }
    let stage = council::stage_of(text, chat, roster, message);
    // A review or a decision is a session of its own, whose prompt holds the council's
    // answers by letter: a member's earlier session would tell it whose they are.
    let council_rounds = match stage {
        Some(stage @ (Stage::Review | Stage::Decision)) => {
            council::read(text, chat, roster, message).map(|c| (stage, c))
        }
        _ => None,
    };
    let mut last = super::resume::session_to_resume(ctx, text, chat, member, entry, message)
        .filter(|_| council_rounds.is_none());
    // A forged or damaged `session=` starts a new session, and the user is told why.
    let notice = last
        .as_ref()
        .and_then(|last| super::resume::refused(entry, last))
        .map(|why| format!("@{}: {why}", member.handle));
    if notice.is_some() {
        last = None;
    }
    // A fork's first turn: the original's session branched off, where it holds exactly
    // this chat's prefix.
    let mut fork = false;
    if last.is_none() && council_rounds.is_none() {
        last = super::resume::session_to_fork(ctx, text, chat, member, entry, message);
        fork = last.is_some();
    }
    // The user's answer to messages the session saw changing: a new session, or the
    // session told how they read now.
    let mut to_tell = Told::default();
    if let Some(resumed) = &last {
        let status = chat.messages[resumed.since].status_comment(text);
        match status.and_then(NextTurn::of) {
            Some(NextTurn::Fresh) => last = None,
            Some(NextTurn::Tell) => to_tell = told(text, chat, &member.handle, resumed),
            None => {}
        }
    }
    let correction = correction(text, chat, &to_tell);
    let acp = entry.adapter.takes_resources();
    // An ACP agent gets the attachments as resource blocks, a headless CLI in its prompt.
    let attached = if acp {
        String::new()
    } else {
        attached::render(attachments)
    };
    let command = |since: Option<usize>,
                   session: Option<&str>|
     -> Result<(Invocation, (String, Option<String>)), TurnError> {
        let mut request = PromptRequest {
            text,
            chat,
            roster,
            member,
            message,
            role_loaded_by_cli: role_loaded_by_cli(member, &ctx.workspace_root),
            since,
            attached: &attached,
            // Only a resumed session needs telling: a new one reads the file as it is.
            correction: if since.is_some() { &correction } else { "" },
            instructions_again: false,
        };
        // A resumed session that does not hold the current instructions gets them in
        // this prompt, once (`prompt/held.rs`).
        let held = instructions_hash(&request);
        request.instructions_again = since.is_some()
            && council_rounds.is_none()
            && last
                .as_ref()
                .is_some_and(|l| !holds(text, chat, l.since, held.as_deref()));
        let mut prompt = match &council_rounds {
            Some((stage, council)) => build_council_prompt(&request, *stage, council)?,
            None => build_prompt(&request)?,
        };
        if request.instructions_again {
            // In the prompt only: claude 2.1.197 would also take a flag, and the text
            // would reach it twice.
            prompt = crate::conversation::prompt::Prompt {
                body: prompt.inline(),
                system: String::new(),
            };
        }
        let given = given_messages(&request);
        let told = if since.is_some() {
            &to_tell.edited[..]
        } else {
            &[]
        };
        let seen = SeenRecord::of_turn(text, chat, &given, since.is_some(), told);
        let mut invocation = plan_turn(entry, member, &prompt.system, &prompt.body, session);
        if acp {
            // The workspace around the member's folder, for an agent that takes more roots.
            invocation.session.workspace = Some(ctx.workspace_root.clone());
            invocation.session.attachments = attachments.iter().map(for_acp).collect();
            invocation.session.keeps_sessions = super::resume::resumes(member, entry);
            let asking = &chat.messages[message];
            if roster.is_human(asking.handle(text))
                && let Some(command) = slash_command(asking.body(text))
            {
                invocation.stdin = crate::agents::Stdin::Prompt(command);
            }
        }
        if let Some(extra) = &ctx.agent_path {
            crate::agents::program::put_first_on_path(&mut invocation, extra);
        }
        Ok((invocation, (seen.render(), held)))
    };
    let ((invocation, (seen, held)), fallback) = match &last {
        Some(last) => (
            command(Some(last.since), Some(&last.session))?,
            Some(command(None, None)?),
        ),
        None => (command(None, None)?, None),
    };
    let warm = super::warm::plan::warm_turn(
        ctx,
        (text, chat),
        member,
        entry,
        (&invocation, held.as_deref()),
        last.as_ref().filter(|_| !fork),
    );
    let (fallback, fallback_seen) = fallback.unzip();
    let fallback_seen = fallback_seen.map(|(seen, _)| seen);
    let session_report = last.as_ref().map_or_else(SessionReport::default, |last| {
        session_report(text, chat, &member.handle, &last.session, message)
    });
    if !program_exists(&invocation) {
        return Err(TurnError::NotInstalled {
            program: invocation.program.clone(),
            hint: invocation.install_hint.clone(),
        });
    }
    Ok(Planned {
        invocation,
        fallback,
        session: last.map(|last| super::resume::Resuming {
            session: last.session,
            fork,
        }),
        entry: entry.clone(),
        seen: super::resume::resumes(member, entry).then_some(seen),
        held: held.filter(|_| super::resume::resumes(member, entry)),
        fallback_seen,
        session_report,
        council: stage.map(|stage| council::Mark {
            stage,
            legend: match &council_rounds {
                Some((Stage::Decision, read)) => Some(council::legend(text, chat, read)),
                _ => None,
            },
        }),
        notice,
        warm,
    })
}

/// An attachment as an ACP turn sends it.
fn for_acp(a: &Attachment) -> crate::agents::acp::PromptAttachment {
    let kind = a.label.trim_start_matches('#');
    let kind = kind.split(':').next().unwrap_or(kind);
    crate::agents::acp::PromptAttachment {
        title: a.heading(),
        file: a.file.clone(),
        lines: a.lines,
        text: a.text.clone(),
        as_text: attached::render(std::slice::from_ref(a)),
        uri: match a.label.split_once(':') {
            Some((_, path)) => format!("chatmd://{kind}/{path}"),
            None => format!("chatmd://{kind}"),
        },
    }
}

fn program_exists(invocation: &Invocation) -> bool {
    use crate::agents::program::{ProgramError, find_invoked};
    // A path that is not an executable file is left for the runner to name.
    !matches!(
        find_invoked(invocation),
        Err(ProgramError::NotInstalled { .. } | ProgramError::NotFound { .. })
    )
}
