"""RAG_EMBEDDER=openai against a scripted OpenAI-compatible server over real HTTP (tests/embedding_server.py):
batches, retries with backoff, a server that is down or refuses, every vector recorded with its
embedder and model, and a model change refused until `rag_embed --rebuild`."""

from __future__ import annotations

from io import StringIO
from typing import Any

import numpy as np
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from rag_app import services
from rag_app.ingest.service import IngestError
from rag_app.models import Answer, Chunk, Document, Trace
from rag_app.search import dense
from rag_app.search.hybrid import search
from tests.embedding_server import DIM, EmbeddingServer, down_url, embedding_server, vector
from tests.factories import ingest_text
from tests.llm_server import stalling_server

__all__ = ["embedding_server"]

pytestmark = pytest.mark.django_db

CAT = "The cat sleeps on the warm windowsill."
REVENUE = "Quarterly revenue grew by four percent."


@pytest.fixture
def use_server(settings: Any, embedding_server: EmbeddingServer) -> Any:
    """Point RAG_EMBEDDER=openai at the scripted server; returns a function to change the settings."""

    def configure(**changes: object) -> None:
        settings.RAG = {**settings.RAG, **changes}

    configure(
        EMBEDDER="openai",
        EMBEDDING_BASE_URL=embedding_server.base_url,
        EMBEDDING_API_KEY="test-key",
        EMBEDDING_MODEL="model-a",
        EMBEDDING_BATCH=32,
        EMBEDDING_RETRIES=3,
        EMBEDDING_BACKOFF=0.01,
        EMBEDDING_TIMEOUT=5.0,
    )
    return configure


def stored() -> list[tuple[int, str, str, int]]:
    """(chunk pk, embedder, model, dimensions) of every stored vector."""
    with connection.cursor() as cur:
        cur.execute("SELECT chunk_id, embedder, model, embedding FROM rag_chunk_vec ORDER BY chunk_id")
        rows = cur.fetchall()
    out = []
    for pk, embedder, model, embedding in rows:
        dims = len(np.frombuffer(embedding, dtype=np.float32)) if isinstance(embedding, bytes | memoryview) else None
        if dims is None:  # pgvector's text form "[0.1,0.2,...]"
            dims = len(str(embedding).strip("[]").split(","))
        out.append((int(pk), str(embedder), str(model), dims))
    return out


def _paragraphs(n: int) -> str:
    return "\n\n".join(f"Paragraph {i} says that policy number {i} applies to office {i}. " * 8 for i in range(n))


def test_ingest_embeds_in_batches_and_records_embedder_and_model(use_server, embedding_server) -> None:
    use_server(EMBEDDING_BATCH=3)
    result = ingest_text(_paragraphs(7), source_id="policies")
    assert result.chunks >= 7
    sizes = embedding_server.batch_sizes
    assert sum(sizes) == result.chunks and max(sizes) == 3 and len(sizes) == -(-result.chunks // 3)
    request = embedding_server.requests[0]
    assert request["model"] == "model-a" and request["encoding_format"] == "float"
    rows = stored()
    assert len(rows) == result.chunks
    assert {(embedder, model, dims) for _, embedder, model, dims in rows} == {("openai", "model-a", DIM)}


def test_stored_vectors_are_the_servers_and_queries_use_the_same_embedder(use_server, embedding_server) -> None:
    ingest_text(CAT, source_id="cat")
    ingest_text(REVENUE, source_id="revenue")
    pk = Chunk.objects.get(version__document__source_id="cat").pk
    q = dense.query_vector("Where does the cat sleep?")
    assert q is not None and q.shape == (DIM,)
    assert embedding_server.requests[-1]["input"] == ["Where does the cat sleep?"]
    cosine = dense.similarities(q, [pk])[pk]
    [passage] = embedding_server.requests[0]["input"]  # the chunk with its context line
    assert passage.endswith(CAT)
    expected = float(np.dot(vector("Where does the cat sleep?"), vector(passage)))
    assert cosine == pytest.approx(expected, abs=1e-4)
    [top, *_] = search(user=None, question="Where does the cat sleep?")
    assert top.source_id == "cat" and top.dense_score == pytest.approx(expected, abs=1e-4)


@pytest.mark.parametrize(("status", "retry_after"), [(503, None), (502, None), (429, "0"), (500, "soon")])
def test_transient_failures_are_retried_with_backoff(use_server, embedding_server, status, retry_after) -> None:
    embedding_server.fail(2, status=status, retry_after=retry_after)
    result = ingest_text(CAT, source_id="cat")
    assert result.status == "new"
    assert len(embedding_server.requests) == 3  # two failures, then the answer
    assert len(stored()) == 1


def test_a_server_that_stays_down_fails_the_file_and_stores_nothing(use_server) -> None:
    use_server(EMBEDDING_BASE_URL=down_url(), EMBEDDING_RETRIES=2)
    with pytest.raises(IngestError, match="did not answer after 3 attempts") as info:
        ingest_text(CAT, source_id="cat")
    assert info.value.code == "embedder_unavailable"
    assert not Document.objects.filter(source_id="cat").exists() and stored() == []


def test_a_server_that_keeps_failing_is_unavailable_after_the_retries(use_server, embedding_server) -> None:
    use_server(EMBEDDING_RETRIES=1)
    embedding_server.fail(5, status=503)
    with pytest.raises(IngestError, match=r"did not answer after 2 attempts \(HTTP 503: scripted failure") as info:
        ingest_text(CAT, source_id="cat")
    assert info.value.code == "embedder_unavailable" and len(embedding_server.requests) == 2


def test_a_refusal_is_not_retried(use_server, embedding_server) -> None:
    embedding_server.fail(1, status=400)
    with pytest.raises(IngestError, match=r"refused the request \(HTTP 400: scripted failure \(400\)\)") as info:
        ingest_text(CAT, source_id="cat")
    assert info.value.code == "embedding_failed" and len(embedding_server.requests) == 1
    assert not Document.objects.filter(source_id="cat").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ({"short_by": 1}, r"answered 2 vectors for 3 texts"),
        ({"malformed": True}, "malformed data"),
        ({"garbage": True}, "not an embeddings answer"),
    ],
)
def test_an_answer_that_does_not_fit_the_request_is_an_error(use_server, embedding_server, setup, message) -> None:
    for name, value in setup.items():
        setattr(embedding_server, name, value)
    with pytest.raises(IngestError, match=message) as info:
        ingest_text("First paragraph here.\n\n" + "Second paragraph. " * 40, source_id="two")
    assert info.value.code == "embedding_failed"


