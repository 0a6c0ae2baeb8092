"""Answer-quality metrics of the evaluation protocol, scored on real stored answers."""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict

import pytest

from rag_app.evaluation_answers import (
    ANSWERABILITY,
    ASSEMBLY,
    CHUNK_CHOICE,
    CITATION,
    EXTRACTIVE,
    FALSE_ACCEPT,
    INVALID,
    RECALL,
    THRESHOLD,
    EvalCase,
    Outcome,
    aggregate,
    contains_any,
    outcomes_from_jsonl,
    run_answer_eval,
    score_answer,
    tradeoff,
)
from rag_app.models import Answer, AnswerParagraph, Citation, Trace
from tests import factories

GOLD_TEXT = "《战国无双3》是由光荣和ω-force开发的战国无双系列的正统第三续作。"
OTHER_TEXT = "瓦勒普斯岛位于弗吉尼亚州阿科马克县。"
CASE = EvalCase(
    qid="Q1", question="《战国无双3》是由哪两个公司合作开发的？", answers=("光荣和ω-force",), gold_source_id="DEV_0"
)


def _answer(
    *,
    paragraphs: list[tuple[str, str, list[str]]],
    state: str = "answered",
    candidates: list[dict] | None = None,
    marker_map: dict | None = None,
) -> Answer:
    """An answer with paragraphs (text, status, cited source_ids) and a trace, as the pipeline stores it."""
    answer = Answer.objects.create(question=CASE.question, state=state, mode="extractive")
    for order, (text, status, sources) in enumerate(paragraphs):
        para = AnswerParagraph.objects.create(answer=answer, order=order, text=text, evidence_status=status)
        for i, source in enumerate(sources):
            chunk = factories.chunks_of(source)[0]
            Citation.objects.create(paragraph=para, order=i, marker=f"S{i + 1}", chunk=chunk, snippet=chunk.text)
    Trace.objects.create(answer=answer, candidates=candidates or [], marker_map=marker_map or {})
    return answer


@pytest.fixture
def docs(db: None) -> None:
    factories.ingest_text(GOLD_TEXT, source_id="DEV_0")
    factories.ingest_text(OTHER_TEXT, source_id="DEV_1")


def test_contains_any_folds_width_case_and_script() -> None:
    """Matching ignores fullwidth/halfwidth, case, whitespace and traditional vs simplified."""
    assert contains_any("由光榮和Ω－FORCE 開發", ["光荣和ω-force"])
    assert not contains_any("由光荣开发", ["光荣和ω-force"])


def test_contains_any_folds_corner_brackets_in_a_short_answer_too() -> None:
    """Folding a Chinese sentence rewrites 「」; an answer without CJK letters must get the same."""
    assert contains_any("字源名称为「GS」。", ["「GS」"])


@pytest.mark.django_db
def test_a_correct_answer_passes_every_metric(docs: None) -> None:
    """Gold cited, answer in snippet and text, precision 1, no stage blamed."""
    answer = _answer(paragraphs=[(GOLD_TEXT, "linked", ["DEV_0"])])
    out = score_answer(CASE, answer, 12.0)
    assert (out.answered, out.gold_cited, out.answer_in_evidence, out.answer_in_text) == (True, True, True, True)
    assert out.citation_precision == 1.0
    assert out.stage is None


@pytest.mark.django_db
def test_citing_two_sources_halves_precision(docs: None) -> None:
    """citation_precision = gold cited sources / all cited sources."""
    answer = _answer(paragraphs=[(GOLD_TEXT, "linked", ["DEV_0"]), (OTHER_TEXT, "linked", ["DEV_1"])])
    assert score_answer(CASE, answer, 1.0).citation_precision == 0.5


@pytest.mark.django_db
def test_gold_cited_but_wrong_sentence_blames_the_extractive_choice(docs: None) -> None:
    """The cited gold snippet holds the answer, but the answer text misses every gold answer."""
    answer = _answer(paragraphs=[("本作以三大故事为主轴。", "linked", ["DEV_0"])])
    out = score_answer(CASE, answer, 1.0)
    assert out.answer_in_evidence and not out.answer_in_text
    assert out.stage == EXTRACTIVE


