#!/usr/bin/env python3
"""A local mock model server for running the REAL agent CLIs without a network.

    python3 tests/mock_model/mock_model.py [--port 0] [--delay-ms 0] [--log FILE]

Prints `PORT <n>` on stdout once it listens on 127.0.0.1 (port 0 picks a free one),
then serves until killed. Python 3.11 standard library only. It speaks, with
streaming, the three APIs the CLIs use:

* Anthropic Messages  `POST /v1/messages` (SSE when `"stream": true`): claude,
  claude-agent-acp. `POST /v1/messages/count_tokens` answers a count.
* OpenAI Responses    `POST /v1/responses` (SSE): codex, codex-acp.
* Gemini  `POST /v1beta/models/<m>:streamGenerateContent?alt=sse` (SSE) and
  `:generateContent` (gemini's model-router calls) and `:countTokens`.

`HEAD /` (claude's check that the server answers) gets 200. Anything else is logged and
answered 404. With the environment of scripts/real-cli-bench, claude 2.1.197, codex
0.169.0, gemini 0.61.0 and their ACP adapters call nothing else (gemini makes one
`:generateContent` model-router call before each streamed one).

The answer is the recorded mock's line (shared/reference/recorded/README.md,
"Reading the mock's answers"), one line that reports what the request carried:

    ANSWER-<api> role_seen=yes marker_count=1 roles=reviewer:1 team=0 turn=1
        user_msgs=1 assistant_msgs=0 ask=ASK-ONE roster=1 [tool_result="..."]

(`roster`: how often the request holds chatmd's roster line, "in a team chat with"),
streamed in chunks of 3 words, `--delay-ms` apart (also before the first chunk).
`MOCK-MODE=<mode>` in the newest prompt selects: `tool` (one shell call `echo hi`,
then the answer once the tool result comes back), `toolwrite` (the same with
`touch tool-wrote.txt`), `escalate` (the same as `toolwrite`, and for codex the call
asks to leave the sandbox, `sandbox_permissions: "require_escalated"`, as real models
do for such a command: codex-acp then asks the client), `plan` (claude only: an
`ExitPlanMode` call whose plan holds `PLAN-MARKER`; then the answer), `write` (claude:
a `Write` call creating `mock-wrote.txt` with the line `WRITE-MARKER`, which an
ACP adapter shows as a diff; gemini: a `write_file` call; then the answer), `read` (a
`Read` call for claude, `read_file` for gemini, `cat` through codex's `exec_command`;
then the answer, whose `tool_result` shows what the read got), `edit` (claude `Edit`,
gemini `replace`: `UNSAVED-BUFFER-MARKER` becomes `EDITED-MARKER` in the file), `ask` (claude only: an
`AskUserQuestion` call, "Which color should the button be?" with the options Blue and
Red; the answer's `tool_result` carries the user's answer); `MOCK-FILE=<path>` names
the file a `read`, `edit` or `write` touches (default `notes.txt`, `mock-wrote.txt`), `slow` (a long
answer, 40 chunks 250 ms apart: something to cancel), `error401` (HTTP 401 `mock
upstream failure MOCK-ERR-<api>`).

`--log FILE` appends one JSON line per request: `t` (Unix time of arrival), `t_end`
(last byte sent), method, path, user-agent, api, stream, the answer, and for the model
calls `usage` (the tokens billed: `{"input": n, "output": n}`, the numbers the
response reported), `prompt` (the newest user text, cut at 4000 characters) and
`tool_result` (the tool output the request carried back, if any); a `slow` answer
also logs `{"t", "started": true, "api": null, "prompt"}` when it starts. The
benchmark (scripts/real-cli-bench) uses it to split a turn into CLI start-up (spawn to
first model request), model time and wind-down (last byte to exit); the version
matrix (scripts/agent-matrix) reads what each turn sent and was billed.
"""

import argparse
import json
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ROLE = re.compile(r"ROLE-MARKER-([A-Za-z0-9_]+)")
ASK = re.compile(r"ASK-[A-Za-z0-9_-]+")
MODE = re.compile(r"MOCK-MODE=([a-z0-9]+)")
FILE = re.compile(r"MOCK-FILE=(\S+)")
TOOL_CMD = {"tool": "echo hi", "toolwrite": "touch tool-wrote.txt", "escalate": "touch tool-wrote.txt"}
WRITTEN = "WRITE-MARKER\n"
EDIT = ("UNSAVED-BUFFER-MARKER", "EDITED-MARKER")  # `edit`: the text replaced, and by what
QUESTION = {"question": "Which color should the button be?", "header": "Color", "multiSelect": False,
            "options": [{"label": "Blue", "description": "cool"}, {"label": "Red", "description": "warm"}]}
