//! Asking for the members on a terminal: one line of `handle=agent` words, the default
//! team on an empty line, the question again after a mistake.

use std::io::{BufRead, Write};

use super::spec::{DEFAULT_TEAM, MemberSpec, parse_members};

/// How many times a wrong answer is asked again before `init` gives up.
const TRIES: usize = 3;

/// The members typed on `input`, asking on `output`; `None` when the input ended or
/// every try was wrong (each mistake was said).
pub(super) fn ask_members(
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> std::io::Result<Option<Vec<MemberSpec>>> {
    writeln!(
        output,
        "Who is on the team? Type handle=agent words, agent one of claude, codex, gemini or \
         acp:<preset>\n(for example `reviewer=claude tester=codex`); Enter alone for {DEFAULT_TEAM}."
    )?;
    for _ in 0..TRIES {
        write!(output, "members> ")?;
        output.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let words = match line.trim() {
            "" => DEFAULT_TEAM,
            typed => typed,
        };
        match parse_members(words.split_whitespace()) {
            Ok(members) if !members.is_empty() => return Ok(Some(members)),
            Ok(_) => {}
            Err(error) => writeln!(output, "{error}")?,
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn asked(typed: &str) -> (Option<Vec<String>>, String) {
        let mut said = Vec::new();
        let members = ask_members(&mut typed.as_bytes(), &mut said).expect("ask");
        let handles = members.map(|m| m.into_iter().map(|m| m.handle).collect());
        (handles, String::from_utf8(said).expect("utf-8"))
    }

    #[test]
    fn enter_alone_takes_the_default_team_and_a_mistake_is_asked_again() {
        assert_eq!(
            asked("\n").0,
            Some(vec!["reviewer".into(), "tester".into(), "writer".into()])
        );
        let (members, said) = asked("bob=cladue\nbob=claude\n");
        assert_eq!(members, Some(vec!["bob".into()]));
        assert!(said.contains(
            "members> `cladue` (for @bob) is not an agent: use claude, codex, gemini or \
             acp:<preset>\nmembers> "
        ));
        assert_eq!(asked("").0, None);
        assert_eq!(asked("x\ny\nz\nbob=claude\n").0, None);
    }
}
