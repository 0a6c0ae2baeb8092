"""pipeline/definition.py: which questions ask only what a term means, and which sentences define it (pure)."""

from __future__ import annotations

import pytest

from rag_app.pipeline.answerability import Asked, asked
from rag_app.pipeline.definition import asks_definition, definition_test


@pytest.mark.parametrize(
    "question",
    [
        "什么是KPI？",
        "什么是“速成”？",
        "何谓差旅费",
        "Define copyleft",
        "What is the meaning of copyleft?",
        "What does 'Freely Available' mean in the Artistic License?",
        "What is an 'Invariant Section' in the GNU FDL?",
    ],
)
def test_a_term_asked_for_alone(question: str) -> None:
    assert asks_definition(question) and asked(question) is Asked.DEFINITION


@pytest.mark.parametrize(
    "question",
    [
        # A procedure, a standard, a number or a wage after 什么是: "报销流程如下：…" answers, defining nothing.
        "什么是报销流程",
        "什么是年假天数",
        "什么是出差补贴标准",
        "什么是最低工资标准",
        # Two things, or a second question.
        "什么是年假和病假",
        "什么是年假以及如何申请",
        "什么是报销？需要什么材料",
        # An interpretation, a process, a unit.
        "What is the meaning of the red flag on my timesheet?",
        "Define the reimbursement process for managers",
        'What is "annual leave" in days?',
    ],
)
def test_a_question_that_asks_more_than_what_a_term_means(question: str) -> None:
    assert not asks_definition(question)


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("什么是KPI？", "关键绩效指标（KPI）是指衡量员工绩效的量化指标。"),
        ("什么是SOP？", "SOP是标准作业程序的简称。"),
        ("什么是差旅费？", "差旅费包括城市间交通费、住宿费和伙食补助费。"),
        ("什么是神医？", "神医，又称巫医，是透过超自然力量来行医治病的人。"),
        ("什么是暴发户？", "暴发户（），也称为新贵（，），指一个人在短时间内就取得了可观的财富。"),
        ("什么是小鸟球？", "总杆数低于标准杆数一杆完成比赛，称为小鸟球（Birdie）。"),
        ("What is a 'Business Day'?", '"Business Day": a day on which banks are open for business.'),
        ("What does 'gross misconduct' mean?", "Gross misconduct: serious misconduct such as theft or fraud."),
        ("What is a 'business day'?", "Business day (BD) means a day other than a Saturday or a Sunday."),
        ("What is 'Confidential Information'?", '"Confidential Information" (as defined in clause 12) means any data.'),
        ("What does PTO mean?", "PTO stands for paid time off."),
        ("What is an 'employee'?", "Employee – a person employed by the company under a contract."),
    ],
)
def test_the_ways_a_definition_is_written(question: str, sentence: str) -> None:
    test = definition_test(question)
    assert test is not None and test(sentence)


@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        ("什么是差旅费？", "由于差旅费是按月结算的，出差人员应及时报销。"),  # a reason, not what it is
        ("什么是差旅费？", "差旅费" + " " * 400 + "合计"),  # a table's column gap: no copula after it
        ("What is a 'Larger Work' in MPL 2.0?", "If the Larger Work is a combination of Covered Software, then …"),
        ("What does PTO mean?", "Staff book their PTO in the portal."),
        # A colon elsewhere in the sentence is no glossary entry of the term.
        ("What is a 'Larger Work' in MPL 2.0?", "Each Contributor hereby grants You a non-exclusive license:"),
        ("What is a 'Larger Work' in MPL 2.0?", '1.8. "License" means this document.'),
    ],
)
def test_a_sentence_that_only_uses_the_term_does_not_define_it(question: str, sentence: str) -> None:
    test = definition_test(question)
    assert test is not None and not test(sentence)
