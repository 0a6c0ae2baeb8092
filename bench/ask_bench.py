"""Ask latency (extractive) on a cached corpus, split by stage, with bm25s as the retrieval baseline.

For one (backend, corpus size) it asks a fixed, seeded sample of CMRC questions:
  - service: wall time of rag_app.services.ask(), and Answer.timings (retrieval / assembly /
    generation / persistence ms) as the service measured them;
  - http: wall time of POST /api/v1/ask through Django's test Client with token auth;
  - baseline: bm25s over the same chunks' stored search tokens, query tokenized by the same
    tokenizer, top-k retrieval; the retrieval ratio is median(retrieval ms) / median(bm25s ms).
Queries alternate between the three so machine noise hits them alike. Questions on the corpus's
base articles come first (mostly answered), so the answered path is what is measured.

    python bench/ask_bench.py --backend sqlite --chunks 10000 [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb
import corpus
from ingest_bench import corpus_name, ingest_docs, size_label

STAGES = ("retrieval", "assembly", "generation", "alignment", "persistence")


def questions(n: int, seed: int = 0, *, titles: set[str] | None = None) -> list[str]:
    """A seeded sample of CMRC dev questions; with `titles`, questions on those articles come first.

    The generated corpora hold recombined sentences of the articles they are based on, so a
    question on a base article usually finds evidence (the answered path: assembly, generation,
    persistence), and the others mostly exercise the no-evidence path.
    """
    path = corpus.EVAL_DIR / "cmrc2018_dev.json"
    payload = json.loads(path.read_text(encoding="utf-8"))
    on_topic: list[str] = []
    other: list[str] = []
    for art in payload["data"]:
        bucket = on_topic if titles is not None and art.get("title") in titles else other
        bucket.extend(qa["question"] for p in art["paragraphs"] for qa in p["qas"])
    rng = random.Random(seed)
    rng.shuffle(on_topic)
    rng.shuffle(other)
    return (on_topic + other)[:n]


def corpus_titles() -> set[str]:
    """Base-article titles of the generated documents ("<title>（合集 n）")."""
    from rag_app.models import Document

    return {t.rsplit("（合集", 1)[0] for t in Document.objects.values_list("title", flat=True)}


def ensure_corpus(backend: str, chunks: int, seed: int = 0) -> str:
    """Set Django up on the cached corpus database, building it on first use.

    PostgreSQL corpora are copied row for row from the SQLite one when it exists (clone_corpus.py),
    so both backends answer over identical data; otherwise they are ingested.
    """
    name = corpus_name(backend, chunks, seed)
    benchdb.setup_django(backend=backend, name=name, env={"ALLOWED_HOSTS": "127.0.0.1,localhost,testserver"})
    benchdb.ensure_level("official")
    if benchdb.chunk_count() == 0:
        source = benchdb.VAR / f"{corpus_name('sqlite', chunks, seed)}.sqlite3"
        if backend == "postgres" and source.exists():
            import clone_corpus

            print(f"copying {source.name} into {name} (once)", file=sys.stderr)
            clone_corpus.clone(chunks=chunks, seed=seed)
        else:
            print(f"building corpus {name} (once; cached under var/bench)", file=sys.stderr)
            ingest_docs(list(corpus.generate(chunks=chunks, seed=seed)), progress=True)
    return name


class Bm25Baseline:
    def __init__(self) -> None:
        import bm25s

        from rag_app.models import Chunk

        rows = Chunk.objects.filter(version__is_current=True).values_list("search_text", flat=True)
        self.tokens = [r.split() or ["∅"] for r in rows.iterator(chunk_size=5000)]
        self.k = min(50, len(self.tokens))
        self.retriever = bm25s.BM25()
        self.retriever.index(self.tokens, show_progress=False)

    def query_ms(self, question: str) -> float:
        from rag_app.pipeline.textproc import tokenize

        t0 = time.perf_counter()
        q = tokenize(question) or ["∅"]
        self.retriever.retrieve([q], k=self.k, show_progress=False, n_threads=1)
        return (time.perf_counter() - t0) * 1000


def run(*, backend: str, chunks: int, n_queries: int, warmup: int = 5) -> dict[str, object]:
    name = ensure_corpus(backend, chunks)
    from django.test import Client

    from rag_app.services import ask

    user, token = benchdb.bench_user()
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    baseline = Bm25Baseline()
    qs = questions(n_queries + warmup, titles=corpus_titles())
    service_ms: list[float] = []
    http_ms: list[float] = []
    bm25_ms: list[float] = []
    stages: dict[str, list[float]] = {s: [] for s in STAGES}
    states: dict[str, int] = {}
    http_status: dict[str, int] = {}
    for i, q in enumerate(qs):
        t0 = time.perf_counter()
        answer = ask(user=user, question=q, mode="extractive")
        t1 = time.perf_counter()
        resp = client.post("/api/v1/ask", {"question": q, "mode": "extractive"}, content_type="application/json")
        t2 = time.perf_counter()
        b = baseline.query_ms(q)
        if i < warmup:
            continue
        service_ms.append((t1 - t0) * 1000)
        http_ms.append((t2 - t1) * 1000)
        bm25_ms.append(b)
        timings = answer.timings or {}
        for s in STAGES:
            value = timings.get(s, timings.get(f"{s}_ms"))
            if isinstance(value, int | float):
                stages[s].append(float(value))
        states[str(answer.state)] = states.get(str(answer.state), 0) + 1
        http_status[str(resp.status_code)] = http_status.get(str(resp.status_code), 0) + 1
    retrieval_p50 = statistics.median(stages["retrieval"]) if stages["retrieval"] else float("nan")
    bm25_p50 = statistics.median(bm25_ms)
    return {
        "backend": backend,
        "chunks": benchdb.chunk_count(),
        "target_chunks": chunks,
        "database": name,
        "queries": len(service_ms),
        "service_ms": benchdb.summary(service_ms),
        "http_ms": benchdb.summary(http_ms),
        "stages_ms": {s: benchdb.summary(v) for s, v in stages.items()},
        "bm25s_ms": benchdb.summary(bm25_ms),
        "retrieval_over_bm25s": round(retrieval_p50 / bm25_p50, 2) if bm25_p50 else None,
        "states": states,
        "http_status": http_status,
        "env": {k: v for k, v in os.environ.items() if k.startswith("RAG_")},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-result", action="store_true")
    args = ap.parse_args(argv)
    row = run(backend=args.backend, chunks=args.chunks, n_queries=args.queries)
    row["command"] = "python bench/ask_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(json.dumps(row, ensure_ascii=False))
    if not args.no_result:
        benchdb.write_result(f"ask_{args.backend}_{size_label(args.chunks)}", row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
