"""What scripts/real-cli-bench and scripts/agent-matrix share: the REAL agent CLIs
pointed at tests/mock_model/mock_model.py on 127.0.0.1 with a fake key, so nothing
leaves the machine. Python 3.11 standard library only.

    mock = MockModel(log_path)           # starts the server, reads its port
    env = agent_env(mock.port, home, config, path)
    seed_home(kind, state_folder, mock.port)   # codex's provider, gemini's auth choice
    mock.requests(since)                 # the model calls logged since a byte offset
"""

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MOCK = REPO / "tests/mock_model/mock_model.py"

# kind: (headless program, ACP program, role file, state variable)
KINDS = {
    "claude": ("claude", "claude-agent-acp", "CLAUDE.md", "CLAUDE_CONFIG_DIR"),
    "codex": ("codex", "codex-acp", "AGENTS.md", "CODEX_HOME"),
    "gemini": ("gemini", "gemini", "GEMINI.md", "GEMINI_CLI_HOME"),
}
FAKE_KEY = "sk-test"


class MockModel:
    """The mock model server as a child process, logging one JSON line per request."""

    def __init__(self, log, delay_ms=0):
        self.log = Path(log)
        self.log.touch()
        # Its stderr (a client hanging up mid-answer, as a cancelled CLI does) goes
        # next to the log, not into the report.
        with open(self.log.with_suffix(".stderr"), "w") as stderr:
            self.proc = subprocess.Popen(
                [sys.executable, str(MOCK), "--log", str(self.log), "--delay-ms", str(delay_ms)],
                stdout=subprocess.PIPE, stderr=stderr, text=True)
        self.port = int(self.proc.stdout.readline().split()[1])

    def offset(self):
        """Where the log ends now: `requests(offset)` later gives what came after."""
        return self.log.stat().st_size

    def entries(self, since=0):
        """Every line logged after byte `since`."""
        with open(self.log) as log:
            log.seek(since)
            return [json.loads(line) for line in log if line.endswith("\n")]

    def requests(self, since=0):
        """The model calls (not HEAD checks, 404s or `started` lines) logged after byte `since`."""
        return [e for e in self.entries(since) if e.get("api")]

    def kill(self):
        self.proc.kill()
        self.proc.wait()


def agent_env(port, home, config, path):
    """The environment every CLI runs with: its model server is the mock, its key fake,
    its home and XDG config folder the given ones, and no telemetry or update checks."""
    base = f"http://127.0.0.1:{port}"
    return {
        "PATH": path, "HOME": str(home), "XDG_CONFIG_HOME": str(config), "LANG": "C.UTF-8",
        "ANTHROPIC_BASE_URL": base, "ANTHROPIC_API_KEY": FAKE_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "IS_SANDBOX": "1", "MOCK_KEY": FAKE_KEY,
        "GOOGLE_GEMINI_BASE_URL": base, "GEMINI_API_KEY": FAKE_KEY,
    }


def seed_home(kind, folder, port):
    """A CLI's state folder made ready for the mock: codex needs a provider that points
    at it (its base URL is not an environment variable), gemini -p an auth choice."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "codex":
        (folder / "config.toml").write_text(
            'model = "gpt-5.5"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\n'
            f'base_url = "http://127.0.0.1:{port}/v1"\nwire_api = "responses"\nenv_key = "MOCK_KEY"\n')
    if kind == "gemini":
        (folder / ".gemini").mkdir(exist_ok=True)
        (folder / ".gemini/settings.json").write_text(
            '{"security":{"auth":{"selectedType":"gemini-api-key"}}}')
