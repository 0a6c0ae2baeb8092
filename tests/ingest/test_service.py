"""rag_app/ingest/service.py: idempotent, versioned, atomic ingest (rule 15: versions keep their chunks)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from django.test import override_settings

from rag_app.ingest.parsers import EmptyDocument, FileTooLarge, ParseError, UndecodableText
from rag_app.ingest.service import IngestError, IngestStatus, document_ingest
from rag_app.models import Chunk, Document, DocumentVersion, LevelChange, SourceLevel
from tests.factories import chunks_of, ingest_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
V1 = "退款期限为三十天。Refunds are accepted within 30 days of purchase."
V2 = "退款期限为十四天。Refunds are accepted within 14 days of purchase."


def _no_rows() -> bool:
    return not (Document.objects.exists() or DocumentVersion.objects.exists() or Chunk.objects.exists())


@pytest.mark.django_db
def test_new_then_unchanged_then_updated(levels: dict[str, SourceLevel]) -> None:
    """Same content again creates no version; changed content creates v2 and moves is_current."""
    first = ingest_text(V1, source_id="policy/refunds")
    again = ingest_text(V1, source_id="policy/refunds")
    changed = ingest_text(V2, source_id="policy/refunds")
    assert (first.status, first.version) == (IngestStatus.NEW, 1)
    assert (again.status, again.version, again.version_id) == (IngestStatus.UNCHANGED, 1, first.version_id)
    assert (changed.status, changed.version) == (IngestStatus.UPDATED, 2)
    versions = DocumentVersion.objects.filter(document__source_id="policy/refunds").order_by("version")
    assert [(v.version, v.is_current) for v in versions] == [(1, False), (2, True)]


@pytest.mark.django_db
def test_old_version_chunks_stay_readable_with_their_own_ids(levels: dict[str, SourceLevel]) -> None:
    """After an update, v1's chunks still exist with v1 chunk_ids and v1 text (old answers keep them)."""
    ingest_text(V1, source_id="refunds")
    ingest_text(V2, source_id="refunds")
    old, new = chunks_of("refunds", version=1), chunks_of("refunds", version=2)
    assert [c.chunk_id for c in old] == ["refunds:v1:0"]
    assert [c.chunk_id for c in new] == ["refunds:v2:0"]
    assert "三十天" in old[0].text and "十四天" in new[0].text
    assert chunks_of("refunds") == new


@pytest.mark.django_db
def test_chunk_offsets_index_the_version_text(levels: dict[str, SourceLevel]) -> None:
    """version.text[start:end] == chunk.text for every chunk, with section paths from the parser."""
    data = (FIXTURES / "apache_excerpt.md").read_bytes()
    result = document_ingest(data=data, file_name="apache.md", source_id="apache", level="official")
    version = DocumentVersion.objects.get(pk=result.version_id)
    chunks = list(version.chunks.order_by("index"))
    assert len(chunks) == result.chunks > 3
    for c in chunks:
        assert version.text[c.start : c.end] == c.text
        assert c.chunk_id == f"apache:v1:{c.index}"
        assert c.search_text and c.token_count == len(c.search_text.split())
    assert chunks[-1].section.startswith("Apache License, Version 2.0 > ")
    doc = Document.objects.get(source_id="apache")
    assert (doc.title, doc.level.slug if doc.level else None) == ("Apache License, Version 2.0", "official")
    assert (version.mime, version.file_name, version.language) == ("text/markdown", "apache.md", "en")


@pytest.mark.django_db
def test_same_text_in_another_encoding_is_unchanged(levels: dict[str, SourceLevel]) -> None:
    """The content hash is over the normalised text: re-saving as GB18030 is not a new version."""
    utf8 = document_ingest(data=(FIXTURES / "zh_utf8.txt").read_bytes(), file_name="a.txt", source_id="baobab")
    gb = document_ingest(data=(FIXTURES / "zh_gb18030.txt").read_bytes(), file_name="a.txt", source_id="baobab")
    assert (utf8.status, gb.status) == (IngestStatus.NEW, IngestStatus.UNCHANGED)


@pytest.mark.django_db
def test_metadata_kept_unless_given_and_level_change_audited(levels: dict[str, SourceLevel]) -> None:
    """None keeps title/url/level; a new level is recorded as a LevelChange by ingestion (user None)."""
    ingest_text(V1, source_id="d", title="Refunds", url="https://example.org/r", level="note", groups=["hr"])
    document_ingest(data=V1.encode(), file_name="d.txt", source_id="d")  # no title/url/level/groups given
    doc = Document.objects.get(source_id="d")
    assert (doc.title, doc.url, doc.level.slug if doc.level else None) == ("Refunds", "https://example.org/r", "note")
    assert list(doc.groups.values_list("name", flat=True)) == ["hr"]
    document_ingest(data=V1.encode(), file_name="d.txt", source_id="d", level="official")
    change = LevelChange.objects.get(document=doc)
    assert (change.user, change.old_value, change.new_value) == (None, "note", "official")