PLAN = "PLAN-MARKER\n\n1. Read `notes.txt`\n2. Fix the typo in it"
ROSTER = "in a team chat with"
SLOW_WORDS = 120  # 40 chunks of 3 words
SLOW_DELAY_MS = 250
LOG_LOCK = threading.Lock()
OPTS = argparse.Namespace(delay_ms=0, log=None)


# --- what a request carried, in a form common to the three APIs ---------------------


class Seen:
    """The texts of a request: `all` (every text, system included), `users` (the text
    of each user message), the message counts, and the tool result of the newest
    message if it is one."""

    def __init__(self):
        self.all, self.users = [], []
        self.user_msgs = self.assistant_msgs = 0
        self.tool_result = None


def _texts(content):
    """Text strings of an Anthropic/OpenAI content value (string or block list)."""
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if isinstance(block, dict):
            for key in ("text", "output", "content"):
                value = block.get(key)
                if isinstance(value, str):
                    out.append(value)
                elif isinstance(value, list):
                    out.extend(_texts(value))
    return out


def seen_anthropic(body):
    seen = Seen()
    seen.all += _texts(body.get("system"))
    for msg in body.get("messages", []):
        texts = _texts(msg.get("content"))
        seen.all += texts
        content = msg.get("content")
        results = [b for b in content if b.get("type") == "tool_result"] if isinstance(content, list) else []
        if msg.get("role") == "assistant":
            seen.assistant_msgs += 1
            seen.tool_result = None
        elif msg.get("role") != "user":  # claude 2.1 puts a `system` message after the prompt
            continue
        elif results:
            seen.tool_result = " ".join(_texts(results[-1].get("content")))
        else:
            seen.user_msgs += 1
            seen.users.append("\n".join(texts))
            seen.tool_result = None
    return seen


def seen_openai(body):
    seen = Seen()
    seen.all += _texts(body.get("instructions"))
    items = body.get("input", [])
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    for item in items:
        kind = item.get("type", "message")
        if kind == "function_call_output":
            seen.tool_result = str(item.get("output", ""))
            seen.all.append(seen.tool_result)
        elif kind == "message":
            texts = _texts(item.get("content"))
            seen.all += texts
            if item.get("role") == "user":
                seen.user_msgs += 1
                seen.users.append("\n".join(texts))
                seen.tool_result = None
            elif item.get("role") == "assistant":
                seen.assistant_msgs += 1
    return seen


def seen_gemini(body):
    seen = Seen()
    system = body.get("systemInstruction") or body.get("system_instruction") or {}
    seen.all += [p.get("text", "") for p in system.get("parts", [])]
    for content in body.get("contents", []):
        parts = content.get("parts", [])
        texts = [p["text"] for p in parts if isinstance(p.get("text"), str)]
        responses = [p["functionResponse"] for p in parts if "functionResponse" in p]
        seen.all += texts
        if content.get("role") == "model":
            seen.assistant_msgs += 1
            seen.tool_result = None
        elif responses:
            seen.tool_result = json.dumps(responses[-1].get("response", {}))
            seen.all.append(seen.tool_result)
        else:
            seen.user_msgs += 1
            seen.users.append("\n".join(texts))
            seen.tool_result = None
    return seen


def answer_line(api, seen):
    everything = "\n".join(seen.all)
    roles = {}
    for name in ROLE.findall(everything):
        roles[name.lower()] = roles.get(name.lower(), 0) + 1
    newest = seen.users[-1] if seen.users else ""
    asks = ASK.findall(newest)
    line = (
        f"ANSWER-{api} role_seen={'yes' if roles else 'no'} marker_count={sum(roles.values())} "
        f"roles={','.join(f'{k}:{v}' for k, v in sorted(roles.items())) or '-'} "
        f"team={everything.count('TEAM-MARKER')} turn={everything.count('[MESSAGE]')} "
        f"user_msgs={seen.user_msgs} assistant_msgs={seen.assistant_msgs} "
        f"ask={asks[-1] if asks else '-'} roster={everything.count(ROSTER)}"
    )
    if seen.tool_result is not None:
        line += ' tool_result="' + seen.tool_result.strip().replace("\n", " ")[:60] + '"'
    return line


