"""`make run`: the web server and a real Celery worker beside it, started and stopped together.

The worker is the same `celery -A config worker` a worker node runs (docs/DEPLOYMENT.md); with the
default settings its broker is kombu's SQLAlchemy transport on var/celery-broker.sqlite, so no server
is needed. Ctrl-C (or SIGTERM) stops the web server, then asks the worker for a warm shutdown (it
finishes the file at hand) and waits for it; a worker that does not stop in time is killed, and a
job it was running goes back on the queue for the next start.

Usage: python scripts/run_with_worker.py [HOST:PORT] [--noreload]
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STOP_SECONDS = 60  # a warm shutdown finishes the task at hand; then the worker is killed


def worker_command() -> list[str]:
    return [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "--loglevel", os.environ.get("CELERY_LOG_LEVEL", "INFO"), "--hostname", "local@%h",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip


def stop(process: subprocess.Popen[bytes], name: str, *, group: bool) -> None:
    """SIGTERM to the process (`group`: and its children: runserver's autoreloader serves from a child;
    a Celery worker stops its own pool), SIGKILL to the group if it is still there after STOP_SECONDS."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            if group:
                os.killpg(process.pid, signal.SIGTERM)
            else:
                process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            print(f"run_with_worker: {name} did not stop in {STOP_SECONDS} s; killing it", file=sys.stderr, flush=True)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    with contextlib.suppress(ProcessLookupError):  # what is left of its group (the reloader's child)
        os.killpg(process.pid, signal.SIGTERM)


def main(argv: list[str]) -> int:
    address = next((arg for arg in argv if not arg.startswith("-")), "127.0.0.1:8000")
    # Each in its own session: Ctrl-C reaches this script alone, which stops both, the worker once (a
    # second signal would turn its warm shutdown into a cold one).
    worker = subprocess.Popen(worker_command(), cwd=ROOT, start_new_session=True)
    print(f"run_with_worker: Celery worker started (pid {worker.pid}); web server on http://{address}/", flush=True)
    web_args = [sys.executable, "manage.py", "runserver", address, *(a for a in argv if a == "--noreload")]
    web = subprocess.Popen(web_args, cwd=ROOT, start_new_session=True)

    def on_term(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    code = 0
    try:
        while True:
            if web.poll() is not None:
                code = web.returncode or 0
                break
            if worker.poll() is not None:
                print(f"run_with_worker: the worker exited ({worker.returncode}); stopping", file=sys.stderr)
                code = 1
                break
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the shutdown short
        stop(web, "the web server", group=True)
        stop(worker, "the worker", group=False)
        print("run_with_worker: web server and worker stopped", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
