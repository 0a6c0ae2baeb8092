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

    rows = {row["chunk_id"]: row for row in answer.trace.candidates}
    opener_id = f"licenses/apache:v1:{first}"
    # Each chunk of the list that was kept for it, not on its own, says so (here (d), which is quoted no more: the
    # quote's budget ends after (c)); before, the document's four best chunks were kept, and (b) was not among them.
    continued = [row for row in rows.values() if (row.get("facts") or {}).get("code") == "continues_list"]
    assert continued and all(row["kept"] and row["facts"]["of"] == opener_id for row in continued), continued
    assert all(f"goes on with the list that {opener_id} introduces" == row["detail"] for row in continued)


@pytest.mark.django_db
def test_a_list_is_not_continued_from_a_version_that_is_no_longer_searched(levels, staff_user) -> None:
    """The chunks that go on with a list are read from the opener's own version: a newer version's items never mix
    into an older version's list, nor the other way round."""
    ingest_text(APACHE, source_id="licenses/apache", file_name="apache-2.0.md", title="Apache License 2.0")
    edited = APACHE.replace("(b) You must cause any modified files", "(b) You must cause every modified file")
    ingest_text(edited, source_id="licenses/apache", file_name="apache-2.0.md", title="Apache License 2.0")
    answer = services.ask(user=staff_user, question=QUESTION)
    versions = {c.chunk.version.version for p in answer.paragraphs.all() for c in p.citations.all()}
    assert versions == {2}, versions
    assert any(p.text.startswith("(b) You must cause every modified file") for p in answer.paragraphs.all())