def mode_of(seen):
    """The `MOCK-MODE` of the newest prompt; a tool mode only until the tool result is back."""
    modes = MODE.findall(seen.users[-1] if seen.users else "")
    return modes[-1] if modes else None


def file_of(seen, default):
    """The `MOCK-FILE=<path>` of the newest prompt: the file a `read` or `write` names."""
    files = FILE.findall(seen.users[-1] if seen.users else "")
    return files[-1] if files else default


def answer_text(api, seen, mode):
    text = answer_line(api, seen)
    if mode == "slow":  # long enough to be cancelled while it streams
        text += " " + " ".join(f"slow{i}" for i in range(SLOW_WORDS))
    return text


def chunks(text):
    words = text.split(" ")
    parts = [" ".join(words[i : i + 3]) for i in range(0, len(words), 3)]
    return [p + (" " if i < len(parts) - 1 else "") for i, p in enumerate(parts)]


def tokens(seen):
    return max(1, sum(len(t) for t in seen.all) // 4)


# --- the HTTP side ------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet: the --log file says what happened
        pass

    def do_GET(self):
        self.record(None, None, None)
        self.send_json(404, {"error": {"message": f"mock: no {self.path}"}})

    def do_HEAD(self):  # claude checks that the server answers at all
        self.record(None, None, None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        started = time.time()
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        path = self.path.split("?")[0]
        if path.endswith("/messages/count_tokens"):
            return self.finish_json(started, "anthropic", {"input_tokens": tokens(seen_anthropic(body))})
        if path.endswith("/messages"):
            return self.anthropic(started, body)
        if path.endswith("/responses"):
            return self.openai(started, body)
        if ":countTokens" in path:
            return self.finish_json(started, "gemini", {"totalTokens": tokens(seen_gemini(body))})
        if ":streamGenerateContent" in path or ":generateContent" in path:
            return self.gemini(started, body, stream=":stream" in path)
        self.record(started, None, None)
        self.send_json(404, {"error": {"message": f"mock: no {self.path}"}})

    # plumbing

    def record(self, started, api, answer, stream=None, usage=None, seen=None):
        if not OPTS.log:
            return
        entry = {
            "t": started or time.time(), "t_end": time.time(), "method": self.command,
            "path": self.path, "ua": self.headers.get("user-agent", ""), "api": api,
            "stream": stream, "answer": answer,
        }
        if usage is not None:
            entry["usage"] = usage
        if seen is not None:
            entry["prompt"] = (seen.users[-1] if seen.users else "")[:4000]
            if seen.tool_result is not None:
                entry["tool_result"] = seen.tool_result[:4000]
        with LOG_LOCK, open(OPTS.log, "a") as log:
            log.write(json.dumps(entry) + "\n")

    def arrived(self, mode, seen):
        """For a `slow` answer, a log line as soon as it starts streaming (`started`, no
        `api`): the moment a test may cancel the turn."""
        if OPTS.log and mode == "slow":
            entry = {"t": time.time(), "started": True, "api": None, "prompt": (seen.users or [""])[-1][:4000]}
            with LOG_LOCK, open(OPTS.log, "a") as log:
                log.write(json.dumps(entry) + "\n")

    def send_json(self, status, value):
        data = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def finish_json(self, started, api, value, status=200, usage=None, seen=None):
        self.send_json(status, value)
        self.record(started, api, value if status != 200 else None, False, usage, seen)

    def start_sse(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def sse(self, data, event=None):
        text = (f"event: {event}\n" if event else "") + f"data: {json.dumps(data)}\n\n"
        raw = text.encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(raw), raw))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def pause(self, mode=None):
        delay = SLOW_DELAY_MS if mode == "slow" else OPTS.delay_ms
        if delay:
            time.sleep(delay / 1000)

    def fail401(self, started, api):
        error = {"type": "error", "error": {"type": "authentication_error",
                 "message": f"mock upstream failure MOCK-ERR-{api}"}}
        self.finish_json(started, api, error, status=401)

    # Anthropic Messages

    def anthropic(self, started, body):
        seen = seen_anthropic(body)
        mode = mode_of(seen)
        if mode == "error401":
            return self.fail401(started, "anthropic")
        tool = TOOL_CMD.get(mode) if seen.tool_result is None else None
        plan = mode == "plan" and seen.tool_result is None
        write = mode == "write" and seen.tool_result is None
        read = mode == "read" and seen.tool_result is None
        edit = mode == "edit" and seen.tool_result is None
        ask = mode == "ask" and seen.tool_result is None
        text = answer_text("anthropic", seen, mode)
        msg_id = "msg_mock_" + uuid.uuid4().hex[:12]
        usage = {"input_tokens": tokens(seen), "output_tokens": len(text.split())}
        billed = {"input": usage["input_tokens"], "output": usage["output_tokens"]}
        if plan:
            tool = "ExitPlanMode"
            block = {"type": "tool_use", "id": "toolu_mock_" + uuid.uuid4().hex[:10], "name": "ExitPlanMode",
                     "input": {"plan": PLAN}}
        elif write:
            tool = "Write"
            block = {"type": "tool_use", "id": "toolu_mock_" + uuid.uuid4().hex[:10], "name": "Write",
                     "input": {"file_path": file_of(seen, "mock-wrote.txt"), "content": WRITTEN}}
        elif edit:
            tool = "Edit"
            block = {"type": "tool_use", "id": "toolu_mock_" + uuid.uuid4().hex[:10], "name": "Edit",
                     "input": {"file_path": file_of(seen, "notes.txt"), "old_string": EDIT[0],
                               "new_string": EDIT[1]}}
        elif read:
            tool = "Read"
            block = {"type": "tool_use", "id": "toolu_mock_" + uuid.uuid4().hex[:10], "name": "Read",
                     "input": {"file_path": file_of(seen, "notes.txt")}}
        elif ask:
            tool = "AskUserQuestion"
            block = {"type": "tool_use", "id": "toolu_mock_" + uuid.uuid4().hex[:10], "name": "AskUserQuestion",
                     "input": {"questions": [QUESTION]}}
        elif tool:
            block = {"type": "tool_use", "id": "toolu_mock_" + uuid.uuid4().hex[:10], "name": "Bash",
                     "input": {"command": tool, "description": "Run it"}}
        else:
            block = {"type": "text", "text": text}
        stop = "tool_use" if tool else "end_turn"
        if not body.get("stream"):
            message = {"id": msg_id, "type": "message", "role": "assistant", "model": body.get("model", "mock"),
                       "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return self.finish_json(started, "anthropic", message, usage=billed, seen=seen)
        self.start_sse()
        self.sse({"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": body.get("model", "mock"),
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": usage["input_tokens"], "output_tokens": 1}}}, "message_start")
        self.arrived(mode, seen)
        if tool:
            start = dict(block, input={})
            self.sse({"type": "content_block_start", "index": 0, "content_block": start}, "content_block_start")
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            self.sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        else:
            start = {"type": "text", "text": ""}
            self.sse({"type": "content_block_start", "index": 0, "content_block": start}, "content_block_start")
            for part in chunks(text):
                self.pause(mode)
                delta = {"type": "text_delta", "text": part}
                self.sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        self.sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
        self.sse({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                  "usage": {"output_tokens": usage["output_tokens"]}}, "message_delta")
        self.sse({"type": "message_stop"}, "message_stop")
        self.end_sse()
        self.record(started, "anthropic", tool or text, True, billed, seen)

    # OpenAI Responses

    def openai(self, started, body):
        seen = seen_openai(body)
        mode = mode_of(seen)
        if mode == "error401":
            return self.fail401(started, "openai")
        tool = TOOL_CMD.get(mode) if seen.tool_result is None else None
        if mode == "read" and seen.tool_result is None:  # codex reads with a command
            tool = f"cat {file_of(seen, 'notes.txt')}"
        text = answer_text("openai", seen, mode)
        resp_id = "resp_mock_" + uuid.uuid4().hex[:12]
        item_id = ("fc_mock_" if tool else "msg_mock_") + uuid.uuid4().hex[:10]
        usage = {"input_tokens": tokens(seen), "input_tokens_details": {"cached_tokens": 0},
                 "output_tokens": len(text.split()), "output_tokens_details": {"reasoning_tokens": 0},
                 "total_tokens": tokens(seen) + len(text.split())}
        billed = {"input": usage["input_tokens"], "output": usage["output_tokens"]}
        if tool:
            arguments = {"cmd": tool}
            if mode == "escalate":
                arguments.update(sandbox_permissions="require_escalated", justification="Create the file?")
            item = {"type": "function_call", "id": item_id, "call_id": "call_" + item_id, "status": "completed",
                    "name": "exec_command", "arguments": json.dumps(arguments)}
        else:
            item = {"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": text, "annotations": []}]}
        response = {"id": resp_id, "object": "response", "created_at": int(time.time()),
                    "model": body.get("model", "mock"), "status": "in_progress", "output": []}
        if not body.get("stream", True):
            done = dict(response, status="completed", output=[item], usage=usage)
            return self.finish_json(started, "openai", done, usage=billed, seen=seen)
        self.start_sse()
        self.arrived(mode, seen)
        seq = iter(range(1_000_000))

        def event(kind, **fields):
            self.sse(dict({"type": kind, "sequence_number": next(seq)}, **fields), kind)

        event("response.created", response=response)
        event("response.in_progress", response=response)
        if tool:
            event("response.output_item.added", output_index=0, item=dict(item, status="in_progress", arguments=""))
            event("response.function_call_arguments.done", output_index=0, item_id=item_id,
                  arguments=item["arguments"])
        else:
            event("response.output_item.added", output_index=0,
                  item=dict(item, status="in_progress", content=[]))
            part = {"type": "output_text", "text": "", "annotations": []}
            event("response.content_part.added", item_id=item_id, output_index=0, content_index=0, part=part)
            for piece in chunks(text):
                self.pause(mode)
                event("response.output_text.delta", item_id=item_id, output_index=0, content_index=0, delta=piece)
            event("response.output_text.done", item_id=item_id, output_index=0, content_index=0, text=text)
            event("response.content_part.done", item_id=item_id, output_index=0, content_index=0,
                  part=dict(part, text=text))
        event("response.output_item.done", output_index=0, item=item)
        event("response.completed", response=dict(response, status="completed", output=[item], usage=usage))
        self.end_sse()
        self.record(started, "openai", tool or text, True, billed, seen)

    # Gemini

    def gemini(self, started, body, stream):
        seen = seen_gemini(body)
        mode = mode_of(seen)
        if mode == "error401":
            return self.fail401(started, "gemini")
        tool = TOOL_CMD.get(mode) if seen.tool_result is None else None
        text = answer_text("gemini", seen, mode)
        usage = {"promptTokenCount": tokens(seen), "candidatesTokenCount": len(text.split()),
                 "totalTokenCount": tokens(seen) + len(text.split())}
        billed = {"input": usage["promptTokenCount"], "output": usage["candidatesTokenCount"]}

        def candidate(parts, finish=None):
            cand = {"content": {"role": "model", "parts": parts}, "index": 0}
            if finish:
                cand["finishReason"] = finish
            return {"candidates": [cand], "usageMetadata": usage, "modelVersion": "mock"}

        if not stream:
            # The model router asks for JSON; it gets both shapes its strategies read.
            router = {"reasoning": "mock", "model_choice": "flash", "complexity_reasoning": "mock",
                      "complexity_score": 1}
            answer = text if body.get("tools") else json.dumps(router)
            return self.finish_json(started, "gemini", candidate([{"text": answer}], "STOP"), usage=billed,
                                    seen=seen)
        self.start_sse()
        self.arrived(mode, seen)
        fresh = seen.tool_result is None
        if fresh and mode == "write":
            tool = "write_file"
            call = {"functionCall": {"name": tool, "args": {"file_path": file_of(seen, "mock-wrote.txt"),
                                                            "content": WRITTEN}}}
        elif fresh and mode == "edit":
            tool = "replace"
            call = {"functionCall": {"name": tool, "args": {
                "file_path": file_of(seen, "notes.txt"), "instruction": "Mark the notes as edited.",
                "old_string": EDIT[0], "new_string": EDIT[1]}}}
        elif fresh and mode == "read":
            tool = "read_file"
            call = {"functionCall": {"name": tool, "args": {"file_path": file_of(seen, "notes.txt")}}}
        elif tool:
            call = {"functionCall": {"name": "run_shell_command", "args": {"command": tool, "description": "Run it"}}}
        if tool:
            self.sse(candidate([call], "STOP"))
        else:
            pieces = chunks(text)
            for i, piece in enumerate(pieces):
                self.pause(mode)
                self.sse(candidate([{"text": piece}], "STOP" if i == len(pieces) - 1 else None))
        self.end_sse()
        self.record(started, "gemini", tool or text, True, billed, seen)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0, help="pause before each streamed chunk")
    parser.add_argument("--log", help="append one JSON line per request to this file")
    opts = parser.parse_args()
    OPTS.delay_ms, OPTS.log = opts.delay_ms, opts.log
    server = ThreadingHTTPServer(("127.0.0.1", opts.port), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
