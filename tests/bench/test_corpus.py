"""The benchmark corpus generator: deterministic, sized by chunks, made of real eval sentences."""

from __future__ import annotations

import json
from pathlib import Path

import corpus
import pytest


def test_it_is_deterministic_by_seed(articles: list[corpus.Article]) -> None:
    """The same seed and size give byte-identical documents in the same order."""
    a = [(d.source_id, d.text) for d in corpus.generate(chunks=60, seed=3, articles=articles)]
    b = [(d.source_id, d.text) for d in corpus.generate(chunks=60, seed=3, articles=articles)]
    assert a == b


def test_other_seeds_give_other_documents(articles: list[corpus.Article]) -> None:
    """Different seeds recombine differently."""
    a = [d.text for d in corpus.generate(chunks=60, seed=0, articles=articles)]
    b = [d.text for d in corpus.generate(chunks=60, seed=1, articles=articles)]
    assert a != b


def test_it_reaches_the_requested_chunk_count(articles: list[corpus.Article]) -> None:
    """Chunk counts reach the target, overshooting by less than one document (ingest test checks the counts)."""
    docs = list(corpus.generate(chunks=150, seed=0, articles=articles))
    total = sum(d.chunks for d in docs)
    assert 150 <= total < 150 + max(d.chunks for d in docs)
    assert docs[0].chunks == corpus.count_chunks(docs[0].text) > 1


def test_every_sentence_comes_from_the_eval_text(articles: list[corpus.Article]) -> None:
    """Bodies are recombined real sentences: each body paragraph is a concatenation of source sentences."""
    pool = {s for a in articles for s in a.sentences}
    doc = next(corpus.generate(chunks=20, seed=5, articles=articles))
    body = [ln for ln in doc.text.splitlines() if ln and not ln.startswith("#")]
    assert body
    for para in body:
        rest = para
        while rest:
            match = next((s for s in pool if rest.startswith(s)), None)
            assert match is not None, rest[:40]
            rest = rest[len(match) :]


def test_write_folder_writes_markdown_and_manifest(tmp_path, articles: list[corpus.Article]) -> None:
    """One .md file per document plus a manifest line each."""
    docs, chunks, size = corpus.write_folder(corpus.generate(chunks=30, seed=0, articles=articles), tmp_path)
    files = sorted(tmp_path.glob("*.md"))
    assert len(files) == docs
    assert len((tmp_path / "manifest.jsonl").read_text().splitlines()) == docs
    assert sum(f.stat().st_size for f in files) == size
    assert files[0].read_text(encoding="utf-8").startswith("# ")
    assert chunks >= 30


def test_the_sample_is_the_head_of_the_full_dev_file(cmrc_sample: Path) -> None:
    """The vendored sample is the full dev file's first articles, unchanged (provenance in tests/fixtures/README.md)."""
    full_path = corpus.DEFAULT_SOURCES[0]
    if not full_path.is_file():
        pytest.skip(f"needs ../shared/eval-data/cmrc2018 (the full CMRC 2018 files): no {full_path} to compare with")
    sample = json.loads(cmrc_sample.read_text(encoding="utf-8"))
    full = json.loads(full_path.read_text(encoding="utf-8"))
    assert sample["version"] == full["version"]
    assert 20 <= len(sample["data"]) < len(full["data"])
    assert sample["data"] == full["data"][: len(sample["data"])]