@pytest.mark.django_db
def test_gold_source_cited_through_the_wrong_chunk_blames_chunk_choice(docs: None) -> None:
    """The gold document is cited through a chunk without the answer: chunk choice, not sentence choice."""
    factories.ingest_text("本作以三大故事为主轴。" * 40 + "\n\n" + GOLD_TEXT, source_id="DEV_0")
    first = factories.chunks_of("DEV_0")[0]
    assert "光荣" not in first.text
    answer = _answer(paragraphs=[("本作以三大故事为主轴。", "linked", ["DEV_0"])])
    out = score_answer(CASE, answer, 1.0)
    assert out.gold_cited and not out.answer_in_evidence
    assert out.stage == CHUNK_CHOICE


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("candidates", "marker_map", "stage"),
    [
        ([{"chunk_id": "DEV_1:v1:0", "relevance": 0.8, "kept": True}], {}, RECALL),
        (
            [{"chunk_id": "DEV_0:v1:0", "source_id": "DEV_0", "relevance": 0.3, "kept": False}],
            {},
            THRESHOLD,
        ),
        (
            [
                {
                    "chunk_id": "DEV_0:v1:0",
                    "source_id": "DEV_0",
                    "relevance": 0.9,
                    "kept": False,
                    "reason": "not_answering",
                }
            ],
            {},
            ANSWERABILITY,
        ),
        ([{"chunk_id": "DEV_0:v1:0", "source_id": "DEV_0", "relevance": 0.9, "kept": True}], {}, ASSEMBLY),
        (
            [{"chunk_id": "DEV_0:v1:0", "source_id": "DEV_0", "relevance": 0.9, "kept": False, "stage": "assembly"}],
            {},
            ASSEMBLY,
        ),
        (
            [{"chunk_id": "DEV_0:v1:0", "source_id": "DEV_0", "relevance": 0.9, "kept": True}],
            {"S1": {"chunk_id": "DEV_0:v1:0", "source_id": "DEV_0"}},
            CITATION,
        ),
    ],
)
def test_a_missed_gold_source_is_blamed_on_the_first_stage_that_lost_it(
    docs: None, candidates: list[dict], marker_map: dict, stage: str
) -> None:
    """Not retrieved -> recall; retrieved but not kept -> threshold; kept, not sent -> assembly; sent -> citation."""
    answer = _answer(paragraphs=[(OTHER_TEXT, "linked", ["DEV_1"])], candidates=candidates, marker_map=marker_map)
    out = score_answer(CASE, answer, 1.0)
    assert not out.gold_cited
    assert out.stage == stage


@pytest.mark.django_db
def test_no_evidence_questions_count_abstentions(docs: None) -> None:
    """A no_evidence state or all-insufficient paragraphs is an abstention; a linked answer is a false accept."""
    withheld = EvalCase(qid="Q2", question="谁?", answers=("x",), gold_source_id=None)
    assert score_answer(withheld, _answer(paragraphs=[], state="no_evidence"), 1.0).abstained
    assert score_answer(withheld, _answer(paragraphs=[("猜测。", "insufficient", [])]), 1.0).abstained
    accepted = score_answer(withheld, _answer(paragraphs=[(OTHER_TEXT, "linked", ["DEV_1"])]), 1.0)
    assert not accepted.abstained
    assert accepted.stage == FALSE_ACCEPT


def test_aggregate_reports_fractions_per_group() -> None:
    """Each figure is a fraction of its own group; paragraph rates are over paragraphs."""
    outs = [
        Outcome(
            "a",
            "q",
            True,
            "G",
            "answered",
            10.0,
            answered=True,
            gold_cited=True,
            paragraphs=2,
            insufficient_paragraphs=1,
            citation_precision=1.0,
        ),
        Outcome("b", "q", True, "G", "no_evidence", 30.0, stage=THRESHOLD),
        Outcome("c", "q", False, None, "no_evidence", 20.0, abstained=True),
    ]
    report = aggregate(outs)
    assert report["answerable"]["answered"] == 0.5
    assert report["answerable"]["gold_cited"] == 0.5
    assert report["answerable"]["insufficient_paragraph_rate"] == 0.5
    assert report["answerable"]["misses_by_stage"] == {THRESHOLD: 1}
    assert report["no_evidence"]["abstained"] == 1.0
    assert report["latency_ms"]["p50"] == 20.0


