"""rag_eval on a natural-question set: real files per corpus, one document set for every question."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from django.core.management import call_command

from rag_app import evaluation
from rag_app.evaluation_answers import EvalCase, Outcome, aggregate, score_answer
from rag_app.models import Answer, AnswerParagraph, Citation, Document, Trace
from tests import factories

HOTELS = (
    "# Travel policy\n\n## Hotels\n\nStaff may book hotels up to 180 euros per night. "
    "Receipts must be uploaded within 30 days.\n\n## Trains\n\nSecond class is the default for short trips.\n"
)
LAPTOPS = (
    "Equipment notes\n\nEvery laptop is replaced after four years. Lost laptops are reported to the service desk.\n"
)
REIMBURSE = (
    "<html><head><title>报销制度</title></head><body><h1>报销制度</h1>"
    "<p>差旅报销须在出差结束后十五天内提交。餐费补贴每天一百二十元。</p></body></html>"
)
# (id, question, lang, doc_lang, corpus, kind, source_ids, key_phrases)
QUESTIONS = [
    ("q1", "How much can staff book a hotel for?", "en", "en", "en", "answerable", ["en/travel"], ["180 euros"]),
    ("q2", "出差住酒店每晚最多能报多少钱？", "zh", "en", "en", "answerable", ["en/travel"], ["180 euros"]),
    ("q3", "When is a laptop replaced?", "en", "en", "en", "answerable", ["en/laptops", "en/travel"], ["four years"]),
    ("q4", "差旅报销要在多少天内提交？", "zh", "zh", "zh", "answerable", ["zh/reimburse"], ["十五天"]),
    ("q5", "What is the daily meal allowance?", "en", "zh", "zh", "answerable", ["zh/reimburse"], ["一百二十元"]),
    ("q6", "Does the MIT licence require attribution?", "en", "en", "en", "unanswerable", [], []),
    ("q7", "公司年假有多少天？", "zh", "zh", "zh", "unanswerable", [], []),
]


def natural_set(tmp_path: Path, *, name: str = "questions.json") -> Path:
    """Two small corpora (Markdown + text, HTML) and seven questions, laid out as in eval-data/natural."""
    for corpus, docs in {
        "en": [("travel", "travel.md", HOTELS, "reviewed"), ("laptops", "laptops.txt", LAPTOPS, "note")],
        "zh": [("reimburse", "报销.html", REIMBURSE, "official")],
    }.items():
        folder = tmp_path / "corpora" / corpus
        folder.mkdir(parents=True)
        for _, file, text, _ in docs:
            (folder / file).write_text(text, encoding="utf-8")
        entries = [{"id": i, "file": f, "title": i.title(), "lang": corpus, "level": lv} for i, f, _, lv in docs]
        (folder / "manifest.json").write_text(json.dumps({"name": corpus, "documents": entries}), encoding="utf-8")
    questions = [
        {
            "id": qid,
            "question": text,
            "lang": lang,
            "doc_lang": doc_lang,
            "corpus": corpus,
            "kind": kind,
            "cross_lingual": lang != doc_lang,
            **({"source_ids": golds, "key_phrases": keys} if kind == "answerable" else {}),
        }
        for qid, text, lang, doc_lang, corpus, kind, golds, keys in QUESTIONS
    ]
    corpora = [{"name": c, "manifest": f"corpora/{c}/manifest.json"} for c in ("en", "zh")]
    path = tmp_path / name
    path.write_text(json.dumps({"corpora": corpora, "questions": questions}, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_loader_ids_documents_by_corpus_and_splits_the_kinds(tmp_path: Path) -> None:
    natural = evaluation.load_natural(natural_set(tmp_path))
    assert [d.source_id for d in natural.documents] == ["en/travel", "en/laptops", "zh/reimburse"]
    assert [d.level for d in natural.documents] == ["reviewed", "note", "official"]
    assert [c.qid for c in natural.answerable] == ["q1", "q2", "q3", "q4", "q5"]
    assert [c.qid for c in natural.unanswerable] == ["q6", "q7"]
    assert all(c.gold_source_id is None and not c.key_phrases for c in natural.unanswerable)
    q3 = natural.answerable[2]
    assert q3.golds == ("en/laptops", "en/travel") and q3.key_phrases == ("four years",)
    assert [c.cross_lingual for c in natural.cases()] == [False, True, False, False, True, False, False]
    assert [c.corpus for c in natural.cases()] == ["en", "en", "en", "zh", "zh", "en", "zh"]
    sample = natural.cases(limit=4)
    assert len(sample) == 4 and [c.gold_source_id is None for c in sample] == [False, False, True, True]


def test_the_layout_is_told_by_content_not_by_file_name(tmp_path: Path) -> None:
    natural = natural_set(tmp_path, name="cmrc2018_dev.json")
    assert isinstance(evaluation.load_dataset(natural), evaluation.NaturalSet)
    squad = tmp_path / "natural.json"
    squad.write_text(json.dumps({"data": [{"title": "T", "paragraphs": [{"id": "P", "context": "c"}]}]}), "utf-8")
    assert isinstance(evaluation.load_dataset(squad), evaluation.Protocol)


def test_the_loader_rejects_a_gold_source_the_corpora_lack(tmp_path: Path) -> None:
    path = natural_set(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["questions"][0]["source_ids"] = ["en/nowhere"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="q1"):
        evaluation.load_natural(path)
    data["questions"][0] |= {"source_ids": ["en/travel"], "key_phrases": []}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="key_phrases"):
        evaluation.load_natural(path)


def _answer(text: str, source_id: str) -> Answer:
    answer = Answer.objects.create(question="q", state="answered", mode="extractive")
    para = AnswerParagraph.objects.create(answer=answer, order=0, text=text, evidence_status="linked")
    chunk = factories.chunks_of(source_id)[0]
    Citation.objects.create(paragraph=para, order=0, marker="S1", chunk=chunk, snippet=chunk.text)
    Trace.objects.create(answer=answer, candidates=[], marker_map={})
    return answer


@pytest.mark.django_db
def test_key_in_answer_needs_every_key_phrase_in_the_answer_text(levels: object) -> None:
    """All key phrases, folded (case, width, traditional script); any one is enough for answer_in_text."""
    factories.ingest_text("差旅报销须在十五天内提交，餐费补贴每天一百二十元。", source_id="zh/reimburse")
    case = EvalCase("k", "q", ("十五天", "一百二十元"), "zh/reimburse", key_phrases=("十五天", "一百二十元"))
    both = score_answer(case, _answer("報銷須在十五天內提交，餐費補貼每天一百二十元。", "zh/reimburse"), 1.0)
    one = score_answer(case, _answer("差旅报销须在十五天内提交。", "zh/reimburse"), 1.0)
    assert (both.key_in_answer, both.answer_in_text) == (True, True)
    assert (one.key_in_answer, one.answer_in_text) == (False, True)
    squad_case = EvalCase("s", "q", ("十五天",), "zh/reimburse")
    assert score_answer(squad_case, _answer("十五天", "zh/reimburse"), 1.0).key_in_answer is None


@pytest.mark.django_db
def test_any_listed_gold_source_counts_as_the_gold(levels: object) -> None:
    factories.ingest_text("Every laptop is replaced after four years.", source_id="en/travel")
    case = EvalCase("g", "q", ("four years",), "en/laptops", other_gold=("en/travel",), key_phrases=("four years",))
    out = score_answer(case, _answer("Every laptop is replaced after four years.", "en/travel"), 1.0)
    assert out.gold_cited and out.citation_precision == 1.0 and out.stage is None


def test_the_report_adds_key_in_answer_and_the_cross_lingual_subset() -> None:
    def outcome(qid: str, answerable: bool, *, key: bool | None, cross: bool, corpus: str) -> Outcome:
        return Outcome(
            qid, "q", answerable, "G" if answerable else None, "answered", 1.0,
            answered=answerable, abstained=not answerable, key_in_answer=key, cross_lingual=cross, corpus=corpus,
        )  # fmt: skip

    report = aggregate(
        [
            outcome("a", True, key=True, cross=False, corpus="en"),
            outcome("b", True, key=False, cross=True, corpus="en"),
            outcome("c", True, key=False, cross=True, corpus="zh"),
            outcome("d", False, key=None, cross=True, corpus="zh"),
        ]
    )
    assert report["answerable"]["key_in_answer"] == pytest.approx(1 / 3, abs=1e-4)
    assert report["cross_lingual"]["answerable"]["questions"] == 2
    assert report["cross_lingual"]["answerable"]["key_in_answer"] == 0.0
    assert report["cross_lingual"]["no_evidence"] == {"questions": 1, "abstained": 1.0, "misses_by_stage": {}}
    assert report["by_corpus"]["en"]["answerable"]["key_in_answer"] == 0.5
    squad = aggregate([Outcome("s", "q", True, "G", "answered", 1.0)])
    assert "key_in_answer" not in squad["answerable"] and "cross_lingual" not in squad


@pytest.mark.slow  # two child processes build and ask in their own database
@pytest.mark.django_db
def test_rag_eval_ingests_the_real_files_and_reports_the_natural_metrics(tmp_path: Path) -> None:
    out, cache = tmp_path / "report.json", tmp_path / "cache"
    call_command("rag_eval", "--dataset", str(natural_set(tmp_path)), "--answers", "--json", "--out", str(out),
                 "--cache-dir", str(cache))  # fmt: skip
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["retrieval"]["answerable"]["questions"] == 5
    assert report["retrieval"]["no_evidence"]["questions"] == 2
    answers = report["answers"]
    assert (answers["answerable"]["questions"], answers["no_evidence"]["questions"]) == (5, 2)
    assert answers["cross_lingual"]["answerable"]["questions"] == 2
    assert set(answers["by_corpus"]) == {"en", "zh"}
    rows = [
        json.loads(line)
        for line in (tmp_path / "report.answers" / "outcomes.jsonl").read_text("utf-8").split("\n")
        if line
    ]
    keyed = [row["key_in_answer"] for row in rows if row["answerable"]]
    assert answers["answerable"]["key_in_answer"] == round(sum(keyed) / len(keyed), 4)
    assert {row["qid"]: row["key_in_answer"] for row in rows}["q1"] is True  # the sentence holding "180 euros"
    # Every file went through its own parser into the command's database, none into the test one.
    [db_file] = cache.glob("corpus-*.sqlite3")
    with sqlite3.connect(db_file) as con:
        ids = sorted(r[0] for r in con.execute("select source_id from rag_app_document"))
        texts = " ".join(r[0] for r in con.execute("select text from rag_app_chunk"))
    assert ids == ["en/laptops", "en/travel", "zh/reimburse"]
    assert "餐费补贴" in texts and "<p>" not in texts
    assert not Document.objects.exists()
