"""Ask orchestration: question -> retrieval -> assembly -> generation -> alignment -> support -> storage.

Every valid question is stored, whatever happens: answered, no_evidence (the model is not
called) or error (with the trace so far). Nothing holds a database transaction across the
model call; the answer, its paragraphs, citations and trace land in ONE transaction at the end.
Application logs get a redacted summary (no question text, no snippets); the trace keeps the
full record for reviewers (rule 16).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.db import connection
from django.utils import timezone

from rag_app import database, selectors
from rag_app.access import visible_documents
from rag_app.generation import GenerationError, get_generator, resolve_mode
from rag_app.generation.extractive import with_disagreements
from rag_app.models import Answer, Chunk, Document, DocumentVersion, Trace
from rag_app.pipeline.alignment import align
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.conflict import annotate_conflicts
from rag_app.pipeline.naming import retrieval_text
from rag_app.pipeline.records import Assembly, Scope, Selection
from rag_app.pipeline.support import apply_support, states_something
from rag_app.pipeline.textproc import detect_language
from rag_app.pipeline.tiering import BELOW_THRESHOLD, NO_ANSWERING_PASSAGE, OUT_OF_PERIOD, related_reason
from rag_app.search import dense
from rag_app.services.answers import AskRun, SourcesChanged, answer_store
from rag_app.validation import InvalidQuestion, clean_question, storable

log = logging.getLogger(__name__)


# Reason codes stored on Answer.reason.
# (BELOW_THRESHOLD, NO_ANSWERING_PASSAGE and OUT_OF_PERIOD, which say related passages were found: pipeline.tiering)
NO_MATCH = "no_match"  # the index has documents, nothing related to the question
NOTHING_STATED = "nothing_stated"  # the generator's paragraphs state nothing the sources back
EMPTY_INDEX = "empty_index"  # nothing the user may search has been ingested
EMPTY_SCOPE = "empty_scope"  # the user may search documents, but none lies within the scope the question was asked in
NO_CITABLE_SOURCES = "no_citable_sources"  # qualified records, none with a source_id
EMPTY_ANSWER = "empty_answer"  # the generator returned nothing to show
INTERNAL_ERROR = "internal_error"
SOURCES_CHANGED = "sources_changed"  # a document the answer cites was deleted while it was answered
SOURCES_CHANGED_MESSAGE = (
    "A document this answer rested on was deleted while the question was being answered, so nothing was cited. "
    "The question was saved; ask it again."
)

# Why a question could not be searched, by the embedder's error code (search/dense.py).
EMBEDDER_MESSAGES = {
    "embedder_unavailable": "The search service could not be reached. The question was saved; try again shortly.",
    "embedding_failed": "The search service could not read the question. The question was saved for review.",
    "embedder_mismatch": "The search index was made with another embedding model and must be rebuilt. "
    "Ask an administrator.",
}
NO_EVIDENCE_MESSAGES = {
    BELOW_THRESHOLD: "Some passages matched, but none was relevant enough to answer from. "
    "Try rephrasing, use the documents' own terms, or ask a reviewer.",
    NO_ANSWERING_PASSAGE: "The documents discuss this topic, but none of the passages found states what was asked. "
    "The closest ones are listed below; ask a reviewer if the answer should be there.",
    OUT_OF_PERIOD: "Passages on this were found, but none is in effect today: they are listed below with the dates "
    "they take or lost effect. Ask a reviewer which text applies until then.",
    NOTHING_STATED: "Passages were found, but none of what they say answers the question. The closest passages are "
    "listed below; try rephrasing or ask a reviewer.",
    NO_MATCH: "No document matched the question. Try other terms, or ask a reviewer whether the topic is covered.",
    EMPTY_INDEX: "There are no documents to search yet. Ask an administrator to add some.",
    EMPTY_SCOPE: "No document you may read is within the scope chosen: a document must match every part of it "
    "(levels, groups and documents) at once. Widen the scope and ask again.",
    NO_CITABLE_SOURCES: "The matching passages have no source id, so they cannot be cited. Ask a reviewer.",
}

TRUNCATED_MESSAGE = "The model's answer was cut off at the token limit; its last paragraph may be incomplete."

# How many earlier questions of a thread the model sees (the nearest ones).
THREAD_DEPTH = 5


def ask(
    *,
    user: Any,
    question: str,
    mode: str | None = None,
    scope: Scope | None = None,
    parent: Answer | None = None,
) -> Answer:
    """Answer a question from the documents `user` may see (within `scope`), and store everything about it.

    `parent`: the answer this question follows up (the caller has checked the user may see it): the
    thread's previous question lends its topic terms to retrieval, and a model sees the thread's
    earlier questions; each answer keeps its own citations. Raises InvalidQuestion for input that
    cannot be asked; every other failure is stored as an answer in state `error` with a reason code.
    """
    text = clean_question(question)
    try:
        resolved_mode = resolve_mode(mode)
    except ValueError as exc:
        raise InvalidQuestion(str(exc), "invalid_mode") from None
    run = AskRun(
        question=text,
        mode=resolved_mode,
        language=detect_language(text),
        scope=scope or Scope(),
        parent=parent,
        history=thread(parent, user=user),
    )
    started = time.perf_counter()
    try:
        answer = _ask(run, user=user)
    except SourcesChanged as exc:
        log.warning("ask: %s (%s)", exc, _redacted(run))
        run.error = storable(f"{SOURCES_CHANGED}: {exc}")
        answer = _store_failure(run, user=user, reason=SOURCES_CHANGED, message=SOURCES_CHANGED_MESSAGE)
    except Exception as exc:
        if database.unavailable(exc):  # storing the failure would meet the same database: 503 (rag_app/database.py)
            database.log_outage(exc, f"ask not stored ({_redacted(run)})")
            raise database.DatabaseUnavailable(str(exc)) from exc
        log.exception("ask failed (%s)", _redacted(run))
        run.error = storable(f"{type(exc).__name__}: {exc}")
        answer = _store_failure(run, user=user)
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


def _store_failure(
    run: AskRun,
    *,
    user: Any,
    reason: str = INTERNAL_ERROR,
    message: str = "Something went wrong while answering. The question was saved for review.",
) -> Answer:
    """Store the question as an error (by default an internal one) with everything its run has (the trace keeps
    the alignment's dropped markers and conflict findings). If the database refuses that too (text from outside it
    cannot hold, which the generator already made storable), the question is stored without the alignment and with
    the model's text made storable once more: it is never lost."""
    try:
        return answer_store(run, user=user, state=Answer.State.ERROR, reason=reason, message=message)
    except Exception:
        log.exception("ask: storing the failure failed; storing it without the alignment (%s)", _redacted(run))
    run.aligned = None
    run.raw_output, run.prompt, run.model = storable(run.raw_output), storable(run.prompt), storable(run.model)
    return answer_store(run, user=user, state=Answer.State.ERROR, reason=reason, message=message)


