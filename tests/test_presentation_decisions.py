"""presentation.rejection_label / decision_detail: why a candidate was dropped, in the reader's language, from the
data the trace keeps (no database: a trace row is a dict)."""

from __future__ import annotations

import pytest
from django.utils import translation

from rag_app.pipeline.records import RejectReason
from rag_app.presentation import REJECT_REASONS, decision_detail, rejection_label


def test_every_reject_reason_has_words():
    assert {r.value for r in RejectReason} <= set(REJECT_REASONS)


def test_an_unknown_code_is_shown_as_stored():
    assert rejection_label("some_future_reason") == "some_future_reason"
    assert rejection_label("") == rejection_label(None) == "—"  # a row stored without one


@pytest.mark.parametrize(
    ("language", "label", "detail"),
    [("en", "below the relevance bar", "0.229 < 0.330"), ("zh-hans", "低于相关度门槛", "0.229 < 0.330")],
)
def test_below_threshold_keeps_its_numbers_in_either_language(language, label, detail):
    row = {
        "reason": "below_threshold",
        "relevance": 0.2291,
        "bar": 0.33,
        "detail": "relevance 0.229 < 0.330",
        "facts": {"code": "below_bar", "relevance": 0.2291, "bar": 0.33},
    }
    with translation.override(language):
        assert (rejection_label(row["reason"]), decision_detail(row)) == (label, detail)


def test_a_below_threshold_row_stored_before_facts_is_read_from_its_scores():
    row = {"reason": "below_threshold", "relevance": 0.2291, "bar": 0.33, "detail": "relevance 0.229 < 0.330"}
    with translation.override("zh-hans"):
        assert decision_detail(row) == "0.229 < 0.330"


def test_a_row_stored_before_facts_shows_its_stored_detail():
    """An older trace has the English sentence only: it is shown as it is, never dropped."""
    detail = "on topic, but no two sentences hold the question's focus (best 0.31 < 0.50)"
    with translation.override("zh-hans"):
        assert decision_detail({"reason": "not_answering", "detail": detail}) == detail
        assert decision_detail({"reason": "not_answering"}) == ""


@pytest.mark.parametrize(
    ("facts", "english", "chinese"),
    [
        (
            {"code": "no_focus", "focus": 0.3149, "min": 0.5},
            "on topic, but no two sentences hold the question's focus (best 0.31 < 0.50)",
            "主题相关，但没有连续两句涵盖问题的重点（最高 0.31 < 0.50）",
        ),
        (
            {"code": "no_value", "kind": "quantity", "unit": "duration"},
            "the sentences on the question's focus give no number in a duration",
            "涉及问题重点的句子未给出以时长计的数字",
        ),
        (
            {"code": "no_value", "kind": "quantity", "unit": "extent"},
            "the sentences on the question's focus give no number in a length or a duration",
            "涉及问题重点的句子未给出以长度或时长计的数字",
        ),
        (
            {"code": "no_value", "kind": "quantity", "unit": "persons"},
            "the sentences on the question's focus give no number in people",
            "涉及问题重点的句子未给出以人数计的数字",
        ),
        (
            {"code": "no_value", "kind": "quantity", "unit": "distance"},
            "the sentences on the question's focus give no number in kilometres or miles",
            "涉及问题重点的句子未给出以公里或英里计的数字",
        ),
        (
            {"code": "no_value", "kind": "definition", "unit": ""},
            "the sentences on the question's focus give no definition",
            "涉及问题重点的句子未给出定义",
        ),
        (
            {"code": "no_value", "kind": "person", "unit": ""},
            "the sentences on the question's focus give no person's name",
            "涉及问题重点的句子未给出人名",
        ),
        (
            {"code": "unnamed", "words": ["2009", "GFDL"]},
            "does not mention 2009, GFDL, which the question names",
            "未提到问题中所指的 2009、GFDL",
        ),
        (
            {"code": "outdone", "focus": 0.5203, "by": "workplace/london:v1:8"},
            "holds 0.52 of the question's focus, where workplace/london:v1:8 of another document holds all of it",
            "只涵盖问题重点的 0.52，而另一文档的 workplace/london:v1:8 涵盖了全部",
        ),
        (
            {"code": "far_across", "cosine": 0.7749, "floor": 0.775},
            "read across languages only, and no such passage is near the whole question (cosine 0.7749 < 0.775)",
            "仅为跨语言匹配，且没有段落与整个问题足够接近（余弦 0.7749 < 0.775）",
        ),
        (
            {"code": "far_across", "cosine": 0.7935, "floor": 0.8016, "own": 0.8816, "own_by": "hr/expense:v1:2"},
            "read across languages only, and a passage in the question's language (hr/expense:v1:2) is much nearer the"
            " whole question (cosine 0.7935, against 0.8816)",
            "仅为跨语言匹配，且有一段问题语言的段落（hr/expense:v1:2）与整个问题近得多（余弦 0.7935，对比 0.8816）",
        ),
        (
            {
                "code": "beside",
                "relevance": 0.451,
                "bar": 0.5,
                "lower": "hr/faq-2021:v1:0",
                "level": "note",
                "cosine": 0.9072,
                "lower_cosine": 0.9023,
            },
            "relevance 0.451 < 0.500, judged beside hr/faq-2021:v1:0 (level note), which the embedder puts no nearer"
            " the question (cosine 0.9072 against 0.9023)",
            "相关度 0.451 < 0.500，与级别为 note 的 hr/faq-2021:v1:0 一并判断，嵌入模型认为后者离问题并不更近"
            "（余弦 0.9072 对比 0.9023）",
        ),
        ({"code": "top_k", "n": 8}, "ranked below the first 8 passages", "排在前 8 个段落之后"),
        (
            {"code": "continues_list", "of": "licenses/apache:v1:15"},
            "goes on with the list that licenses/apache:v1:15 introduces",
            "接续 licenses/apache:v1:15 引出的列表",
        ),
        ({"code": "expired", "date": "2025-01-31"}, "effective until 2025-01-31", "有效期至 2025-01-31"),
    ],
)
def test_a_detail_is_written_from_its_facts(facts, english, chinese):
    row = {"reason": "not_answering", "detail": "stored English", "facts": facts}
    with translation.override("en"):
        assert decision_detail(row) == english
    with translation.override("zh-hans"):
        assert decision_detail(row) == chinese


def test_facts_of_a_kind_this_version_does_not_know_show_the_stored_detail():
    row = {"reason": "over_budget", "detail": "stored English", "facts": {"code": "from_the_future"}}
    assert decision_detail(row) == "stored English"
