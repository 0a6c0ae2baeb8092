"""What the answer templates show, built from stored rows for one viewer.

Numbers come from the stored markers (S3 -> 3), so the paragraph footnote, the hover card
and the source panel always agree; nothing here renumbers or re-sorts what assembly decided.
Citations of documents the viewer may not see are left out entirely (not even a hover card).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

from rag_app.highlight import highlight_snippet
from rag_app.models import Answer, AnswerParagraph, SourceLevel
from rag_app.permissions import visible_document_ids
from rag_app.pipeline.textproc import query_terms
from rag_app.presenters import citation_locator
from rag_app.selectors import cited_document_ids

_MARKER_RE = re.compile(r"^S(\d+)$")

# Why nothing qualified, by the reason code rag_app.services stores (shown translated).
NO_EVIDENCE_REASONS = {
    "no_qualified_sources": _("Some passages matched, but none was relevant enough to answer from."),
    "no_matches": _("No document matched the terms of the question."),
    "empty_index": _("There are no documents you may search yet."),
    "no_citable_sources": _("The matching passages have no source id, so they cannot be cited."),
}


def marker_number(marker: str) -> int | None:
    m = _MARKER_RE.match(marker.strip())
    return int(m.group(1)) if m else None


def chunk_url(source_id: str, version: int, index: int) -> str:
    """Document viewer link that highlights (?chunk=) and scrolls to (#chunk-) the cited chunk."""
    return reverse("document_version", args=[source_id, version]) + f"?chunk={index}#chunk-{index}"


@dataclass
class CardView:
    """One footnote marker with its hover card."""

    number: int | None
    marker: str
    source_id: str
    title: str
    level_slug: str
    level_label: str
    score: float | None
    locator: str | None
    version: int
    is_current: bool
    snippet_html: SafeString
    url: str
    dom_id: str


@dataclass
class ParagraphView:
    order: int
    text: str
    insufficient: bool
    weak: bool
    support: float | None
    cards: list[CardView]
    # Every citation of the paragraph points at documents the viewer may not see: its text
    # is derived from them, so it is not shown either.
    withheld: bool = False


@dataclass
class SourceView:
    """One document in the source panel, with every marker that cites it."""

    source_id: str
    title: str
    level_slug: str
    level_label: str
    cards: list[CardView] = field(default_factory=list)

    @property
    def numbers(self) -> list[int | None]:
        seen: list[int | None] = []
        for card in self.cards:
            if card.number not in seen:
                seen.append(card.number)
        return seen


@dataclass
class AnswerView:
    answer: Answer
    paragraphs: list[ParagraphView]
    sources: list[SourceView]
    quoted: bool
    conflict_sources: list[SourceView]
    searched_terms: list[str] = field(default_factory=list)

    @property
    def no_evidence_reason(self) -> str:
        return str(NO_EVIDENCE_REASONS.get(self.answer.reason, ""))

    @property
    def is_answered(self) -> bool:
        return self.answer.state == Answer.State.ANSWERED

    @property
    def is_no_evidence(self) -> bool:
        return self.answer.state == Answer.State.NO_EVIDENCE

    @property
    def is_error(self) -> bool:
        return self.answer.state == Answer.State.ERROR


def _conflicting_markers(answer: Answer) -> set[str] | None:
    """Markers the pipeline named as disagreeing, when it recorded them; None = not recorded."""
    trace = getattr(answer, "trace", None)
    if trace is None:
        return None
    for holder in (trace.settings_snapshot, trace.marker_map):
        if isinstance(holder, dict) and isinstance(holder.get("conflicting_markers"), list):
            return {str(m) for m in holder["conflicting_markers"]}
    return None


def _is_quotation(answer: Answer) -> bool:
    """Extractive answers are verbatim quotations; the trace says so when the generator did."""
    trace = getattr(answer, "trace", None)
    quoted = trace.settings_snapshot.get("quoted") if trace is not None else None
    return bool(quoted) if isinstance(quoted, bool) else answer.mode == Answer.Mode.EXTRACTIVE


def build_answer_view(answer: Answer, *, user: Any) -> AnswerView:
    visible = visible_document_ids(user, among=cited_document_ids(answer))
    labels = dict(SourceLevel.objects.values_list("slug", "label"))
    paragraphs: list[ParagraphView] = []
    sources: dict[str, SourceView] = {}
    rows = AnswerParagraph.objects.filter(answer=answer).prefetch_related("citations__chunk__version__document__level")
    for para in rows.order_by("order"):
        cards: list[CardView] = []
        citations = sorted(para.citations.all(), key=lambda c: c.order)
        for cit in citations:
            version = cit.chunk.version
            doc = version.document
            if doc.pk not in visible:
                continue
            number = marker_number(cit.marker)
            card = CardView(
                number=number,
                marker=cit.marker,
                source_id=doc.source_id,
                title=doc.display_title,
                level_slug=cit.level_slug,
                level_label=labels.get(cit.level_slug, cit.level_slug),
                score=cit.score,
                locator=citation_locator(cit),
                version=version.version,
                is_current=version.is_current,
                snippet_html=highlight_snippet(cit.snippet, para.text),
                url=chunk_url(doc.source_id, version.version, cit.chunk.index),
                dom_id=f"card-{para.order}-{cit.pk}",
            )
            cards.append(card)
            source = sources.setdefault(
                doc.source_id,
                SourceView(
                    source_id=doc.source_id,
                    title=doc.display_title,
                    level_slug=card.level_slug,
                    level_label=card.level_label,
                ),
            )
            if all(c.marker != card.marker for c in source.cards):
                source.cards.append(card)
        withheld = bool(citations) and not cards
        paragraphs.append(
            ParagraphView(
                order=para.order,
                text="" if withheld else para.text,
                insufficient=not withheld
                and (para.evidence_status == AnswerParagraph.Status.INSUFFICIENT or not cards),
                weak=para.weak,
                support=para.support,
                cards=cards,
                withheld=withheld,
            )
        )
    conflict_sources: list[SourceView] = []
    if answer.conflict:
        named = _conflicting_markers(answer)
        conflict_sources = [s for s in sources.values() if named is None or any(c.marker in named for c in s.cards)]
    return AnswerView(
        answer=answer,
        paragraphs=paragraphs,
        sources=list(sources.values()),
        quoted=_is_quotation(answer),
        conflict_sources=conflict_sources,
        searched_terms=query_terms(answer.question) if answer.state == Answer.State.NO_EVIDENCE else [],
    )
