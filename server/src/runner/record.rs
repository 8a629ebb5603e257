//! Recording a two-way protocol's traffic (`CHATMD_ACP_RECORD=<dir>`): each turn of an
//! ACP agent writes every message both ways to `<dir>/<ms since 1970>-<pid>-<program>.jsonl`,
//! one `{"t": seconds since start, "dir": "C->A" | "A->C", "msg": …}` a line: the
//! format of the recorded transcripts the tests replay, so a user's session with a new
//! agent can become a fixture. Best effort: a folder that cannot be written is said
//! once in the log and the turn goes on.

use std::io::Write;
use std::path::Path;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// The variable that turns recording on.
pub const RECORD_VAR: &str = "CHATMD_ACP_RECORD";

pub(super) struct Recorder {
    file: std::io::BufWriter<std::fs::File>,
    started: Instant,
}

impl Recorder {
    /// A recorder for a turn of `program`, when `CHATMD_ACP_RECORD` names a folder.
    pub(super) fn from_env(program: &str) -> Option<Recorder> {
        let dir = std::env::var_os(RECORD_VAR)?;
        Recorder::create(Path::new(&dir), program)
    }

    pub(super) fn create(dir: &Path, program: &str) -> Option<Recorder> {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let name = program.rsplit('/').next().unwrap_or(program);
        let path = dir.join(format!("{ms}-{}-{name}.jsonl", std::process::id()));
        let opened = std::fs::create_dir_all(dir).and_then(|()| std::fs::File::create(&path));
        match opened {
            Ok(file) => Some(Recorder {
                file: std::io::BufWriter::new(file),
                started: Instant::now(),
            }),
            Err(error) => {
                tracing::warn!("cannot record ACP traffic to {}: {error}", path.display());
                None
            }
        }
    }

    /// A line the agent wrote.
    pub(super) fn agent_wrote(&mut self, line: &str) {
        self.write("A->C", line);
    }

    /// Bytes chatmd wrote to the agent: one message a line.
    pub(super) fn chatmd_wrote(&mut self, bytes: &[u8]) {
        for line in String::from_utf8_lossy(bytes).lines() {
            self.write("C->A", line);
        }
    }

    fn write(&mut self, dir: &str, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        let msg = serde_json::from_str::<Value>(line).unwrap_or_else(|_| json!(line));
        let t = (self.started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0;
        let record = json!({"t": t, "dir": dir, "msg": msg});
        let _ = writeln!(self.file, "{record}");
        let _ = self.file.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_is_one_line_in_the_recorded_format() {
        let dir = tempfile::tempdir().unwrap();
        let mut recorder = Recorder::create(dir.path(), "/usr/bin/gemini").unwrap();
        recorder.chatmd_wrote(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"}\n{\"id\":2}\n",
        );
        recorder.agent_wrote("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
        recorder.agent_wrote("not json");
        drop(recorder);
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(files.len(), 1);
        let name = files[0].file_name().into_string().unwrap();
        assert!(
            name.ends_with(&format!("-{}-gemini.jsonl", std::process::id())),
            "{name}"
        );
        let text = std::fs::read_to_string(files[0].path()).unwrap();
        let records: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let shape: Vec<(String, Value)> = records
            .iter()
            .map(|r| (r["dir"].as_str().unwrap().to_string(), r["msg"].clone()))
            .collect();
        assert_eq!(
            shape,
            [
                (
                    "C->A".into(),
                    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize"})
                ),
                ("C->A".into(), json!({"id": 2})),
                (
                    "A->C".into(),
                    json!({"jsonrpc": "2.0", "id": 1, "result": {}})
                ),
                ("A->C".into(), json!("not json")),
            ]
        );
        assert!(
            records
                .iter()
                .all(|r| r["t"].as_f64().is_some_and(|t| t >= 0.0))
        );
    }
}
