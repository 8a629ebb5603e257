//! Replaying a real agent's recording against the fake: the client's messages are sent
//! as recorded (session ids and the working folder swapped in), each one once the agent
//! messages recorded before it have arrived, and every agent message must have the
//! recorded one's shape: the same keys, the same strings, ids consistently renamed.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::client::Agent;

/// The working folder of the recordings.
const RECORDED_CWD: &str = "/home/dev/proj";

/// Keys whose string values are ids: compared by a consistent renaming.
const ID_KEYS: [&str; 5] = [
    "sessionId",
    "toolCallId",
    "terminalId",
    "terminal_id",
    "messageId",
];

/// Keys whose numbers must be equal (other numbers only need to be numbers).
const EXACT_NUMBERS: [&str; 4] = ["id", "protocolVersion", "code", "exit_code"];

/// One line of a recording.
pub struct Entry {
    pub to_agent: bool,
    pub msg: Value,
}

/// The recording `name` (`fixtures/acp/recorded/<name>.jsonl`), without the lines a
/// run's environment added: codex-acp's bubblewrap warning (the recording machine had no
/// bubblewrap on `PATH`).
pub fn recording(name: &str) -> Vec<Entry> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/acp/recorded")
        .join(format!("{name}.jsonl"));
    let text = std::fs::read_to_string(&path).expect("recording");
    text.lines()
        .map(|line| serde_json::from_str::<Value>(line).expect("recorded JSON"))
        .filter(|e| {
            let chunk = &e["msg"]["params"]["update"]["content"]["text"];
            !chunk
                .as_str()
                .is_some_and(|t| t.starts_with("Config warning: Codex could not find bubblewrap"))
        })
        .map(|e| Entry {
            to_agent: e["dir"] == "C->A",
            msg: e["msg"].clone(),
        })
        .collect()
}

/// The renaming of recorded ids to the fake's, both ways one to one.
#[derive(Default)]
pub struct Ids {
    forward: HashMap<String, String>,
    backward: HashMap<String, String>,
}

impl Ids {
    /// Says that the recorded id `recorded` is `actual` in this run.
    pub fn rename(&mut self, recorded: &str, actual: &str) {
        self.pair(recorded, actual, "a renaming given by the test");
    }

    /// The id that stands for the recorded `recorded`.
    pub fn actual(&self, recorded: &str) -> String {
        self.forward
            .get(recorded)
            .unwrap_or_else(|| panic!("no id stands for {recorded}"))
            .clone()
    }

    /// Records or checks that `recorded` stands for `actual`.
    fn pair(&mut self, recorded: &str, actual: &str, at: &str) {
        match (self.forward.get(recorded), self.backward.get(actual)) {
            (None, None) => {
                self.forward.insert(recorded.into(), actual.into());
                self.backward.insert(actual.into(), recorded.into());
            }
            (Some(a), _) if a == actual => {}
            _ => panic!(
                "{at}: id {actual:?} does not consistently stand for the recorded {recorded:?}"
            ),
        }
    }
}

/// The recorded client message with the ids and the folder of this run.
fn translate(msg: &Value, ids: &Ids, cwd: &str) -> Value {
    match msg {
        Value::String(s) => Value::String(match ids.forward.get(s) {
            Some(actual) => actual.clone(),
            None => s.replace(RECORDED_CWD, cwd),
        }),
        Value::Array(items) => items.iter().map(|v| translate(v, ids, cwd)).collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), translate(v, ids, cwd)))
            .collect(),
        other => other.clone(),
    }
}

/// A trimmed list's marker (`"…[4 more]"`) or a trimmed string's (`"…[390 more chars]"`).
fn trimmed_at(s: &str) -> Option<usize> {
    let at = s.rfind("…[")?;
    (s.ends_with(" more]") || s.ends_with(" more chars]")).then_some(at)
}

/// Asserts that `actual` has the shape of `recorded` (see the module doc).
pub fn same_shape(recorded: &Value, actual: &Value, key: &str, at: &str, ids: &mut Ids, cwd: &str) {
    let fail = || panic!("{at}: the fake sent {actual}\nwhere the agent sent {recorded}");
    match (recorded, actual) {
        (Value::Object(r), Value::Object(a)) => {
            let (mut rk, mut ak): (Vec<_>, Vec<_>) = (r.keys().collect(), a.keys().collect());
            rk.sort();
            ak.sort();
            if rk != ak {
                panic!(
                    "{at}: keys {ak:?} where the agent sent {rk:?}\nfake: {actual}\nagent: {recorded}"
                );
            }
            for (k, v) in r {
                same_shape(v, &a[k], k, &format!("{at}.{k}"), ids, cwd);
            }
        }
        (Value::Array(r), Value::Array(a)) => {
            let kept: Vec<&Value> = r
                .iter()
                .filter(|v| {
                    !v.as_str()
                        .is_some_and(|s| s.starts_with("…[") && trimmed_at(s).is_some())
                })
                .collect();
            let trimmed = kept.len() < r.len();
            if (trimmed && a.len() < kept.len()) || (!trimmed && a.len() != kept.len()) {
                fail();
            }
            for (i, v) in kept.iter().enumerate() {
                same_shape(v, &a[i], key, &format!("{at}[{i}]"), ids, cwd);
            }
        }
        (Value::String(r), Value::String(a)) if ID_KEYS.contains(&key) => ids.pair(r, a, at),
        (Value::String(r), Value::String(a)) => {
            let r = r.replace(RECORDED_CWD, "<cwd>");
            let a = a.replace(cwd, "<cwd>");
            let same = if r.starts_with("<session_context>") {
                // gemini's preamble: today's date and its temp folder; the recording cut it.
                a.starts_with("<session_context>\nThis is the Gemini CLI.")
            } else {
                match trimmed_at(&r) {
                    Some(cut) => a.starts_with(&r[..cut]),
                    None => r == a,
                }
            };
            if !same {
                fail();
            }
        }
        (Value::Number(r), Value::Number(a)) => {
            if EXACT_NUMBERS.contains(&key) && r != a {
                fail();
            }
        }
        (r, a) if r == a => {}
        _ => fail(),
    }
}

/// Plays recording `name` against `agent` to its end; `ids` may already rename the
/// session of an earlier run. Returns the agent's messages.
pub fn replay(agent: &mut Agent, name: &str, ids: &mut Ids, cwd: &Path) -> Vec<Value> {
    let cwd = cwd.display().to_string();
    let mut got = Vec::new();
    for (n, entry) in recording(name).into_iter().enumerate() {
        if entry.to_agent {
            agent.send(&translate(&entry.msg, ids, &cwd));
            continue;
        }
        let actual = agent.recv();
        let at = format!("{name} line {}", n + 1);
        same_shape(&entry.msg, &actual, "", &at, ids, &cwd);
        got.push(actual);
    }
    got
}
