"""Answerability and conflict test bed (issue 13, item 4): ask every case through services.ask.

    DEBUG=1 .venv/bin/python bench/answerability_bench.py [--lang zh|en] [--limit N] [--quick]
        [--out docs/bench/answerability.json] [--rebuild]

The bed is eval-data/answerability/{zh,en}.json (README.md there). Per language, three corpora,
each built once in a SQLite file of its own under var/answerability/ (never the user's database),
every passage ingested through the normal ingest service as its own document:

  siblings-present   every passage of the sibling sets
  siblings-withheld  the same, less every set's gold passage (a copy of the present corpus from
                     which those documents are deleted through services.documents, so nothing is
                     embedded twice)
  conflicts          both documents of every conflict pair

Every question is asked against its whole corpus through rag_app.services.ask (extractive mode,
as a staff user), like the natural-question set. A corpus is cached by the hash of what is
ingested and the settings that change the index (rag_app.evaluation.corpus_key), so editing
questions never re-embeds. --quick runs with RAG_EMBEDDER=none (lexical only; minutes less,
different figures). Per-case outcomes are written next to --out, in <stem>.cases/.

Children do the work: the parent picks the database files and runs this script again with
--phase build|withhold|ask and DATABASE_URL pointing at the corpus, like `manage.py rag_eval`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BED_DIR = ROOT / "eval-data" / "answerability"
VAR = ROOT / "var" / "answerability"
DEFAULT_OUT = ROOT / "docs" / "bench" / "answerability.json"
LANGS = ("zh", "en")
CORPORA = ("siblings-present", "siblings-withheld", "conflicts")
FORMAT = "answerability/1"
# Bump when the way a corpus is built changes (file layout, metadata), so cached ones are rebuilt.
BUILD_FORMAT = 1

# Issue 13's targets, per language: (metric path, comparison, value).
TARGETS: tuple[tuple[str, str, float], ...] = (
    ("siblings_withheld.abstained", ">=", 0.60),
    ("siblings_present.answered", ">=", 0.90),
    ("siblings_present.gold_cited", ">=", 0.90),
    ("conflicts.differing.flagged", ">=", 0.80),
    ("conflicts.equivalent.false_conflict", "<=", 0.05),
)


# --- the bed (pure) -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Doc:
    source_id: str
    title: str
    text: str
    effective_from: str | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """One question asked against one corpus."""

    id: str
    corpus: str
    question: str
    slot: str
    gold: str | None = None  # siblings-present: the passage that answers
    key_phrases: tuple[str, ...] = ()
    siblings: tuple[str, ...] = ()
    kind: str | None = None  # conflicts: changed | format | paraphrase | identical | unrelated
    expect_conflict: bool | None = None
    pair: tuple[str, ...] = ()  # conflicts: the pair's two documents


def load_bed(path: Path) -> dict[str, Any]:
    bed: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if bed.get("format") != FORMAT:
        raise ValueError(f"{path}: not an {FORMAT} file")
    passages = {p["id"] for p in bed["siblings"]["passages"]}
    for s in bed["siblings"]["sets"]:
        if s["gold"] not in passages or not set(s["siblings"]) <= passages:
            raise ValueError(f"{path}: set {s['id']} names a passage the corpus lacks")
    docs = {d["id"] for d in bed["conflicts"]["documents"]}
    for p in bed["conflicts"]["pairs"]:
        if len(p["documents"]) != 2 or not set(p["documents"]) <= docs:
            raise ValueError(f"{path}: pair {p['id']} needs two documents of the corpus")
    return bed


def edit_pattern(old: str) -> re.Pattern[str]:
    """`old` as a pattern in which any run of whitespace matches any other (licence texts wrap lines
    anywhere, so a value may straddle a line break)."""
    parts = [re.escape(p) for p in old.split()]
    return re.compile(r"\s+".join(parts)) if parts else re.compile(re.escape(old))


def apply_edit(text: str, edit: dict[str, str] | None) -> str:
    """A conflict pair's copy: every occurrence of edit["from"] replaced by edit["to"]."""
    if not edit:
        return text
    return edit_pattern(edit["from"]).sub(lambda _m: edit["to"], text)


