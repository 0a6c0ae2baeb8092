"""Alignment (rules 5, 12): only this answer's markers survive; the rest are dropped and reported."""

from __future__ import annotations

from rag_app.pipeline.alignment import align, canonical_marker, extract_markers
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.records import Assembly, ChunkRecord, Draft, DraftParagraph, EvidenceStatus


def assembly_of(n: int) -> Assembly:
    records = [
        ChunkRecord(
            chunk_id=f"d{i}:v1:0", source_id=f"d{i}", version=1, index=0, text=f"Snippet {i}.", relevance=1 - i / 10
        )
        for i in range(1, n + 1)
    ]
    return assemble(records, budget_chars=10_000, max_sources=n)


def draft(*paragraphs: DraftParagraph) -> Draft:
    return Draft(paragraphs=paragraphs)


def test_an_invented_marker_is_dropped_and_reported_never_repaired() -> None:
    """S9 does not exist in a 3-source map: deleted from the text, listed in dropped_markers."""
    out = align(draft(DraftParagraph("Refunds take 30 days [S9].")), assembly_of(3))
    para = out.paragraphs[0]
    assert para.text == "Refunds take 30 days."
    assert para.citation_ids == ()
    assert para.status == EvidenceStatus.INSUFFICIENT
    assert out.dropped_markers == ("S9",)
    assert out.sources == ()


def test_valid_and_invalid_markers_in_one_paragraph() -> None:
    """The valid marker links the paragraph; the invented one is dropped (not mapped to a neighbour)."""
    out = align(draft(DraftParagraph("Text [S2][S7].", ("S12",))), assembly_of(3))
    assert out.paragraphs[0].citation_ids == ("S2",)
    assert out.paragraphs[0].status == EvidenceStatus.LINKED
    assert out.dropped_markers == ("S12", "S7")


def test_duplicate_markers_count_once() -> None:
    """A marker repeated in text and citation_ids is cited once per paragraph, listed once in sources."""
    out = align(
        draft(DraftParagraph("One [S1]. Two [S1].", ("S1", "S1")), DraftParagraph("Three [S1][S2].")), assembly_of(2)
    )
    assert out.paragraphs[0].citation_ids == ("S1",)
    assert out.paragraphs[1].citation_ids == ("S1", "S2")
    assert [s.marker for s in out.sources] == ["S1", "S2"]


def test_sources_are_in_first_citation_order_with_original_markers() -> None:
    """Cited S3 before S1: sources list S3 then S1, markers unchanged (no renumbering)."""
    out = align(draft(DraftParagraph("A [S3]."), DraftParagraph("B [S1][S3].")), assembly_of(3))
    assert [s.marker for s in out.sources] == ["S3", "S1"]
    assert [s.record.source_id for s in out.sources] == ["d3", "d1"]


def test_an_empty_answer_has_no_paragraphs_and_no_sources() -> None:
    """Nothing written: no paragraphs, no sources; the service decides what state that is."""
    out = align(draft(), assembly_of(2))
    assert out.paragraphs == () and out.sources == ()
    blank = align(draft(DraftParagraph("   "), DraftParagraph("[S1]")), assembly_of(2))
    assert blank.paragraphs == () and blank.sources == ()


def test_markers_inside_words_are_not_markers() -> None:
    """MS1, S1x or a bare S2 in prose are text; only bracketed ids are markers."""
    text = "Model MS1 and part S2 ship with kit S1x."
    out = align(draft(DraftParagraph(text)), assembly_of(2))
    assert out.paragraphs[0].text == text
    assert out.paragraphs[0].status == EvidenceStatus.INSUFFICIENT
    assert out.dropped_markers == ()


def test_a_bracketed_marker_glued_inside_a_word_is_still_a_marker() -> None:
    """Chinese text has no spaces: 退款[S1]期限 cites S1 and reads 退款期限."""
    out = align(draft(DraftParagraph("退款[S1]期限为30天。")), assembly_of(1))
    assert out.paragraphs[0].text == "退款期限为30天。"
    assert out.paragraphs[0].citation_ids == ("S1",)


def test_fullwidth_brackets_and_digits_are_markers() -> None:
    """【S1】, ［S2］ and Ｓ２ are the same markers as [S1] and [S2]."""
    out = align(draft(DraftParagraph("退款期限为30天【S1】，需要发票［Ｓ２］。")), assembly_of(2))
    assert out.paragraphs[0].citation_ids == ("S1", "S2")
    assert out.paragraphs[0].text == "退款期限为30天，需要发票。"


def test_grouped_markers_in_one_bracket() -> None:
    """[S1, S2] and [S1、S2] cite both."""
    out = align(draft(DraftParagraph("Both say so [S1, S2]."), DraftParagraph("都这么说[S2、S1]。")), assembly_of(2))
    assert out.paragraphs[0].citation_ids == ("S1", "S2")
    assert out.paragraphs[1].citation_ids == ("S2", "S1")


def test_citation_ids_that_are_not_marker_ids_are_dropped() -> None:
    """'source 1' or '1' in citation_ids is not a marker; it is reported, never guessed."""
    out = align(draft(DraftParagraph("Text.", ("source 1", "1", " s1 "))), assembly_of(1))
    assert out.paragraphs[0].citation_ids == ("S1",)
    assert out.dropped_markers == ("source 1", "1")


def test_marker_of_larger_number_is_not_read_as_a_smaller_one() -> None:
    """[S12] with a 2-source map is dropped, not taken as S1."""
    out = align(draft(DraftParagraph("Text [S12].")), assembly_of(2))
    assert out.paragraphs[0].citation_ids == ()
    assert out.dropped_markers == ("S12",)


def test_conflict_flag_of_the_draft_is_kept() -> None:
    """A generator that declared a conflict keeps it through alignment."""
    out = align(Draft(paragraphs=(DraftParagraph("A [S1]."),), conflict=True), assembly_of(1))
    assert out.conflict


def test_canonical_marker_and_extract_markers() -> None:
    """Helpers: marker ids are normalised; extract_markers returns clean text and markers in order."""
    assert canonical_marker("s 3") == "S3"
    assert canonical_marker("S03") == "S3"
    assert canonical_marker("S") is None
    assert extract_markers("A [S2] b【S1】.") == ("A b.", ["S2", "S1"])


def test_malformed_marker_brackets_are_deleted_and_reported_not_expanded() -> None:
    """[S1-S3] is not read as S1, S2, S3: it is removed from the text and listed as dropped."""
    out = align(draft(DraftParagraph("All agree [S1-S3]. Also [S2 and S9].")), assembly_of(3))
    para = out.paragraphs[0]
    assert para.text == "All agree. Also."
    assert para.citation_ids == ()
    assert out.dropped_markers == ("[S1-S3]", "[S2 and S9]")


def test_markers_in_ascii_parentheses_are_markers_and_other_parentheses_text():
    """Models write "(S1)" as often as "[S1]": a parenthesis holding only marker ids is one; any other stays text (a
    parenthesis is never taken for a malformed marker)."""
    assert extract_markers("Refunds take 30 days (S1).") == ("Refunds take 30 days.", ["S1"])
    assert extract_markers("Both say so (S1, S2).") == ("Both say so.", ["S1", "S2"])
    assert extract_markers("Built as (S3 class) ships.") == ("Built as (S3 class) ships.", [])
    assert extract_markers("A model (S10) of 2019.") == ("A model of 2019.", ["S10"])
