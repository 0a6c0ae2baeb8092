"""The evaluation protocol (../shared/eval-data/README.md): corpus, split, retrieval metrics.

Any SQuAD-layout file works (simplified / traditional Chinese, English). Each article becomes
one Markdown document `# {title}\\n\\n{paragraphs}` at level `official`; its source_id is the
paragraph id when the article is one paragraph with an id (CMRC: `DEV_0`), else the article id,
else `A{n}` (n = the article's position in the file). The articles are shuffled with
random.Random(seed) and the first half is ingested: their questions are answerable, the
questions on the withheld half have no evidence in the corpus.

A natural-question set (eval-data/natural/README.md) is told apart by its content: a top-level
"corpora" list (manifests of real files, ingested through the ingest service as they are) and a
"questions" list. There is no split: every question is asked against the same documents, and
the unanswerable ones are simply those the corpus has no answer to.

The corpus is always built in a database of its own (`manage.py rag_eval` runs this module in a
child process whose DATABASE_URL points at a cached SQLite file under var/), never in the
user's database. Answer metrics live in rag_app/evaluation_answers.py and use the same cases.
"""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rag_app.evaluation_answers import EvalCase, percentile, rate

# Bump when the corpus building changes, so cached corpora are rebuilt.
# 2: chunks indexed with their title and section path; 3: Snowball stems, template words;
# 4: plain text reflowed, its headings as sections; 5: Markdown soft breaks and PDF lines reflowed too;
# 6: the initialisms of names indexed beside the words (textproc.passage_tokens); 7: a short hard-wrapped
# plain text (2-4 lines) reflowed too; 8: a full stop after an abbreviation ("Dr.", "e.g.") ends no sentence,
# so no chunk is cut there, a numbered clause's title and "Library General Public License" give no "gpl";
# 9: British spellings indexed as American ones (textproc.stem); 10: a numbered clause's title after " > " in
# a section path gives no initialism either; 11: Chinese folded to mainland wording (textproc.to_mainland) and
# embedded in that form, plain text and PDF structure read block by block (headings inside paragraphs,
# underlined headings, lists); 12: a sentence that introduces what follows ("…the following conditions:") opens
# the chunk of what it introduces (pipeline/chunking.py); 13: so do several in a row ("The following rules apply:",
# then "…as follows:"), none left as a chunk of its own; 14: no initialism keeps the "a" of "and" ("Confidential and
# Restricted" gave "car")
CORPUS_FORMAT = 14
SWEEP = [round(0.01 * i, 2) for i in range(101)]


@dataclass(frozen=True, slots=True)
class Article:
    source_id: str
    title: str
    paragraphs: tuple[str, ...]
    questions: tuple[tuple[str, str, tuple[str, ...]], ...]  # (qid, question, answer texts)

    def markdown(self) -> str:
        body = "\n\n".join(p.strip() for p in self.paragraphs)
        return f"# {self.title.strip()}\n\n{body}\n" if self.title.strip() else f"{body}\n"


@dataclass(frozen=True, slots=True)
class Protocol:
    ingested: tuple[Article, ...]
    withheld: tuple[Article, ...]

    def cases(self, *, limit: int | None = None, seed: int = 0) -> list[EvalCase]:
        """Answerable cases then no-evidence cases; with a limit, a seeded sample of each half."""
        answerable = [_case(a, q, gold=True) for a in self.ingested for q in a.questions]
        no_evidence = [_case(a, q, gold=False) for a in self.withheld for q in a.questions]
        return _sample(answerable, no_evidence, limit=limit, seed=seed)


