"""Ask orchestration: question -> retrieval -> assembly -> generation -> alignment -> support -> storage.

Every valid question is stored, whatever happens: answered, no_evidence (the model is not
called) or error (with the trace so far). Nothing holds a database transaction across the
model call; the answer, its paragraphs, citations and trace land in ONE transaction at the end.
Application logs get a redacted summary (no question text, no snippets); the trace keeps the
full record for reviewers (rule 16).
"""

from __future__ import annotations

import hashlib
import logging
import time
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.conf import settings
from django.db import transaction

from rag_app.generation import GenerationError, get_generator, resolve_mode
from rag_app.models import Answer, AnswerParagraph, Chunk, Citation, DocumentVersion, Trace
from rag_app.pipeline.alignment import align
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.conflict import annotate_conflicts
from rag_app.pipeline.records import AlignedAnswer, Assembly, ChunkRecord, Draft, EvidenceStatus, Selection
from rag_app.pipeline.support import Similarity, apply_support
from rag_app.pipeline.textproc import detect_language

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000

# Reason codes stored on Answer.reason.
NO_QUALIFIED_SOURCES = "no_qualified_sources"  # candidates found, none passed tiering
NO_MATCHES = "no_matches"  # the index has documents, none matched the question
EMPTY_INDEX = "empty_index"  # nothing the user may search has been ingested
NO_CITABLE_SOURCES = "no_citable_sources"  # qualified records, none with a source_id
EMPTY_ANSWER = "empty_answer"  # the generator returned nothing to show
INTERNAL_ERROR = "internal_error"

NO_EVIDENCE_MESSAGES = {
    NO_QUALIFIED_SOURCES: "Some passages matched, but none was relevant enough to answer from. "
    "Try rephrasing, use the documents' own terms, or ask a reviewer.",
    NO_MATCHES: "No document matched the question. Try other terms, or ask a reviewer whether the topic is covered.",
    EMPTY_INDEX: "There are no documents to search yet. Ask an administrator to add some.",
    NO_CITABLE_SOURCES: "The matching passages have no source id, so they cannot be cited. Ask a reviewer.",
}


