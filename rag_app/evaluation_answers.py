"""Answer-quality metrics of the evaluation protocol (../shared/eval-data/README.md, step 4).

rag_eval builds the corpus and the split (rag_app/evaluation.py); this module asks every
question through the same service the UI uses (services.ask) and scores what came back:

answerable questions  answered, gold_cited, answer_in_evidence, answer_in_text,
                      citation_precision, weak / insufficient paragraph rates; key_in_answer
                      when the cases carry key phrases (the natural-question set)
no-evidence questions abstained (state no_evidence, or every paragraph insufficient)
both                  p50 / p95 latency of the ask call

Every miss is attributed to the first stage that lost the gold source (recall, threshold,
assembly, citation) or to the extractive sentence choice, so owners can see which stage to fix.
The top relevance of each question is kept to draw the answered-vs-abstained trade-off across
thresholds without re-asking.
"""

from __future__ import annotations

import json
import logging
import statistics
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rag_app.pipeline.textproc import to_simplified

# Stage labels for a miss, in pipeline order.
RECALL = "recall"  # gold source not among the retrieval candidates
THRESHOLD = "threshold"  # gold retrieved but rejected by tiering (or nothing qualified)
ANSWERABILITY = "answerability"  # gold qualified, then rejected as not answering (pipeline/answerability.py)
ASSEMBLY = "assembly"  # gold qualified but not in the context sent to the generator
CITATION = "citation"  # gold in the context but not cited
CHUNK_CHOICE = "chunk_choice"  # gold source cited, but no cited snippet holds the answer (another chunk of it does)
EXTRACTIVE = "extractive_sentence"  # a cited snippet holds the answer, the answer text does not
FALSE_ACCEPT = "threshold_false_accept"  # no-evidence question answered with a linked paragraph
ERROR = "error"
INVALID = "invalid_question"  # the product refused the question itself (e.g. an empty one in the data set)


@dataclass(frozen=True, slots=True)
class EvalCase:
    """One question of the protocol. gold_source_id None = the gold article was withheld.

    Natural-question sets (evaluation.load_natural) fill the rest: other sources that answer it too
    (GPL 2 and 3 for "the GPL"), key phrases a correct answer must all hold, subset tags.
    """

    qid: str
    question: str
    answers: tuple[str, ...]
    gold_source_id: str | None
    other_gold: tuple[str, ...] = ()
    key_phrases: tuple[str, ...] = ()
    cross_lingual: bool | None = None
    corpus: str | None = None

    @property
    def golds(self) -> tuple[str, ...]:
        return (self.gold_source_id, *self.other_gold) if self.gold_source_id else ()


@dataclass(slots=True)
class Outcome:
    qid: str
    question: str
    answerable: bool
    gold_source_id: str | None
    state: str
    latency_ms: float
    answered: bool = False
    abstained: bool = False
    gold_cited: bool = False
    answer_in_evidence: bool = False
    answer_in_text: bool = False
    citation_precision: float | None = None
    paragraphs: int = 0
    insufficient_paragraphs: int = 0
    weak_paragraphs: int = 0
    cited_sources: list[str] = field(default_factory=list)
    top_relevance: float | None = None
    gold_top_relevance: float | None = None
    gold_rank: int | None = None
    stage: str | None = None  # where it went wrong; None = passed
    answer_text: str = ""
    gold_answers: list[str] = field(default_factory=list)
    reason: str = ""
    other_gold: list[str] = field(default_factory=list)
    key_in_answer: bool | None = None  # None: the case has no key phrases (SQuAD layout)
    cross_lingual: bool | None = None
    corpus: str | None = None


def rate(values: Sequence[bool]) -> float | None:
    """Share of true values, or None for an empty group."""
    return round(sum(values) / len(values), 4) if values else None


def percentile(values: Sequence[float], q: int, *, digits: int = 2) -> float | None:
    """The q-th percentile (inclusive method), or None for no values."""
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], digits)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], digits)


def match_form(text: str) -> str:
    """Loose matching form: NFKC, lower case, traditional characters as simplified ones, whitespace removed.

    Characters only (`to_simplified`), not the search's mainland wording (`textproc.fold`): the metric
    compares an answer with its document's own words, and stays what it was when the targets were set. The
    conversion also rewrites corner brackets 「」 as “” whatever the text holds, so "「GS」" alone comes out
    as it does inside a Chinese sentence.
    """
    folded = to_simplified(unicodedata.normalize("NFKC", text).lower())
    return "".join(folded.split())


def contains_any(haystack: str, needles: Iterable[str]) -> bool:
    hay = match_form(haystack)
    return any(n and n in hay for n in (match_form(x) for x in needles))


