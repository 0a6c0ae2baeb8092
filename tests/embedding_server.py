"""A scripted OpenAI-compatible embeddings server for the dense-retrieval tests (real HTTP, no mocks).

`embedding_server` (fixture): a stdlib ThreadingHTTPServer on a free loopback port that answers
POST /v1/embeddings like OpenAI does, with deterministic vectors: every word of an input adds
1 to a dimension chosen by its hash, so texts that share words are near each other and a
question finds the passage it shares words with. It records every request, and can be told to
fail the next N requests (HTTP 503, 429 with Retry-After, 400), to answer malformed data or a body
that is not JSON, or to answer a different number of vectors than asked for. `down_url()` gives a
URL where nothing listens (connection refused).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

DIM = 64
_WORD_RE = re.compile(r"\w+")


def vector(text: str, dim: int = DIM) -> list[float]:
    """The server's embedding of `text` (normalised bag of hashed words; [1, 0, ...] for no words)."""
    out = np.zeros(dim, dtype=np.float64)
    for word in _WORD_RE.findall(text.lower()):
        out[int(hashlib.sha256(word.encode()).hexdigest(), 16) % dim] += 1.0
    norm = float(np.linalg.norm(out))
    if norm == 0.0:
        out[0] = 1.0
        norm = 1.0
    return [float(x) for x in out / norm]


@dataclass
class EmbeddingServer:
    base_url: str
    dim: int = DIM
    requests: list[dict[str, Any]] = field(default_factory=list)
    # Scripted failures for the next requests: (status, extra headers, body) each.
    failures: list[tuple[int, dict[str, str], dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    malformed: bool = False
    garbage: bool = False  # answer 200 with a body that is not JSON
    short_by: int = 0  # answer this many vectors fewer than asked for

    def fail(self, times: int, status: int = 503, retry_after: str | None = None) -> None:
        headers = {"Retry-After": retry_after} if retry_after is not None else {}
        body = {"error": {"message": f"scripted failure ({status})", "type": "server_error", "code": None}}
        with self.lock:
            self.failures += [(status, headers, body)] * times

    @property
    def batch_sizes(self) -> list[int]:
        return [len(r["input"]) for r in self.requests]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def down_url() -> str:
    """A base URL on a loopback port where nothing listens."""
    return f"http://127.0.0.1:{free_port()}/v1"


def _handler(state: EmbeddingServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            pass

        def _reply(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(length) or b"{}")
            if self.path.rstrip("/") != "/v1/embeddings":
                self._reply(404, {"error": {"message": f"no route {self.path}"}})
                return
            with state.lock:
                state.requests.append(payload)
                failure = state.failures.pop(0) if state.failures else None
            if failure is not None:
                self._reply(failure[0], failure[2], failure[1])
                return
            inputs = payload.get("input")
            if isinstance(inputs, str):
                inputs = [inputs]
            if state.garbage:
                body = b"<html>upstream proxy error</html>"
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if state.malformed:
                data = [{"object": "embedding", "index": i, "embedding": "not a vector"} for i in range(len(inputs))]
                self._reply(200, {"object": "list", "data": data})
                return
            data = [
                {"object": "embedding", "index": i, "embedding": vector(text, state.dim)}
                for i, text in enumerate(inputs)
            ]
            data = data[: len(data) - state.short_by] if state.short_by else data
            data.reverse()  # servers may answer out of order: the index field says which is which
            self._reply(
                200,
                {
                    "object": "list",
                    "data": data,
                    "model": payload.get("model"),
                    "usage": {"prompt_tokens": 1, "total_tokens": 1},
                },
            )

    return Handler


@pytest.fixture
def embedding_server() -> Iterator[EmbeddingServer]:
    port = free_port()
    state = EmbeddingServer(base_url=f"http://127.0.0.1:{port}/v1")
    server = ThreadingHTTPServer(("127.0.0.1", port), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def openai_embedder(settings: Any, embedding_server: EmbeddingServer) -> EmbeddingServer:
    """The product configured to embed through `embedding_server` (RAG_EMBEDDER=openai): one try per call
    (EMBEDDING_RETRIES=0), two more tries of a job's task (INGEST_RETRIES=2), short waits."""
    settings.RAG = {
        **settings.RAG,
        "EMBEDDER": "openai",
        "EMBEDDING_BASE_URL": embedding_server.base_url,
        "EMBEDDING_API_KEY": "test-key",
        "EMBEDDING_MODEL": "model-a",
        "EMBEDDING_RETRIES": 0,
        "EMBEDDING_BACKOFF": 0.01,
        "EMBEDDING_TIMEOUT": 5.0,
        "INGEST_RETRIES": 2,
        "INGEST_RETRY_MAX_SECONDS": 1,
    }
    return embedding_server
