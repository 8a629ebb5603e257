"""`scripts/real-cli-bench --warm-lsp`: a member's second turn in the language server
with warm members on (its agent kept running after the first turn), against the ACP
adapter's own warm time. With the REAL claude-agent-acp pointed at the mock model:

* adapter alone: `initialize`, `session/new`, a first `session/prompt`; then the time
  from the second `session/prompt` to its first non-empty `agent_message_chunk`;
* `chatmd lsp`: a new chat asking the ACP member, Send, answer; then a second message
  and Send: the time from that `workspace/executeCommand` to the first edit that puts
  the mock's `ANSWER-` into the second answer (and the cold first turn's, beside it).

The editor side is a minimal client: UTF-8 positions, every `workspace/applyEdit`
applied and echoed as a whole-text `didChange`, every other request answered `null`.
Python 3.11 standard library only.
"""

import json
import os
import selectors
import statistics
import subprocess
import time
from pathlib import Path

from mock_env import MockModel, agent_env, seed_home

ROLE = "ROLE-MARKER-CLA Answer briefly.\n"


class Rpc:
    """JSON-RPC over a child's pipes: LSP framing (`Content-Length`) or ACP's lines."""

    def __init__(self, argv, env, cwd, framed):
        self.p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.framed, self.buf, self.next_id = framed, b"", 1
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.p.stdout, selectors.EVENT_READ)

    def send(self, message):
        body = json.dumps(message).encode()
        if self.framed:
            body = b"Content-Length: %d\r\n\r\n" % len(body) + body
        else:
            body += b"\n"
        self.p.stdin.write(body)
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def read(self, timeout=120):
        """The next message, or None past the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            message = self._parse()
            if message is not None:
                return message
            left = deadline - time.monotonic()
            if left <= 0 or not self.sel.select(left):
                return None
            chunk = os.read(self.p.stdout.fileno(), 1 << 16)
            if not chunk:
                return None
            self.buf += chunk

    def _parse(self):
        if self.framed:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if not sep:
                return None
            length = int(head.split(b":")[1])
            if len(rest) < length:
                return None
            self.buf = rest[length:]
            return json.loads(rest[:length])
        line, sep, rest = self.buf.partition(b"\n")
        if not sep:
            return None
        self.buf = rest
        return json.loads(line) if line.strip() else self._parse()

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()
            self.p.wait()


def adapter_warm(env, cwd, program):
    """The adapter alone: the second prompt on a live session → its first chunk."""
    acp = Rpc([program], env, cwd, framed=False)
    acp.request("initialize", {"protocolVersion": 1, "clientCapabilities": {},
                               "clientInfo": {"name": "bench", "version": "0"}})
    session, asked, first, prompt_id = None, None, None, None
    try:
        while first is None:
            m = acp.read()
            if m is None:
                return None
            if "method" in m and "id" in m:  # a request of the agent's: none expected
                acp.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
                continue
            update = m.get("params", {}).get("update", {})
            if asked and update.get("sessionUpdate") == "agent_message_chunk" \
                    and update.get("content", {}).get("text"):
                first = time.monotonic() - asked
            if m.get("id") == 2 and "result" in m:
                acp.request("session/new", {"cwd": str(cwd), "mcpServers": []})
            elif m.get("id") == 3 and "result" in m:
                session = m["result"]["sessionId"]
                prompt_id = acp.request("session/prompt", {"sessionId": session, "prompt": [
                    {"type": "text", "text": "hello ASK-ONE"}]})
            elif prompt_id and m.get("id") == prompt_id and asked is None:
                asked = time.monotonic()
                acp.request("session/prompt", {"sessionId": session, "prompt": [
                    {"type": "text", "text": "again ASK-TWO"}]})
        return first
    finally:
        acp.close()


class Editor:
    """A minimal LSP client around `chatmd lsp`."""

    def __init__(self, chatmd, env, ws, agent_path):
        self.rpc = Rpc([str(chatmd), "lsp"], env, ws, framed=True)
        self.docs = {}
        root = ws.as_uri()
        self.call("initialize", {"processId": None, "rootUri": root,
                                 "workspaceFolders": [{"uri": root, "name": "ws"}],
                                 "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
                                 "initializationOptions": {"agentPath": agent_path}})
        self.rpc.notify("initialized", {})

    def call(self, method, params, until=None):
        """Sends a request and serves the server until its answer; `until(text)` is
        checked after each edit, and the time it first holds is returned."""
        sent = time.monotonic()
        rid = self.rpc.request(method, params)
        answered, hit = False, None
        while not answered or (until and hit is None):
            m = self.rpc.read()
            if m is None:
                raise RuntimeError(f"no answer to {method}")
            if m.get("id") == rid and "method" not in m:
                answered = True
            elif m.get("method") == "workspace/applyEdit":
                self.apply(m)
                if until and hit is None and until(self.text):
                    hit = time.monotonic() - sent
            elif "method" in m and "id" in m:
                self.rpc.send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        return hit

    def serve_until(self, done):
        while not done(self.text):
            m = self.rpc.read()
            if m is None:
                raise RuntimeError("the turn did not end")
            if m.get("method") == "workspace/applyEdit":
                self.apply(m)
            elif "method" in m and "id" in m:
                self.rpc.send({"jsonrpc": "2.0", "id": m["id"], "result": None})

    def open(self, uri, text):
        self.uri, self.text, self.version = uri, text, 0
        self.rpc.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "markdown", "version": 0, "text": text}})

    def change(self, text):
        self.text, self.version = text, self.version + 1
        self.rpc.notify("textDocument/didChange", {
            "textDocument": {"uri": self.uri, "version": self.version},
            "contentChanges": [{"text": text}]})

    def apply(self, m):
        change = m["params"]["edit"]["documentChanges"][0]
        if change["textDocument"]["uri"] != self.uri or change["textDocument"]["version"] != self.version:
            self.rpc.send({"jsonrpc": "2.0", "id": m["id"], "result": {"applied": False}})
            return
        data = self.text.encode()
        lines = data.split(b"\n")

        def offset(pos):
            return sum(len(line) + 1 for line in lines[:pos["line"]]) + pos["character"]
        for e in sorted(change["edits"], key=lambda e: offset(e["range"]["start"]), reverse=True):
            start, end = offset(e["range"]["start"]), offset(e["range"]["end"])
            data = data[:start] + e["newText"].encode() + data[end:]
        self.rpc.send({"jsonrpc": "2.0", "id": m["id"], "result": {"applied": True}})
        self.change(data.decode())

    def close(self):
        try:
            self.call("shutdown", None)
            self.rpc.notify("exit", None)
        finally:
            self.rpc.close()


def answers_with_text(n):
    return lambda text: text.count("ANSWER-") >= n


def turn_over(n):
    return lambda text: text.count("status=done") >= n and text.endswith("## @me\n")


def main(opts, path, program):
    root = Path(opts.work) / f"warm-lsp-{os.getpid()}"
    ws = root / "ws"
    (ws / "cla").mkdir(parents=True)
    (ws / ".git").mkdir()
    (ws / "cla" / "CLAUDE.md").write_text(ROLE)
    mock = MockModel(root / "mock.jsonl", opts.delay_ms)
    try:
        env = agent_env(mock.port, root / "home", root / "config", path)
        (root / "home").mkdir()
        seed_home("claude", ws / ".state" / "cla", mock.port)
        toml = '[members.cla]\nagent = "acp"\npreset = "claude"\nhome = ".state/cla"\n'
        (ws / "chatmd.toml").write_text(toml)
        subprocess.run([str(Path(opts.chatmd).resolve()), "trust", str(ws / "chatmd.toml")], env=env, check=True,
                       capture_output=True)
        acp_env = dict(env, CLAUDE_CONFIG_DIR=str(ws / ".state" / "cla"))
        agent_path = str(Path(program).parent)
        raws, colds, warms = [], [], []
        editor = Editor(Path(opts.chatmd).resolve(), env, ws, agent_path)
        for n in range(opts.runs + 1):
            raw = adapter_warm(acp_env, ws / "cla", program)
            chat = ws / f"warm{n}.chat.md"
            text = "## @me\n@cla hello ASK-ONE\n"
            chat.write_text(text)
            editor.open(chat.as_uri(), text)
            cold = editor.call("workspace/executeCommand",
                               {"command": "chatmd.send", "arguments": [{"uri": editor.uri}]},
                               until=answers_with_text(1))
            editor.serve_until(turn_over(1))
            editor.change(editor.text + "@cla again ASK-TWO\n")
            warm = editor.call("workspace/executeCommand",
                               {"command": "chatmd.send", "arguments": [{"uri": editor.uri}]},
                               until=answers_with_text(2))
            editor.serve_until(turn_over(2))
            print(f"run {n}: adapter warm {ms(raw)}, chatmd cold {ms(cold)}, chatmd warm {ms(warm)}",
                  flush=True)
            if n > 0:  # the first run warms the page cache
                raws.append(raw)
                colds.append(cold)
                warms.append(warm)
        editor.close()
        report(program, raws, colds, warms)
    finally:
        mock.kill()


def ms(seconds):
    return "–" if seconds is None else f"{seconds * 1000:.0f} ms"


def spread(values):
    values = sorted(v * 1000 for v in values if v is not None)
    if not values:
        return "–"
    return f"{statistics.median(values):.0f} ms ({values[0]:.0f}–{values[-1]:.0f})"


def report(program, raws, colds, warms):
    diffs = [w - r for w, r in zip(warms, raws) if w is not None and r is not None]
    print(f"\n| adapter | second prompt on a live session, alone | chatmd lsp, second turn (warm) "
          f"| warm minus alone, paired | chatmd lsp, first turn (cold) |")
    print("|---|---|---|---|---|")
    print(f"| {program} | {spread(raws)} | {spread(warms)} | {spread(diffs)} | {spread(colds)} |")