@pytest.mark.django_db
def test_effective_dates_stored_and_validated(levels: dict[str, SourceLevel]) -> None:
    """Effective dates land on the version; until-before-from is rejected before anything is written."""
    result = ingest_text(V1, source_id="d", effective_from=dt.date(2024, 1, 1), effective_until=dt.date(2024, 12, 31))
    version = DocumentVersion.objects.get(pk=result.version_id)
    assert (version.effective_from, version.effective_until) == (dt.date(2024, 1, 1), dt.date(2024, 12, 31))
    with pytest.raises(IngestError, match="before"):
        ingest_text(V2, source_id="e", effective_from=dt.date(2024, 2, 1), effective_until=dt.date(2024, 1, 1))
    assert not Document.objects.filter(source_id="e").exists()


@pytest.mark.django_db
def test_unknown_level_is_rejected_with_known_levels(levels: dict[str, SourceLevel]) -> None:
    """An unknown level slug names the known ones and writes nothing."""
    with pytest.raises(IngestError, match="official"):
        document_ingest(data=V1.encode(), file_name="a.txt", source_id="a", level="secret")
    assert _no_rows()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("empty.txt", b"", EmptyDocument),
        ("binary.txt", b"\x00\x01\x02\x03" * 100, UndecodableText),
        ("invalid.txt", b"caf\xc3\x28 " + bytes(range(128, 256)) * 8, UndecodableText),
        ("bom-garbage.txt", b"\xff\xfe" + bytes(range(0, 256)) * 4, UndecodableText),
        ("broken.pdf", (FIXTURES / "broken.pdf").read_bytes(), ParseError),
    ],
)
def test_bad_input_leaves_no_rows(levels: dict[str, SourceLevel], name: str, data: bytes, error: type) -> None:
    """Empty, binary, invalid and broken files raise a clear error and leave no Document/Version/Chunk."""
    with pytest.raises(error):
        document_ingest(data=data, file_name=name, source_id=name, level="official")
    assert _no_rows()


@pytest.mark.django_db
def test_bad_update_keeps_the_current_version(levels: dict[str, SourceLevel]) -> None:
    """A broken new upload of an existing document changes nothing: v1 stays current."""
    ingest_text(V1, source_id="r")
    with pytest.raises(ParseError):
        document_ingest(data=b"", file_name="r.txt", source_id="r")
    assert list(DocumentVersion.objects.values_list("version", "is_current")) == [(1, True)]


@pytest.mark.django_db
def test_fifty_megabyte_file_is_refused_before_parsing(levels: dict[str, SourceLevel]) -> None:
    """A 50 MB file over the limit raises FileTooLarge naming the limit; nothing is written."""
    data = b"a" * (50 * 1024 * 1024)
    with pytest.raises(FileTooLarge, match="RAG_MAX_UPLOAD_BYTES"):
        document_ingest(data=data, file_name="big.txt", source_id="big")
    assert _no_rows()


@pytest.mark.django_db
@override_settings(RAG={"MAX_UPLOAD_BYTES": 64 * 1024 * 1024, "CHUNK_TARGET": 350, "CHUNK_MAX": 600})
def test_fifty_megabyte_binary_under_a_raised_limit_still_fails_cleanly(levels: dict[str, SourceLevel]) -> None:
    """With the limit raised, a 50 MB binary file is still refused by the parser, leaving no rows."""
    data = b"\x00\xff" * (25 * 1024 * 1024)
    with pytest.raises(UndecodableText):
        document_ingest(data=data, file_name="big.txt", source_id="big")
    assert _no_rows()


@pytest.mark.django_db
def test_source_id_must_not_be_blank(levels: dict[str, SourceLevel]) -> None:
    """A blank source_id is an IngestError with its own code."""
    with pytest.raises(IngestError) as info:
        document_ingest(data=V1.encode(), file_name="a.txt", source_id="  ")
    assert info.value.code == "invalid_source_id"


@pytest.mark.django_db
def test_url_must_be_http(levels: dict[str, SourceLevel]) -> None:
    """A url that is not http(s) is refused (it becomes a link in the UI); nothing is written."""
    with pytest.raises(IngestError) as info:
        document_ingest(data=V1.encode(), file_name="a.txt", source_id="a", url="javascript:alert(1)")
    assert info.value.code == "invalid_url"
    assert _no_rows()


@pytest.mark.django_db
def test_very_long_heading_path_is_clipped_to_the_column(levels: dict[str, SourceLevel]) -> None:
    """A section path longer than the column is clipped with an ellipsis instead of failing the ingest."""
    heading = "很长的标题" * 250
    result = document_ingest(data=f"# {heading}\n\n正文。\n".encode(), file_name="long.md", source_id="long")
    chunk = Chunk.objects.get(version_id=result.version_id)
    assert len(chunk.section) == 1000 and chunk.section.endswith("…")
