//! What an ACP agent shows besides its answer, as Markdown written into its section
//! where it happens: its thoughts folded in a `<details>` block, its plan as a checklist
//! and each tool call as one line (with the diffs it carries folded under it). The plan
//! and the tool lines are quotes, and the thoughts and diffs `<details>` blocks, so a
//! mention in them never starts a turn (mentions count only in prose).

use similar::TextDiff;

use crate::agents::{CallStatus, CallView, FileDiff, PlanEntry, StepStatus, code_span};

/// The line that opens a thoughts block, and the blank line after it (Markdown inside
/// an HTML block needs one).
pub const THOUGHTS_OPEN: &str = "<details><summary>Thoughts</summary>\n\n";
/// The line that closes a thoughts block (after a blank line, which ends any HTML the
/// thoughts opened).
pub const THOUGHTS_CLOSE: &str = "</details>\n";

/// The most lines of one diff written; the rest is left out, with a note.
pub const MAX_DIFF_LINES: usize = 200;
/// The most bytes of one diff written.
pub const MAX_DIFF_BYTES: usize = 16 * 1024;

/// The plan as a checklist in a quote: `- [x]` done, `- [ ] … (in progress)`, `- [ ]`.
pub fn plan_block(entries: &[PlanEntry]) -> String {
    let mut out = String::from("> **Plan**\n");
    if entries.is_empty() {
        out.push_str("> (no steps)\n");
    }
    for entry in entries {
        let (mark, note) = match entry.status {
            StepStatus::Completed => ("x", ""),
            StepStatus::InProgress => (" ", " (in progress)"),
            StepStatus::Pending => (" ", ""),
        };
        out.push_str(&format!(
            "> - [{mark}] {}{note}\n",
            one_line(&entry.content)
        ));
    }
    out
}

/// A tool call's line (`> - Edit: notes.txt — completed · `notes.txt:3``), and each
/// diff it carries folded under it. `ended`: the turn is over, so a call that is still
/// pending never ran and one in progress did not finish.
pub fn call_block(call: &CallView, ended: bool) -> String {
    let status = match (call.status, ended) {
        (CallStatus::Pending, false) => "pending".to_owned(),
        (CallStatus::Pending, true) => "not run".to_owned(),
        (CallStatus::InProgress, false) => "in progress".to_owned(),
        (CallStatus::InProgress, true) => "did not finish".to_owned(),
        (CallStatus::Completed, _) => "completed".to_owned(),
        (CallStatus::Failed, _) => match &call.detail {
            Some(detail) => format!("failed: {}", one_line(detail)),
            None => "failed".to_owned(),
        },
    };
    let mut out = format!("> - {} — {status}", one_line(&call.summary));
    if !call.locations.is_empty() {
        let places: Vec<String> = call
            .locations
            .iter()
            .map(|l| code_span(&one_line(l)))
            .collect();
        out.push_str(" · ");
        out.push_str(&places.join(", "));
    }
    out.push('\n');
    for diff in &call.diffs {
        out.push('\n');
        out.push_str(&diff_block(diff));
    }
    if let Some(output) = &call.output {
        out.push('\n');
        out.push_str(&output_block(output));
    }
    if !call.diffs.is_empty() || call.output.is_some() {
        // The next line after an HTML block needs a blank line, or it joins the block.
        out.push('\n');
    }
    out
}

/// A file change as a unified diff in a `diff` code block, folded; cut past
/// [`MAX_DIFF_LINES`] or [`MAX_DIFF_BYTES`] with a note.
pub fn diff_block(diff: &FileDiff) -> String {
    let old = diff.old.as_deref().unwrap_or("");
    let (from, to) = match diff.old {
        Some(_) => (format!("a/{}", diff.path), format!("b/{}", diff.path)),
        None => ("/dev/null".to_owned(), format!("b/{}", diff.path)),
    };
    let text = TextDiff::from_lines(old, &diff.new)
        .unified_diff()
        .context_radius(3)
        .header(&from, &to)
        .to_string();
    let mut kept = String::new();
    let (mut lines, mut left_out) = (0, 0);
    for line in text.lines() {
        let fits = kept.len() + line.len() < MAX_DIFF_BYTES && lines < MAX_DIFF_LINES;
        if left_out == 0 && fits {
            kept.push_str(line);
            kept.push('\n');
            lines += 1;
        } else {
            left_out += 1;
        }
    }
    let fence = "`".repeat(longest_run(&kept, '`').max(2) + 1);
    let mut out = format!(
        "<details><summary>Diff of {}</summary>\n\n{fence}diff\n{kept}{fence}\n",
        code_span(&one_line(&diff.path))
    );
    if left_out > 0 {
        out.push_str(&format!(
            "\n*The diff is cut here: {left_out} more lines are left out.*\n"
        ));
    }
    out.push_str("\n</details>\n");
    out
}