class InvalidQuestion(ValueError):
    """The question cannot be asked (empty, too long, not text, bad mode). Nothing is stored."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class _Run:
    """What one ask has gathered so far; whatever is here is stored, also on failure."""

    question: str
    mode: str
    language: str
    selection: Selection | None = None
    assembly: Assembly | None = None
    draft: Draft | None = None
    aligned: AlignedAnswer | None = None
    prompt: str = ""
    raw_output: str = ""
    model: str = ""
    error: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def timed(self, stage: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[f"{stage}_ms"] = round((time.perf_counter() - start) * 1000, 2)


def clean_question(question: object) -> str:
    """The question as it will be asked and stored, or InvalidQuestion."""
    if not isinstance(question, str):
        raise InvalidQuestion("The question must be text.", "invalid_question")
    text = unicodedata.normalize("NFC", question).strip()
    if not text:
        raise InvalidQuestion("The question is empty.", "empty_question")
    if any(unicodedata.category(ch) in {"Cc", "Cs", "Co", "Cn"} and ch not in "\n\t" for ch in text):
        raise InvalidQuestion("The question contains control or non-text characters.", "invalid_question")
    if len(text) > MAX_QUESTION_CHARS:
        raise InvalidQuestion(
            f"The question is {len(text):,} characters long; the limit is {MAX_QUESTION_CHARS:,}.",
            "question_too_long",
        )
    return text


def ask(*, user: Any, question: str, mode: str | None = None) -> Answer:
    """Answer a question from the documents `user` may see, and store everything about it.

    Raises InvalidQuestion for input that cannot be asked; every other failure is stored as an
    answer in state `error` with a reason code.
    """
    text = clean_question(question)
    try:
        resolved_mode = resolve_mode(mode)
    except ValueError as exc:
        raise InvalidQuestion(str(exc), "invalid_mode") from None
    run = _Run(question=text, mode=resolved_mode, language=detect_language(text))
    started = time.perf_counter()
    try:
        answer = _ask(run, user=user)
    except Exception as exc:
        log.exception("ask failed (%s)", _redacted(run))
        run.error = f"{type(exc).__name__}: {exc}"
        answer = _store(
            run,
            user=user,
            state=Answer.State.ERROR,
            reason=INTERNAL_ERROR,
            message="Something went wrong while answering. The question was saved for review.",
        )
    run.timings["total_ms"] = round((time.perf_counter() - started) * 1000, 2)
    Answer.objects.filter(pk=answer.pk).update(timings=run.timings)
    answer.timings = run.timings
    log.info(
        "ask %s: state=%s reason=%s mode=%s %s",
        answer.pk,
        answer.state,
        answer.reason or "-",
        answer.mode,
        _redacted(run),
    )
    return answer


def _ask(run: _Run, *, user: Any) -> Answer:
    from rag_app.search.hybrid import retrieve  # imported late: the search layer loads its backends lazily

    rag = settings.RAG
    with run.timed("retrieval"):
        run.selection = retrieve(user=user, question=run.question)
    if not run.selection.kept:
        reason = _no_evidence_reason(run.selection)
        return _store(
            run, user=user, state=Answer.State.NO_EVIDENCE, reason=reason, message=NO_EVIDENCE_MESSAGES[reason]
        )

    with run.timed("assembly"):
        run.assembly = assemble(
            run.selection,
            budget_chars=rag["CONTEXT_BUDGET_CHARS"],
            per_source=rag["CHUNKS_PER_SOURCE"],
            max_sources=rag["MAX_SOURCES"],
        )
    if not run.assembly.sources:
        return _store(
            run,
            user=user,
            state=Answer.State.NO_EVIDENCE,
            reason=NO_CITABLE_SOURCES,
            message=NO_EVIDENCE_MESSAGES[NO_CITABLE_SOURCES],
        )

    failure: GenerationError | None = None
    with run.timed("generation"):  # no transaction is open here: the model call may take seconds
        try:
            generator = get_generator(run.mode)
            run.model = getattr(generator, "model", "")
            run.draft = generator.generate(question=run.question, assembly=run.assembly, language=run.language)
        except GenerationError as exc:
            failure = exc
    if failure is not None:
        run.prompt, run.raw_output, run.model = failure.prompt, failure.raw_output, failure.model or run.model
        run.error = f"{failure.reason}: {failure.message}"
        return _store(run, user=user, state=Answer.State.ERROR, reason=failure.reason, message=failure.message)
    assert run.draft is not None
    run.prompt, run.raw_output, run.model = run.draft.prompt, run.draft.raw_output, run.draft.model or run.model

    with run.timed("alignment"):
        aligned = annotate_conflicts(align(run.draft, run.assembly))
        run.aligned = apply_support(aligned, min_support=rag["MIN_SUPPORT"], similarity=_embedding_similarity())
    if run.aligned.dropped_markers:
        log.warning("ask: dropped markers not in this answer's map: %s", ", ".join(run.aligned.dropped_markers))
    if not run.aligned.paragraphs:
        return _store(
            run,
            user=user,
            state=Answer.State.ERROR,
            reason=EMPTY_ANSWER,
            message="The answer came back empty. Try again or rephrase the question.",
        )
    return _store(run, user=user, state=Answer.State.ANSWERED, reason="", message="")


def _embedding_similarity() -> Similarity | None:
    """With an embedder configured, support may also come from meaning (calibrated cosine), not only words."""
    from rag_app.search import dense

    if not dense.enabled():
        return None

    def similarity(text: str, snippets: Sequence[str]) -> float:
        vectors = dense.embed_passages([text, *snippets])
        if vectors is None:
            return 0.0
        matrix = np.asarray(vectors, dtype=float)
        norms = np.linalg.norm(matrix, axis=1)
        if matrix.ndim != 2 or len(matrix) < 2 or not norms.all():
            return 0.0
        cosines = (matrix[1:] @ matrix[0]) / (norms[1:] * norms[0])
        return float(dense.calibrate(float(cosines.max())))

    return similarity


def answer_get(*, user: Any, answer_id: int) -> Answer | None:
    """One answer if `user` may see it (their own; any for reviewers), else None (see selectors)."""
    from rag_app.selectors import answer_get as select_answer

    return select_answer(user=user, answer_id=answer_id)


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


def _no_evidence_reason(selection: Selection) -> str:
    if selection.rejected:
        return NO_QUALIFIED_SOURCES
    # Whether the user may see any of it is not said here: "no match" leaks nothing either way.
    return NO_MATCHES if Chunk.objects.filter(version__is_current=True).exists() else EMPTY_INDEX


def _store(run: _Run, *, user: Any, state: str, reason: str, message: str) -> Answer:
    """One transaction: the answer, its paragraphs and citations, and the trace."""
    aligned = run.aligned if state == Answer.State.ANSWERED else None
    start = time.perf_counter()
    with transaction.atomic():
        answer = Answer.objects.create(
            user=user if getattr(user, "is_authenticated", False) else None,
            question=run.question,
            language=run.language,
            state=state,
            reason=reason,
            message=message,
            mode=run.mode,
            model=run.model[:200],
            conflict=bool(aligned and aligned.conflict),
            has_insufficient=bool(aligned and any(p.status != EvidenceStatus.LINKED for p in aligned.paragraphs)),
            has_weak=bool(aligned and any(p.weak for p in aligned.paragraphs)),
            timings=run.timings,
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


def _store_paragraphs(answer: Answer, aligned: AlignedAnswer) -> None:
    by_marker = {s.marker: s for s in aligned.sources}
    chunk_ids = {s.record.chunk_id for s in aligned.sources}
    # Only the key and the chunk_id: the citation needs the row, not its text and tokens.
    chunks = {c.chunk_id: c for c in Chunk.objects.filter(chunk_id__in=chunk_ids).only("pk", "chunk_id")}
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
            chunk = chunks.get(source.record.chunk_id)
            if chunk is None:  # the index returned a chunk the table does not hold: a bug, not a citation
                raise LookupError(f"cited chunk {source.record.chunk_id} is not in the chunk table")
            citations.append(
                Citation(
                    paragraph=row,
                    order=position,
                    marker=marker,
                    chunk=chunk,
                    snippet=source.snippet,
                    score=source.record.relevance,
                    level_slug=source.record.level or "",
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
        "relevance": record.relevance,
        "lexical_score": record.lexical_score,
        "dense_score": record.dense_score,
        "standout": record.standout,
        "effective_from": record.effective_from.isoformat() if record.effective_from else None,
        "effective_until": record.effective_until.isoformat() if record.effective_until else None,
    }


def _candidates(run: _Run) -> list[dict[str, Any]]:
    """Every candidate with its scores, level and fate: kept (with marker) or rejected with a reason."""
    rows: list[dict[str, Any]] = []
    if run.selection is None:
        return rows
    markers = {s.record.chunk_id: s.marker for s in run.assembly.sources} if run.assembly else {}
    dropped = {r.record.chunk_id: r for r in run.assembly.dropped} if run.assembly else {}
    for rank, record in enumerate(run.selection.kept, start=1):
        row = _record_row(record) | {"rank": rank, "stage": "tiering"}
        if record.chunk_id in dropped:
            rej = dropped[record.chunk_id]
            row |= {"kept": False, "stage": "assembly", "reason": rej.reason.value, "detail": rej.detail}
        else:
            row |= {"kept": True, "reason": None, "marker": markers.get(record.chunk_id)}
        rows.append(row)
    for rej in run.selection.rejected:
        rows.append(
            _record_row(rej.record)
            | {"rank": None, "stage": "tiering", "kept": False, "reason": rej.reason.value, "detail": rej.detail}
        )
    return rows


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


def _snapshot(run: _Run) -> dict[str, Any]:
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
    snapshot["language"] = run.language
    snapshot["conflicting_markers"] = list(run.aligned.conflicting_markers) if run.aligned else []
    if run.draft is not None:
        snapshot["quoted"] = run.draft.quoted
    return snapshot


def _redacted(run: _Run) -> str:
    """What application logs may hold: a hash and length of the question, ids and counts, no text."""
    digest = hashlib.sha256(run.question.encode("utf-8")).hexdigest()[:12]
    parts = [f"q={digest} len={len(run.question)} lang={run.language}"]
    if run.selection is not None:
        kept = ",".join(f"{r.chunk_id}@{r.level or '-'}:{r.relevance:.3f}" for r in run.selection.kept[:10])
        parts.append(f"threshold={run.selection.threshold:.3f} kept=[{kept}] rejected={len(run.selection.rejected)}")
    if run.aligned is not None:
        cites = ";".join("/".join(p.citation_ids) or "-" for p in run.aligned.paragraphs)
        parts.append(f"citations=[{cites}] dropped={len(run.aligned.dropped_markers)}")
    return " ".join(parts)


__all__ = ["MAX_QUESTION_CHARS", "InvalidQuestion", "answer_get", "ask", "clean_question", "newer_versions"]