def _ask(run: AskRun, *, user: Any) -> Answer:
    from rag_app.search.hybrid import retrieve  # imported late: the search layer loads its backends lazily

    rag = settings.RAG
    # A follow-up is searched, checked and compared with its thread's earlier question's words (naming.retrieval_text,
    # the one rule, which the extractive generator reads too: extractive.thread_reading): the slot two sources may
    # disagree on is the earlier question's ("and in 2024?" after "hotel limit per night?").
    searched = retrieval_text(run.question, run.history)
    with run.timed("retrieval"):
        try:
            run.selection = retrieve(user=user, question=searched, scope=run.scope, language=run.language)
            run.searched_at = timezone.now()
        except (dense.EmbeddingError, dense.EmbedderMismatch) as exc:
            # The question's vector could not be made (the embedding server is down, or the stored vectors are of
            # another embedder): an error of its own, stored with its reason, not a bug's traceback.
            log.warning("ask: retrieval needs the embedder: %s", exc)
            run.error = storable(f"{exc.code}: {exc}")
            return answer_store(
                run, user=user, state=Answer.State.ERROR, reason=exc.code, message=EMBEDDER_MESSAGES[exc.code]
            )
    if not run.selection.kept:
        reason = _no_evidence_reason(run.selection, user=user, scope=run.scope)
        return answer_store(
            run, user=user, state=Answer.State.NO_EVIDENCE, reason=reason, message=NO_EVIDENCE_MESSAGES[reason]
        )

    with run.timed("assembly"):
        run.assembly = assemble_selection(run.selection)
    if not run.assembly.sources:
        return answer_store(
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
            run.draft = generator.generate(
                question=run.question, assembly=run.assembly, language=run.language, history=run.history
            )
        except GenerationError as exc:
            failure = exc
    if failure is not None:
        run.prompt, run.raw_output, run.model = failure.prompt, failure.raw_output, failure.model or run.model
        run.error = f"{failure.reason}: {failure.message}"
        return answer_store(run, user=user, state=Answer.State.ERROR, reason=failure.reason, message=failure.message)
    assert run.draft is not None
    run.prompt, run.raw_output, run.model = run.draft.prompt, run.draft.raw_output, run.draft.model or run.model

    with run.timed("alignment"):
        aligned = annotate_conflicts(align(run.draft, run.assembly), searched)
        similarity = _support_similarity(run)
        model = not run.draft.quoted  # a model's words, not quotations: its own rules of what states nothing
        # The question and the thread's earlier ones, which the model saw and may say back.
        support = functools.partial(
            apply_support,
            min_support=rag["MIN_SUPPORT"],
            similarity=similarity,
            question=run.question,
            earlier=run.history,
            model=model,
        )
        run.aligned = support(aligned)
        # A model's answer that states something: a qualified source it left out may disagree with it. (One
        # that states nothing stays an answer that states nothing: the other side alone would not answer.)
        if not run.draft.quoted and states_something(run.aligned):
            widened = with_disagreements(aligned, run.question, run.assembly, history=run.history)
            if widened is not aligned:
                run.aligned = support(widened)
    if run.aligned.dropped_markers:
        # A count only: a malformed marker keeps the model's words around it, which may quote the context.
        log.warning("ask: %d dropped markers not in this answer's map", len(run.aligned.dropped_markers))
    if not run.aligned.paragraphs:
        return answer_store(
            run,
            user=user,
            state=Answer.State.ERROR,
            reason=EMPTY_ANSWER,
            message="The answer came back empty. Try again or rephrase the question.",
        )
    if not states_something(run.aligned):
        # Only labels, punctuation, the question said back or "the sources do not say": not an answer.
        return answer_store(
            run,
            user=user,
            state=Answer.State.NO_EVIDENCE,
            reason=NOTHING_STATED,
            message=NO_EVIDENCE_MESSAGES[NOTHING_STATED],
        )
    # A plain-text reply cut at the token limit still has its whole paragraphs (the cut one, without its marker,
    # is insufficient); the answer says it was cut off, as a structured reply's error does, and the trace keeps
    # the finish reason.
    message = TRUNCATED_MESSAGE if run.draft.truncated else ""
    return answer_store(run, user=user, state=Answer.State.ANSWERED, reason="", message=message)


def _support_similarity(run: AskRun) -> Callable[[str, Sequence[str]], float] | None:
    """The embedder's support similarity, which fails soft: an embedding server that goes down after the search
    leaves support to the words (a paragraph they do not back is marked weak), and the trace says so, rather
    than losing an answer whose evidence was found."""
    similarity = dense.support_similarity()
    if similarity is None:
        return None

    def guarded(text: str, snippets: Sequence[str]) -> float:
        try:
            return similarity(text, snippets)
        except dense.EmbeddingError as exc:
            if not run.error:
                log.warning("ask: support similarity needs the embedder: %s", exc)
                run.error = storable(f"{exc.code} while checking support: {exc} (support read from the words only)")
            return 0.0

    return guarded


_ANYONE = object()


def thread(parent: Answer | None, *, user: Any = _ANYONE) -> tuple[str, ...]:
    """The earlier questions of a thread, oldest first (at most THREAD_DEPTH, the nearest ones). With `user` (the
    asker), the thread stops at the first earlier answer they may no longer continue (selectors.thread_parent: a
    colleague's question read as a reviewer before the role was taken away): its question, and those before it, are
    neither searched with nor shown to a model. `parent` itself was checked by the caller."""
    questions: list[str] = []
    seen: set[int] = set()
    while parent is not None and len(questions) < THREAD_DEPTH and parent.pk not in seen:
        if questions and user is not _ANYONE and selectors.thread_parent(user=user, answer_id=parent.pk) is None:
            break
        seen.add(parent.pk)
        questions.append(parent.question)
        parent = parent.parent
    return tuple(reversed(questions))


def asked_thread(answer: Answer) -> tuple[str, ...]:
    """The thread `answer` was asked in, as its trace's settings snapshot kept it (`thread`): what a replay searches
    with, which a deleted parent (a forced document deletion, `parent` set to NULL) or an edited chain cannot change;
    thread() of its parent for an answer stored without one."""
    trace = Trace.objects.filter(answer=answer).only("settings_snapshot").first()
    kept = (trace.settings_snapshot or {}).get("thread") if trace is not None else None
    if isinstance(kept, list) and all(isinstance(q, str) for q in kept):
        return tuple(kept)
    return thread(answer.parent)


def assemble_selection(selection: Selection) -> Assembly:
    """The assembly step with the configured budget and dedup settings (asks and replays alike)."""
    rag = settings.RAG
    return assemble(
        selection,
        budget_chars=rag["CONTEXT_BUDGET_CHARS"],
        per_source=rag["CHUNKS_PER_SOURCE"],
        max_sources=rag["MAX_SOURCES"],
    )


def _no_evidence_reason(selection: Selection, *, user: Any, scope: Scope | None = None) -> str:
    rejected = ((r.reason, r.record.relevance, r.record.language) for r in selection.rejected)
    related = related_reason(rejected, selection.threshold)  # the one rule, which presentation reads again
    if related is not None:
        return related
    # "Empty" means empty for this user: whether hidden documents exist is not theirs to learn.
    readable = Chunk.objects.filter(
        version__searched=True,
        version__document__in=visible_documents(user).filter(retired_at__isnull=True).values("pk"),
    )
    if not readable.exists():
        return EMPTY_INDEX
    return EMPTY_SCOPE if scope is not None and not scope.is_empty and not _any_in_scope(user, scope) else NO_MATCH


def _any_in_scope(user: Any, scope: Scope) -> bool:
    """Whether some document the user may search (readable, not retired, a version searched) lies within `scope`: the
    search's own condition (search/scope.document_condition), so "nothing in the scope" is said by the same rule that
    made it so (levels=note with an official document chosen selects nothing)."""
    from rag_app.search.scope import document_condition

    condition, params = document_condition(user, scope)
    sql = (
        f"SELECT 1 FROM {Document._meta.db_table} d WHERE {condition} AND EXISTS (SELECT 1 FROM "  # noqa: S608
        f"{DocumentVersion._meta.db_table} v WHERE v.document_id = d.id AND v.searched) LIMIT 1"
    )
    with connection.cursor() as cur:
        cur.execute(sql, params)
        return cur.fetchone() is not None


def _redacted(run: AskRun) -> str:
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


__all__ = ["ask", "assemble_selection"]