def _sample(answerable: list[EvalCase], no_evidence: list[EvalCase], *, limit: int | None, seed: int) -> list[EvalCase]:
    if limit is not None:
        rng = random.Random(seed)
        per_group = max(1, limit // 2)
        answerable = sorted(rng.sample(answerable, min(per_group, len(answerable))), key=lambda c: c.qid)
        no_evidence = sorted(rng.sample(no_evidence, min(per_group, len(no_evidence))), key=lambda c: c.qid)
    return answerable + no_evidence


def _case(article: Article, question: tuple[str, str, tuple[str, ...]], *, gold: bool) -> EvalCase:
    qid, text, answers = question
    return EvalCase(qid=qid, question=text, answers=answers, gold_source_id=article.source_id if gold else None)


def load_articles(path: Path) -> list[Article]:
    return _articles(json.loads(path.read_text(encoding="utf-8"))["data"])


def _articles(data: list[dict[str, Any]]) -> list[Article]:
    articles: list[Article] = []
    for n, art in enumerate(data):
        paragraphs = art.get("paragraphs", [])
        if len(paragraphs) == 1 and paragraphs[0].get("id"):
            source_id = str(paragraphs[0]["id"])
        else:
            source_id = str(art.get("id") or f"A{n}")
        questions = tuple(
            (str(qa.get("id") or f"{source_id}_Q{i}"), qa["question"], tuple(a["text"] for a in qa.get("answers", [])))
            for p in paragraphs
            for i, qa in enumerate(p.get("qas", []))
        )
        contexts = tuple(p["context"] for p in paragraphs if p.get("context", "").strip())
        if contexts:
            articles.append(Article(source_id, str(art.get("title") or ""), contexts, questions))
    return articles


def split(articles: Sequence[Article], *, seed: int = 0) -> Protocol:
    shuffled = list(articles)
    random.Random(seed).shuffle(shuffled)
    half = len(shuffled) // 2
    return Protocol(ingested=tuple(shuffled[:half]), withheld=tuple(shuffled[half:]))


def dataset_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def corpus_file(
    dataset: Path,
    protocol: Protocol | NaturalSet,
    *,
    seed: int,
    rag_settings: dict[str, Any],
    cache_dir: Path,
    distractors: Sequence[Path] = (),
) -> Path:
    """The cached corpus database of `dataset` (`manage.py rag_eval` builds it, others read it): a
    natural-question set's corpus is its documents whatever the seed; a SQuAD-layout file's is the split;
    either with the articles of the `distractors` files beside it."""
    if isinstance(protocol, NaturalSet):
        sha, seed = protocol.corpus_sha256(), 0
    else:
        sha = dataset_sha256(dataset)
    extra = [dataset_sha256(p) for p in distractors]
    key = corpus_key(dataset_sha=sha, seed=seed, rag_settings=rag_settings, distractor_shas=extra)
    return (cache_dir / f"corpus-{key}.sqlite3").resolve()


def corpus_key(
    *, dataset_sha: str, seed: int, rag_settings: dict[str, Any], distractor_shas: Sequence[str] = ()
) -> str:
    """Cache key of a built corpus: the data, the split and every setting that changes the index (a corpus
    without distractors keeps the key it always had)."""
    relevant = {k: rag_settings.get(k) for k in ("CHUNK_TARGET", "CHUNK_MAX", "EMBEDDER", "EMBEDDING_MODEL")}
    parts: list[Any] = [CORPUS_FORMAT, dataset_sha, seed, relevant]
    if distractor_shas:
        parts.append(list(distractor_shas))
    blob = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def load_distractors(paths: Sequence[Path], protocol: Protocol | NaturalSet) -> tuple[Article, ...]:
    """The articles of SQuAD-layout `paths`, ingested beside the protocol's corpus so that its questions are
    asked of a larger one (how the threshold holds as a corpus grows). An article the protocol holds itself,
    ingested or withheld, is left out: a withheld one would answer the questions that must find nothing."""
    own: set[str] = set()
    own_text: set[tuple[str, ...]] = set()
    if isinstance(protocol, Protocol):
        own = {a.source_id for a in (*protocol.ingested, *protocol.withheld)}
        own_text = {a.paragraphs for a in (*protocol.ingested, *protocol.withheld)}
    else:
        own = {d.source_id for d in protocol.documents}
    seen: set[str] = set()
    out: list[Article] = []
    for path in paths:
        for article in load_articles(path):
            if article.source_id in own or article.source_id in seen or article.paragraphs in own_text:
                continue
            seen.add(article.source_id)
            out.append(article)
    return tuple(out)


# --- natural-question sets (eval-data/natural/README.md) ---------------------------------------

KINDS = ("answerable", "unanswerable")


@dataclass(frozen=True, slots=True)
class CorpusDocument:
    source_id: str  # "{corpus}/{id in its manifest}": unique across corpora by construction
    path: Path
    title: str
    level: str


@dataclass(frozen=True, slots=True)
class NaturalSet:
    """Real documents (all ingested) and questions on them; unanswerable = no gold source."""

    documents: tuple[CorpusDocument, ...]
    answerable: tuple[EvalCase, ...]
    unanswerable: tuple[EvalCase, ...]

    @property
    def ingested(self) -> tuple[CorpusDocument, ...]:
        return self.documents

    def cases(self, *, limit: int | None = None, seed: int = 0) -> list[EvalCase]:
        return _sample(list(self.answerable), list(self.unanswerable), limit=limit, seed=seed)

    def corpus_sha256(self) -> str:
        """Hash of what gets ingested (ids, metadata, file bytes), not of the questions: editing
        a question must not re-embed the corpus."""
        digest = hashlib.sha256()
        for doc in self.documents:
            meta = json.dumps([doc.source_id, doc.path.name, doc.title, doc.level], ensure_ascii=False)
            digest.update(meta.encode() + hashlib.sha256(doc.path.read_bytes()).digest())
        return digest.hexdigest()


def is_natural(data: object) -> bool:
    """The natural layout has "corpora" and "questions"; SQuAD has a "data" list."""
    return isinstance(data, dict) and isinstance(data.get("corpora"), list) and isinstance(data.get("questions"), list)


def load_natural(path: Path, data: dict[str, Any] | None = None) -> NaturalSet:
    """Read a natural-question set; manifest paths are relative to the set, file paths to their
    manifest. Raises ValueError naming the first inconsistency (unknown source, missing file...)."""
    data = data if data is not None else json.loads(path.read_text(encoding="utf-8"))
    if not is_natural(data):
        raise ValueError("expected top-level 'corpora' and 'questions' lists")
    documents: list[CorpusDocument] = []
    for corpus in data["corpora"]:
        name, manifest_path = str(corpus["name"]), path.parent / str(corpus["manifest"])
        for entry in json.loads(manifest_path.read_text(encoding="utf-8"))["documents"]:
            file = manifest_path.parent / str(entry["file"])
            if not file.is_file():
                raise ValueError(f"{manifest_path}: no such file {file}")
            title = str(entry.get("title") or "")
            documents.append(
                CorpusDocument(f"{name}/{entry['id']}", file, title, str(entry.get("level") or "official"))
            )
    ids = [d.source_id for d in documents]
    if len(set(ids)) != len(ids):
        raise ValueError("two documents share a source_id")
    answerable: list[EvalCase] = []
    unanswerable: list[EvalCase] = []
    for q in data["questions"]:
        case = _natural_case(q, known=set(ids), corpora={str(c["name"]) for c in data["corpora"]})
        (answerable if case.gold_source_id else unanswerable).append(case)
    if len({c.qid for c in answerable + unanswerable}) != len(data["questions"]):
        raise ValueError("two questions share an id")
    return NaturalSet(tuple(documents), tuple(answerable), tuple(unanswerable))


def _natural_case(q: dict[str, Any], *, known: set[str], corpora: set[str]) -> EvalCase:
    qid, kind = str(q["id"]), q["kind"]
    if kind not in KINDS or q["corpus"] not in corpora or not str(q["question"]).strip():
        raise ValueError(f"question {qid}: bad kind, corpus or question")
    golds = [str(s) for s in q.get("source_ids") or []] if kind == "answerable" else []
    keys = tuple(str(k) for k in q.get("key_phrases") or []) if kind == "answerable" else ()
    if kind == "answerable" and (not golds or not keys or not set(golds) <= known):
        raise ValueError(f"question {qid}: an answerable question needs known source_ids and key_phrases")
    return EvalCase(
        qid=qid,
        question=str(q["question"]),
        answers=keys,  # answer_in_text / _in_evidence: any key phrase; key_in_answer: all of them
        gold_source_id=golds[0] if golds else None,
        other_gold=tuple(golds[1:]),
        key_phrases=keys,
        cross_lingual=bool(q["cross_lingual"]),
        corpus=str(q["corpus"]),
    )


def load_dataset(path: Path, *, seed: int = 0) -> Protocol | NaturalSet:
    """Either layout, told apart by content (never by file name)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if is_natural(data):
        return load_natural(path, data)
    return split(_articles(data["data"]), seed=seed)


def _build_natural(natural: NaturalSet, *, progress: Callable[[int, int], None] | None) -> int:
    from rag_app.ingest.service import document_ingest

    chunks = 0
    for i, doc in enumerate(natural.documents):
        # The real file under its own name, so its own parser (txt / md / html / pdf) reads it;
        # groups=[] opens every document to all staff (the demo restricts one to its `research` access group).
        result = document_ingest(
            data=doc.path.read_bytes(),
            file_name=doc.path.name,
            source_id=doc.source_id,
            title=doc.title or None,
            level=doc.level,
            groups=[],
        )
        chunks += result.chunks
        if progress is not None:
            progress(i + 1, len(natural.documents))
    return chunks


def build_corpus(
    protocol: Protocol | NaturalSet,
    *,
    distractors: Sequence[Article] = (),
    progress: Callable[[int, int], None] | None = None,
) -> int:
    """Ingest the protocol's first half (a natural set: every document) and the `distractors` into the
    current (fresh) database. Returns the chunk count."""
    chunks = (
        _build_natural(protocol, progress=progress)
        if isinstance(protocol, NaturalSet)
        else _ingest_articles(protocol.ingested, progress=progress)
    )
    return chunks + _ingest_articles(distractors, progress=progress)


def _ingest_articles(articles: Sequence[Article], *, progress: Callable[[int, int], None] | None) -> int:
    from rag_app.ingest.parsers import SUPPORTED_EXTENSIONS
    from rag_app.ingest.service import document_ingest

    ext = ".md" if ".md" in SUPPORTED_EXTENSIONS else ".txt"
    chunks = 0
    for i, article in enumerate(articles):
        result = document_ingest(
            data=article.markdown().encode("utf-8"),
            file_name=f"{article.source_id}{ext}",
            source_id=article.source_id,
            title=article.title or None,
            level="official",
        )
        chunks += result.chunks
        if progress is not None:
            progress(i + 1, len(articles))
    return chunks


# --- retrieval metrics ------------------------------------------------------------------------


@dataclass(slots=True)
class RetrievalOutcome:
    qid: str
    answerable: bool
    top_relevance: float
    gold_rank: int | None  # 1-based rank of the gold source's first chunk among candidates
    has_evidence: bool  # retrieve() kept something at the configured threshold
    latency_ms: float


def evaluate_retrieval(
    cases: Sequence[EvalCase],
    *,
    retrieve: Callable[[str], Any],
    threshold: float,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[dict[str, Any], list[RetrievalOutcome]]:
    """Run `retrieve(question) -> Selection` per case; report recall, calibration and latency."""
    outcomes: list[RetrievalOutcome] = []
    for i, case in enumerate(cases):
        t0 = time.perf_counter()
        selection = retrieve(case.question)
        latency = (time.perf_counter() - t0) * 1000
        candidates = [*selection.kept, *(r.record for r in selection.rejected)]
        candidates.sort(key=lambda r: (-r.relevance, r.chunk_id))
        golds = set(case.golds)
        gold_rank = next((n for n, r in enumerate(candidates, 1) if r.source_id in golds), None)
        outcomes.append(
            RetrievalOutcome(
                qid=case.qid,
                answerable=case.gold_source_id is not None,
                top_relevance=candidates[0].relevance if candidates else 0.0,
                gold_rank=gold_rank,
                has_evidence=selection.has_evidence,
                latency_ms=latency,
            )
        )
        if progress is not None:
            progress(i + 1, len(cases))
    return retrieval_report(outcomes, threshold=threshold), outcomes


def retrieval_report(outcomes: Sequence[RetrievalOutcome], *, threshold: float | None = None) -> dict[str, Any]:
    pos = [o for o in outcomes if o.answerable]
    neg = [o for o in outcomes if not o.answerable]
    latencies = [o.latency_ms for o in outcomes]
    sweep = threshold_sweep(outcomes)
    best = max(
        (row for row in sweep if row["answered"] is not None and row["answered"] >= 0.95),
        key=lambda row: (row["abstained"] or 0.0, row["threshold"]),
        default=None,
    )
    return {
        "threshold": threshold,
        "answerable": {
            "questions": len(pos),
            "gold_top1": rate([o.gold_rank == 1 for o in pos]),
            "gold_top5": rate([o.gold_rank is not None and o.gold_rank <= 5 for o in pos]),
            "gold_in_candidates": rate([o.gold_rank is not None for o in pos]),
            "answered": rate([o.has_evidence for o in pos]),
        },
        "no_evidence": {"questions": len(neg), "abstained": rate([not o.has_evidence for o in neg])},
        "auroc_top_relevance": auroc([o.top_relevance for o in pos], [o.top_relevance for o in neg]),
        "threshold_sweep": sweep,
        "best_threshold_answered_ge_0.95": best,
        "latency_ms": {"p50": percentile(latencies, 50), "p95": percentile(latencies, 95)},
    }


def threshold_sweep(outcomes: Sequence[RetrievalOutcome], thresholds: Sequence[float] = SWEEP) -> list[dict[str, Any]]:
    """Answered (answerable) and abstained (no evidence) rates if the threshold were t, each question's top
    relevance against t as a whole (the language shares of pipeline/tiering.share not applied: exact for
    Chinese passages, as in CMRC)."""
    pos = [o.top_relevance for o in outcomes if o.answerable]
    neg = [o.top_relevance for o in outcomes if not o.answerable]
    return [
        {"threshold": t, "answered": rate([v >= t for v in pos]), "abstained": rate([v < t for v in neg])}
        for t in thresholds
    ]


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """Probability that a random answerable question outscores a random no-evidence one (ties 1/2)."""
    if not positives or not negatives:
        return None
    values = sorted([(v, 1) for v in positives] + [(v, 0) for v in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(values):
        j = i
        while j < len(values) and values[j][0] == values[i][0]:
            j += 1
        mid_rank = (i + 1 + j) / 2
        rank_sum += mid_rank * sum(1 for k in range(i, j) if values[k][1])
        i = j
    p, n = len(positives), len(negatives)
    return round((rank_sum - p * (p + 1) / 2) / (p * n), 4)


def retrieval_table(report: dict[str, Any]) -> str:
    a, n, lat = report["answerable"], report["no_evidence"], report["latency_ms"]
    best = report["best_threshold_answered_ge_0.95"]
    rows = [
        ("gold source top-1", a["gold_top1"]),
        ("gold source top-5", a["gold_top5"]),
        ("threshold (RAG_MIN_RELEVANCE)", report["threshold"]),
        ("answered at threshold", a["answered"]),
        ("abstained at threshold (no evidence)", n["abstained"]),
        ("AUROC of top relevance", report["auroc_top_relevance"]),
        ("best threshold with answered >= 0.95", best and f"{best['threshold']} (abstained {best['abstained']})"),
        ("retrieve p50 ms", lat["p50"]),
        ("retrieve p95 ms", lat["p95"]),
    ]
    lines = [f"answerable: {a['questions']}   no evidence: {n['questions']}", "| metric | value |", "|---|---|"]
    lines += [f"| {k} | {'-' if v is None else v} |" for k, v in rows]
    return "\n".join(lines)
