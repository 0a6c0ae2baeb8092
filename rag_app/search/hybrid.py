"""search() and retrieve(): the one way the rest of the app gets evidence.

search() returns complete ChunkRecords (rules 1, 2): identity, locator, level and scores come
out of the same query as the text. Only current versions, only documents the user may read;
both conditions are inside the index query, before top-k. retrieve() adds tiering with the
configured threshold, so callers get a Selection whose `kept` is empty when there is no evidence.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.utils import timezone

from rag_app.models import Chunk
from rag_app.pipeline.records import ChunkRecord, Rejection, RejectReason, Selection
from rag_app.pipeline.textproc import query_terms
from rag_app.pipeline.tiering import select

from . import dense, lexical
from .scoring import bm25, lexical_relevance, self_score, term_weights

# A question longer than this is tokenized only up to here: bounds the cost of pasted text.
MAX_QUESTION_CHARS = 4000
RRF_K = 60


def search(*, user: Any, question: str, limit: int | None = None) -> list[ChunkRecord]:
    """Best current chunks the user may read, as complete records, by relevance then chunk_id."""
    rag = settings.RAG
    limit = rag["CANDIDATES"] if limit is None else limit
    if limit <= 0:
        return []
    terms = query_terms(question[:MAX_QUESTION_CHARS])
    stats = lexical.corpus_stats(terms)
    weights = term_weights(terms, stats)
    lexical_hits = lexical.candidates(
        terms=lexical.match_terms(terms, stats), weights=weights, user=user, limit=max(limit, rag["CANDIDATES"])
    )
    dense_hits = dense.search(question=question[:MAX_QUESTION_CHARS], user=user, limit=max(limit, rag["CANDIDATES"]))
    pks = list(dict.fromkeys([pk for pk, _ in lexical_hits] + [pk for pk, _ in dense_hits]))
    if not pks:
        return []
    rows = (
        Chunk.objects.filter(pk__in=pks)
        .select_related("version__document__level")
        .only(
            "chunk_id",
            "index",
            "text",
            "section",
            "page",
            "start",
            "end",
            "search_text",
            "version__version",
            "version__effective_from",
            "version__effective_until",
            "version__language",
            "version__document__source_id",
            "version__document__title",
            "version__document__url",
            "version__document__level__slug",
            "version__document__level__weight",
        )
    )
    dense_score = dict(dense_hits)
    selfs = self_score(terms, weights, stats.avgdl)
    lexical_rank = {pk: i for i, (pk, _) in enumerate(lexical_hits)}
    dense_rank = {pk: i for i, (pk, _) in enumerate(dense_hits)}
    records: list[tuple[float, ChunkRecord]] = []
    for chunk in rows:
        raw = bm25(terms, chunk.search_text.split(), weights, stats.avgdl)
        lex = lexical_relevance(raw, selfs)
        cos = dense_score.get(chunk.pk)
        relevance = lex if cos is None else max(lex, dense.calibrate(cos))
        fused = _rrf(lexical_rank.get(chunk.pk), dense_rank.get(chunk.pk)) if dense_hits else relevance
        records.append((fused, _record(chunk, relevance=relevance, lexical=raw, dense=cos)))
    records.sort(key=lambda x: (-x[0], -x[1].relevance, x[1].chunk_id))
    return [r for _, r in records[:limit]]


def retrieve(*, user: Any, question: str, today: dt.date | None = None) -> Selection:
    """search() + tiering with settings.RAG: the evidence an answer may use, and every rejection."""
    rag = settings.RAG
    candidates = search(user=user, question=question, limit=rag["CANDIDATES"])
    selection = select(
        candidates,
        threshold=rag["MIN_RELEVANCE"],
        today=today or timezone.localdate(),
        expired_policy=rag["EXPIRED_POLICY"],
    )
    top_k = rag["TOP_K"]
    if len(selection.kept) <= top_k:
        return selection
    over = tuple(
        Rejection(r, RejectReason.OVER_BUDGET, f"ranked below RAG_TOP_K={top_k}") for r in selection.kept[top_k:]
    )
    return Selection(kept=selection.kept[:top_k], rejected=selection.rejected + over, threshold=selection.threshold)


def _rrf(lexical_rank: int | None, dense_rank: int | None) -> float:
    return sum(1.0 / (RRF_K + r + 1) for r in (lexical_rank, dense_rank) if r is not None)


def _record(chunk: Chunk, *, relevance: float, lexical: float, dense: float | None) -> ChunkRecord:
    version = chunk.version
    document = version.document
    level = document.level
    return ChunkRecord(
        chunk_id=chunk.chunk_id,
        source_id=document.source_id or None,
        version=version.version,
        index=chunk.index,
        text=chunk.text,
        title=document.title or None,
        url=document.url or None,
        section=chunk.section or None,
        page=chunk.page,
        start=chunk.start,
        end=chunk.end,
        level=level.slug if level else None,
        level_weight=level.weight if level else 0.0,
        relevance=round(relevance, 6),
        lexical_score=round(lexical, 6),
        dense_score=None if dense is None else round(dense, 6),
        effective_from=version.effective_from,
        effective_until=version.effective_until,
        language=version.language or None,
    )
