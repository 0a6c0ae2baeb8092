"""A list longer than a chunk: the chunk that introduces it ("…provided that You meet the following conditions:") and
its first item are one chunk, the other items the next ones. Asked for the conditions, the answer quotes them all
(within the quote's budget), each item cited to its own chunk, and the trace says why a chunk that did not qualify on
its own was kept. Read through the real ingest (the demo corpus's Apache License, Markdown) and search."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app import services
from rag_app.models import Answer
from tests.factories import ingest_text

APACHE = (Path(__file__).resolve().parents[2] / "demo" / "licenses" / "apache-2.0.md").read_text(encoding="utf-8")
QUESTION = "What conditions must I meet to redistribute the Apache-licensed work?"


@pytest.mark.django_db
def test_every_condition_of_a_list_spread_over_chunks_is_quoted_each_from_its_own_chunk(levels, staff_user) -> None:
    ingest_text(APACHE, source_id="licenses/apache", file_name="apache-2.0.md", title="Apache License 2.0")
    answer = services.ask(user=staff_user, question=QUESTION)
    assert answer.state == Answer.State.ANSWERED, (answer.reason, answer.trace.candidates)
    cited = [(p.text, [c.chunk.index for c in p.citations.all()]) for p in answer.paragraphs.all()]
    texts = [text for text, _ in cited]
    opener = next(i for i, text in enumerate(texts) if "following conditions:" in text)
    assert texts[opener].rstrip().endswith("a copy of this License; and"), texts  # (a), in the opener's chunk
    assert texts[opener + 1].startswith("(b) You must cause any modified files to carry prominent notices"), texts
    assert texts[opener + 2].startswith("(c) You must retain"), texts
    first = cited[opener][1][0]
    assert [chunks for _, chunks in cited[opener : opener + 3]] == [[first], [first + 1], [first + 2]]

    # Before, the document's four best chunks were kept, and (b) was not among them.
    assert [row["chunk_id"] for row in answer.trace.candidates if row["kept"]][:4] == [
        f"licenses/apache:v1:{first + i}" for i in range(4)
    ]


def test_a_chunk_kept_for_its_list_says_so_in_the_trace() -> None:
    """The trace row of a chunk kept for the list a kept chunk opens (tiering.with_list_continuations) says so, as data
    the provenance page writes out in the reader's language (presentation.decision_detail)."""
    from types import SimpleNamespace

    from rag_app.pipeline.assembly import assemble
    from rag_app.pipeline.records import ChunkRecord, Selection
    from rag_app.services.answers import _candidates

    def record(index: int, text: str, relevance: float) -> ChunkRecord:
        return ChunkRecord(
            chunk_id=f"p:v1:{index}", source_id="p", version=1, index=index, text=text, relevance=relevance
        )

    opener, item = record(0, "Meet the following conditions:\n\n(a) File it.", 0.8), record(1, "(b) Sign it.", 0.0)
    selection = Selection(kept=(opener, item), rejected=(), threshold=0.5, continued={"p:v1:1": "p:v1:0"})
    run = SimpleNamespace(selection=selection, assembly=assemble(selection, budget_chars=3000, per_source=4))
    rows = {row["chunk_id"]: row for row in _candidates(run)}
    assert rows["p:v1:1"]["kept"] and rows["p:v1:1"]["marker"] == "S2"
    assert rows["p:v1:1"]["facts"] == {"code": "continues_list", "of": "p:v1:0"}
    assert rows["p:v1:1"]["detail"] == "goes on with the list that p:v1:0 introduces"
    assert "facts" not in rows["p:v1:0"]


@pytest.mark.django_db
def test_the_chunks_a_list_brings_are_within_rag_top_k(levels, staff_user, settings) -> None:
    """They came after the RAG_TOP_K cut and made the kept passages more than it (the review of session 35)."""
    from rag_app.search.hybrid import retrieve

    ingest_text(APACHE, source_id="licenses/apache", file_name="apache-2.0.md", title="Apache License 2.0")
    settings.RAG = {**settings.RAG, "TOP_K": 2}
    selection = retrieve(user=staff_user, question=QUESTION)
    assert len(selection.kept) == 2 and selection.kept[1].index == selection.kept[0].index + 1
