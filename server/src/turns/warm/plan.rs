//! Whether a planned turn may run on its member's kept process: what a kept process is
//! matched by (`turns/runs/kept`), computed from the plan.

use crate::agents::kinds::FurtherPrompts;
use crate::agents::{AgentEntry, Invocation};
use crate::conversation::resume::LastSession;
use crate::conversation::seen::changed;
use crate::document::chat::Chat;
use crate::team::Member;
use crate::turns::Context;

use super::WarmTurn;
use crate::turns::runs::kept::{Wanted, WarmKey};

/// The turn of `member` as the kept processes see it, planned as `invocation` holding
/// the instructions `held`, continuing `last` (not a fork): `None` when nothing is kept
/// for it (no owner of what runs, warm members off, neither an ACP member nor a warm
/// headless claude, a member that does not keep its sessions).
pub(in crate::turns) fn warm_turn(
    ctx: &Context,
    (text, chat): (&str, &Chat),
    member: &Member,
    entry: &AgentEntry,
    (invocation, held): (&Invocation, Option<&str>),
    last: Option<&LastSession>,
) -> Option<WarmTurn> {
    let runs = ctx.runs.as_ref().filter(|runs| runs.keeps_warm())?;
    // ACP agents hold their session over a connection; a headless CLI with further
    // prompts (claude's stream-json input) reads the next on stdin. The others end
    // each run.
    let keeps = entry.adapter.keeps_warm()
        || (entry.adapter.reads_further_prompts() && runs.keeps_headless());
    if !keeps || !crate::turns::resume::resumes(member, entry) {
        return None;
    }
    // The same rule as resuming in a new process: the session saw every message as
    // the file has it now (`seen=`); a changed one is told, or the member starts fresh.
    let continues = last
        .filter(|last| changed(text, chat, &member.handle, last).is_empty())
        .map(|last| last.session.clone());
    Some(WarmTurn {
        runs: runs.clone(),
        wanted: Wanted {
            key: WarmKey {
                workspace: ctx.workspace_root.clone(),
                chat: ctx.chat_path.clone(),
                member: member.handle.to_lowercase(),
            },
            fingerprint: fingerprint(
                invocation,
                (held, member.role_text.as_deref()),
                entry.adapter.further_prompts(),
            ),
            continues,
            afresh: last.is_none(),
        },
    })
}

/// What started the process and what its session holds: the program, its arguments,
/// environment and folder, the member's mode, model and options, the workspace root,
/// the instructions (`held=`: the role file and `team_instruction.md`), and the role
/// file's text.
fn fingerprint(
    invocation: &Invocation,
    (held, role): (Option<&str>, Option<&str>),
    further: Option<&FurtherPrompts>,
) -> String {
    let setup = &invocation.session;
    // A headless turn's arguments carry its prompt and the session it resumes, which a
    // warm process takes as a message and already holds.
    let args = match further {
        Some(further) => (further.steady_args)(invocation),
        None => invocation.args.clone(),
    };
    format!(
        "{:?}",
        (
            &invocation.program,
            &args,
            &invocation.env,
            &invocation.cwd,
            &setup.settings,
            &setup.workspace,
            setup.keeps_sessions,
            held,
            // A role file the CLI loads itself (claude's CLAUDE.md in its folder) is in
            // no prompt and not in `held`: the process read it when it started.
            role,
        )
    )
}
