"""pytest plugin (loaded with -p before Django settings are read): a private Redis for the session.

Starts Debian's `redis-server` on a free loopback port, no persistence, in a temporary folder, and
points CELERY_BROKER_URL (database 0) and CACHE_URL (database 1) at it, as production would
(docs/DEPLOYMENT.md). So every upload in the suite is published to a real broker, the ask throttle
counts in a real shared cache, and the end-to-end tests run real `celery worker` processes on it
(tests/workers.py). Without redis-server (scripts/system-deps.sh installs it) the broker falls back
to kombu's in-memory transport and the tests that need Redis are skipped, saying why.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass
class RedisServer:
    port: int
    folder: Path
    process: subprocess.Popen[bytes] | None = None

    @property
    def broker_url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def cache_url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/1"

    def start(self) -> None:
        """Start (or start again, on the same port: the outage tests stop it)."""
        log = open(self.folder / "redis.log", "ab")  # noqa: SIM115 - closed by the process's exit
        options = {"port": str(self.port), "bind": "127.0.0.1", "save": "", "appendonly": "no", "dir": str(self.folder)}
        self.process = subprocess.Popen(
            ["redis-server", *(part for name, value in options.items() for part in (f"--{name}", value))],
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + 30
        while not self.ping():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {(self.folder / 'redis.log').read_text()[-2000:]}")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def ping(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False


def die_with_parent() -> None:
    """In the child before exec: SIGTERM when the test process dies, even by SIGKILL (Linux prctl)."""
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # 1 = PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


SERVER: RedisServer | None = None

if shutil.which("redis-server"):
    SERVER = RedisServer(port=_free_port(), folder=Path(tempfile.mkdtemp(prefix="rag-test-redis-")))
    SERVER.start()
    atexit.register(lambda: (SERVER.stop(), shutil.rmtree(SERVER.folder, ignore_errors=True)) if SERVER else None)
    os.environ["CELERY_BROKER_URL"] = SERVER.broker_url
    os.environ["CACHE_URL"] = SERVER.cache_url
else:
    os.environ["CELERY_BROKER_URL"] = "memory://"
    os.environ.pop("CACHE_URL", None)


def pytest_report_header(config: object) -> str:
    if SERVER is None:
        return "redis: none (redis-server not installed; broker memory://, worker tests skipped)"
    return f"redis: redis-server on 127.0.0.1:{SERVER.port} (broker db 0, cache db 1)"
