//! The soak's plan, fixed by one seed: which member answers each turn, how its fake
//! agent behaves (delays, chunks, the fault), the answer it gives, and the message
//! that asks for it (which carries the fake's knobs for that turn, see
//! `FAKE_AGENT_PROMPT_KNOBS`).

use std::path::{Path, PathBuf};

/// A xorshift generator: the whole plan and every typing decision follow from the
/// seed, with no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // xorshift never leaves 0.
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn percent(&mut self, p: usize) -> bool {
        self.below(100) < p
    }
}

/// The team: one member per CLI.
pub const MEMBERS: [(&str, &str); 3] = [
    ("reviewer", "claude"),
    ("tester", "codex"),
    ("writer", "gemini"),
];

/// How one turn's agent behaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// A normal answer.
    Answer,
    /// A normal answer with an ANSI line, invalid UTF-8 and non-JSON lines in it.
    Garbage,
    /// Killed by SIGABRT after some lines.
    Crash,
    /// The CLI's own API error (an error event, exit non-zero): its recorded transcript.
    ApiError,
    /// Silent after some lines until the idle timeout stops it.
    Hang,
    /// A long answer the user cancels while it streams.
    Cancel,
}

impl Fault {
    pub fn name(self) -> &'static str {
        match self {
            Fault::Answer => "answer",
            Fault::Garbage => "garbage",
            Fault::Crash => "crash",
            Fault::ApiError => "api-error",
            Fault::Hang => "hang",
            Fault::Cancel => "cancel",
        }
    }

    /// The status its section must end with.
    pub fn status(self) -> &'static str {
        match self {
            Fault::Answer | Fault::Garbage => "done",
            Fault::Crash | Fault::ApiError | Fault::Hang => "error",
            Fault::Cancel => "cancelled",
        }
    }

    /// Whether the fake answers with the planned text (else a recorded transcript).
    pub fn has_text(self) -> bool {
        self != Fault::ApiError
    }

    fn draw(rng: &mut Rng) -> Fault {
        // Percentages: about half the turns answer, the rest fail in every way.
        const WEIGHTS: [(Fault, usize); 6] = [
            (Fault::Answer, 40),
            (Fault::Garbage, 10),
            (Fault::Crash, 15),
            (Fault::ApiError, 12),
            (Fault::Hang, 10),
            (Fault::Cancel, 13),
        ];
        let mut roll = rng.below(100);
        for (fault, weight) in WEIGHTS {
            if roll < weight {
                return fault;
            }
            roll -= weight;
        }
        Fault::Answer
    }
}

/// Words of the answers: multi-byte ones too, so UTF-16 positions are exercised.
const WORDS: [&str; 10] = [
    "alpha",
    "Grüße",
    "😀",
    "beta",
    "ça",
    "gamma",
    "δέλτα",
    "—",
    "epsilon",
    "日本",
];

/// One turn of one chat.
#[derive(Clone, Debug)]
pub struct Turn {
    /// `d<chat>k<turn>`: in the message, the answer and the fake's record file name.
    pub tag: String,
    pub member: &'static str,
    pub cli: &'static str,
    pub fault: Fault,
    pub delay_ms: usize,
    pub chunks: usize,
    /// What the fake answers (all of it for `Answer` and `Garbage`, a part otherwise).
    pub answer: String,
    /// `Crash`: abort after this many stdout lines; `Hang`: hang after them.
    pub stop_after: usize,
    /// The fake leaves a sleeping child in its process group.
    pub grandchild: bool,
}

impl Turn {
    pub fn draw(rng: &mut Rng, doc: usize, n: usize) -> Turn {
        let fault = Fault::draw(rng);
        // The user cancels a long answer while it streams: one that streams in pieces
        // (codex prints its answer whole), slowly enough to be caught mid-way.
        let (member, cli) = match fault {
            Fault::Cancel => MEMBERS[[0, 2][rng.below(2)]],
            _ => MEMBERS[rng.below(MEMBERS.len())],
        };
        let tag = format!("d{doc}k{n:02}");
        let mut answer = format!("{tag} says");
        let words = match fault {
            Fault::Cancel => 15 + rng.below(10),
            _ => 3 + rng.below(10),
        };
        for _ in 0..words {
            answer.push(' ');
            answer.push_str(WORDS[rng.below(WORDS.len())]);
        }
        let chunks = match fault {
            Fault::Cancel => 30 + rng.below(21),
            _ => 1 + rng.below(5),
        };
        let delay_ms = match fault {
            Fault::Cancel => 100 + rng.below(101),
            _ => rng.below(201),
        };
        // stdout lines of a generated answer (see the fake's templates).
        let lines = match cli {
            "claude" => 8 + chunks,
            "codex" => 4,
            _ => 3 + chunks,
        };
        let stop_after = match fault {
            Fault::Crash | Fault::Hang => 1 + rng.below(lines - 1),
            _ => 0,
        };
        Turn {
            tag,
            member,
            cli,
            fault,
            delay_ms,
            chunks,
            answer,
            stop_after,
            grandchild: fault != Fault::ApiError && rng.percent(20),
        }
    }

    /// Where the fake records this turn's runs (one line each, with its pid).
    pub fn record(&self, records: &Path) -> PathBuf {
        records.join(format!("{}.jsonl", self.tag))
    }

    /// Where the fake writes its child's pid.
    pub fn grandchild_pid(&self, records: &Path) -> PathBuf {
        records.join(format!("{}.grandchild", self.tag))
    }

    /// The fake's knobs for this turn, as the line the fake reads from its prompt.
    fn knobs(&self, records: &Path) -> String {
        let mut knobs = vec![
            format!("FAKE_AGENT_DELAY_MS={}", self.delay_ms),
            format!("FAKE_AGENT_RECORD={}", self.record(records).display()),
        ];
        if self.fault.has_text() {
            knobs.push(format!("FAKE_AGENT_TEXT={}", self.answer));
            knobs.push(format!("FAKE_AGENT_CHUNKS={}", self.chunks));
        } else {
            knobs.push("FAKE_AGENT_TRANSCRIPT=api-error".into());
        }
        match self.fault {
            Fault::Garbage => knobs.push("FAKE_AGENT_GARBAGE=1".into()),
            Fault::Crash => knobs.push(format!("FAKE_AGENT_CRASH_AT={}", self.stop_after)),
            Fault::Hang => knobs.push(format!("FAKE_AGENT_HANG_AFTER={}", self.stop_after)),
            Fault::Answer | Fault::ApiError | Fault::Cancel => {}
        }
        if self.grandchild {
            knobs.push("FAKE_AGENT_GRANDCHILD=1".into());
            knobs.push(format!(
                "FAKE_AGENT_GRANDCHILD_PID={}",
                self.grandchild_pid(records).display()
            ));
        }
        format!("fake-agent: {}", knobs.join(", "))
    }

    /// The user's message that asks for this turn (without its heading).
    pub fn message(&self, records: &Path) -> String {
        format!(
            "@{} turn {}\n{}\n{}\n",
            self.member,
            self.tag,
            self.knobs(records),
            self.last_line()
        )
    }

    /// The message's last line, where the user adds a word after Send.
    pub fn last_line(&self) -> String {
        format!("please answer {}.", self.tag)
    }
}
