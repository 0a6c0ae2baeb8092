"""hybrid.qualify: a lower level kept alone is judged again beside a higher level as near (tiering.outranking).

Synthetic candidates with the screen's inputs given (`inputs=`), so no index is read: a 2021 FAQ note that asks in the
question's words qualifies, the official leave rule that states the answer in its own words does not, the embedder puts
the rule at least as near. A passage moved in is kept only if it answers on its own; one that does not goes back under
its bar as it was.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from rag_app.pipeline.records import ChunkRecord, RejectReason
from rag_app.search.hybrid import qualify

TODAY = dt.date(2026, 6, 1)
QUESTION = "病假工资怎么算"


def _rec(chunk_id: str, text: str, relevance: float, cosine: float | None, level: str, weight: float, title: str):
    return ChunkRecord(
        chunk_id=chunk_id,
        source_id=chunk_id.split(":")[0],
        version=1,
        index=int(chunk_id.rsplit(":", 1)[1]),
        text=text,
        title=title,
        level=level,
        level_weight=weight,
        relevance=relevance,
        dense_score=cosine,
        language="zh",
    )


NOTE = _rec("faq:v1:1", "Q9：病假工资怎么算？ A：病假期间按基本工资的70%发放。", 0.66, 0.902, "note", 1.0, "内部FAQ")
RULE = _rec(
    "leave:v1:1",
    "四、病假 每年度累计病假在5天以内的，工资全额发放；超过5天的部分，按本人基本工资的80%发放。",
    0.45,
    0.907,
    "official",
    3.0,
    "请假管理办法",
)
WEDDING = _rec(
    "leave:v1:2",
    "六、婚假 员工依法办理结婚登记的，享受婚假10天，须在一年内休完。",
    0.10,
    0.95,
    "official",
    3.0,
    "请假管理办法",
)


# The rest of a search's candidates, on other subjects: what the focus words' weights are read over.
OTHERS = tuple(
    _rec(f"misc:v1:{i}", text, 0.05, 0.80, "official", 3.0, "其他制度")
    for i, text in enumerate(
        [
            "员工每月享有交通补贴400元，随工资发放。",
            "出差住宿标准：一线城市每晚600元，其他城市每晚450元。",
            "员工生日当月发放生日礼金200元。",
            "事假为无薪假期，按日扣除工资。",
            "试用期员工除病假、丧假外，其他假期转正后方可享受。",
        ]
    )
)


def _qualify(*candidates: ChunkRecord, question: str = QUESTION):
    return qualify([*candidates, *OTHERS], question=question, threshold=0.5, today=TODAY, inputs=([], []))


def test_the_rule_that_answers_is_kept_first_beside_the_note() -> None:
    selection = _qualify(NOTE, RULE)
    assert [r.chunk_id for r in selection.kept] == ["leave:v1:1", "faq:v1:1"]
    beside = selection.beside["leave:v1:1"]
    assert (beside.chunk_id, beside.level, beside.cosine) == ("faq:v1:1", "note", 0.902)
    assert selection.notes["leave:v1:1"].startswith("relevance 0.450 < 0.500, judged beside faq:v1:1 (level note)")


def test_a_passage_of_the_same_document_that_does_not_answer_goes_back_under_its_bar() -> None:
    """The screen keeps a passage whose document another passage answers for; one moved in is kept for itself only."""
    selection = _qualify(NOTE, RULE, WEDDING)
    assert [r.chunk_id for r in selection.kept] == ["leave:v1:1", "faq:v1:1"]
    (wedding,) = [r for r in selection.rejected if r.record.chunk_id == "leave:v1:2"]
    assert wedding.reason is RejectReason.BELOW_THRESHOLD
    assert "leave:v1:2" not in selection.notes and "leave:v1:2" not in selection.beside


def test_nothing_moves_when_the_rule_is_farther_does_not_answer_or_the_question_names_the_note() -> None:
    farther = dataclasses.replace(RULE, dense_score=0.90)
    assert [r.chunk_id for r in _qualify(NOTE, farther).kept] == ["faq:v1:1"]
    alone = _qualify(NOTE, WEDDING)
    assert [r.chunk_id for r in alone.kept] == ["faq:v1:1"]
    assert {r.record.chunk_id: r.reason for r in alone.rejected}["leave:v1:2"] is RejectReason.BELOW_THRESHOLD
    assert not alone.beside
    named = _qualify(NOTE, RULE, question="内部FAQ里病假工资怎么算")
    assert [r.chunk_id for r in named.kept] == ["faq:v1:1"]


def test_without_an_embedder_nothing_is_judged_beside() -> None:
    lexical = [dataclasses.replace(r, dense_score=None) for r in (NOTE, RULE)]
    assert [r.chunk_id for r in _qualify(*lexical).kept] == ["faq:v1:1"]
