"""The ingest benchmark's moving parts on a tiny corpus (correctness only, no timing assertions)."""

from __future__ import annotations

import benchdb
import corpus
import ingest_bench
import pytest

from rag_app.models import Chunk, Document


@pytest.mark.django_db
def test_ingest_docs_writes_every_generated_document(levels: object, articles: list[corpus.Article]) -> None:
    """Every generated document lands as an official document, and the chunk count adds up."""
    docs = list(corpus.generate(chunks=25, seed=0, articles=articles))
    _seconds, chunks = ingest_bench.ingest_docs(docs)
    assert Document.objects.filter(level__slug="official").count() == len(docs)
    assert Chunk.objects.count() == chunks == sum(d.chunks for d in docs)


def test_jieba_floor_measures_something() -> None:
    """The floor tokenizes the texts it is given and returns a positive duration."""
    assert ingest_bench.jieba_floor(["今天天气很好。"] * 3) > 0


def test_corpus_names_are_stable() -> None:
    """Cached corpora are found again by name: backend, size label and seed."""
    assert ingest_bench.corpus_name("sqlite", 100_000) == "corpus_sqlite_100k_s0"
    assert ingest_bench.size_label(1500) == "1500"


def test_percentile_and_summary() -> None:
    """Percentiles interpolate within the data and summary reports n / p50 / p95."""
    values = [float(v) for v in range(1, 101)]
    s = benchdb.summary(values)
    assert s["n"] == 100
    assert 50 <= s["p50"] <= 51
    assert 94 <= s["p95"] <= 96
    assert benchdb.percentile([7.0], 95) == 7.0
