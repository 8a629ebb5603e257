//! `chatmd members --usage CHAT`: what each member has spent in a chat (answers,
//! tokens, cost where its agent reports one) against its `budget:`, read from the
//! chat's status comments, as a table or JSON.

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::conversation::usage::{Spent, amount_words, spent_by_member};
use crate::document::chat::Chat;
use crate::team::is_chat_file;

pub(super) fn run(path: &Path, as_json: bool) -> ExitCode {
    if !is_chat_file(path) {
        eprintln!(
            "chatmd members --usage: {} is not a .chat.md file; name the chat whose usage to show",
            path.display()
        );
        return ExitCode::from(2);
    }
    let text = match std::fs::read(path)
        .map_err(|e| e.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|e| e.to_string()))
    {
        Ok(text) => text,
        Err(error) => {
            eprintln!(
                "chatmd members --usage: cannot read {}: {error}",
                path.display()
            );
            return ExitCode::from(2);
        }
    };
    let chat = Chat::parse(&text);
    let (members, total) = spent_by_member(&text, &chat);
    let budget = |member: &str| {
        chat.front_matter.as_ref().and_then(|fm| {
            fm.budget
                .iter()
                .find(|b| b.member.value.eq_ignore_ascii_case(member))
                .map(|b| b.amount.value)
        })
    };
    let mut out = io::stdout().lock();
    let written = if as_json {
        let entry = |spent: &Spent, budget: Option<u64>| -> Value {
            json!({
                "answers": spent.turns,
                "inputTokens": spent.input_tokens,
                "outputTokens": spent.output_tokens,
                "cost": spent.cost.map(amount_words),
                "currency": spent.currency,
                "budget": budget.map(amount_words),
            })
        };
        let members: Vec<Value> = members
            .iter()
            .map(|(m, spent)| {
                let mut e = entry(spent, budget(m));
                e["member"] = json!(m);
                e
            })
            .collect();
        let report = json!({"members": members, "total": entry(&total, None)});
        serde_json::to_writer_pretty(&mut out, &report)
            .map_err(io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        let mut rows = vec![[
            "MEMBER".to_owned(),
            "ANSWERS".to_owned(),
            "TOKENS IN/OUT".to_owned(),
            "COST".to_owned(),
            "BUDGET".to_owned(),
        ]];
        let row = |who: String, spent: &Spent, budget: Option<u64>| {
            [
                who,
                spent.turns.to_string(),
                format!("{}/{}", spent.input_tokens, spent.output_tokens),
                spent.cost_words(),
                budget.map_or_else(|| "-".to_owned(), amount_words),
            ]
        };
        for (member, spent) in &members {
            rows.push(row(format!("@{member}"), spent, budget(member)));
        }
        let mut all = row("all".to_owned(), &total, None);
        all[4].clear();
        rows.push(all);
        write_rows(&mut out, &rows)
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("chatmd members --usage: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Rows as columns padded to their widest cell, two spaces apart.
fn write_rows(out: &mut impl Write, rows: &[[String; 5]]) -> io::Result<()> {
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c + 1 == r.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<w$}  ", w = widths[c]));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}
