"""The answer as JSON: what `ask --json` prints and the API returns (issue 6's answer shape).

Built from stored rows only: the paragraphs and citations as saved, the snippet exactly as the
model saw it, the version the citation is pinned to (not the document's current one). `sources`
holds the cited records, each marker once, in first-citation order; every id in a paragraph's
citation_ids is in `sources` and nothing else is. Missing metadata stays missing (null), never
invented; display_title falls back to the source_id (rule 7).
"""

from __future__ import annotations

from typing import Any

from rag_app.models import Answer, AnswerParagraph, Citation
from rag_app.pipeline.records import format_locator


def citation_locator(citation: Citation) -> str | None:
    return format_locator(citation.chunk.section, citation.chunk.page)


def source_payload(citation: Citation) -> dict[str, Any]:
    chunk = citation.chunk
    document = chunk.version.document
    return {
        "id": citation.marker,
        "chunk_id": chunk.chunk_id,
        "source_id": document.source_id,
        "version": chunk.version.version,
        "title": document.title or None,
        "display_title": document.display_title,
        "url": document.url or None,
        "locator": citation_locator(citation),
        "section": chunk.section or None,
        "page": chunk.page,
        "start_offset": chunk.start,
        "end_offset": chunk.end,
        "source_level": citation.level_slug or None,
        "score": citation.score,
        "snippet": citation.snippet,
    }


def answer_payload(answer: Answer, *, visible_document_ids: set[int] | None = None) -> dict[str, Any]:
    """The answer JSON. With `visible_document_ids`, citations of other documents are left out
    (their markers too), so a viewer never learns of a document they may not read."""
    paragraphs: list[dict[str, Any]] = []
    sources: dict[str, dict[str, Any]] = {}
    rows = (
        AnswerParagraph.objects.filter(answer=answer)
        .order_by("order")
        .prefetch_related("citations__chunk__version__document")
    )
    for para in rows:
        ids: list[str] = []
        for citation in sorted(para.citations.all(), key=lambda c: (c.order, c.pk)):
            if visible_document_ids is not None and citation.chunk.version.document_id not in visible_document_ids:
                continue
            if citation.marker not in ids:
                ids.append(citation.marker)
            sources.setdefault(citation.marker, source_payload(citation))
        paragraphs.append(
            {
                "text": para.text,
                "citation_ids": ids,
                # A linked paragraph whose every citation is hidden from this viewer reads as unsupported.
                "evidence_status": para.evidence_status if ids or not para.citations.all() else "insufficient",
                "support": para.support,
            }
        )
    return {
        "id": answer.pk,
        "question": answer.question,
        "state": answer.state,
        "reason": answer.reason or None,
        "mode": answer.mode,
        "created_at": answer.created_at.isoformat(),
        "conflict": answer.conflict,
        "paragraphs": paragraphs,
        "sources": list(sources.values()),
    }


__all__ = ["answer_payload", "citation_locator", "source_payload"]