/// A command's output (a terminal chatmd runs for the agent) in a `text` code block,
/// folded; past [`MAX_DIFF_LINES`] or [`MAX_DIFF_BYTES`] only its end is kept (where a
/// command says how it went), with a note.
pub fn output_block(output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let mut kept: Vec<&str> = Vec::new();
    let mut bytes = 0;
    for line in lines.iter().rev() {
        if bytes + line.len() >= MAX_DIFF_BYTES || kept.len() >= MAX_DIFF_LINES {
            break;
        }
        bytes += line.len() + 1;
        kept.push(line);
    }
    let left_out = lines.len() - kept.len();
    kept.reverse();
    let text: String = kept.iter().map(|line| format!("{line}\n")).collect();
    let fence = "`".repeat(longest_run(&text, '`').max(2) + 1);
    let mut out = String::from("<details><summary>Output</summary>\n\n");
    if left_out > 0 {
        out.push_str(&format!(
            "*The output is cut here: {left_out} earlier lines are left out.*\n\n"
        ));
    }
    out.push_str(&format!("{fence}text\n{text}{fence}\n\n</details>\n"));
    out
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for ch in text.chars() {
        run = if ch == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// `text` on one line (a list item or a quote line must not break).
fn one_line(text: &str) -> String {
    text.replace("\r\n", " ").replace(['\r', '\n'], " ")
}

/// Keeps thoughts inside their fold: a line of theirs that would open or close a
/// `<details>` element (which decides where mentions count, and what the fold holds)
/// gets a `\` before its `<`, which renders the same. Like the output filter, the
/// result does not depend on how the text is cut: only a line start that may still
/// become such a tag is held back.
#[derive(Debug)]
pub struct FoldGuard {
    line_start: bool,
    held: String,
}

impl Default for FoldGuard {
    fn default() -> FoldGuard {
        FoldGuard {
            line_start: true,
            held: String::new(),
        }
    }
}

const TAGS: [&str; 2] = ["<details", "</details"];

impl FoldGuard {
    /// The next piece of thoughts; returns what can be written now.
    pub fn push(&mut self, piece: &str) -> String {
        let mut out = String::with_capacity(piece.len() + 1);
        for c in piece.chars() {
            if c == '\n' || c == '\r' {
                out.push_str(&std::mem::take(&mut self.held));
                out.push(c);
                self.line_start = true;
                continue;
            }
            if !self.line_start {
                out.push(c);
                continue;
            }
            self.held.push(c);
            let rest = self.held.trim_start_matches(' ');
            let spaces = self.held.len() - rest.len();
            if rest.is_empty() && spaces <= 3 {
                continue;
            }
            let lower = rest.to_ascii_lowercase();
            if spaces <= 3 && TAGS.iter().any(|t| t.starts_with(&lower)) {
                if TAGS.contains(&lower.as_str()) {
                    out.push_str(&self.held[..spaces]);
                    out.push('\\');
                    out.push_str(&self.held[spaces..]);
                    self.held.clear();
                    self.line_start = false;
                }
                continue;
            }
            out.push_str(&std::mem::take(&mut self.held));
            self.line_start = false;
        }
        out
    }

    /// The thoughts are over: what was held back.
    pub fn finish(&mut self) -> String {
        let held = std::mem::take(&mut self.held);
        *self = FoldGuard::default();
        held
    }
}

#[cfg(test)]
mod tests;
