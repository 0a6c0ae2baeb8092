"""Two OS processes ingesting the same file at once end with exactly one new version (PostgreSQL).

Real concurrency: forked processes, each with its own database connection, released together by
a barrier so both parse, then race for the document row. The loser must see the winner's version
(same content -> "unchanged"), never write a duplicate version or a second current one.
"""

from __future__ import annotations

import multiprocessing as mp
from typing import Any

import pytest
from django.db import connection, connections

from rag_app.models import DocumentVersion
from tests.factories import make_levels

TEXTS = [
    "退款期限为三十天。Refunds are accepted within 30 days of purchase.",
    "退款期限为十四天。Refunds are accepted within 14 days of purchase.",
    "退款期限为七天。Refunds are accepted within 7 days of purchase.",
]
SOURCES = [f"race/policy-{i}" for i in range(4)]


def _worker(barrier: Any, queue: Any, text: str) -> None:
    from rag_app.ingest.service import document_ingest

    try:
        barrier.wait(timeout=60)
        results = []
        for source_id in SOURCES:
            r = document_ingest(data=text.encode(), file_name="policy.txt", source_id=source_id, level="official")
            results.append((r.source_id, r.version, str(r.status)))
        queue.put(("ok", results))
    except BaseException as exc:  # reported to the parent, which fails the test with it
        queue.put(("error", repr(exc)))
    finally:
        connections.close_all()


def _race(text: str) -> list[tuple[str, int, str]]:
    ctx = mp.get_context("fork")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    connections.close_all()  # children must open their own connections, not share the parent's socket
    procs = [ctx.Process(target=_worker, args=(barrier, queue, text)) for _ in range(2)]
    for p in procs:
        p.start()
    outcomes = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    errors = [detail for kind, detail in outcomes if kind == "error"]
    assert not errors, errors
    return [row for _, rows in outcomes for row in rows]


@pytest.mark.django_db(transaction=True)
def test_two_processes_ingesting_the_same_file_make_one_version() -> None:
    """Round 1 (new document), then rounds 2 and 3 (changed content): each source ends each round with
    exactly one new version, one process reporting new/updated and the other unchanged."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL: the SQLite test database is private to one process (in memory)")
    make_levels()
    expected = ["new", "updated", "updated"]
    for round_no, text in enumerate(TEXTS, start=1):
        rows = _race(text)
        for source_id in SOURCES:
            statuses = sorted(status for sid, _, status in rows if sid == source_id)
            assert statuses == sorted([expected[round_no - 1], "unchanged"]), (round_no, source_id, rows)
            versions = DocumentVersion.objects.filter(document__source_id=source_id)
            assert sorted(versions.values_list("version", flat=True)) == list(range(1, round_no + 1))
            current = versions.get(is_current=True)
            assert current.version == round_no and text == current.text