def corpus_docs(bed: dict[str, Any], corpus: str) -> list[Doc]:
    """The documents of one corpus, in a fixed order (conflict copies with their edit applied)."""
    if corpus == "conflicts":
        return [
            Doc(d["id"], d["title"], apply_edit(d["text"], d.get("edit")), d.get("effective_from"))
            for d in bed["conflicts"]["documents"]
        ]
    passages = [Doc(p["id"], p["title"], p["text"]) for p in bed["siblings"]["passages"]]
    if corpus == "siblings-present":
        return passages
    if corpus == "siblings-withheld":
        golds = withheld_ids(bed)
        return [d for d in passages if d.source_id not in golds]
    raise ValueError(corpus)


def withheld_ids(bed: dict[str, Any]) -> set[str]:
    return {s["gold"] for s in bed["siblings"]["sets"]}


def cases_for(bed: dict[str, Any], corpus: str) -> list[Case]:
    if corpus == "conflicts":
        return [
            Case(
                p["id"],
                corpus,
                p["question"],
                p["slot"],
                kind=p["kind"],
                expect_conflict=bool(p["expect_conflict"]),
                pair=tuple(p["documents"]),
            )
            for p in bed["conflicts"]["pairs"]
        ]
    present = corpus == "siblings-present"
    return [
        Case(
            s["id"],
            corpus,
            s["question"],
            s["slot"],
            gold=s["gold"] if present else None,
            key_phrases=tuple(s["key_phrases"]),
            siblings=tuple(s["siblings"]),
        )
        for s in bed["siblings"]["sets"]
    ]


def sample(cases: Sequence[Case], limit: int | None, *, seed: int = 0) -> list[Case]:
    """A seeded sample of `limit` cases (all of them without a limit), in their original order."""
    if limit is None or limit >= len(cases):
        return list(cases)
    keep = set(random.Random(seed).sample(range(len(cases)), limit))
    return [c for i, c in enumerate(cases) if i in keep]


def docs_sha256(docs: Iterable[Doc]) -> str:
    digest = hashlib.sha256()
    for d in docs:
        digest.update(json.dumps([d.source_id, d.title, d.text, d.effective_from], ensure_ascii=False).encode())
    return digest.hexdigest()


def corpus_file(lang: str, corpus: str, key: str) -> Path:
    return VAR / f"{lang}-{corpus}-{key}.sqlite3"


# --- outcomes and figures (pure) ------------------------------------------------------------------


@dataclass(slots=True)
class Outcome:
    id: str
    corpus: str
    question: str
    slot: str
    state: str
    reason: str
    latency_ms: float
    answered: bool = False  # state answered with at least one linked paragraph
    abstained: bool = False  # state no_evidence, or every paragraph insufficient
    conflict: bool = False
    cited: list[str] = field(default_factory=list)  # cited source_ids, in order
    weak_paragraphs: int = 0
    insufficient_paragraphs: int = 0
    paragraphs: int = 0
    top_relevance: float | None = None
    kept: list[str] = field(default_factory=list)  # source_ids of the qualified candidates
    conflicting: list[str] = field(default_factory=list)  # source_ids behind the conflicting markers
    answer_text: str = ""
    # siblings
    gold: str | None = None
    gold_cited: bool | None = None
    key_in_evidence: bool | None = None  # a cited snippet holds a key phrase
    cites_sibling: bool | None = None  # cites one of the set's listed siblings
    # conflicts
    kind: str | None = None
    expect_conflict: bool | None = None
    pair_cited: int | None = None  # how many of the pair's two documents are cited
    pair_kept: int | None = None  # how many of them qualified (kept candidates)
    conflict_in_pair: bool | None = None  # the flag names both documents of the pair
    conflict_outside_pair: bool | None = None  # the flag names a document of another pair


def rate(values: Sequence[bool]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def pct(values: Sequence[float], q: int) -> float | None:
    if not values:
        return None
    if len(values) == 1:
        return round(values[0], 1)
    return round(statistics.quantiles(values, n=100, method="inclusive")[q - 1], 1)


def _by(outcomes: Sequence[Outcome], key: str, figure: str) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[Outcome]] = {}
    for o in outcomes:
        groups.setdefault(str(getattr(o, key)), []).append(o)
    return {k: {"n": len(v), figure: rate([bool(getattr(o, figure)) for o in v])} for k, v in sorted(groups.items())}


