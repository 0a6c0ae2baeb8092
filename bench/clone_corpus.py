"""Copy a cached SQLite corpus into a PostgreSQL benchmark database, row for row.

Ingesting 100k chunks costs tens of minutes of jieba on this machine; the PostgreSQL corpus
holds exactly the same Document / DocumentVersion / Chunk rows (same ids, same stored search
tokens), indexed through the retrieval layer's own lexical.index_rows, so the ask benchmarks
compare the two backends on identical data. Ingest throughput is measured by ingest_bench.py.

    python bench/clone_corpus.py --chunks 100000
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb
from ingest_bench import corpus_name

BATCH = 2000


def _rows(db: sqlite3.Connection, sql: str) -> list[dict[str, object]]:
    db.row_factory = sqlite3.Row
    return [dict(r) for r in db.execute(sql)]


def clone(*, chunks: int, seed: int = 0) -> int:
    """Fill the (empty, migrated) current database from the SQLite corpus; returns chunks copied."""
    from django.db import connection, transaction

    from rag_app.models import Chunk, Document, DocumentVersion, SourceLevel
    from rag_app.search import lexical

    src_path = benchdb.VAR / f"{corpus_name('sqlite', chunks, seed)}.sqlite3"
    if not src_path.exists():
        raise SystemExit(f"{src_path} missing: run bench/ingest_bench.py --chunks {chunks} --keep first")
    src = sqlite3.connect(f"file:{src_path}?mode=ro", uri=True)
    levels = {r["id"]: r["slug"] for r in _rows(src, "SELECT id, slug FROM rag_app_sourcelevel")}
    level_ids = {
        slug: SourceLevel.objects.get_or_create(slug=slug, defaults={"label": slug})[0].pk for slug in levels.values()
    }
    copied = 0
    with transaction.atomic():
        docs = _rows(src, "SELECT * FROM rag_app_document")
        for d in docs:
            d["level_id"] = level_ids.get(levels.get(d["level_id"])) if d["level_id"] else None  # type: ignore[arg-type]
        Document.objects.bulk_create([Document(**d) for d in docs], batch_size=BATCH)
        versions = _rows(src, "SELECT * FROM rag_app_documentversion")
        DocumentVersion.objects.bulk_create([DocumentVersion(**v) for v in versions], batch_size=BATCH)
        cursor = src.execute("SELECT * FROM rag_app_chunk ORDER BY id")
        names = [c[0] for c in cursor.description]
        while batch := cursor.fetchmany(BATCH):
            rows = [dict(zip(names, r, strict=True)) for r in batch]
            Chunk.objects.bulk_create([Chunk(**r) for r in rows])
            lexical.index_rows([(int(r["id"]), str(r["search_text"])) for r in rows])  # type: ignore[call-overload]
            copied += len(rows)
        with connection.cursor() as cur:
            for sql in connection.ops.sequence_reset_sql(no_style(), [Document, DocumentVersion, Chunk]):
                cur.execute(sql)
    # The planner's statistics, as autovacuum would gather them in time: without them the first asks on a
    # fresh clone ran at 215 ms p50 instead of 50 (session 15, 100k chunks).
    benchdb.settle()
    return copied


def no_style():  # type: ignore[no-untyped-def]
    from django.core.management.color import no_style as _no_style

    return _no_style()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    name = corpus_name("postgres", args.chunks, args.seed)
    benchdb.setup_django(backend="postgres", name=name, fresh=True)
    t0 = time.perf_counter()
    n = clone(chunks=args.chunks, seed=args.seed)
    print(f"cloned {n} chunks into {name} in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
