"""search() and retrieve(): the one way the rest of the app gets evidence.

search() returns complete ChunkRecords (rules 1, 2): identity, locator, level and scores come
out of the same query as the text. Only current versions, only documents the user may read;
both conditions are inside the index query, before top-k (and applied to the documents' openings a
date question adds, `_openings`). retrieve() adds tiering with the
configured threshold, so callers get a Selection whose `kept` is empty when there is no evidence.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Q
from django.utils import timezone

from rag_app.models import Chunk
from rag_app.pipeline import answerability, crosslingual, naming, pinyin, synonyms, tiering
from rag_app.pipeline.records import ChunkRecord, Scope, Selection, below_top_k
from rag_app.pipeline.textproc import detect_language, has_cjk, query_terms
from rag_app.pipeline.tiering import select, threshold_for, with_list_continuations, without_orphan_copies
from rag_app.validation import MAX_QUESTION_CHARS  # bounds the cost of whatever text a caller passes

from . import dense, explain, lexical
from .planner import INDEX_READS, local_settings
from .scope import document_condition, permitted_chunks
from .scoring import (
    CorpusStats,
    bm25_made_up,
    group_bm25,
    group_self_score,
    group_weights,
    lexical_relevance,
    self_score,
    standout,
    term_weights,
    with_standout,
)

# Share of the calibrated cosine in the relevance when an embedder is on (measured: docs/RETRIEVAL.md).
DENSE_WEIGHT = 0.3


def search(*, user: Any, question: str, limit: int | None = None, scope: Scope | None = None) -> list[ChunkRecord]:
    """Best searched chunks (indexing.settle_versions) the user may read (within `scope`), as complete records,
    by relevance then chunk_id."""
    pool = settings.RAG["CANDIDATES"]
    limit = pool if limit is None else limit
    if limit <= 0:
        return []
    question = question[:MAX_QUESTION_CHARS]
    pending_vector = dense.start_query_vector(question)  # embedded while the lexical queries run
    asked_terms = query_terms(question)
    asked_in = detect_language(question)
    with _index_reads():
        terms, stats = lexical.read_unheld(asked_terms, lexical.corpus_stats(asked_terms))
        # An amount the question offers ("a travel claim of 8000 yuan") is answered by a passage stating a range, which
        # does not write it: where no chunk writes it, it does not weigh in the question's yardstick (a term no chunk
        # holds weighs the most there, and sank every candidate's relevance).
        if unwritten := {t for t in answerability.offered_terms(question) if not stats.df.get(t)}:
            terms = [t for t in terms if t not in unwritten]
            stats = CorpusStats(chunks=stats.chunks, tokens=stats.tokens, df={t: stats.df[t] for t in terms})
        weights = term_weights(terms, stats)
        synonyms_of = _synonyms(question)
        alternatives = _alternatives(synonyms_of, terms)
        lexical_hits = lexical.candidates(
            terms=lexical.match_terms(terms, stats), weights=weights, user=user, limit=max(limit, pool), scope=scope
        )
        translated = _Translated.of(question, user=user, limit=max(limit, pool), scope=scope)
        # "When was LGPL 2.1 released?" is answered by the document's dateline, in its first chunk, which
        # often shares no word with the question but the name: the openings of the candidates' documents
        # are candidates too (through the same access and scope rule as every candidate).
        issued = answerability.issue_words(question, translated.terms())
        selfs = self_score(terms, weights, stats.avgdl)
        names = pinyin.names(question)  # "Beitucheng": held by a passage that writes 北土城
        in_script = {"zh": [t for t in asked_terms if has_cjk(t)], "en": [t for t in asked_terms if not has_cjk(t)]}

        def read(chunk: _ChunkRow) -> _Read:
            """The chunk's tokens, BM25, translated relevance and which question words it holds: all but
            the cosine."""
            own = chunk.search_text.split()
            spelled = pinyin.spelled(names, f"{chunk.title} {chunk.section} {chunk.text}") if names else {}
            dated = issued if issued and answerability.opens_with_date(chunk.index, chunk.text) else []
            tokens = [*own, *sorted(spelled), *dated]
            raw, made_up = bm25_made_up(terms, tokens, weights, stats.avgdl, alternatives)
            # The translated reading is for passages in the other language: a Chinese question's English
            # glosses must not lift a Chinese passage that holds a stray English word (and back).
            across_language = crosslingual.reads_across(chunk.language, asked_in)
            across = translated.relevance(tokens) if across_language else 0.0
            # Which question words it holds, read by its language (never by the scores, which count documents
            # the reader may not see): a passage in the other language through the translation. Read only for
            # the candidates search() returns (`limit` of the hundred or so it scores).
            if across_language and translated.explained:
                in_its_script = in_script["zh" if chunk.language == "zh" else "en"]

                def reading() -> explain.Reading:
                    return explain.translated_reading(
                        translated.explained, in_its_script, tokens, frozenset(own), spelled, dated
                    )
            else:

                def reading() -> explain.Reading:
                    return explain.own_reading(asked_terms, frozenset(own), made_up, synonyms_of, spelled, dated)

            return _Read(chunk, tokens, raw, across, max(lexical_relevance(raw, selfs), across), reading)

        # What the lexical half found is read and scored while the question's vector is still being made.
        found = list(dict.fromkeys([pk for pk, _ in lexical_hits] + translated.hits))
        read_rows = [read(chunk) for chunk in _chunk_rows(found)] if found else []
        q_vector = pending_vector()
        dense_hits = dense.search(q_vector, user=user, limit=max(limit, pool), scope=scope)
        pks = list(dict.fromkeys(found + [pk for pk, _ in dense_hits]))
        if not pks:
            return []
        if issued:
            pks += _openings(pks, user=user, scope=scope)
        early = set(found)
        read_rows += [read(chunk) for chunk in _chunk_rows([pk for pk in pks if pk not in early])]
        cosines = dict(dense_hits)
        if q_vector is not None:
            cosines.update(dense.similarities(q_vector, [pk for pk in pks if pk not in cosines]))
    scored: list[tuple[_Read, float]] = []
    best_by_source: dict[str, float] = {}
    for row in read_rows:
        relevance = fuse(row.lexical, cosines.get(row.chunk.pk))
        scored.append((row, relevance))
        best_by_source[row.chunk.source_id] = max(best_by_source.get(row.chunk.source_id, 0.0), relevance)
    leader, share = standout(best_by_source)
    ranked: list[tuple[float, float, _Read]] = []
    for row, relevance in scored:
        bonus = with_standout(relevance, share) - relevance if row.chunk.source_id == leader else 0.0
        ranked.append((relevance + bonus, bonus, row))
    # Ordered as the records are (their relevance is rounded), and only the first `limit` made into records.
    ranked.sort(key=lambda item: (-round(item[0], 6), item[2].chunk.chunk_id))
    return [
        _record(
            row.chunk,
            relevance=relevance,
            lexical=row.raw,
            dense=cosines.get(row.chunk.pk),
            standout=bonus,
            translated=row.across,
            terms=frozenset(row.tokens),
            reading=row.reading(),
        )
        for relevance, bonus, row in ranked[:limit]
    ]


def retrieve(
    *,
    user: Any,
    question: str,
    today: dt.date | None = None,
    scope: Scope | None = None,
    language: str | None = None,
) -> Selection:
    """search() + qualify() with settings.RAG: the evidence an answer may use, and every rejection.
    `language`: the language the question is asked in, when the caller knows it better than the searched text
    says (a follow-up is searched with its thread's earlier terms; the answer keeps the question's own)."""
    rag = settings.RAG
    candidates = search(user=user, question=question, limit=int(rag["CANDIDATES"]), scope=scope)
    most = int(rag["CHUNKS_PER_SOURCE"]) - 1
    return qualify(
        candidates,
        question=question,
        threshold=float(rag["MIN_RELEVANCE"]),
        today=today or timezone.localdate(),
        screen=bool(rag["ANSWERABILITY"]),
        language=language,
        reader=user,
        following=lambda parents: _following(parents, most=most, user=user, scope=scope),
    )


# qualify()'s reader when none is given (the threshold sweep): the short names are read over the whole index.
WHOLE_INDEX = object()


def qualify(
    candidates: Sequence[ChunkRecord],
    *,
    question: str,
    threshold: float,
    today: dt.date,
    screen: bool = True,
    inputs: tuple[list[crosslingual.Group], list[str]] | None = None,
    language: str | None = None,
    reader: Any = WHOLE_INDEX,
    following: Callable[[Sequence[ChunkRecord]], Mapping[str, Sequence[ChunkRecord]]] | None = None,
) -> Selection:
    """What retrieve() does with search()'s candidates: tiering (the documents the question names first),
    the answerability screen (`screen`; `inputs`: screen_inputs(question) when the caller has them) and
    the RAG_TOP_K cut. bench/answerability_sweep.py sweeps the threshold through this. `language`: the
    question's (default: detected from `question`); a passage asked about in its own language meets a
    lower bar (tiering.share) only with the screen on, which is what turns away one that does not answer.
    `reader`: the asker, whose readable documents decide which of the question's short names a passage must hold
    (screen_inputs). `following`: each kept chunk's next chunks, as retrieve() reads them (`_following`), for the
    lists that run on past a kept chunk (tiering.with_list_continuations); None: not read."""
    rag = settings.RAG
    question = question[:MAX_QUESTION_CHARS]
    named = naming.named_titles(question, (c.title for c in candidates))
    selection = select(
        candidates,
        threshold=threshold,
        today=today,
        expired_policy="demote" if rag["EXPIRED_POLICY"] == "demote" else "exclude",
        named=named,
        asked_in=(language or detect_language(question)) if screen else "",
        value=screen and answerability.asks_value(question),
    )
    if screen and selection.kept:
        groups, indexed = inputs if inputs is not None else screen_inputs(question, reader=reader)
        # A passage that reached only the lower bar of a question asking for a value must state one (a date, not
        # "之后"): the lower bar rests on the value, and "when" is answered leniently otherwise (a time of day, an
        # event, "after").
        stating = [r.chunk_id for r in selection.kept if r.relevance < threshold_for(r, threshold, selection.asked_in)]

        def screened(selection: Selection) -> Selection:
            return answerability.screen(
                selection,
                question,
                groups,
                indexed,
                named,
                limit=int(rag["TOP_K"]),
                synonyms=_synonyms(question),
                stating=stating if selection.value else (),
            )

        first = screened(selection)
        # What a lower level answers alone is judged again beside the passages of a higher level under their bar that
        # the embedder puts as near the question (tiering.outranking); one of them is kept only if it answers on its
        # own (the screen also keeps a passage whose document another passage answers for).
        outranking = tiering.outranking(first, today)
        if outranking:
            stating += [r.chunk_id for r in outranking]
            again = screened(tiering.beside(first, outranking, today))
            moved = [r for r in again.kept if r.chunk_id in again.beside and r.chunk_id not in first.beside]
            verdicts = answerability.assess(
                question,
                [*again.kept, *(r.record for r in again.rejected)],
                groups,
                judged=moved,
                indexed=indexed,
                named=named,
                synonyms=_synonyms(question),
                language=again.asked_in,
                stating=stating if again.value else (),
            )
            answering = [chunk_id for chunk_id, verdict in verdicts.items() if verdict.answers]
            if answering:
                first = tiering.judged_alone(first, again, answering)
        selection = first
    if following is not None:
        # A kept chunk that ends inside the list it introduces brings the chunks that go on with it (tiering), before
        # the RAG_TOP_K cut: the kept passages are at most RAG_TOP_K, those the lists bring among them.
        selection = with_list_continuations(selection, following)
    top_k = int(rag["TOP_K"])
    if len(selection.kept) > top_k:
        over = tuple(below_top_k(r, top_k) for r in selection.kept[top_k:])
        selection = dataclasses.replace(selection, kept=selection.kept[:top_k], rejected=selection.rejected + over)
    return without_orphan_copies(selection)


def screen_inputs(question: str, *, reader: Any = WHOLE_INDEX) -> tuple[list[crosslingual.Group], list[str]]:
    """What answerability.screen reads besides the candidates, as retrieve() passes it: the question
    translated word by word (translated_groups) and the spellings of the short names the question gives
    its subject by that some chunk the reader may read holds, which the passage's document must name too
    ("GFDL 1.1 版…" is not answered by an MPL 1.1 passage). One term-statistics read serves both; a name the
    statistics find is then looked for among the reader's own documents: held only by documents hidden from
    them, it must not turn away the passages they may read (which would tell them, from one question, that a
    hidden document holds it; docs/SECURITY.md)."""
    groups, missing = _translation(question)
    named = (*answerability.short_names(question).values(), *answerability.licence_names(question).values())
    spellings = sorted({t for readings in named for t in readings})
    looked_up = list(dict.fromkeys([*spellings, *missing, *crosslingual.all_terms(groups)]))
    df = lexical.corpus_stats(looked_up).df if looked_up else {}
    indexed = [t for t in spellings if df.get(t, 0)]
    if indexed and reader is not WHOLE_INDEX:
        indexed = [t for t in indexed if lexical.candidates(terms=[t], weights={t: 1.0}, user=reader, limit=1)]
    return translated_groups(groups, missing, df), indexed


def _translation(question: str) -> tuple[list[crosslingual.Group], tuple[str, ...]]:
    """The question translated word by word (with settings.RAG["CROSSLINGUAL"]) and its untranslatable
    Chinese words (crosslingual.untranslated)."""
    if not settings.RAG["CROSSLINGUAL"]:
        return [], ()
    groups = crosslingual.translate(question)
    return groups, crosslingual.untranslated(question) if groups else ()


def translated_groups(
    groups: list[crosslingual.Group], missing: Sequence[str], df: Mapping[str, int]
) -> list[crosslingual.Group]:
    """The translated groups, each with the renderings the index holds (crosslingual.narrowed, by `df` from the
    caller's term-statistics read, which looked up every rendering), plus, as words no passage in the other
    language can hold, the untranslatable words of a Chinese question that the index holds:
    "西土城站原来的站名叫什么" must not read as "original name" alone and be answered from a licence that
    says "original" and "name"; the Chinese passages that name 西土城 are the ones it asks about. Words the
    index lacks (jieba's leftovers such as "人要") still drop out. The search and the answerability check
    both read the question through this."""
    # A dateline's issuing words ("发布", "released") are held by a passage that opens with a date as it is
    # read, never indexed (answerability.issue_words): they count as used.
    issuing = answerability.issuing()
    held = crosslingual.narrowed(groups, lambda term: df.get(term, 0) > 0 or term in issuing)
    return held + [crosslingual.Group(w, (w,)) for w in missing if df.get(w, 0) > 0]


@dataclass(frozen=True, slots=True)
class _Translated:
    """The question translated word by word (pipeline/crosslingual.py), scored like its own terms."""

    groups: tuple[tuple[str, ...], ...] = ()  # as the score reads them: the renderings the index holds
    weights: tuple[float, ...] = ()
    # For the trace (search/explain.py): each word of the question with every rendering it offers, and every
    # untranslatable word, whether or not the index holds them (what a passage holds or lacks must not depend
    # on the index, which counts documents the reader may not see).
    explained: tuple[tuple[str, tuple[str, ...]], ...] = ()
    stats: CorpusStats | None = None
    hits: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, question: str, *, user: Any, limit: int, scope: Scope | None) -> _Translated:
        translation, missing = _translation(question)
        if not translation:
            return cls()
        # One term-statistics read for the translation and the untranslatable words alike.
        stats = lexical.corpus_stats(list(dict.fromkeys([*crosslingual.all_terms(translation), *missing])))
        read = translated_groups(translation, missing, stats.df)
        groups = tuple(g.terms for g in read)
        alternatives = crosslingual.all_terms(read)
        weights = tuple(group_weights(groups, stats))
        by_term: dict[str, float] = {}
        for terms, weight in zip(groups, weights, strict=True):
            for t in terms:
                by_term[t] = max(by_term.get(t, 0.0), weight)
        hits = lexical.candidates(
            terms=lexical.match_terms(alternatives, stats), weights=by_term, user=user, limit=limit, scope=scope
        )
        return cls(
            groups=groups,
            weights=weights,
            explained=(*((g.source, g.terms) for g in translation), *((w, (w,)) for w in missing)),
            stats=stats,
            hits=[pk for pk, _ in hits],
        )

    def terms(self) -> frozenset[str]:
        """Every rendering the translation offers, held by the index or not (a dateline's issuing words are
        added to a passage as it is read, never indexed: answerability.issue_words)."""
        return frozenset(t for _, renderings in self.explained for t in renderings)

    def relevance(self, tokens: list[str]) -> float:
        """The chunk's lexical relevance to the translated question (0 when there is none)."""
        if self.stats is None:
            return 0.0
        raw = group_bm25(self.groups, tokens, self.weights, self.stats.avgdl)
        return lexical_relevance(raw, group_self_score(self.weights, self.stats.avgdl))


def fuse(lexical: float, cosine: float | None) -> float:
    """One calibrated relevance: the lexical value, blended with the calibrated cosine when dense is on.

    Score-level fusion of two calibrated values (rather than rank fusion) keeps one number that
    means the same across questions, ranks the candidates and is what the threshold reads.
    """
    if cosine is None:
        return lexical
    return (1.0 - DENSE_WEIGHT) * lexical + DENSE_WEIGHT * dense.calibrate(cosine)


# The fields of a record, read as plain values in one statement: building Chunk, version, document and level
# model instances for 50 rows took more time than the query itself (about 6 of 8 ms), and compiling the same
# query through the ORM's values_list as long as running it (0.9 of 2.3 ms on SQLite for 110 chunks at 100k,
# about 1 of 5 on PostgreSQL; docs/PERFORMANCE.md, session 23). In _ChunkRow's order; ordered as the Chunk
# model orders its rows.
_ROWS_SQL = (
    'SELECT c.id, c.chunk_id, c."index", c.text, c.section, c.page, c.start, c."end", c.search_text,'
    " v.version, v.effective_from, v.effective_until, v.superseded_on, v.language, d.source_id, d.title, d.url,"
    " l.slug, l.weight, l.label"
    " FROM rag_app_chunk c JOIN rag_app_documentversion v ON v.id = c.version_id"
    " JOIN rag_app_document d ON d.id = v.document_id LEFT JOIN rag_app_sourcelevel l ON l.id = d.level_id"
    ' WHERE c.id IN ({}) AND v.searched ORDER BY c.version_id, c."index"'
)


@dataclass(frozen=True, slots=True)
class _ChunkRow:
    pk: int
    chunk_id: str
    index: int
    text: str
    section: str
    page: int | None
    start: int
    end: int
    search_text: str
    version: int
    effective_from: dt.date | None
    effective_until: dt.date | None
    superseded_on: dt.date | None
    language: str
    source_id: str
    title: str
    url: str
    level_slug: str | None
    level_weight: float | None
    level_label: str | None


@dataclass(frozen=True, slots=True)
class _Read:
    """A candidate as search() read it: its tokens (text, title, section path and what names and a dateline
    add), BM25, translated relevance, the lexical part of its relevance (the larger of the two readings,
    calibrated) and which question words it holds (search/explain.py)."""

    chunk: _ChunkRow
    tokens: list[str]
    raw: float
    across: float
    lexical: float
    reading: Callable[[], explain.Reading]  # which question words it holds, read when it is returned


def _synonyms(question: str) -> Mapping[str, frozenset[str]]:
    """The other words a passage may write an English question's terms as (pipeline/synonyms.py), with
    settings.RAG["SYNONYMS"]; the search and the answerability check both read the question through this."""
    return synonyms.alternatives(question) if settings.RAG["SYNONYMS"] else {}


def _alternatives(
    synonyms_of: Mapping[str, frozenset[str]], terms: Sequence[str]
) -> dict[str, list[tuple[str, float]]]:
    """Each term's synonyms (`synonyms_of`: _synonyms of the question) the index holds, with their weights
    (one term-statistics read)."""
    alts = {t: s for t, s in synonyms_of.items() if t in terms}
    if not alts:
        return {}
    looked_up = sorted({a for s in alts.values() for a in s})
    stats = lexical.corpus_stats(looked_up)
    weights = term_weights(looked_up, stats)
    return {t: [(a, weights[a]) for a in sorted(s) if stats.df.get(a, 0)] for t, s in alts.items()}


@contextmanager
def _index_reads() -> Iterator[None]:
    """PostgreSQL: the reads of one search go through their indexes (search/planner.py), set once for all
    of them: the GIN window, the HNSW scan, and the records by primary key (which the planner otherwise
    joined to every document version by hash, 2 ms of 7 at 100k chunks)."""
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cur, local_settings(cur, INDEX_READS):
        yield


def _openings(pks: list[int], *, user: Any, scope: Scope | None) -> list[int]:
    """The first chunks of the document versions the chunks `pks` belong to, those not among them, through
    the same access rule as every candidate (search/scope.py): they are of the same documents, but the rule
    is applied, not assumed."""
    versions = Chunk.objects.filter(pk__in=pks).values("version")
    found = list(Chunk.objects.filter(version__in=versions, index=0).exclude(pk__in=pks).values_list("pk", flat=True))
    if not found:
        return []
    with connection.cursor() as cur:
        return [pk for pk, _ in permitted_chunks(cur, found, document_condition(user, scope))]


def _following(
    parents: Sequence[ChunkRecord], *, most: int, user: Any, scope: Scope | None
) -> dict[str, list[ChunkRecord]]:
    """The next `most` chunks of each parent's document version, in order, by the parent's chunk_id, through the same
    access and scope rule as every candidate (as `_openings`); a chunk the rule withholds ends its parent's run."""
    known = [p for p in parents if p.pk is not None]
    if most < 1 or not known:
        return {}
    where = {pk: (version_id, index) for pk, version_id, index in
             Chunk.objects.filter(pk__in=[p.pk for p in known]).values_list("pk", "version_id", "index")}  # fmt: skip
    condition = Q()
    for version_id, index in where.values():
        condition |= Q(version_id=version_id, index__gt=index, index__lte=index + most)
    found = {pk: (version_id, index) for pk, version_id, index in
             Chunk.objects.filter(condition).values_list("pk", "version_id", "index")}  # fmt: skip
    with connection.cursor() as cur:
        permitted = [pk for pk, _ in permitted_chunks(cur, list(found), document_condition(user, scope))]
    at = {found[row.pk]: _record(row, relevance=0.0, lexical=0.0, dense=None) for row in _chunk_rows(permitted)}
    out: dict[str, list[ChunkRecord]] = {}
    for parent in known:
        if parent.pk not in where:
            continue
        version_id, index = where[parent.pk]
        # The chunks right after the parent, up to the first one missing or withheld: no gap in the list.
        run: list[ChunkRecord] = []
        while len(run) < most and (record := at.get((version_id, index + len(run) + 1))) is not None:
            run.append(record)
        out[parent.chunk_id] = run
    return out


def _chunk_rows(pks: list[int]) -> list[_ChunkRow]:
    """The chunks among `pks` that are still searched (a version unindexed meanwhile drops out)."""
    if not pks:
        return []
    with connection.cursor() as cur:
        cur.execute(_ROWS_SQL.format(", ".join(["%s"] * len(pks))), [int(pk) for pk in pks])
        # Both drivers give DATE columns as dates (Django registers SQLite's converter by declared type).
        return [_ChunkRow(*row) for row in cur.fetchall()]


def _record(
    chunk: _ChunkRow,
    *,
    relevance: float,
    lexical: float,
    dense: float | None,
    standout: float = 0.0,
    translated: float = 0.0,
    terms: frozenset[str] = frozenset(),
    reading: explain.Reading | None = None,
) -> ChunkRecord:
    return ChunkRecord(
        pk=chunk.pk,
        chunk_id=chunk.chunk_id,
        source_id=chunk.source_id or None,
        version=chunk.version,
        index=chunk.index,
        text=chunk.text,
        title=chunk.title or None,
        url=chunk.url or None,
        section=chunk.section or None,
        page=chunk.page,
        start=chunk.start,
        end=chunk.end,
        level=chunk.level_slug,  # None: the document has no level
        level_weight=chunk.level_weight or 0.0,
        level_label=chunk.level_label,
        relevance=round(relevance, 6),
        lexical_score=round(lexical, 6),
        dense_score=None if dense is None else round(dense, 6),
        standout=round(standout, 6),
        translated=round(translated, 6),
        effective_from=chunk.effective_from,
        effective_until=chunk.effective_until,
        superseded_on=chunk.superseded_on,
        language=chunk.language or None,
        terms=terms,
        held=reading.held if reading else (),
        missing=reading.missing if reading else (),
    )