def _latency(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    lat = [o.latency_ms for o in outcomes]
    return {"p50": pct(lat, 50), "p95": pct(lat, 95)}


def summarise_present(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    return {
        "questions": len(outcomes),
        "answered": rate([o.answered for o in outcomes]),
        "gold_cited": rate([bool(o.gold_cited) for o in outcomes]),
        "answered_with_gold": rate([o.answered and bool(o.gold_cited) for o in outcomes]),
        "key_in_evidence": rate([bool(o.key_in_evidence) for o in outcomes]),
        "abstained": rate([o.abstained for o in outcomes]),
        "weak_paragraph_rate": _paragraph_rate(outcomes, "weak_paragraphs"),
        "reasons": dict(Counter(o.reason or "-" for o in outcomes).most_common()),
        "by_slot": {
            k: {**v, "gold_cited": rate([bool(o.gold_cited) for o in outcomes if o.slot == k])}
            for k, v in _by(outcomes, "slot", "answered").items()
        },
        "latency_ms": _latency(outcomes),
    }


def summarise_withheld(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    answered = [o for o in outcomes if not o.abstained]
    return {
        "questions": len(outcomes),
        "abstained": rate([o.abstained for o in outcomes]),
        "answered": rate([o.answered for o in outcomes]),
        "weak_paragraph_rate": _paragraph_rate(outcomes, "weak_paragraphs"),
        # Of the answers given anyway: do they cite a listed sibling (same topic, no answer)?
        "answered_citing_a_sibling": rate([bool(o.cites_sibling) for o in answered]),
        "answered_with_a_weak_paragraph": rate([o.weak_paragraphs > 0 for o in answered]),
        "reasons": dict(Counter(o.reason or "-" for o in outcomes).most_common()),
        "states": dict(Counter(o.state for o in outcomes).most_common()),
        "by_slot": _by(outcomes, "slot", "abstained"),
        "top_relevance_of_answered": _quartiles([o.top_relevance for o in answered if o.top_relevance is not None]),
        "latency_ms": _latency(outcomes),
    }


def summarise_conflicts(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    differ = [o for o in outcomes if o.expect_conflict]
    same = [o for o in outcomes if o.expect_conflict is False]
    return {
        "pairs": len(outcomes),
        "differing": {
            "pairs": len(differ),
            "flagged": rate([o.conflict for o in differ]),
            "flagged_within_pair": rate([bool(o.conflict_in_pair) for o in differ]),
            "both_cited": rate([o.pair_cited == 2 for o in differ]),
            "both_qualified": rate([o.pair_kept == 2 for o in differ]),
            "flagged_when_both_cited": rate([o.conflict for o in differ if o.pair_cited == 2]),
            "answered": rate([o.answered for o in differ]),
            "by_slot": _by(differ, "slot", "conflict"),
        },
        "equivalent": {
            "pairs": len(same),
            "false_conflict": rate([o.conflict for o in same]),
            "false_conflict_within_pair": rate([bool(o.conflict_in_pair) for o in same]),
            "false_conflict_with_other_pairs": rate([bool(o.conflict_outside_pair) for o in same]),
            "both_cited": rate([o.pair_cited == 2 for o in same]),
            "answered": rate([o.answered for o in same]),
            "by_kind": _by(same, "kind", "conflict"),
            "by_slot": _by(same, "slot", "conflict"),
        },
        "reasons": dict(Counter(o.reason or "-" for o in outcomes).most_common()),
        "latency_ms": _latency(outcomes),
    }


def _paragraph_rate(outcomes: Sequence[Outcome], attr: str) -> float | None:
    total = sum(o.paragraphs for o in outcomes)
    return round(sum(getattr(o, attr) for o in outcomes) / total, 4) if total else None


def _quartiles(values: Sequence[float]) -> dict[str, float | None]:
    return {"p25": pct(values, 25), "p50": pct(values, 50), "p75": pct(values, 75)}


def summarise(outcomes: dict[str, list[Outcome]]) -> dict[str, Any]:
    """One language's figures from its three corpora's outcomes (a corpus left out: omitted)."""
    report: dict[str, Any] = {}
    if "siblings-withheld" in outcomes:
        report["siblings_withheld"] = summarise_withheld(outcomes["siblings-withheld"])
    if "siblings-present" in outcomes:
        report["siblings_present"] = summarise_present(outcomes["siblings-present"])
    if "conflicts" in outcomes:
        report["conflicts"] = summarise_conflicts(outcomes["conflicts"])
    report["targets"] = check_targets(report)
    return report


def lookup(report: dict[str, Any], path: str) -> Any:
    node: Any = report
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def check_targets(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for path, op, target in TARGETS:
        value = lookup(report, path)
        met = None if value is None else (value >= target if op == ">=" else value <= target)
        out[path] = {"target": f"{op} {target:.2f}", "value": value, "met": met}
    return out


def markdown(report: dict[str, Any]) -> str:
    """The headline table: one row per target and language, then the per-slot rows."""
    langs = [lang for lang in LANGS if lang in report["languages"]]
    lines = ["| metric | target | " + " | ".join(langs) + " |", "|---|---|" + "---|" * len(langs)]
    for path, op, target in TARGETS:
        cells = []
        for lang in langs:
            t = report["languages"][lang]["targets"][path]
            mark = "" if t["met"] is None else (" ✓" if t["met"] else " ✗")
            cells.append("-" if t["value"] is None else f"{t['value']:.3f}{mark}")
        lines.append(f"| {path} | {op} {target:.2f} | " + " | ".join(cells) + " |")
    extra = (
        ("siblings_withheld.answered_citing_a_sibling", "withheld: answers citing a listed sibling"),
        ("conflicts.differing.both_cited", "differing pairs: both sides cited"),
        ("conflicts.differing.flagged_when_both_cited", "differing pairs: flagged when both cited"),
        ("conflicts.equivalent.false_conflict_with_other_pairs", "equivalent pairs: flag names another pair"),
    )
    for path, label in extra:
        cells = [_cell(lookup(report["languages"][lang], path)) for lang in langs]
        lines.append(f"| {label} | | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Per slot (n, rate):",
        "",
        "| slot | "
        + " | ".join(
            f"{lang} withheld abstained | {lang} present gold cited | "
            f"{lang} differing flagged | {lang} equivalent false"
            for lang in langs
        )
        + " |",
        "|---|" + "---|" * (4 * len(langs)),
    ]
    slots = sorted(
        {
            s
            for lang in langs
            for part in (
                "siblings_withheld.by_slot",
                "siblings_present.by_slot",
                "conflicts.differing.by_slot",
                "conflicts.equivalent.by_slot",
            )
            for s in (lookup(report["languages"][lang], part) or {})
        }
    )
    for slot in slots:
        cells = []
        for lang in langs:
            r = report["languages"][lang]
            cells += [
                _slot_cell(lookup(r, f"siblings_withheld.by_slot.{slot}"), "abstained"),
                _slot_cell(lookup(r, f"siblings_present.by_slot.{slot}"), "gold_cited"),
                _slot_cell(lookup(r, f"conflicts.differing.by_slot.{slot}"), "conflict"),
                _slot_cell(lookup(r, f"conflicts.equivalent.by_slot.{slot}"), "conflict"),
            ]
        lines.append(f"| {slot} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _slot_cell(row: dict[str, Any] | None, figure: str) -> str:
    if not row:
        return ""
    value = row.get(figure)
    return f"{row['n']}: {_cell(value)}"


# --- Django side (children) -----------------------------------------------------------------------


def _django(db: Path) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def build(docs: Sequence[Doc], *, progress: bool = True) -> int:
    """Migrate the (fresh) database and ingest every document through the ingest service."""
    import datetime as dt
    import logging

    from django.core.management import call_command

    from rag_app.ingest.service import document_ingest

    logging.getLogger("rag_app.ingest").setLevel(logging.WARNING)
    call_command("migrate", verbosity=0, interactive=False)
    chunks = 0
    t0 = time.perf_counter()
    for i, d in enumerate(docs, 1):
        result = document_ingest(
            data=(d.text.strip() + "\n").encode("utf-8"),
            file_name=f"{hashlib.sha256(d.source_id.encode()).hexdigest()[:16]}.txt",
            source_id=d.source_id,
            title=d.title,
            level="official",
            groups=[],
            effective_from=dt.date.fromisoformat(d.effective_from) if d.effective_from else None,
        )
        chunks += result.chunks
        if progress and (i % 50 == 0 or i == len(docs)):
            print(f"\r  ingested {i}/{len(docs)} ({time.perf_counter() - t0:.0f}s)", end="", file=sys.stderr)
    print("", file=sys.stderr)
    return chunks


def withhold(source_ids: Iterable[str]) -> int:
    """Delete the gold documents from a copy of the present corpus (services.documents, as an operator)."""
    from rag_app.models import Document
    from rag_app.services.documents import document_delete

    n = 0
    for doc in Document.objects.filter(source_id__in=list(source_ids)).order_by("source_id"):
        document_delete(user=None, document=doc, force=True)
        n += 1
    return n


def ask_all(cases: Sequence[Case], *, mode: str = "extractive") -> list[Outcome]:
    import logging

    from django.contrib.auth.models import Group, User

    from rag_app.services import InvalidQuestion, ask

    user, _ = User.objects.get_or_create(username="answerability_bench")
    user.groups.add(Group.objects.get_or_create(name="staff")[0])
    logging.getLogger("rag_app.services").setLevel(logging.WARNING)
    ask(user=user, question="warm-up 预热", mode=mode)  # loads the dictionaries and the model outside the timings
    out: list[Outcome] = []
    t_start = time.perf_counter()
    for i, case in enumerate(cases, 1):
        t0 = time.perf_counter()
        try:
            answer = ask(user=user, question=case.question, mode=mode)
        except InvalidQuestion as exc:
            ms = (time.perf_counter() - t0) * 1000
            out.append(Outcome(case.id, case.corpus, case.question, case.slot, "invalid", exc.code, ms, abstained=True))
            continue
        ms = (time.perf_counter() - t0) * 1000
        out.append(outcome(case, answer_facts(answer), ms))
        if i % 25 == 0 or i == len(cases):
            elapsed = time.perf_counter() - t_start
            print(f"\r  asked {i}/{len(cases)} ({elapsed:.0f}s)", end="", file=sys.stderr)
    print("", file=sys.stderr)
    return out


def answer_facts(answer: Any) -> dict[str, Any]:
    """What the bench reads off a stored answer: state, reason, flag, paragraphs, citations, trace."""
    paragraphs = list(answer.paragraphs.all())
    citations = [c for p in paragraphs for c in p.citations.all()]
    trace = getattr(answer, "trace", None)
    candidates = list(trace.candidates) if trace is not None and isinstance(trace.candidates, list) else []
    marker_map = trace.marker_map if trace is not None and isinstance(trace.marker_map, dict) else {}
    snapshot = trace.settings_snapshot if trace is not None and isinstance(trace.settings_snapshot, dict) else {}
    rels = [c.get("relevance") for c in candidates if isinstance(c, dict)]
    return {
        "state": str(answer.state),
        "reason": str(answer.reason or ""),
        "conflict": bool(answer.conflict),
        "paragraphs": [{"status": p.evidence_status, "weak": bool(p.weak), "text": p.text} for p in paragraphs],
        "cited": list(dict.fromkeys(c.chunk.version.document.source_id for c in citations)),
        "snippets": [c.snippet for c in citations],
        "kept": list(
            dict.fromkeys(str(c.get("source_id")) for c in candidates if isinstance(c, dict) and c.get("kept"))
        ),
        "top_relevance": max((r for r in rels if isinstance(r, int | float)), default=None),
        "conflicting": list(
            dict.fromkeys(
                str(marker_map[m].get("source_id"))
                for m in snapshot.get("conflicting_markers") or []
                if isinstance(marker_map.get(m), dict)
            )
        ),
    }


def outcome(case: Case, facts: dict[str, Any], latency_ms: float) -> Outcome:
    """Score one answer (its facts, as answer_facts reads them) against its case. Pure."""
    from rag_app.evaluation_answers import contains_any

    paragraphs = facts["paragraphs"]
    linked = [p for p in paragraphs if p["status"] == "linked"]
    cited: list[str] = facts["cited"]
    o = Outcome(
        id=case.id,
        corpus=case.corpus,
        question=case.question,
        slot=case.slot,
        state=facts["state"],
        reason=facts["reason"],
        latency_ms=round(latency_ms, 1),
        answered=facts["state"] == "answered" and bool(linked),
        abstained=facts["state"] == "no_evidence" or (bool(paragraphs) and not linked),
        conflict=facts["conflict"],
        cited=cited,
        weak_paragraphs=sum(bool(p["weak"]) for p in paragraphs),
        insufficient_paragraphs=sum(p["status"] == "insufficient" for p in paragraphs),
        paragraphs=len(paragraphs),
        top_relevance=facts["top_relevance"],
        kept=facts["kept"],
        conflicting=facts["conflicting"],
        answer_text="\n".join(p["text"] for p in paragraphs),
    )
    if case.corpus == "conflicts":
        pair = set(case.pair)
        o.kind, o.expect_conflict = case.kind, case.expect_conflict
        o.pair_cited = len(pair.intersection(cited))
        o.pair_kept = len(pair.intersection(facts["kept"]))
        o.conflict_in_pair = o.conflict and pair <= set(o.conflicting)
        o.conflict_outside_pair = o.conflict and bool(set(o.conflicting) - pair)
    else:
        o.gold = case.gold
        o.gold_cited = case.gold in cited if case.gold else None
        o.key_in_evidence = any(contains_any(s, case.key_phrases) for s in facts["snippets"])
        o.cites_sibling = bool(set(case.siblings).intersection(cited))
    return o


# --- parent ---------------------------------------------------------------------------------------


def rag_settings(quick: bool) -> dict[str, Any]:
    """The index settings of the children (read in a child-like environment, no database opened)."""
    env = {**os.environ, **({"RAG_EMBEDDER": "none"} if quick else {})}
    code = (
        "import json,django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE','config.settings');django.setup();"
        "from django.conf import settings;print(json.dumps(settings.RAG, default=str))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    settings: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return settings


def corpus_key(docs: Sequence[Doc], settings: dict[str, Any], *, derived_from: str = "") -> str:
    sys.path.insert(0, str(ROOT))
    from rag_app.evaluation import corpus_key as eval_key

    sha = hashlib.sha256(f"{BUILD_FORMAT}:{derived_from}:{docs_sha256(docs)}".encode()).hexdigest()
    return eval_key(dataset_sha=sha, seed=0, rag_settings=settings)


def _child(args: list[str], *, db: Path, quick: bool) -> None:
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{db}", "DEBUG": os.environ.get("DEBUG", "1")}
    env.setdefault("LOG_LEVEL", "WARNING")
    if quick:
        env["RAG_EMBEDDER"] = "none"
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], cwd=ROOT, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"child {' '.join(args)} failed with status {done.returncode}")


def _fresh(path: Path) -> Path:
    tmp = path.with_suffix(".building")
    for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
        leftover.unlink(missing_ok=True)
    return tmp


def ensure_corpora(lang: str, bed_path: Path, *, quick: bool, rebuild: bool) -> dict[str, Path]:
    bed = load_bed(bed_path)
    settings = rag_settings(quick)
    VAR.mkdir(parents=True, exist_ok=True)
    present_docs = corpus_docs(bed, "siblings-present")
    present = corpus_file(lang, "siblings-present", corpus_key(present_docs, settings))
    withheld_docs = corpus_docs(bed, "siblings-withheld")
    withheld = corpus_file(lang, "siblings-withheld", corpus_key(withheld_docs, settings, derived_from=present.name))
    conflicts = corpus_file(lang, "conflicts", corpus_key(corpus_docs(bed, "conflicts"), settings))
    for corpus, path in (("siblings-present", present), ("conflicts", conflicts)):
        if rebuild or not path.exists():
            print(f"{lang} {corpus}: building {path.name} ...", file=sys.stderr)
            tmp = _fresh(path)
            t0 = time.perf_counter()
            _child(["--phase", "build", "--bed", str(bed_path), "--corpus", corpus], db=tmp, quick=quick)
            os.replace(tmp, path)
            print(f"{lang} {corpus}: built in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
        else:
            print(f"{lang} {corpus}: cached {path.name}", file=sys.stderr)
    if rebuild or not withheld.exists():
        print(f"{lang} siblings-withheld: deleting the gold passages from a copy of {present.name}", file=sys.stderr)
        tmp = _fresh(withheld)
        shutil.copyfile(present, tmp)
        _child(["--phase", "withhold", "--bed", str(bed_path)], db=tmp, quick=quick)
        os.replace(tmp, withheld)
    else:
        print(f"{lang} siblings-withheld: cached {withheld.name}", file=sys.stderr)
    return {"siblings-present": present, "siblings-withheld": withheld, "conflicts": conflicts}


def run_language(
    lang: str, *, limit: int | None, quick: bool, rebuild: bool, cases_dir: Path
) -> tuple[dict[str, Any], dict[str, list[Outcome]]]:
    bed_path = BED_DIR / f"{lang}.json"
    dbs = ensure_corpora(lang, bed_path, quick=quick, rebuild=rebuild)
    outcomes: dict[str, list[Outcome]] = {}
    for corpus in CORPORA:
        # Ask in a throw-away copy: the answers, traces and users stay out of the cached corpus.
        work = dbs[corpus].with_suffix(".asking")
        shutil.copyfile(dbs[corpus], work)
        rows = cases_dir / f"{lang}-{corpus}.jsonl"
        args = ["--phase", "ask", "--bed", str(bed_path), "--corpus", corpus, "--rows", str(rows)]
        if limit is not None:
            args += ["--limit", str(limit)]
        print(f"{lang} {corpus}: asking ...", file=sys.stderr)
        try:
            _child(args, db=work, quick=quick)
        finally:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{work}{suffix}").unlink(missing_ok=True)
        outcomes[corpus] = [Outcome(**json.loads(line)) for line in rows.read_text(encoding="utf-8").splitlines()]
    return summarise(outcomes), outcomes


def _git_head() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--lang", choices=LANGS, default=None, help="one language (default: both)")
    ap.add_argument("--limit", type=int, default=None, help="a seeded sample of N cases per corpus")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON report; per-case rows go in <stem>.cases/")
    ap.add_argument("--quick", action="store_true", help="RAG_EMBEDDER=none: lexical retrieval only, much faster")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the corpora even if cached")
    ap.add_argument("--phase", choices=["build", "withhold", "ask"], default=None, help=argparse.SUPPRESS)
    ap.add_argument("--bed", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--corpus", choices=CORPORA, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--rows", type=Path, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.phase:
        return _phase(args)
    quick = args.quick or os.environ.get("RAG_EMBEDDER") == "none"
    out: Path = args.out
    cases_dir = out.parent / f"{out.stem}.cases"
    cases_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    languages: dict[str, Any] = {}
    for lang in [args.lang] if args.lang else list(LANGS):
        languages[lang], _ = run_language(
            lang, limit=args.limit, quick=quick, rebuild=args.rebuild, cases_dir=cases_dir
        )
    shown = "DEBUG=1 .venv/bin/python bench/answerability_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    report = {
        "command": shown.strip(),
        "git_head": _git_head(),
        "mode": "extractive",
        "embedder": "none" if quick else rag_settings(False).get("EMBEDDER"),
        "limit": args.limit,
        "seconds": round(time.perf_counter() - t0, 1),
        "cases_dir": str(cases_dir.relative_to(ROOT)) if cases_dir.is_relative_to(ROOT) else str(cases_dir),
        "languages": languages,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(markdown(report))
    print(f"\n{report['seconds']}s; report {out}, per-case rows in {cases_dir}/", file=sys.stderr)
    return 0


def _phase(args: argparse.Namespace) -> int:
    db = Path(os.environ["DATABASE_URL"].removeprefix("sqlite:///"))
    _django(db)
    bed = load_bed(args.bed)
    if args.phase == "build":
        docs = corpus_docs(bed, args.corpus)
        chunks = build(docs)
        print(f"  {len(docs)} documents, {chunks} chunks", file=sys.stderr)
    elif args.phase == "withhold":
        n = withhold(withheld_ids(bed))
        print(f"  deleted {n} gold passages", file=sys.stderr)
    else:
        from django.core.management import call_command

        # A cached corpus outlives schema changes (a new column the search reads): migrated as rag_eval does.
        call_command("migrate", verbosity=0, interactive=False)
        cases = sample(cases_for(bed, args.corpus), args.limit)
        outcomes = ask_all(cases)
        errors = sum(o.state == "error" for o in outcomes)
        if errors:
            print(f"  {errors} of {len(outcomes)} cases ended in an error (see the log above)", file=sys.stderr)
        args.rows.parent.mkdir(parents=True, exist_ok=True)
        with args.rows.open("w", encoding="utf-8") as fh:
            for o in outcomes:
                fh.write(json.dumps(asdict(o), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