def test_a_model_change_is_refused_until_rag_embed_rebuild(use_server, embedding_server) -> None:
    ingest_text(CAT, source_id="cat")
    ingest_text(REVENUE, source_id="revenue")
    assert {model for _, _, model, _ in stored()} == {"model-a"}

    use_server(EMBEDDING_MODEL="model-b")
    before = len(embedding_server.requests)
    with pytest.raises(IngestError) as info:
        ingest_text("The dog sleeps in its basket.", source_id="dog")
    assert info.value.code == "embedder_mismatch"
    for text in ("'openai' (model 'model-a')", "'openai' (model 'model-b')", "manage.py rag_embed --rebuild"):
        assert text in str(info.value)
    with pytest.raises(dense.EmbedderMismatch, match="rag_embed --rebuild"):
        search(user=None, question="Where does the cat sleep?")
    with pytest.raises(CommandError, match=r"model 'model-a'.*rag_embed --rebuild"):
        call_command("rag_embed", stdout=StringIO(), stderr=StringIO())
    assert len(embedding_server.requests) == before  # refused before anything was embedded
    assert not Document.objects.filter(source_id="dog").exists()

    out = StringIO()
    call_command("rag_embed", "--rebuild", stdout=out, stderr=StringIO())
    assert "embedded 2 chunks with openai (model-b)" in out.getvalue()
    assert {(embedder, model) for _, embedder, model, _ in stored()} == {("openai", "model-b")}
    assert len(stored()) == 2
    assert search(user=None, question="Where does the cat sleep?")[0].source_id == "cat"
    ingest_text("The dog sleeps in its basket.", source_id="dog")
    assert len(stored()) == 3


def test_a_rebuild_whose_server_is_down_keeps_the_old_vectors(use_server) -> None:
    ingest_text(CAT, source_id="cat")
    before = stored()
    use_server(EMBEDDING_MODEL="model-b", EMBEDDING_BASE_URL=down_url(), EMBEDDING_RETRIES=0)
    with pytest.raises(CommandError, match="did not answer after 1 attempts"):
        call_command("rag_embed", "--rebuild", stdout=StringIO(), stderr=StringIO())
    assert stored() == before


def test_an_embedder_change_is_refused_too(use_server) -> None:
    """Vectors a different backend made (here: recorded as sentence-transformers) are another space."""
    ingest_text(CAT, source_id="cat")
    pk = Chunk.objects.get(version__document__source_id="cat").pk
    dense.delete_vectors([pk])
    dense.store_vectors([pk], np.ones((1, DIM), dtype=np.float32), made_by=("sentence-transformers", "e5"))
    with pytest.raises(dense.EmbedderMismatch, match=r"'sentence-transformers' \(model 'e5'\).*'openai'"):
        dense.query_vector("cat")
    with pytest.raises(dense.EmbedderMismatch):
        dense.store_vectors([pk + 1], np.ones((1, DIM), dtype=np.float32))


def test_rag_embed_backfills_with_the_server(use_server, embedding_server, settings) -> None:
    settings.RAG = {**settings.RAG, "EMBEDDER": "none"}
    ingest_text(CAT, source_id="cat")
    ingest_text(REVENUE, source_id="revenue")
    assert stored() == [] and embedding_server.requests == []
    use_server(EMBEDDER="openai")
    call_command("rag_embed", stdout=StringIO(), stderr=StringIO())
    assert len(stored()) == 2
    call_command("rag_embed", stdout=StringIO(), stderr=StringIO())  # idempotent
    assert len(stored()) == 2 and len(embedding_server.requests) == 1


@pytest.mark.parametrize("stall", ["headers", "body"])
def test_an_ask_waits_on_a_stalling_embedding_server_no_longer_than_the_query_deadline(
    use_server, staff_user, stall: str
) -> None:
    """The question's vector is made while the asker waits: a server that trickles its headers or its reply (never
    silent long enough for a read timeout, 5 s here, 3 attempts) is cut at RAG_EMBEDDING_QUERY_DEADLINE, and the ask
    is stored as embedder_unavailable with its trace instead of outliving the web worker (docs/DEPLOYMENT.md)."""
    import time

    ingest_text(CAT, source_id="cat")  # its vector made by the scripted server
    with stalling_server(stall) as server:
        use_server(EMBEDDING_BASE_URL=server.base_url, EMBEDDING_RETRIES=2, EMBEDDING_QUERY_DEADLINE=1.5)
        started = time.monotonic()
        answer = services.ask(user=staff_user, question="Where does the cat sleep?")
        elapsed = time.monotonic() - started
    assert (answer.state, answer.reason) == (Answer.State.ERROR, "embedder_unavailable")
    assert Trace.objects.get(answer=answer).error.startswith("embedder_unavailable")
    # uncut, the trickle runs on for ten seconds an attempt; the margin is for a loaded machine
    assert elapsed < 1.5 + 1.5, elapsed
