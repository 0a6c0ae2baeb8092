"""Answers: how an ask's run is stored (answer, paragraphs, citations, trace in one transaction),
and reads about stored answers that are not presentation.

The trace is serialised here and only here: every candidate with its scores, level and fate, the
marker map, the context and prompt, the settings that shaped the answer (rule 16).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from rag_app import access
from rag_app.locks import key_share
from rag_app.models import Answer, AnswerParagraph, Chunk, Citation, DocumentVersion, Trace
from rag_app.pipeline.conflict import shown_disagreement
from rag_app.pipeline.records import (
    AlignedAnswer,
    Assembly,
    ChunkRecord,
    Draft,
    EvidenceStatus,
    Rejection,
    Scope,
    Selection,
)
from rag_app.pipeline.tiering import threshold_for


@dataclass
class AskRun:
    """What one ask has gathered so far; whatever is here is stored, also on failure."""

    question: str
    mode: str
    language: str
    scope: Scope = field(default_factory=Scope)
    parent: Answer | None = None
    history: tuple[str, ...] = ()  # the thread's earlier questions, oldest first
    selection: Selection | None = None
    assembly: Assembly | None = None
    draft: Draft | None = None
    aligned: AlignedAnswer | None = None
    prompt: str = ""
    raw_output: str = ""
    model: str = ""
    error: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    # When the search had read the documents (the question's time until then): the answer's created_at. Whoever
    # may see what it rests on is decided as of this moment (access `existing_at`): a document stored later, even
    # under a source_id it read, was not what it read; one stored before, while it searched, may be.
    searched_at: dt.datetime = field(default_factory=timezone.now)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[f"{stage}_ms"] = round((time.perf_counter() - start) * 1000, 2)


def answer_store(run: AskRun, *, user: Any, state: str, reason: str, message: str) -> Answer:
    """One transaction: the answer, its paragraphs and citations, and the trace."""
    aligned = run.aligned if state == Answer.State.ANSWERED else None
    start = time.perf_counter()
    with transaction.atomic():
        answer = Answer.objects.create(
            created_at=run.searched_at,
            user=user if getattr(user, "is_authenticated", False) else None,
            question=run.question,
            language=run.language,
            state=state,
            reason=reason,
            message=message,
            mode=run.mode,
            model=run.model[:200],
            conflict=_conflict_shown(aligned),
            has_insufficient=bool(aligned and any(p.status != EvidenceStatus.LINKED for p in aligned.paragraphs)),
            # weak as it is shown: a linked paragraph's mark (an insufficient one is marked as such instead)
            has_weak=bool(aligned and any(p.weak and p.status == EvidenceStatus.LINKED for p in aligned.paragraphs)),
            timings=run.timings,
            scope=run.scope.stored_form(),
            parent=run.parent,
        )
        if aligned is not None and state == Answer.State.ANSWERED:
            _store_paragraphs(answer, aligned)
        Trace.objects.create(
            answer=answer,
            threshold=run.selection.threshold if run.selection else None,
            candidates=_candidates(run),
            context=run.assembly.context if run.assembly else "",
            prompt=run.prompt,
            marker_map=_marker_map(run.assembly),
            raw_output=run.raw_output,
            dropped_markers=list(run.aligned.dropped_markers) if run.aligned else [],
            settings_snapshot=_snapshot(run),
            error=run.error,
        )
    run.timings["persistence_ms"] = round((time.perf_counter() - start) * 1000, 2)
    return answer


def _conflict_shown(aligned: AlignedAnswer | None) -> bool:
    """The conflict flag as the answer shows it to a viewer shown every citation (conflict.shown_disagreement, the
    rule presentation.present_answer applies for each viewer; the answer lists read this flag only where the viewer
    is shown every paragraph, selectors._shown_flags): a disagreement the conflict check recorded between two cited
    documents. A model may declare a conflict citing one document: no banner could name two sides, so no flag
    either."""
    if aligned is None or not aligned.conflict:
        return False
    cited = {s.marker: s.record.source_id or "" for s in aligned.sources}
    return bool(shown_disagreement(aligned.notes.get("conflicts"), list(aligned.conflicting_markers), cited).markers)


class SourcesChanged(LookupError):
    """A chunk the answer cites is gone: its document was deleted while the question was answered."""


def _cited_chunks(aligned: AlignedAnswer) -> dict[str, int]:
    """chunk_id -> the key of the chunk row the search read: never found again by chunk_id, so that a document
    deleted meanwhile and another one stored under its source_id (the same chunk ids) is never cited in its place,
    and held until the answer commits (locks.key_share: a delete waits, then finds the answer citing them). Records
    built elsewhere (no key) are found by chunk_id."""
    keyed = {s.record.chunk_id: s.record.pk for s in aligned.sources if s.record.pk is not None}
    unkeyed = {s.record.chunk_id for s in aligned.sources if s.record.pk is None}
    found = key_share(Chunk, keyed.values())
    gone = sorted(chunk_id for chunk_id, pk in keyed.items() if pk not in found)
    if gone:
        raise SourcesChanged(f"cited chunks deleted while the question was answered: {', '.join(gone)}")
    if unkeyed:
        keyed.update(Chunk.objects.filter(chunk_id__in=unkeyed).values_list("chunk_id", "pk"))
    return keyed


def _store_paragraphs(answer: Answer, aligned: AlignedAnswer) -> None:
    by_marker = {s.marker: s for s in aligned.sources}
    chunks = _cited_chunks(aligned)
    citations: list[Citation] = []
    for order, para in enumerate(aligned.paragraphs):
        row = AnswerParagraph.objects.create(
            answer=answer,
            order=order,
            text=para.text,
            evidence_status=para.status.value,
            support=para.support,
            weak=para.weak,
        )
        for position, marker in enumerate(para.citation_ids):
            source = by_marker[marker]
            chunk_pk = chunks.get(source.record.chunk_id)
            if chunk_pk is None:  # the index returned a chunk the table does not hold: a bug, not a citation
                raise LookupError(f"cited chunk {source.record.chunk_id} is not in the chunk table")
            citations.append(
                Citation(
                    paragraph=row,
                    order=position,
                    marker=marker,
                    chunk_id=chunk_pk,
                    snippet=source.snippet,
                    score=source.record.relevance,
                    # The level as the search read it, kept as it was (an admin may rename or reweight it later).
                    level_slug=source.record.level or "",
                    level_label=(source.record.level_label or "") if source.record.level else "",
                    level_weight=source.record.level_weight if source.record.level else None,
                )
            )
    Citation.objects.bulk_create(citations)


def _record_row(record: ChunkRecord) -> dict[str, Any]:
    return {
        "chunk_id": record.chunk_id,
        "source_id": record.source_id,
        "version": record.version,
        "title": record.title,
        "level": record.level,
        "level_weight": record.level_weight,
        "level_label": record.level_label,
        "relevance": record.relevance,
        "lexical_score": record.lexical_score,
        "dense_score": record.dense_score,
        "standout": record.standout,
        "translated": record.translated,
        "language": record.language,
        "effective_from": record.effective_from.isoformat() if record.effective_from else None,
        "effective_until": record.effective_until.isoformat() if record.effective_until else None,
        "superseded_on": record.superseded_on.isoformat() if record.superseded_on else None,
    }


def _candidate_row(record: ChunkRecord, selection: Selection) -> dict[str, Any]:
    """A candidate's row in the trace: its record, why it was retrieved (search/explain.py), and the
    relevance it had to reach (`bar`: the threshold's share for its language and the question's,
    tiering.threshold_for), which the threshold alone does not say."""
    return _record_row(record) | {
        "held": [h.as_dict() for h in record.held],
        "missing": list(record.missing),
        "bar": round(threshold_for(record, selection.threshold, selection.asked_in, selection.value), 6),
    }


def _candidates(run: AskRun) -> list[dict[str, Any]]:
    """Every candidate with its scores, level and fate: kept (with marker) or rejected with a reason."""
    rows: list[dict[str, Any]] = []
    if run.selection is None:
        return rows
    markers = {s.record.chunk_id: s.marker for s in run.assembly.sources} if run.assembly else {}
    dropped = {r.record.chunk_id: r for r in run.assembly.dropped} if run.assembly else {}
    for rank, record in enumerate(run.selection.kept, start=1):
        row = _candidate_row(record, run.selection) | {"rank": rank, "stage": "tiering"}
        if record.chunk_id in dropped:
            rej = dropped[record.chunk_id]
            row |= {"kept": False, "stage": "assembly", **_rejection_row(rej)}
        else:
            row |= {"kept": True, "reason": None, "marker": markers.get(record.chunk_id)}
            if record.chunk_id in run.selection.continued:  # kept for the list a kept chunk leaves unfinished
                opener = run.selection.continued[record.chunk_id]
                row["detail"] = f"goes on with the list that {opener} introduces"
                row["facts"] = {"code": "continues_list", "of": opener}
            elif record.chunk_id in run.selection.beside:
                row["detail"] = run.selection.notes[record.chunk_id]
                row["facts"] = _beside_facts(record, run.selection)
            elif record.chunk_id in run.selection.notes:
                row["detail"] = run.selection.notes[record.chunk_id]
                row["facts"] = _copy_facts(record, run.selection)
        rows.append(row)
    for rej in run.selection.rejected:
        rows.append(
            _candidate_row(rej.record, run.selection)
            | {"rank": None, "stage": "tiering", "kept": False}
            | _rejection_row(rej)
        )
    return rows


def _rejection_row(rej: Rejection) -> dict[str, Any]:
    """Why a candidate was dropped: its reason code, the detail in English words (the API's), and the same as
    data (`facts`, absent where the code says all) that the pages put in the reader's language
    (presentation.decision_detail)."""
    row: dict[str, Any] = {"reason": rej.reason.value, "detail": rej.detail}
    if rej.facts:
        row["facts"] = dict(rej.facts)
    return row


def _copy_facts(record: ChunkRecord, selection: Selection) -> dict[str, Any]:
    """The data of a kept copy's note (tiering.select): its relevance and bar, and the original it qualified with."""
    original_id = selection.copies.get(record.chunk_id)
    original = next((r for r in selection.kept if r.chunk_id == original_id), None)
    return {
        "code": "copy_of",
        "relevance": record.relevance,
        "bar": threshold_for(record, selection.threshold, selection.asked_in, selection.value),
        "original": original_id,
        "original_relevance": original.relevance if original is not None else None,
    }


def _beside_facts(record: ChunkRecord, selection: Selection) -> dict[str, Any]:
    """The data of a note on a record judged beside a lower level's (tiering.beside): its relevance and bar, and the
    kept passage it was judged beside, with both cosines."""
    lower = selection.beside[record.chunk_id]
    return {
        "code": "beside",
        "relevance": record.relevance,
        "bar": threshold_for(record, selection.threshold, selection.asked_in, selection.value),
        "lower": lower.chunk_id,
        "level": lower.level,
        "cosine": record.dense_score,
        "lower_cosine": lower.cosine,
    }


def _marker_map(assembly: Assembly | None) -> dict[str, Any]:
    if assembly is None:
        return {}
    return {
        s.marker: _record_row(s.record)
        | {
            "snippet": s.snippet,
            "shortened": s.shortened,
            "section": s.record.section,
            "page": s.record.page,
            "locator": s.record.locator,
        }
        for s in assembly.sources
    }


def _snapshot(run: AskRun) -> dict[str, Any]:
    """Settings that shaped this answer (never secrets), plus the conflict verdict."""
    rag = settings.RAG
    keys = (
        "TOP_K",
        "CANDIDATES",
        "MIN_RELEVANCE",
        "EXPIRED_POLICY",
        "EMBEDDER",
        "CHUNKS_PER_SOURCE",
        "CONTEXT_BUDGET_CHARS",
        "MAX_SOURCES",
        "GENERATOR",
        "LLM_MODEL",
        "LLM_STRUCTURED",
        "MIN_SUPPORT",
    )
    snapshot: dict[str, Any] = {k.lower(): rag.get(k) for k in keys}
    snapshot["mode"] = run.mode
    snapshot["scope"] = run.scope.stored_form()
    snapshot["thread"] = list(run.history)
    snapshot["language"] = run.language
    snapshot["conflicting_markers"] = list(run.aligned.conflicting_markers) if run.aligned else []
    # What the conflict check found (values per kind) and, in a model's answer, the statements of the
    # sources it left out that it added (generation/extractive.with_disagreements).
    for key in ("conflicts", "statements_added"):
        if run.aligned and key in run.aligned.notes:
            snapshot[key] = run.aligned.notes[key]
    if run.draft is not None:
        snapshot["quoted"] = run.draft.quoted
        if run.draft.finish_reason:  # "length": the model was cut off at the token limit
            snapshot["finish_reason"] = run.draft.finish_reason
    return snapshot


def newer_versions(*, answer: Answer) -> dict[str, int]:
    """chunk_id -> current version number, for each cited chunk whose document has moved on (rule 15).

    The answer keeps showing what it cited; this only says that a newer version exists.
    """
    cited = Citation.objects.filter(paragraph__answer=answer).select_related("chunk__version")
    out: dict[str, int] = {}
    stale = {c.chunk.chunk_id: c.chunk.version.document_id for c in cited if not c.chunk.version.is_current}
    if not stale:
        return out
    current = dict(
        DocumentVersion.objects.filter(document_id__in=set(stale.values()), is_current=True).values_list(
            "document_id", "version"
        )
    )
    for chunk_id, document_id in stale.items():
        if document_id in current:
            out[chunk_id] = current[document_id]
    return out


@dataclass(frozen=True)
class ReplayRow:
    """One chunk in a replay: its fate now and its fate in the original run, at the same stages."""

    record: ChunkRecord
    now: str  # "kept", or the rejection reason (tiering: below_threshold, ...; assembly: duplicate_source, ...)
    then: str | None  # the same for the original run; None: it was not a candidate then
    # False: no candidate now (a chunk the answer used whose document was retired or replaced, or that the search no
    # longer finds: `now` says which); its record has no relevance of today.
    candidate: bool = True
    # The chunk of an older version of the same document, with the same text, whose fate `then` is (a new version
    # of a document carries most of its chunks over unchanged: the same passage, not a new candidate).
    then_as: str | None = None

    @property
    def changed(self) -> bool:
        return self.now != self.then


def answer_replay(*, answer: Answer, user: Any, then: dict[str, str]) -> tuple[list[ReplayRow], float]:
    """Retrieval, tiering and assembly again for the answer's question, with `user`'s permissions, searched as
    it was asked: with its thread's earlier question (a follow-up), within its scope, in its language.

    `then` maps chunk_id -> the original fate as the reviewer may see it ("kept" or the reason).
    Returns the rows and the threshold used now: first the chunks the answer used whose fate changed (dropped now,
    or no candidate at all: retired, replaced, not found), which a reviewer replays to learn about, then the kept,
    then the rejected, each in rank order.
    """
    from rag_app.search.hybrid import retrieve  # imported late: the search layer loads its backends lazily
    from rag_app.services.ask import asked_thread, assemble_selection, retrieval_text
    from rag_app.services.scope import current_scope

    # The documents it was asked within, those the reviewer may read that existed then: a deleted document's
    # source_id reused later names another document, which was not asked about. When none is left, nothing is
    # searched (searching everything would be another question).
    scope = current_scope(Scope.stored(answer.scope))  # its groups as they are called now
    if scope.documents:
        readable = access.visible_source_ids(user, among=scope.documents, existing_at=answer.created_at)
        scope = dataclasses.replace(scope, documents=tuple(d for d in scope.documents if d in readable))
        if not scope.documents:
            return [], float(settings.RAG["MIN_RELEVANCE"])
    selection = retrieve(
        user=user,
        question=retrieval_text(answer.question, asked_thread(answer)),
        scope=scope,
        language=answer.language or None,
    )
    dropped = {d.record.chunk_id: d.reason.value for d in assemble_selection(selection).dropped}
    now = [(rec, dropped.get(rec.chunk_id, "kept")) for rec in selection.kept]
    now += [(r.record, r.reason.value) for r in selection.rejected]
    carried = _carried_over([rec for rec, _ in now], then)
    rows = [
        ReplayRow(
            rec,
            fate,
            then.get(rec.chunk_id, then.get(carried.get(rec.chunk_id, ""))),
            then_as=carried.get(rec.chunk_id),
        )
        for rec, fate in now
    ]
    seen = {row.record.chunk_id for row in rows} | set(carried.values())
    rows += _no_longer_candidates(
        [chunk_id for chunk_id, fate in then.items() if fate == "kept" and chunk_id not in seen], answer, user
    )
    # A stable sort: within each group the rank order stays.
    rows.sort(key=lambda row: not (row.then == "kept" and row.changed))
    return rows, selection.threshold


def _carried_over(records: list[ChunkRecord], then: dict[str, str]) -> dict[str, str]:
    """chunk_id now -> the candidate of then it carries over: a chunk of an older version of the same document with
    the same text (a new version whose passage did not change). Only for a chunk that was no candidate itself."""
    fresh = [rec for rec in records if rec.chunk_id not in then and rec.source_id]
    if not fresh or not then:
        return {}
    older = Chunk.objects.filter(
        chunk_id__in=list(then), version__document__source_id__in={rec.source_id for rec in fresh}
    ).values_list("chunk_id", "version__document__source_id", "version__version", "text")
    by_text: dict[tuple[str, str], tuple[int, str]] = {}
    for chunk_id, source_id, version, text in older:
        key = (source_id, text)
        if key not in by_text or version > by_text[key][0]:  # the newest older version's, should several match
            by_text[key] = (version, chunk_id)
    out: dict[str, str] = {}
    for rec in fresh:
        match = by_text.get((rec.source_id or "", rec.text))
        if match is not None and match[0] < rec.version:
            out[rec.chunk_id] = match[1]
    return out


# A replay's fate for a chunk the answer used that is no candidate now, and why (rag_app.presentation names them).
DOCUMENT_RETIRED = "document_retired"
VERSION_REPLACED = "version_replaced"
NOT_RETRIEVED = "not_retrieved"


def _no_longer_candidates(chunk_ids: list[str], answer: Answer, user: Any) -> list[ReplayRow]:
    """Rows for the chunks the answer used (`chunk_ids`, kept then) that are no candidate now: its document was
    retired, a newer version replaced it, or the search no longer finds it. Only chunks `user` may read, of documents
    that existed when the answer was made (a reused source_id names another document); a deleted one has no row."""
    from rag_app import selectors  # the read rules; selectors reads services' models only

    if not chunk_ids:
        return []
    chunks = (
        selectors.chunks_visible_to(user, existing_at=answer.created_at)
        .filter(chunk_id__in=chunk_ids, version__created_at__lte=answer.created_at)
        .select_related("version__document__level")
    )
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    rows = []
    for chunk_id in chunk_ids:  # in the order the answer's trace lists them
        chunk = by_id.get(chunk_id)
        if chunk is None:
            continue
        version, document = chunk.version, chunk.version.document
        fate = (
            DOCUMENT_RETIRED
            if document.retired_at is not None
            else VERSION_REPLACED
            if not version.is_current
            else NOT_RETRIEVED
        )
        record = ChunkRecord(
            chunk_id=chunk.chunk_id,
            source_id=document.source_id,
            version=version.version,
            index=chunk.index,
            text=chunk.text,
            title=document.title or None,
            section=chunk.section or None,
            page=chunk.page,
            level=document.level.slug if document.level else None,
            level_weight=document.level.weight if document.level else 0.0,
        )
        rows.append(ReplayRow(record, fate, "kept", candidate=False))
    return rows
