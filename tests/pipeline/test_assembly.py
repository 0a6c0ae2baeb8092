"""The ONE assembly step (rules 3, 4, 6, 7): order, dedup, budget, markers, snippet == context text."""

from __future__ import annotations

import random

import pytest

from rag_app.pipeline.assembly import assemble, source_header
from rag_app.pipeline.records import ChunkRecord, RejectReason, Selection


def rec(
    chunk_id: str, source_id: str | None = "doc", relevance: float = 0.5, text: str | None = None, **kw: object
) -> ChunkRecord:
    return ChunkRecord(
        chunk_id=chunk_id,
        source_id=source_id,
        version=1,
        index=int(chunk_id.rsplit(":", 1)[-1]) if ":" in chunk_id else 0,
        text=text if text is not None else f"Text of {chunk_id}. It has two sentences.",
        relevance=relevance,
        **kw,  # type: ignore[arg-type]
    )


def block_of(assembly_context: str, marker: str) -> str:
    """The snippet text under a marker's header line in the context."""
    for block in assembly_context.split("\n\n"):
        header, _, body = block.partition("\n")
        if header.startswith(f"[{marker}] "):
            return body
    raise AssertionError(f"{marker} not in context")


def test_markers_follow_context_order_s1_to_sn() -> None:
    """Markers are S1..Sn in the order the records appear in the context."""
    a = assemble([rec("a:v1:0", "a", 0.9), rec("b:v1:0", "b", 0.8), rec("c:v1:0", "c", 0.7)], budget_chars=5000)
    assert a.markers == ("S1", "S2", "S3")
    assert [s.record.source_id for s in a.sources] == ["a", "b", "c"]
    positions = [a.context.index(f"[{m}] ") for m in a.markers]
    assert positions == sorted(positions)


def test_ties_are_broken_by_chunk_id_whatever_the_input_order() -> None:
    """Equal level and relevance: chunk_id decides, so shuffled input gives the same assembly (rule 3)."""
    records = [rec(f"{name}:v1:0", name, 0.5) for name in ("delta", "alpha", "charlie", "bravo")]
    first = assemble(records, budget_chars=5000, max_sources=10)
    assert [s.record.source_id for s in first.sources] == ["alpha", "bravo", "charlie", "delta"]
    for seed in range(5):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        again = assemble(shuffled, budget_chars=5000, max_sources=10)
        assert again == first


def test_tied_chunks_of_a_document_keep_document_order_past_chunk_9() -> None:
    """The chunk_id's text puts "doc:v1:10" before "doc:v1:9": tied chunks of one document (the items a list brings,
    at no relevance) came out (a), (c), (d), (b), and the budget dropped (b) first (the review of session 35)."""
    records = [rec("doc:v1:8", relevance=0.8)] + [rec(f"doc:v1:{i}", relevance=0.0) for i in (11, 10, 9)]
    a = assemble(records, budget_chars=5000, per_source=4)
    assert [s.record.index for s in a.sources] == [8, 9, 10, 11]
    small = assemble(records, budget_chars=len(a.context) - 10, per_source=4)
    assert [s.record.index for s in small.sources] == [8, 9, 10]


def test_rank_order_from_tiering_is_kept_when_there_is_no_tie() -> None:
    """Assembly does not re-sort by relevance: tiering's order (level first) stands."""
    high_level = rec("z:v1:0", "z", 0.55, level="official", level_weight=3.0)
    low_level = rec("a:v1:0", "a", 0.95, level="note", level_weight=1.0)
    a = assemble(Selection(kept=(high_level, low_level), rejected=(), threshold=0.5), budget_chars=5000)
    assert [s.record.source_id for s in a.sources] == ["z", "a"]


def test_one_chunk_per_source_by_default_keeps_the_best() -> None:
    """Two chunks of one document: the better-ranked one is kept, the other is a duplicate_source rejection."""
    a = assemble([rec("a:v1:3", "a", 0.9), rec("b:v1:0", "b", 0.8), rec("a:v1:1", "a", 0.7)], budget_chars=5000)
    assert [s.record.chunk_id for s in a.sources] == ["a:v1:3", "b:v1:0"]
    assert [(r.record.chunk_id, r.reason) for r in a.dropped] == [("a:v1:1", RejectReason.DUPLICATE_SOURCE)]


def test_per_source_setting_keeps_complementary_chunks_next_to_each_other() -> None:
    """With per_source=2 a document's two chunks sit together, right after its best position."""
    records = [rec("a:v1:3", "a", 0.9), rec("b:v1:0", "b", 0.8), rec("a:v1:1", "a", 0.7), rec("a:v1:5", "a", 0.6)]
    a = assemble(records, budget_chars=5000, per_source=2)
    assert [s.record.chunk_id for s in a.sources] == ["a:v1:3", "a:v1:1", "b:v1:0"]
    assert a.markers == ("S1", "S2", "S3")
    assert [r.record.chunk_id for r in a.dropped] == ["a:v1:5"]


def test_records_without_source_id_never_get_a_marker() -> None:
    """Rule 7: a record with no source_id stays out of the citation map, recorded as no_source_id."""
    a = assemble([rec("x:v1:0", None, 0.99), rec("a:v1:0", "a", 0.5)], budget_chars=5000)
    assert [s.record.chunk_id for s in a.sources] == ["a:v1:0"]
    assert a.sources[0].marker == "S1"
    assert a.dropped[0].reason == RejectReason.NO_SOURCE_ID
    assert "x:v1:0" not in a.context and "Text of x" not in a.context


