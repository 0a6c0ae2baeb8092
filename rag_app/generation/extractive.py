"""The default generator: verbatim sentences of the assembled snippets, no model needed.

Every sentence of every snippet is scored against the question: the IDF-weighted share of the
question's content terms it contains, blended with the share of the question's Chinese
character bigrams it contains (robust to segmentation differences). The answer quotes the
best sentences of ONE source, the top-ranked one unless another source's best sentence is
clearly better, so each paragraph cites exactly the source its words came from.

When the best sentences of different sources disagree (conflict.py), the answer gives one
quoted statement per source instead, the higher level and newer effective date first, and
the draft is flagged `conflict`. When no sentence shares anything with the question, the
answer says so in an uncited paragraph (shown as insufficient evidence) instead of quoting
something irrelevant.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import math
import re
from dataclasses import dataclass

from rag_app.pipeline.conflict import Statement, conflicting_markers, detect_conflicts
from rag_app.pipeline.records import AssembledSource, Assembly, Draft, DraftParagraph
from rag_app.pipeline.textproc import fold, query_terms, sentence_spans, tokenize

_CJK_RE = re.compile(r"[\u3400-\u9fff]")
_HEADING_RE = re.compile(r"^\s*#{1,6}\s")

NOT_FOUND = {
    "en": "The retrieved sources do not state this directly; try other terms or ask a reviewer.",
    "zh": "检索到的资料没有直接说明这一点；请换个说法或咨询审核人员。",
}


@dataclass(frozen=True, slots=True)
class ScoredSentence:
    marker: str
    rank: int  # position of the source in the assembly
    start: int
    end: int
    text: str
    score: float


class ExtractiveGenerator:
    mode = "extractive"
    model = "extractive"

    def __init__(
        self,
        *,
        max_sentences: int = 3,
        max_chars: int = 360,
        keep_ratio: float = 0.6,
        switch_margin: float = 0.2,
        min_score: float = 0.05,
    ) -> None:
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.keep_ratio = keep_ratio
        self.switch_margin = switch_margin
        self.min_score = min_score

    def generate(self, *, question: str, assembly: Assembly, language: str) -> Draft:
        lang = "zh" if language == "zh" else "en"
        scored = score_sentences(question, assembly.sources)
        trace: dict[str, object] = {"generator": "extractive", "query_terms": query_terms(question)}
        best_by_marker: dict[str, ScoredSentence] = {}
        for s in scored:
            current = best_by_marker.get(s.marker)
            if current is None or s.score > current.score:
                best_by_marker[s.marker] = s
        if not best_by_marker or max(s.score for s in best_by_marker.values()) < self.min_score:
            trace["decision"] = "no sentence shares terms with the question"
            return self._draft((DraftParagraph(NOT_FOUND[lang]),), trace)

        by_marker = assembly.by_marker()
        primary = self._primary(best_by_marker)
        top = best_by_marker[primary].score

        # Conflicts: compare the best sentences of sources that are about the question at all.
        relevant = [s for s in best_by_marker.values() if s.score >= top * self.keep_ratio]
        statements = [Statement(s.marker, by_marker[s.marker].record.source_id or "", s.text) for s in relevant]
        conflicts = detect_conflicts(statements)
        if conflicts:
            markers = conflicting_markers(conflicts)
            ordered = sorted(markers, key=lambda m: _trust_key(by_marker[m]))
            paragraphs = tuple(DraftParagraph(best_by_marker[m].text, (m,)) for m in ordered)
            trace["decision"] = "conflict"
            trace["conflicts"] = [{"markers": c.markers, "kind": c.kind, "values": c.values} for c in conflicts]
            return self._draft(paragraphs, trace, conflict=True)

        chosen = self._pick(scored, primary)
        text = _quote(by_marker[primary].snippet, chosen)
        trace["decision"] = "quote"
        trace["sentences"] = [{"marker": s.marker, "score": round(s.score, 4), "text": s.text} for s in chosen]
        return self._draft((DraftParagraph(text, (primary,)),), trace)

    def _primary(self, best: dict[str, ScoredSentence]) -> str:
        first = min(best.values(), key=lambda s: s.rank)
        challenger = max(best.values(), key=lambda s: (s.score, -s.rank))
        if challenger.score > first.score + self.switch_margin:
            return challenger.marker
        return first.marker

    def _pick(self, scored: list[ScoredSentence], marker: str) -> list[ScoredSentence]:
        own = sorted((s for s in scored if s.marker == marker), key=lambda s: (-s.score, s.start))
        best = own[0]
        chosen = [best]
        used = len(best.text)
        for s in own[1:]:
            if len(chosen) >= self.max_sentences or s.score < best.score * self.keep_ratio or s.score <= 0:
                break
            if used + len(s.text) > self.max_chars:
                continue
            chosen.append(s)
            used += len(s.text)
        return sorted(chosen, key=lambda s: s.start)

    def _draft(self, paragraphs: tuple[DraftParagraph, ...], trace: dict[str, object], conflict: bool = False) -> Draft:
        raw = json.dumps(trace, ensure_ascii=False, default=str)
        return Draft(paragraphs=paragraphs, raw_output=raw, model=self.model, quoted=True, conflict=conflict)


def score_sentences(question: str, sources: tuple[AssembledSource, ...]) -> list[ScoredSentence]:
    """Every sentence of every snippet with its score against the question, in context order."""
    terms = query_terms(question)
    q_bigrams = _bigrams(question)
    sentences: list[tuple[AssembledSource, int, int, int, str, set[str]]] = []
    for rank, source in enumerate(sources):
        for line_start, line_end in _lines(source.snippet):
            if _HEADING_RE.match(source.snippet[line_start:line_end]):
                continue  # a heading names the topic; it never answers anything
            for s, e in sentence_spans(source.snippet, line_start, line_end):
                text = source.snippet[s:e]
                sentences.append((source, rank, s, e, text, set(tokenize(text))))
    n = max(1, len(sentences))
    df = {t: sum(1 for *_, toks in sentences if t in toks) for t in terms}
    weight = {t: math.log(1 + n / (1 + df[t])) * (1 + 0.25 * min(len(t), 4)) for t in terms}
    total = sum(weight.values())
    out: list[ScoredSentence] = []
    for source, rank, s, e, text, toks in sentences:
        term_cov = sum(w for t, w in weight.items() if t in toks) / total if total else 0.0
        bigram_cov = len(q_bigrams & _bigrams(text)) / len(q_bigrams) if q_bigrams else 0.0
        score = 0.7 * term_cov + 0.3 * bigram_cov if q_bigrams else term_cov
        out.append(ScoredSentence(source.marker, rank, s, e, text, score))
    return out


def _quote(snippet: str, chosen: list[ScoredSentence]) -> str:
    """Adjacent sentences keep the snippet's own text between them; gaps are marked with an ellipsis."""
    parts = [snippet[chosen[0].start : chosen[0].end]]
    for prev, cur in itertools.pairwise(chosen):
        gap = snippet[prev.end : cur.start]
        parts.append(gap if not gap.strip() else " … ")
        parts.append(snippet[cur.start : cur.end])
    return "".join(parts)


def _trust_key(source: AssembledSource) -> tuple[float, int, str]:
    """Higher level first, then the newer effective date, then the assembly order."""
    record = source.record
    effective = record.effective_from or dt.date.min
    return (-record.level_weight, -effective.toordinal(), f"{int(source.marker[1:]):06d}")


def _lines(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


def _bigrams(text: str) -> set[str]:
    folded = "".join(ch for ch in fold(text) if _CJK_RE.match(ch))
    return {folded[i : i + 2] for i in range(len(folded) - 1)}
