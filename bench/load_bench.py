"""HTTP load: gunicorn on 127.0.0.1 + wrk, 16 connections for 60 s on ask and on answer pages.

Afterwards: every 201 the load generator saw must be an Answer row in the database (no lost
answers), and the peak RSS (VmHWM) of each gunicorn worker is read from /proc before shutdown.
Bounded: one server, loopback only, fixed duration; the server is stopped in all cases.

    python bench/load_bench.py --backend sqlite --chunks 100000 [--duration 60] [--connections 16]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb
from ask_bench import corpus_titles, ensure_corpus, questions
from ingest_bench import size_label

WRK_DIR = Path(__file__).resolve().parent / "wrk"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def worker_pids(master: int) -> list[int]:
    pids: list[int] = []
    for task in Path(f"/proc/{master}/task").glob("*"):
        try:
            pids += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return pids


def peak_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def parse_wrk_out(path: Path) -> dict[str, object]:
    ids: list[str] = []
    statuses: dict[str, int] = {}
    out: dict[str, object] = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if parts[0] == "id":
            ids.append(parts[1])
        elif parts[0] == "status":
            statuses[parts[1]] = statuses.get(parts[1], 0) + int(parts[2])
        elif parts[0] == "latency_us":
            out[f"{parts[1]}_ms"] = round(float(parts[2]) / 1000, 1)
        else:
            out[parts[0]] = int(float(parts[1]))
    out["statuses"] = statuses
    out["unexpected_status"] = sum(n for code, n in statuses.items() if code not in ("200", "201"))
    out["ids"] = ids
    duration_s = int(out.get("duration_us", 0) or 0) / 1e6  # type: ignore[call-overload]
    out["requests_per_s"] = round(int(out.get("requests", 0) or 0) / duration_s, 2) if duration_s else None  # type: ignore[call-overload]
    return out


def run_wrk(script: str, url: str, *, duration: int, connections: int, env: dict[str, str]) -> dict[str, object]:
    with tempfile.NamedTemporaryFile("r", suffix=".txt", delete=False) as fh:
        summary_path = Path(fh.name)
    cmd = [
        "wrk",
        "-t",
        str(min(4, connections)),
        "-c",
        str(connections),
        "-d",
        f"{duration}s",
        "--timeout",
        "30s",
        "-s",
        str(WRK_DIR / script),
        url,
    ]
    proc = subprocess.run(
        cmd, env={**os.environ, **env, "BENCH_IDS_OUT": str(summary_path)}, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"wrk failed: {proc.stderr or proc.stdout}")
    result = parse_wrk_out(summary_path)
    summary_path.unlink(missing_ok=True)
    result["command"] = " ".join(cmd)
    return result


def session_cookie(user: object) -> str:
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)  # type: ignore[attr-defined]
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()  # type: ignore[attr-defined]
    store.create()
    return f"{settings.SESSION_COOKIE_NAME}={store.session_key}"


def answer_path(answer: object) -> str:
    try:
        return str(answer.get_absolute_url())  # type: ignore[attr-defined]
    except ValueError:  # a non-reversible URL pattern elsewhere must not stop the benchmark
        return f"/answers/{answer.pk}/"  # type: ignore[attr-defined]


def configured_workers() -> int:
    """WEB_CONCURRENCY when set (gunicorn reads it too), else gunicorn's own advice: 2 x cores + 1."""
    raw = os.environ.get("WEB_CONCURRENCY", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 2 * (os.cpu_count() or 1) + 1


def warm_up(base: str, token: str, body: str, requests: int) -> None:
    """Some asks before measuring, so every worker has done its lazy imports (not counted, but stored)."""
    for _ in range(requests):
        req = urllib.request.Request(
            base + "/api/v1/ask",
            data=body.encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Token {token}"},
        )
        with contextlib.suppress(OSError):
            urllib.request.urlopen(req, timeout=120).read()


def wait_ready(url: str, timeout: float = 180.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer means the server is up
        except OSError:
            time.sleep(0.5)
    raise RuntimeError("gunicorn did not come up")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--duration", type=int, default=60)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--workers", type=int, default=0, help="0 = WEB_CONCURRENCY, else 2 x cores + 1")
    ap.add_argument("--no-result", action="store_true")
    args = ap.parse_args(argv)
    if shutil.which("wrk") is None:
        print("wrk not found (Debian: apt-get install -y wrk)", file=sys.stderr)
        return 2

    secret = "bench-only-secret-key-not-for-production-use-0123456789"
    os.environ["SECRET_KEY"] = secret  # the session made here must verify in the gunicorn workers
    name = ensure_corpus(args.backend, args.chunks)
    from rag_app.models import Answer

    user, token = benchdb.bench_user()
    cookie = session_cookie(user)
    tmp = Path(tempfile.mkdtemp(prefix="ragload-"))
    bodies = tmp / "bodies.jsonl"
    asked = questions(500, titles=corpus_titles())
    bodies.write_text(
        "".join(json.dumps({"question": q, "mode": "extractive"}, ensure_ascii=False) + "\n" for q in asked),
        encoding="utf-8",
    )
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": secret,
        "ALLOWED_HOSTS": "127.0.0.1",
        "RAG_ASK_THROTTLE": "1000000/min",
        "LOG_LEVEL": "WARNING",
    }
    gunicorn = [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application", "-b", f"127.0.0.1:{port}"]
    workers = args.workers or configured_workers()
    # A generous timeout: on a loaded 2-core machine a worker's first request (lazy imports) can take 30 s.
    gunicorn += ["--workers", str(workers), "--timeout", "120", "--log-level", "warning"]
    server = subprocess.Popen(gunicorn, cwd=benchdb.ROOT, env=env, start_new_session=True)
    result: dict[str, object] = {"backend": args.backend, "chunks": benchdb.chunk_count(), "database": name}
    try:
        wait_ready(base + "/api/v1/")
        warm_up(base, token, bodies.read_text(encoding="utf-8").splitlines()[0], 3 * workers)
        result["workers"] = len(worker_pids(server.pid))
        before = Answer.objects.count()
        first_id = Answer.objects.order_by("-id").values_list("id", flat=True).first() or 0
        ask = run_wrk(
            "ask.lua",
            base,
            duration=args.duration,
            connections=args.connections,
            env={"BENCH_TOKEN": token, "BENCH_BODIES": str(bodies)},
        )
        ids = ask.pop("ids")
        assert isinstance(ids, list)
        created = Answer.objects.count() - before
        new_ids = {str(i) for i in Answer.objects.filter(id__gt=first_id).values_list("id", flat=True)}
        parsed = [i for i in ids if i != "?"]
        ask["created_201"] = len(ids)
        ask["answers_in_db_after"] = created
        ask["ids_parsed"] = len(parsed)
        ask["ids_missing_in_db"] = len([i for i in parsed if i not in new_ids])
        # Answers finished after wrk stopped listening are in the DB but not among the 201s: count only misses.
        ask["lost_answers"] = max(0, len(ids) - created) + int(ask["ids_missing_in_db"])  # type: ignore[call-overload]
        result["ask"] = ask

        answers = list(Answer.objects.filter(id__gt=first_id).order_by("id")[:500])
        paths = tmp / "paths.txt"
        paths.write_text("".join(answer_path(a) + "\n" for a in answers) or "/\n")
        result["pages"] = run_wrk(
            "pages.lua",
            base,
            duration=args.duration,
            connections=args.connections,
            env={"BENCH_COOKIE": cookie, "BENCH_PATHS": str(paths)},
        )
        result["pages"].pop("ids", None)  # type: ignore[attr-defined]
        result["worker_peak_rss_mib"] = {str(p): peak_rss_mib(p) for p in worker_pids(server.pid)}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
    result["command"] = "python bench/load_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(json.dumps(result, ensure_ascii=False, indent=1))
    if not args.no_result:
        benchdb.write_result(f"load_{args.backend}_{size_label(args.chunks)}", result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