def contains_all(haystack: str, needles: Sequence[str]) -> bool:
    """Every needle is in the haystack, in match_form (an empty list is never "all found")."""
    hay = match_form(haystack)
    return bool(needles) and all(n and n in hay for n in map(match_form, needles))


def _tags(case: EvalCase) -> dict[str, Any]:
    return {"other_gold": list(case.other_gold), "cross_lingual": case.cross_lingual, "corpus": case.corpus}


def _relevance(candidate: dict[str, Any]) -> float | None:
    for key in ("relevance", "score"):
        value = candidate.get(key)
        if isinstance(value, int | float):
            return float(value)
    scores = candidate.get("scores")
    if isinstance(scores, dict):
        value = scores.get("relevance")
        if isinstance(value, int | float):
            return float(value)
    return None


def _candidate_source(candidate: dict[str, Any]) -> str | None:
    source = candidate.get("source_id")
    if source:
        return str(source)
    chunk_id = str(candidate.get("chunk_id") or "")
    return chunk_id.rsplit(":v", 1)[0] if ":v" in chunk_id else None


def refused(case: EvalCase, code: str, latency_ms: float) -> Outcome:
    """The outcome of a question the service refused to ask: it abstained, and answered nothing."""
    answerable = case.gold_source_id is not None
    return Outcome(
        qid=case.qid,
        question=case.question,
        answerable=answerable,
        gold_source_id=case.gold_source_id,
        state=INVALID,
        latency_ms=latency_ms,
        abstained=True,
        gold_answers=list(case.answers),
        reason=code,
        stage=INVALID if answerable else None,
        key_in_answer=False if answerable and case.key_phrases else None,
        **_tags(case),
    )


def score_answer(case: EvalCase, answer: Any, latency_ms: float) -> Outcome:
    """Score one stored Answer (with its paragraphs, citations and trace) against its case."""
    paragraphs = list(answer.paragraphs.all())
    citations = [c for p in paragraphs for c in p.citations.all()]
    cited_sources = list(dict.fromkeys(c.chunk.version.document.source_id for c in citations))
    linked = [p for p in paragraphs if p.evidence_status == "linked"]
    text = "\n".join(p.text for p in paragraphs)
    out = Outcome(
        qid=case.qid,
        question=case.question,
        answerable=case.gold_source_id is not None,
        gold_source_id=case.gold_source_id,
        state=str(answer.state),
        latency_ms=latency_ms,
        answered=answer.state == "answered" and bool(linked),
        abstained=answer.state == "no_evidence" or (bool(paragraphs) and not linked),
        paragraphs=len(paragraphs),
        insufficient_paragraphs=sum(p.evidence_status == "insufficient" for p in paragraphs),
        weak_paragraphs=sum(bool(p.weak) for p in paragraphs),
        cited_sources=cited_sources,
        answer_text=text,
        gold_answers=list(case.answers),
        reason=str(answer.reason or ""),
        **_tags(case),
    )
    trace = getattr(answer, "trace", None)
    candidates = list(trace.candidates) if trace is not None and isinstance(trace.candidates, list) else []
    marker_map = trace.marker_map if trace is not None and isinstance(trace.marker_map, dict) else {}
    rels = [r for r in (_relevance(c) for c in candidates if isinstance(c, dict)) if r is not None]
    out.top_relevance = max(rels) if rels else None
    if case.gold_source_id is None:
        if out.answered:
            out.stage = FALSE_ACCEPT
        elif answer.state == "error":
            out.stage = ERROR
        return out

    golds = set(case.golds)  # any of them counts as the gold source
    out.gold_cited = bool(golds.intersection(cited_sources))
    # The protocol: "some cited snippet contains a gold answer text" (any cited snippet counts).
    out.answer_in_evidence = any(contains_any(c.snippet, case.answers) for c in citations)
    out.answer_in_text = contains_any(text, case.answers)
    if case.key_phrases:
        out.key_in_answer = contains_all(text, case.key_phrases)
    if cited_sources:
        out.citation_precision = sum(s in golds for s in cited_sources) / len(cited_sources)
    gold_cands = [c for c in candidates if isinstance(c, dict) and _candidate_source(c) in golds]
    if gold_cands:
        out.gold_rank = next(
            i for i, c in enumerate(candidates) if isinstance(c, dict) and _candidate_source(c) in golds
        )
        gold_rels = [r for r in (_relevance(c) for c in gold_cands) if r is not None]
        out.gold_top_relevance = max(gold_rels) if gold_rels else None
    in_context = any(
        isinstance(v, dict)
        and (v.get("source_id") in golds or any(str(v.get("chunk_id", "")).startswith(g + ":v") for g in golds))
        for v in marker_map.values()
    )
    if answer.state == "error":
        out.stage = ERROR
    elif not out.gold_cited:
        if not gold_cands:
            out.stage = RECALL
        elif not any(c.get("kept") or c.get("stage") == "assembly" for c in gold_cands):
            out.stage = ANSWERABILITY if any(c.get("reason") == "not_answering" for c in gold_cands) else THRESHOLD
        elif not in_context:
            out.stage = ASSEMBLY  # qualified, then dropped by dedup / budget / max sources
        else:
            out.stage = CITATION
    elif not out.answer_in_text:
        out.stage = EXTRACTIVE if out.answer_in_evidence else CHUNK_CHOICE
    elif not out.answered:
        out.stage = THRESHOLD
    return out