def test_max_sources_caps_the_number_of_documents() -> None:
    """Documents past max_sources are dropped (lowest-ranked), with a reason."""
    records = [rec(f"d{i}:v1:0", f"d{i}", 1 - i / 10) for i in range(4)]
    a = assemble(records, budget_chars=5000, max_sources=2)
    assert [s.record.source_id for s in a.sources] == ["d0", "d1"]
    assert {r.reason for r in a.dropped} == {RejectReason.OVER_BUDGET}


def test_budget_drops_lowest_ranked_first_without_renumbering_the_rest() -> None:
    """Rule 6: over budget, the last-ranked record goes; the survivors keep S1, S2 and full snippets."""
    body = "A sentence that fills the context. " * 5
    records = [rec(f"d{i}:v1:0", f"d{i}", 1 - i / 10, text=body.strip()) for i in range(3)]
    full = assemble(records, budget_chars=100_000)
    budget = len(full.context) - 10  # just too small for all three
    a = assemble(records, budget_chars=budget)
    assert [s.record.source_id for s in a.sources] == ["d0", "d1"]
    assert a.markers == ("S1", "S2")
    assert not any(s.shortened for s in a.sources)
    assert [(r.record.source_id, r.reason) for r in a.dropped] == [("d2", RejectReason.OVER_BUDGET)]
    assert len(a.context) <= budget


def test_budget_then_shortens_the_longest_snippet_at_a_sentence_boundary() -> None:
    """When one record alone is too long, its snippet is cut after a whole sentence, and marked shortened."""
    text = "First sentence here. Second sentence here. Third sentence is the last one."
    r = rec("a:v1:0", "a", 0.9, text=text)
    header = source_header("S1", r)
    budget = len(header) + 1 + len("First sentence here. Second sentence here.") + 3
    a = assemble([r], budget_chars=budget)
    assert a.sources[0].snippet == "First sentence here. Second sentence here."
    assert a.sources[0].shortened
    assert len(a.context) <= budget


def test_shortening_works_on_chinese_sentences() -> None:
    """Chinese sentence ends (。) are sentence boundaries too."""
    text = "第一句话在这里。第二句话也在这里。第三句话是最后一句。"
    r = rec("a:v1:0", "a", 0.9, text=text)
    budget = len(source_header("S1", r)) + 1 + len("第一句话在这里。第二句话也在这里。")
    a = assemble([r], budget_chars=budget)
    assert a.sources[0].snippet == "第一句话在这里。第二句话也在这里。"


def test_shortening_trims_the_longest_of_several_snippets_first() -> None:
    """With min_keep=2 nothing is dropped; the longer snippet is the one shortened."""
    long = rec("a:v1:0", "a", 0.9, text="Long one. " * 20)
    short = rec("b:v1:0", "b", 0.8, text="Short one.")
    full = assemble([long, short], budget_chars=100_000)
    a = assemble([long, short], budget_chars=len(full.context) - 30, min_keep=2)
    by_source = {s.record.source_id: s for s in a.sources}
    assert by_source["a"].shortened and not by_source["b"].shortened
    assert by_source["b"].snippet == "Short one."


@pytest.mark.parametrize("budget", [120, 200, 400, 1000, 5000])
def test_every_snippet_is_exactly_the_text_in_the_context(budget: int) -> None:
    """The stored snippet is what the model saw: the body under its header, verbatim, and a prefix of the chunk."""
    records = [rec(f"d{i}:v1:0", f"d{i}", 1 - i / 10, text="甲乙丙丁。Sentence two here! " * (i + 2)) for i in range(4)]
    a = assemble(records, budget_chars=budget, max_sources=4)
    assert a.sources
    for s in a.sources:
        assert block_of(a.context, s.marker) == s.snippet
        assert s.record.text.strip().startswith(s.snippet)
        assert s.shortened == (s.snippet != s.record.text.strip())


def test_missing_metadata_is_labelled_not_invented() -> None:
    """No title shows the source_id; no locator says 'no location provided'; nothing else appears."""
    r = rec("policy/refund.md:v2:0", "policy/refund.md", 0.9)
    header = source_header("S1", r)
    assert header.startswith("[S1] policy/refund.md | no location provided")
    titled = rec("p:v1:0", "p", 0.9, title="Refunds", section="Terms > Returns", page=4)
    assert source_header("S1", titled).startswith("[S1] Refunds | Terms > Returns · p. 4")


def test_same_input_gives_identical_assembly() -> None:
    """Deterministic: assembling the same selection twice gives equal results."""
    sel = Selection(kept=tuple(rec(f"d{i}:v1:{i}", f"d{i % 2}", 0.5) for i in range(6)), rejected=(), threshold=0.3)
    assert assemble(sel, budget_chars=400, per_source=2) == assemble(sel, budget_chars=400, per_source=2)


def test_bad_arguments_are_refused() -> None:
    """A zero budget or zero per-source limit is a programming error, not an empty answer."""
    with pytest.raises(ValueError):
        assemble([], budget_chars=0)
    with pytest.raises(ValueError):
        assemble([], budget_chars=100, per_source=0)