def test_tradeoff_moves_from_answering_to_abstaining() -> None:
    """Raising the threshold never answers more nor abstains less."""
    outs = [
        Outcome(
            str(i), "q", i % 2 == 0, "G" if i % 2 == 0 else None, "answered", 1.0, answered=True, top_relevance=i / 10
        )
        for i in range(10)
    ]
    curve = tradeoff(outs, 0.0, [0.0, 0.25, 0.5, 0.75, 1.0])
    assert curve[0]["answered"] == 1.0 and curve[0]["abstained"] == 0.0
    assert curve[-1]["answered"] == 0.0 and curve[-1]["abstained"] == 1.0
    assert all(
        a["answered"] >= b["answered"] and a["abstained"] <= b["abstained"] for a, b in itertools.pairwise(curve)
    )


@pytest.mark.django_db
def test_run_answer_eval_writes_failures_for_inspection(docs: None, tmp_path) -> None:
    """Failures go to failures.jsonl with their stage; the report carries the trade-off curve."""
    withheld = EvalCase(qid="Q2", question="谁?", answers=("x",), gold_source_id=None)
    replies = {
        CASE.question: _answer(paragraphs=[(GOLD_TEXT, "linked", ["DEV_0"])]),
        withheld.question: _answer(paragraphs=[(OTHER_TEXT, "linked", ["DEV_1"])]),
    }
    report = run_answer_eval(cases=[CASE, withheld], ask=replies.__getitem__, threshold=0.5, out_dir=tmp_path)
    lines = (tmp_path / "failures.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and '"Q2"' in lines[0] and FALSE_ACCEPT in lines[0]
    assert report["answerable"]["answered"] == 1.0
    assert report["no_evidence"]["abstained"] == 0.0
    assert report["tradeoff"]


@pytest.mark.django_db
def test_a_question_the_service_refuses_is_an_outcome_not_a_crash(docs: None, tmp_path) -> None:
    """CMRC trial holds an empty question: the real service refuses it, the run goes on and counts it."""
    from rag_app.services import ask

    user = factories.make_user()
    empty_answerable = EvalCase(qid="E1", question="  ", answers=("x",), gold_source_id="DEV_0")
    empty_withheld = EvalCase(qid="E2", question="", answers=("x",), gold_source_id=None)
    report = run_answer_eval(
        cases=[empty_answerable, empty_withheld],
        ask=lambda q: ask(user=user, question=q),
        threshold=0.5,
        out_dir=tmp_path,
    )
    assert report["answerable"]["answered"] == 0.0
    assert report["answerable"]["misses_by_stage"] == {INVALID: 1}
    assert report["no_evidence"]["abstained"] == 1.0
    assert "empty_question" in (tmp_path / "failures.jsonl").read_text(encoding="utf-8")


def test_tradeoff_predicts_answers_below_the_run_threshold() -> None:
    """Below the run's threshold an abstention with a qualifying top candidate counts as answered."""
    abstained = Outcome("a", "q", True, "G", "no_evidence", 1.0, top_relevance=0.4, gold_top_relevance=0.4, gold_rank=0)
    low, high = tradeoff([abstained], 0.5, [0.3, 0.5])
    assert low["answered"] == 1.0 and low["answered_with_gold"] == 1.0 and low["predicted"]
    assert high["answered"] == 0.0 and not high["predicted"]


def test_outcomes_round_trip_through_jsonl(tmp_path) -> None:
    """outcomes.jsonl reads back into the same outcomes (minus the answer text)."""
    out = Outcome("a", "q", True, "G", "answered", 3.0, answered=True, cited_sources=["G"], answer_text="x")
    (tmp_path / "o.jsonl").write_text(json.dumps({**asdict(out), "answer_text": ""}) + "\n", encoding="utf-8")
    assert outcomes_from_jsonl(tmp_path / "o.jsonl") == [Outcome(**{**asdict(out), "answer_text": ""})]
