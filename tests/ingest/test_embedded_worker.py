"""The embedded set-up `make run` starts: no server anywhere, the same code path as production.

scripts/run_with_worker.py starts `runserver` and a real `celery worker` whose broker is kombu's
SQLAlchemy transport on a SQLite file; the database is a SQLite file too. The test drives it as a
person would: the CLI queues a file, the worker ingests it, the web server reports healthy, and
SIGINT (Ctrl-C) stops the web server and the worker. It runs in its own processes and files, so it
needs neither the session's Redis nor its test database.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from tests.redisserver import die_with_parent
from tests.workers import ROOT, wait_for

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(tmp_path: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DEBUG": "1",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp_path / 'var' / 'celery-broker.sqlite'}",
        "RAG_EMBEDDER": "none",
        "PYTHONPATH": str(ROOT),
    }
    env.pop("CACHE_URL", None)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def _get(url: str) -> tuple[int, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except OSError:
        return 0, {}


def _job(db: Path, pk: int) -> tuple[str, str] | None:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as conn:
        row = conn.execute("SELECT state, results FROM rag_app_ingestjob WHERE id = ?", [pk]).fetchone()
    return (row[0], row[1]) if row and row[0] in ("done", "failed") else None


def test_the_default_broker_is_a_sqlite_file_under_var():
    """Without CELERY_BROKER_URL the broker needs no server: the SQLAlchemy transport on var/."""
    env = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "CACHE_URL")}
    code = "import django; django.setup(); from django.conf import settings; print(settings.CELERY_BROKER_URL)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == f"sqla+sqlite:///{ROOT / 'var' / 'celery-broker.sqlite'}"


def _as_from_a_terminal() -> None:
    """In the runner before exec: Ctrl-C's default disposition, as a terminal gives it. A suite started in the
    background (`bash .ci/run &`) hands its children SIGINT ignored, and Python then never turns SIGINT into
    KeyboardInterrupt: the runner would not hear the Ctrl-C this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    die_with_parent()


def test_make_run_serves_ingests_through_its_worker_and_stops_both(tmp_path):
    """`ingest --queue` prints the job; the worker beside the web server ingests it over the SQLite broker;
    /healthz is ok; Ctrl-C stops the web server and the worker, and the runner exits 0."""
    env = _env(tmp_path)
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    port = _free_port()
    log_path = tmp_path / "run.log"
    with log_path.open("wb") as log:
        runner = subprocess.Popen(
            [sys.executable, "scripts/run_with_worker.py", f"127.0.0.1:{port}", "--noreload"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_as_from_a_terminal,
        )
    text = lambda: log_path.read_text(errors="replace")  # noqa: E731
    try:
        wait_for(lambda: " ready." in text() or runner.poll() is not None, 180, "the worker to start")
        worker_pid = int(re.search(r"Celery worker started \(pid (\d+)\)", text()).group(1))
        wait_for(lambda: _get(f"http://127.0.0.1:{port}/healthz")[0] == 200, 120, "the web server")
        assert _get(f"http://127.0.0.1:{port}/healthz")[1]["broker"] == "ok"

        doc = tmp_path / "leave.md"
        doc.write_text("# Leave\n\nStaff get 25 days of annual leave a year.\n")
        queued = subprocess.run(
            [sys.executable, "manage.py", "ingest", str(doc), "--queue", "--level", "official"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        match = re.fullmatch(r"leave\.md job (\d+) queued\n", queued.stdout)
        assert match, queued.stdout + queued.stderr
        state, results = wait_for(lambda: _job(tmp_path / "db.sqlite3", int(match.group(1))), 180, "the job")
        assert state == "done", (results, text()[-3000:])
        assert json.loads(results)[0]["line"] == "leave.md v1 1 chunks new"
        assert (tmp_path / "var" / "celery-broker.sqlite").exists()

        runner.send_signal(signal.SIGINT)  # Ctrl-C
        assert runner.wait(timeout=120) == 0, text()[-3000:]
    finally:
        if runner.poll() is None:
            runner.kill()
    assert "web server and worker stopped" in text()
    assert not Path(f"/proc/{worker_pid}").exists()  # the runner waited for the worker's exit
    assert _get(f"http://127.0.0.1:{port}/healthz")[0] == 0  # nothing listens any more