def aggregate(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The protocol's figures, each a fraction of the questions in its group; natural-question
    sets add the same figures for the cross-lingual subset and per corpus (SQuAD: keys absent)."""
    report = _group_figures(outcomes)
    lat = [o.latency_ms for o in outcomes]
    report["latency_ms"] = {"p50": percentile(lat, 50, digits=1), "p95": percentile(lat, 95, digits=1), "n": len(lat)}
    if any(o.cross_lingual is not None for o in outcomes):
        report["cross_lingual"] = _group_figures([o for o in outcomes if o.cross_lingual])
    corpora = sorted({o.corpus for o in outcomes if o.corpus})
    if corpora:
        report["by_corpus"] = {c: _group_figures([o for o in outcomes if o.corpus == c]) for c in corpora}
    return report


def _group_figures(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    ans = [o for o in outcomes if o.answerable]
    noev = [o for o in outcomes if not o.answerable]
    precisions = [o.citation_precision for o in ans if o.citation_precision is not None]
    paragraphs = sum(o.paragraphs for o in ans)
    keyed = [bool(o.key_in_answer) for o in ans if o.key_in_answer is not None]
    report: dict[str, Any] = {
        "answerable": {
            "questions": len(ans),
            "answered": rate([o.answered for o in ans]),
            "gold_cited": rate([o.gold_cited for o in ans]),
            "answer_in_evidence": rate([o.answer_in_evidence for o in ans]),
            "answer_in_text": rate([o.answer_in_text for o in ans]),
            # Mean over answerable questions that cite anything (a question citing nothing has no precision).
            "citation_precision": round(statistics.fmean(precisions), 4) if precisions else None,
            "insufficient_paragraph_rate": round(sum(o.insufficient_paragraphs for o in ans) / paragraphs, 4)
            if paragraphs
            else None,
            "weak_paragraph_rate": round(sum(o.weak_paragraphs for o in ans) / paragraphs, 4) if paragraphs else None,
            "misses_by_stage": dict(Counter(o.stage for o in ans if o.stage)),
        },
        "no_evidence": {
            "questions": len(noev),
            "abstained": rate([o.abstained for o in noev]),
            "misses_by_stage": dict(Counter(o.stage for o in noev if o.stage)),
        },
    }
    if keyed:  # every key phrase in the answer text, over the answerable questions that have keys
        report["answerable"]["key_in_answer"] = rate(keyed)
    return report


def tradeoff(
    outcomes: Sequence[Outcome], threshold: float, thresholds: Sequence[float] | None = None
) -> list[dict[str, float]]:
    """Answered-vs-abstained across thresholds, from each question's top relevance (no re-asking).

    At or above the run's `threshold` this is exact for what qualifies among passages that need the whole
    threshold (Chinese ones): a question whose top relevance falls below t abstains, the others keep their
    outcome. A passage of a language with a share of the threshold (pipeline/tiering.share: English) needs
    less than t, and so does a Chinese passage asked for a value in English (tiering.VALUE_ACROSS_SHARE); the curve
    does not apply the shares, so read it for sets asked of Chinese passages in Chinese (CMRC),
    and sweep an English set through bench/answerability_sweep.py. Below it, it is a prediction:
    a question that abstained would now have a qualified source (top relevance >= t) and is counted
    as answered, and as answered with the gold source when the gold chunk was the top candidate.
    """
    thresholds = thresholds or [round(i / 50, 2) for i in range(51)]
    ans = [o for o in outcomes if o.answerable]
    noev = [o for o in outcomes if not o.answerable]
    rows = []
    for t in thresholds:
        answered, gold, abstained = [], [], []
        for o in ans:
            top = o.top_relevance or 0.0
            if t >= threshold or o.answered:
                answered.append(o.answered and top >= t)
                gold.append(o.answered and o.gold_cited and top >= t)
            else:
                answered.append(top >= t)
                gold.append(o.gold_rank == 0 and (o.gold_top_relevance or 0.0) >= t)
        for o in noev:
            top = o.top_relevance or 0.0
            abstained.append(top < t or not o.answered if t >= threshold or o.answered else top < t)
        rows.append(
            {
                "threshold": t,
                "answered": rate(answered) or 0.0,
                "answered_with_gold": rate(gold) or 0.0,
                "abstained": rate(abstained) or 0.0,
                "predicted": t < threshold,
            }
        )
    return rows


def outcomes_from_jsonl(path: Path) -> list[Outcome]:
    """Read back outcomes.jsonl (answer_text is not stored there)."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Outcome(**{**row, "answer_text": ""}) for row in rows]


def run_answer_eval(
    *,
    cases: Sequence[EvalCase],
    ask: Callable[[str], Any],
    threshold: float,
    out_dir: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ask every case through `ask(question) -> Answer`, score it, write failures.jsonl to out_dir."""
    outcomes: list[Outcome] = []
    from rag_app.services import InvalidQuestion

    for i, case in enumerate(cases):
        t0 = time.perf_counter()
        try:
            answer = ask(case.question)
        except InvalidQuestion as exc:
            # A data set can hold questions the product refuses (CMRC trial has an empty one). The
            # refusal is an outcome like any other: nothing answered, nothing cited, nothing stored.
            outcomes.append(refused(case, exc.code, (time.perf_counter() - t0) * 1000))
        else:
            outcomes.append(score_answer(case, answer, (time.perf_counter() - t0) * 1000))
        if progress is not None:
            progress(i + 1, len(cases))
    report = aggregate(outcomes)
    report["tradeoff"] = tradeoff(outcomes, threshold)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        with (out_dir / "failures.jsonl").open("w", encoding="utf-8") as fh:
            for o in outcomes:
                if o.stage is not None or (o.answerable and not (o.answered and o.answer_in_evidence)):
                    fh.write(json.dumps(asdict(o), ensure_ascii=False) + "\n")
        with (out_dir / "outcomes.jsonl").open("w", encoding="utf-8") as fh:
            for o in outcomes:
                row = asdict(o)
                row.pop("answer_text")
                fh.write(json.dumps(row, ensure_ascii=False) + "\n")
        (out_dir / "answers.json").write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", "utf-8")
    return report


def answer_table(report: dict[str, Any]) -> str:
    """A short Markdown-ish table of the headline figures."""
    a, n, lat = report["answerable"], report["no_evidence"], report["latency_ms"]
    rows = [
        ("answered", a["answered"]),
        ("gold_cited", a["gold_cited"]),
        ("answer_in_evidence", a["answer_in_evidence"]),
        ("answer_in_text", a["answer_in_text"]),
        *([("key_in_answer", a["key_in_answer"])] if "key_in_answer" in a else []),
        ("citation_precision", a["citation_precision"]),
        ("insufficient_paragraph_rate", a["insufficient_paragraph_rate"]),
        ("weak_paragraph_rate", a["weak_paragraph_rate"]),
        ("abstained (no evidence)", n["abstained"]),
        ("ask p50 ms", lat["p50"]),
        ("ask p95 ms", lat["p95"]),
    ]
    lines = [f"answerable: {a['questions']}   no evidence: {n['questions']}", "| metric | value |", "|---|---|"]
    lines += [f"| {k} | {'-' if v is None else v} |" for k, v in rows]
    if a["misses_by_stage"] or n["misses_by_stage"]:
        lines.append(f"misses by stage: answerable {a['misses_by_stage']}  no-evidence {n['misses_by_stage']}")
    return "\n".join(lines)


def answers_dir(out: Path | None) -> Path | None:
    """Where the per-question JSONL goes: next to rag_eval's --out report, as <stem>.answers/."""
    return None if out is None else out.parent / f"{out.stem}.answers"


def evaluate_answers(
    cases: Sequence[EvalCase],
    *,
    mode: str | None,
    out: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Ask every case as a staff user through services.ask (the UI's path) and score the answers.

    Runs in rag_eval's own evaluation database, never the user's.
    """
    from django.conf import settings
    from django.contrib.auth.models import Group, User

    from rag_app.services import ask

    user, _ = User.objects.get_or_create(username="rag_eval")
    user.groups.add(Group.objects.get_or_create(name="staff")[0])
    service_log = logging.getLogger("rag_app.services")
    level = service_log.level
    service_log.setLevel(logging.WARNING)  # one INFO line per question drowns the report
    try:
        report = run_answer_eval(
            cases=cases,
            ask=lambda q: ask(user=user, question=q, mode=mode),
            threshold=float(settings.RAG["MIN_RELEVANCE"]),
            out_dir=answers_dir(out),
            progress=progress,
        )
    finally:
        service_log.setLevel(level)
    report["mode"] = mode or settings.RAG["GENERATOR"]
    report["threshold"] = settings.RAG["MIN_RELEVANCE"]
    return report
