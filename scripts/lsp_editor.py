"""A minimal scripted LSP editor for `chatmd lsp`, for scripts/agent-matrix: Python
3.11 standard library only.

    editor = Editor([chatmd, "lsp"], env, root)
    editor.open(path, text)            # a buffer, unsaved: `text` need not be on disk
    editor.command("chatmd.send", {"uri": editor.uri(chat)})
    editor.wait(lambda: ..., timeout)  # until the buffers say so
    editor.text(path)                  # a buffer as the server's edits left it
    editor.close()

Like a real editor it declares `workspace.applyEdit` (with document changes and
change annotations) and `chatmd/readBuffer` (`capabilities.experimental
.chatmdReadBuffer`), applies the server's `workspace/applyEdit` to its buffers and
reports each applied edit back with `textDocument/didChange` (the whole text), and
answers `chatmd/readBuffer` with the buffer it holds, unsaved text included (`null`
for a file it has not open). `readBuffer` lists the paths it was asked for.
"""

import json
import subprocess
import threading
import time
from pathlib import Path
from urllib.parse import quote, unquote, urlparse


def uri_of(path):
    return "file://" + quote(str(Path(path).resolve()))


def path_of(uri):
    return Path(unquote(urlparse(uri).path))


def offset(text, position):
    """The index in `text` of an LSP position (line, UTF-16 character)."""
    lines = text.split("\n")
    line = min(position["line"], len(lines))
    start = sum(len(row) + 1 for row in lines[:line])
    if line == len(lines):
        return len(text)
    units, index = position["character"], 0
    row = lines[line]
    while units > 0 and index < len(row):
        units -= 2 if ord(row[index]) > 0xFFFF else 1
        index += 1
    return start + index


def applied(text, edits):
    """`text` with LSP text edits applied (their ranges refer to the text before)."""
    spans = sorted(((offset(text, e["range"]["start"]), offset(text, e["range"]["end"]), e["newText"])
                    for e in edits), key=lambda s: (s[0], s[1]), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


class Editor:
    def __init__(self, argv, env, root, log=None):
        self.proc = subprocess.Popen(argv, env=env, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(log, "w") if log else subprocess.DEVNULL)
        self.lock = threading.Condition()
        self.buffers = {}  # uri: [version, text]
        self.replies = {}
        self.read_buffer = []  # the paths chatmd/readBuffer asked for
        self.edits = []  # every workspace/applyEdit's params
        self.next_id = 0
        self.reader = threading.Thread(target=self.serve, daemon=True)
        self.reader.start()
        self.request("initialize", {
            "processId": None, "rootUri": uri_of(root),
            "workspaceFolders": [{"uri": uri_of(root), "name": Path(root).name}],
            "capabilities": {
                "workspace": {"applyEdit": True, "workspaceEdit": {
                    "documentChanges": True, "changeAnnotationSupport": {"groupsOnLabel": True},
                    "resourceOperations": ["create"]}, "workspaceFolders": True},
                "window": {"workDoneProgress": True},
                "experimental": {"chatmdReadBuffer": True},
            }})
        self.notify("initialized", {})

    # the wire

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.proc.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode().partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params, timeout=60):
        with self.lock:
            self.next_id += 1
            ident = self.next_id
        self.send({"id": ident, "method": method, "params": params})
        with self.lock:
            if not self.lock.wait_for(lambda: ident in self.replies, timeout):
                raise TimeoutError(f"no answer to {method} in {timeout} s")
            reply = self.replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def serve(self):
        """Reads the server's messages: replies to ours, and its requests answered."""
        while True:
            message = self.receive()
            if message is None:
                with self.lock:
                    self.lock.notify_all()
                return
            if "method" not in message:
                with self.lock:
                    self.replies[message.get("id")] = message
                    self.lock.notify_all()
                continue
            if "id" not in message:
                continue  # notifications: diagnostics, progress, logs
            try:
                result = self.answer(message["method"], message.get("params") or {})
            except Exception as error:  # noqa: BLE001 - answered as the server's error
                self.send({"id": message["id"], "error": {"code": -32603, "message": str(error)}})
                continue
            self.send({"id": message["id"], "result": result})

    def answer(self, method, params):
        if method == "workspace/applyEdit":
            return {"applied": self.apply(params["edit"])}
        if method == "chatmd/readBuffer":
            with self.lock:
                self.read_buffer.append(str(path_of(params["uri"])))
                buffer = self.buffers.get(params["uri"])
            return {"text": buffer[1]} if buffer else None
        if method == "workspace/configuration":
            return [None for _ in params.get("items", [])]
        return None  # progress tokens, capability registrations, messages

    def apply(self, edit):
        changes = []
        for change in edit.get("documentChanges") or []:
            if change.get("kind") == "create":
                changes.append((change["uri"], None))
            elif "textDocument" in change:
                changes.append((change["textDocument"]["uri"], change["edits"]))
        changes += [(uri, edits) for uri, edits in (edit.get("changes") or {}).items()]
        with self.lock:
            self.edits.append(edit)
            touched = []
            for uri, edits in changes:
                if uri not in self.buffers:
                    disk = path_of(uri)
                    self.buffers[uri] = [0, disk.read_text() if disk.exists() else ""]
                if edits:
                    self.buffers[uri][1] = applied(self.buffers[uri][1], edits)
                    self.buffers[uri][0] += 1
                    touched.append(uri)
            self.lock.notify_all()
            reports = [(uri, *self.buffers[uri]) for uri in touched]
        for uri, version, text in reports:
            self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                   "contentChanges": [{"text": text}]})
        return True

    # what a script does

    uri = staticmethod(uri_of)

    def open(self, path, text, language="markdown"):
        uri = uri_of(path)
        with self.lock:
            self.buffers[uri] = [1, text]
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1, "text": text}})

    def command(self, name, argument):
        return self.request("workspace/executeCommand", {"command": name, "arguments": [argument]})

    def text(self, path):
        with self.lock:
            buffer = self.buffers.get(uri_of(path))
            return buffer[1] if buffer else None

    def wait(self, done, timeout):
        """Until `done()` holds (checked whenever the server edits a buffer); False on timeout."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while not done():
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    return done()
                self.lock.wait(min(left, 1))
            return True

    def close(self):
        try:
            self.request("shutdown", None, timeout=20)
            self.notify("exit", None)
            self.proc.wait(timeout=20)
        except (OSError, TimeoutError, RuntimeError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
