"""The ONE assembly step: tiered records -> model context + citation map, built in one loop.

Everything downstream (prompt, alignment, stored citations, UI) is a projection of the
Assembly made here. Nothing after this step renumbers, re-sorts or re-truncates (rule 4, 6).

Order: the input order is the rank order decided by tiering; runs of records that tie on
(level weight, relevance) are ordered by chunk_id so equal scores always give the same order
(rule 3). Dedup: at most `per_source` chunks of one document, its best-ranked ones, which
then sit next to each other in the context and share the document's source entry. Budget:
the lowest-ranked records are dropped first; when the survivors still do not fit, the longest
snippets are shortened at a sentence boundary. The stored snippet is exactly the text the
model saw. Records without a source_id never get a marker (rule 7): trace only.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .records import AssembledSource, Assembly, ChunkRecord, Rejection, RejectReason, Selection
from .textproc import safe_cut, sentence_spans

SEPARATOR = "\n\n"


def source_header(marker: str, record: ChunkRecord) -> str:
    """The line above a snippet in the context: marker, name, location, trust, dates."""
    parts = [f"[{marker}] {_one_line(record.display_title)}"]
    parts.append(_one_line(record.locator_label))
    parts.append(f"level: {record.level or 'unknown'}")
    if record.effective_from or record.effective_until:
        start = record.effective_from.isoformat() if record.effective_from else "…"
        end = record.effective_until.isoformat() if record.effective_until else "…"
        parts.append(f"effective: {start} to {end}")
    return " | ".join(parts)


def assemble(
    selection_or_records: Selection | Sequence[ChunkRecord],
    *,
    budget_chars: int,
    per_source: int = 1,
    max_sources: int = 5,
    min_keep: int = 1,
) -> Assembly:
    """Build context and citation map from ranked records. Deterministic for the same input."""
    if budget_chars <= 0 or per_source < 1 or max_sources < 1 or min_keep < 1:
        raise ValueError("budget_chars, per_source, max_sources and min_keep must be positive")
    records = selection_or_records.kept if isinstance(selection_or_records, Selection) else tuple(selection_or_records)
    dropped: list[Rejection] = []

    # 1. Dedup and source cap, in rank order.
    groups: dict[str, list[ChunkRecord]] = {}
    seen_chunks: set[str] = set()
    for record in _tie_ordered(records):
        if not record.source_id:
            dropped.append(
                Rejection(
                    record,
                    RejectReason.NO_SOURCE_ID,
                    "no source_id: kept out of the citation map",
                    {"code": "no_source_id"},
                )
            )
            continue
        if record.chunk_id in seen_chunks:
            dropped.append(Rejection(record, RejectReason.DUPLICATE_SOURCE, "same chunk twice", {"code": "same_chunk"}))
            continue
        seen_chunks.add(record.chunk_id)
        group = groups.get(record.source_id)
        if group is None:
            if len(groups) >= max_sources:
                dropped.append(
                    Rejection(
                        record,
                        RejectReason.OVER_BUDGET,
                        f"more than {max_sources} sources",
                        {"code": "max_sources", "n": max_sources},
                    )
                )
                continue
            groups[record.source_id] = [record]
        elif len(group) < per_source:
            group.append(record)
        else:
            dropped.append(
                Rejection(
                    record,
                    RejectReason.DUPLICATE_SOURCE,
                    f"{per_source} chunk(s) of this source already kept",
                    {"code": "per_source", "n": per_source},
                )
            )

    # Context order: documents by their best chunk, a document's chunks together in rank order.
    ordered = [record for group in groups.values() for record in group]
    # Rank position of each record: what the budget drops first is the lowest-ranked one.
    rank = {r.chunk_id: i for i, r in enumerate(_tie_ordered(records))}

    # 2. Budget: drop lowest-ranked records while more than min_keep remain.
    snippets = {r.chunk_id: r.text.strip() for r in ordered}
    while _size(ordered, snippets) > budget_chars and len(ordered) > min_keep:
        victim = max(ordered, key=lambda r: rank[r.chunk_id])
        ordered.remove(victim)
        dropped.append(
            Rejection(
                victim,
                RejectReason.OVER_BUDGET,
                f"context budget {budget_chars} chars",
                {"code": "context_chars", "n": budget_chars},
            )
        )

    # 3. Then shorten the longest snippets, one sentence at a time.
    shortened: set[str] = set()
    while (excess := _size(ordered, snippets) - budget_chars) > 0:
        by_length = sorted(ordered, key=lambda r: (-len(snippets[r.chunk_id]), -rank[r.chunk_id]))
        longest = by_length[0]
        text = snippets[longest.chunk_id]
        # Bring the longest down to the next longest (or just enough), so no one snippet is gutted.
        runner_up = len(snippets[by_length[1].chunk_id]) if len(by_length) > 1 else 0
        cut = _shorter(text, max(len(text) - excess, runner_up))
        if cut is None:
            break  # nothing left to shorten; an honest over-budget context beats an empty one
        snippets[longest.chunk_id] = cut
        shortened.add(longest.chunk_id)

    # 4. One loop builds both projections.
    sources: list[AssembledSource] = []
    blocks: list[str] = []
    for n, record in enumerate(ordered, start=1):
        marker = f"S{n}"
        snippet = snippets[record.chunk_id]
        sources.append(AssembledSource(marker, record, snippet, record.chunk_id in shortened))
        blocks.append(f"{source_header(marker, record)}\n{snippet}")
    named = selection_or_records.named if isinstance(selection_or_records, Selection) else frozenset()
    return Assembly(tuple(sources), SEPARATOR.join(blocks), tuple(dropped), budget_chars, named)


def _tie_ordered(records: Iterable[ChunkRecord]) -> list[ChunkRecord]:
    """Keep tiering's order, but sort each run of exact ties by document, version and chunk index, then chunk_id
    (rule 3): a document's tied chunks in document order ("…:v1:9" before "…:v1:10", which the chunk_id's text puts
    after it; the chunks a list brings, tiering.with_list_continuations, tie at no relevance)."""
    out: list[ChunkRecord] = []
    run: list[ChunkRecord] = []
    for record in records:
        if run and _tie_key(run[0]) != _tie_key(record):
            out.extend(sorted(run, key=_document_order))
            run = []
        run.append(record)
    out.extend(sorted(run, key=_document_order))
    return out


def _document_order(record: ChunkRecord) -> tuple[str, int, int, str]:
    return (record.source_id or "", record.version, record.index, record.chunk_id)


def _tie_key(record: ChunkRecord) -> tuple[bool, float, float]:
    return (record.level is None, record.level_weight, record.relevance)


def _size(records: Sequence[ChunkRecord], snippets: dict[str, str]) -> int:
    if not records:
        return 0
    blocks = sum(len(source_header(f"S{i}", r)) + 1 + len(snippets[r.chunk_id]) for i, r in enumerate(records, 1))
    return blocks + len(SEPARATOR) * (len(records) - 1)


def _shorter(text: str, limit: int) -> str | None:
    """The longest prefix of whole sentences within limit; a clause-safe cut if one sentence is too long.

    Returns None when the text cannot get any shorter (already a single character or less).
    """
    if len(text) <= 1:
        return None
    limit = max(1, min(limit, len(text) - 1))
    best = 0
    for _, end in sentence_spans(text):
        if end <= limit:
            best = end
        else:
            break
    if best == 0:
        best = safe_cut(text, limit, 0) or limit
    return text[:best].rstrip() or text[:1]


def _one_line(text: str) -> str:
    return " ".join(text.split())


__all__ = ["SEPARATOR", "assemble", "source_header"]
