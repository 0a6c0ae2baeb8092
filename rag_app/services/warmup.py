"""Load what a question reads before the first one comes.

A fresh process loads, on its first question, jieba's dictionary, the word-by-word translation dictionary,
the pinyin table, the table of how common English words are, the function-word lists, the Chinese numeral
reader, the embedder and (on SQLite) the stored vectors and their HNSW graph: a second or more that the first
user waits after every start or reload (docs/PERFORMANCE.md, "The first question after a start"). The web server calls
`start()` when it loads (config/wsgi.py, config/asgi.py): the same loads run in a background thread while
the server begins to serve, so a question that comes during them waits only for what is not loaded yet.
With RAG_WARM_UP=false nothing is loaded ahead.

A step that fails is logged and skipped: warming up is never a reason for the server not to start (a
database not migrated yet, an embedder whose model is missing: the first question reports those itself).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import connection

log = logging.getLogger(__name__)

# Read by every step: a Chinese and an English question, with Chinese numerals, dates, a name in pinyin and
# common English words.
_QUESTIONS = (
    "GPL第二版是二〇〇七年几月发布的？",
    "Does the Beitucheng station license get a warranty of 30 days from June 29, 2007?",
)
# Two statements that differ in one value written two ways: the conflict check's number and date readers.
_STATEMENTS = ("退款期限为七日，自2021年2月7日起。", "The refund period is seven days from Feb 7, 2021.")

_started = threading.Lock()
_thread: threading.Thread | None = None


def start() -> threading.Thread | None:
    """Warm up in a daemon thread, once per process (later calls return the same thread); None with
    RAG_WARM_UP=false."""
    global _thread
    if not settings.RAG["WARM_UP"]:
        return None
    with _started:
        if _thread is None:
            _thread = threading.Thread(target=_run, name="rag-warm-up", daemon=True)
            _thread.start()
    return _thread


def _run() -> None:
    try:
        warm_up()
    finally:
        connection.close()  # this thread's own connection: it asks nothing more


def warm_up() -> dict[str, float]:
    """Run every step now, in this thread; the milliseconds each took, by step (a failed step is left out)."""
    timings: dict[str, float] = {}
    for name, step in _steps():
        began = time.perf_counter()
        try:
            step()
        except Exception:  # warming up never stops a server from starting
            log.warning("warm-up step %s failed", name, exc_info=True)
            continue
        timings[name] = round(1000 * (time.perf_counter() - began), 1)
    log.info("warm-up done: %s", ", ".join(f"{name} {ms:.0f} ms" for name, ms in timings.items()))
    return timings


def _steps() -> list[tuple[str, Callable[[], object]]]:
    import jieba

    from rag_app.pipeline import answerability, conflict, crosslingual, generality, pinyin, synonyms
    from rag_app.pipeline.textproc import query_terms

    steps: list[tuple[str, Callable[[], object]]] = [
        (
            "tokenizer",
            lambda: (
                jieba.initialize(),
                [(query_terms(q), answerability.focus_terms(q)) for q in _QUESTIONS],
                answerability.demonstrative("那边"),  # loads the dictionary's part-of-speech tags (about 0.2 s)
            ),
        ),
        ("common words", lambda: [generality.idf(t) for q in _QUESTIONS for t in query_terms(q)]),
        ("pinyin", lambda: [pinyin.names(q) for q in _QUESTIONS]),
        (
            "values",
            lambda: (conflict.same_but_one_stretch(*_STATEMENTS), [conflict.extract_facts(s) for s in _STATEMENTS]),
        ),
    ]
    if settings.RAG["CROSSLINGUAL"]:
        steps.append(
            (
                "translation",
                lambda: (
                    [crosslingual.translate(q) for q in _QUESTIONS],
                    [answerability.common_nouns(q) for q in _QUESTIONS],
                    crosslingual.kindred("食堂"),  # a noun with a two-word sense: builds the table of shared senses
                ),
            )
        )
    if settings.RAG["SYNONYMS"]:
        steps.append(("synonyms", lambda: [synonyms.alternatives(q) for q in _QUESTIONS]))
    if settings.RAG["EMBEDDER"] != "none":
        steps.append(("embedder", _embed))
    steps.append(("search", _search))
    if settings.RAG["EMBEDDER"] != "none" and connection.vendor == "sqlite":  # pgvector has its own index
        steps.append(("vector graph", _vector_graph))
    return steps


def _embed() -> None:
    from rag_app.search import dense

    model = dense.embedder()
    if model is not None:
        model.query(_QUESTIONS[0])


def _vector_graph() -> None:
    """On SQLite, the HNSW graph the search started building over the stored vectors (RAG_ANN_MIN_VECTORS)."""
    from rag_app.search import dense

    dense.warm_vectors(wait=True)


def _search() -> None:
    """One retrieval as the system (nothing is stored or shown): the database connection, the stored vectors
    and the code paths a question takes."""
    from rag_app.search.hybrid import retrieve

    retrieve(user=None, question=_QUESTIONS[1])
