"""Retrieval latency at N chunks: rag_app.search.hybrid.search against bm25s, same corpus, same queries, one run.

The corpus is bench/corpus.py's deterministic recombination of the CMRC 2018 text, ingested
through the real ingest service (cached as var/bench/corpus_<backend>_<size>_s<seed>, shared
with the ask benchmarks). The queries are a seeded sample of the CMRC dev questions.

  ours:  search(user=<staff user>, question) -- query tokenizing, term statistics, the
         permission-filtered index query (FTS5 / tsvector), record fetch and calibration.
  bm25s: query tokenizing (the same tokenize()) + BM25 top-k over an in-memory index of exactly
         the same chunk tokens (Chunk.search_text), built in this run.

    python bench/retrieval_latency.py --chunks 10000 [--backend sqlite|postgres] [--queries 300]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb
import corpus
from ingest_bench import corpus_name, ingest_docs

DEV = corpus.EVAL_DIR / "cmrc2018_dev.json"


def questions(n: int, seed: int) -> list[str]:
    data = json.loads(DEV.read_text(encoding="utf-8"))["data"]
    qs = [qa["question"] for art in data for p in art["paragraphs"] for qa in p["qas"]]
    return random.Random(seed).sample(qs, min(n, len(qs)))


def ensure_corpus(chunks: int, seed: int) -> int:
    have = benchdb.chunk_count()
    if have >= chunks * 0.95:
        return have
    benchdb.ensure_level("official")
    print(f"building the corpus: {chunks} chunks ...", file=sys.stderr)
    ingest_docs(list(corpus.generate(chunks=chunks, seed=seed)), progress=True)
    return benchdb.chunk_count()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=10_000)
    ap.add_argument("--backend", choices=("sqlite", "postgres"), default="sqlite")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--k", type=int, default=50, help="candidates per query (RAG_CANDIDATES)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    benchdb.setup_django(backend=args.backend, name=corpus_name(args.backend, args.chunks, args.seed))
    import bm25s
    import numpy as np

    from rag_app.models import Chunk
    from rag_app.pipeline.textproc import query_terms
    from rag_app.search.hybrid import search

    n_chunks = ensure_corpus(args.chunks, args.seed)
    user, _ = benchdb.bench_user()
    qs = questions(args.queries, args.seed)

    rows = list(Chunk.objects.filter(version__is_current=True).order_by("pk").values_list("search_text", flat=True))
    t0 = time.perf_counter()
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in text.split()] for text in rows]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    bm25s_index_s = time.perf_counter() - t0

    def bm25s_query(q: str) -> None:
        toks = [[vocab[t] for t in query_terms(q) if t in vocab]]
        if toks[0]:
            retriever.retrieve(
                bm25s.tokenization.Tokenized(ids=toks, vocab=vocab), k=min(args.k, len(rows)), show_progress=False
            )

    for q in qs[:20]:  # warm caches (page cache, jieba dictionary, statement caches)
        search(user=user, question=q, limit=args.k)
        bm25s_query(q)

    ours: list[float] = []
    theirs: list[float] = []
    hits = 0
    for q in qs:  # interleaved, so machine load affects both alike
        t0 = time.perf_counter()
        hits += bool(search(user=user, question=q, limit=args.k))
        ours.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        bm25s_query(q)
        theirs.append((time.perf_counter() - t0) * 1000)

    result = {
        "backend": args.backend,
        "chunks": n_chunks,
        "queries": len(qs),
        "k": args.k,
        "queries_with_hits": hits,
        "search_ms": benchdb.summary(ours),
        "bm25s_ms": benchdb.summary(theirs),
        "median_ratio": statistics.median(ours) / max(statistics.median(theirs), 1e-9),
        "bm25s_index_s": round(bm25s_index_s, 2),
        "numpy": np.__version__,
        "bm25s": getattr(bm25s, "__version__", "?"),
    }
    path = benchdb.write_result(f"retrieval_latency-{args.backend}-{args.chunks}", result)
    print(json.dumps(result, indent=2))
    print(f"written to {path.relative_to(benchdb.ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
