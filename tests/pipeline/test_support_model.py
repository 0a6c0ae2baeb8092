"""A model's own words (apply_support(model=True)): what states nothing, and which numbers and names must be cited.

The end-to-end cases are in tests/test_llm_probes.py; these pin the statements that must stay statements.
"""

from __future__ import annotations

import pytest

from rag_app.pipeline.records import AssembledSource, ChunkRecord
from rag_app.pipeline.support import model_states_nothing, states_nothing, unsupported_facts

Q = "Within how many days of purchase are refunds accepted?"
SNIPPET = (
    "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt. "
    "Gift cards cannot be refunded. Store credit is issued for items without a receipt."
)


@pytest.mark.parametrize(
    "text",
    [
        "I don't know.",
        "The documents do not specify a deadline.",
        "Unfortunately, the provided context does not explicitly mention it.",
        "It is not stated in the documents.",
        "There is no information about gift cards.",
        "The answer cannot be determined from the context.",
        "文档中没有提到退款期限。",
        "无法确定。",
        "Refunds are accepted within how many days of purchase.",
    ],
)
def test_a_model_saying_the_sources_do_not_answer_states_nothing(text: str) -> None:
    assert model_states_nothing(text, Q)
    assert not states_nothing(text, Q)  # the quotation rule is unchanged


@pytest.mark.parametrize(
    "text",
    [
        "Refunds are accepted within 30 days of purchase.",
        "Gift cards cannot be refunded.",
        "The policy does not cover gift cards.",
        "The sources do not say the exact date, but refunds are accepted within 30 days.",
        "No information is shared with third parties.",
        "Refunds are accepted when the receipt is shown.",
        "礼品卡不可退款。",
        "字迹不清楚的收据不予退款。",
    ],
)
def test_statements_stay_statements(text: str) -> None:
    assert not model_states_nothing(text, Q)


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("Refunds are accepted within sixty days.", ["60"]),
        ("According to the policy, refunds are accepted within thirty days.", []),
        ("The first refund is accepted within 30 days.", []),
        ("One receipt is needed.", []),
        ("Customers need a receipt.", []),
        ("Typically, gift cards cannot be refunded.", []),
        ("Tom Johnson handles refunds.", ["Johnson", "Tom Johnson"]),
        # one capitalised word opening a sentence is not read as a name (session 26's review: "Payment is due",
        # "Each invoice", "During" were): a lone surname there goes unseen
        ("Johnson handles refunds.", []),
        ("Payment is due within 30 days.", []),
    ],
)
def test_a_model_states_numbers_in_words_and_opening_names(text: str, missing: list[str]) -> None:
    assert unsupported_facts(text, [SNIPPET], model=True) == missing


def test_chinese_numerals_and_names() -> None:
    snippet = ["退款政策。购买后三十天内可以凭原始收据退款。超过500元的退款由财务部李娜审批。"]
    assert unsupported_facts("购买后30天内可以退款。", snippet, model=True) == []
    assert unsupported_facts("购买后四十五天内可以退款。", snippet, model=True) == ["45"]
    assert unsupported_facts("一些礼品卡不可退款。", snippet, model=True) == []
    assert unsupported_facts("超过500元的退款由财务部张伟审批。", snippet, model=True) == ["张伟"]
    assert unsupported_facts("超过500元的退款由财务部李娜审批。", snippet, model=True) == []


def test_without_model_the_quotation_rules_are_unchanged() -> None:
    assert unsupported_facts("Refunds are accepted within sixty days.", [SNIPPET]) == []
    assert unsupported_facts("Baker approves refunds.", [SNIPPET]) == []


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("2008年NBA总决赛的冠军是哪支球队？", "2008年NBA总决赛的冠军是哪支球队？"),
        ("GPL 第三版是什么时候发布的？", "GPL 第三版是什么时候发布的？"),
        ("问题：2008年NBA总决赛的冠军是哪支球队？", "2008年NBA总决赛的冠军是哪支球队？"),
        ("Question: When was GPL version 3 published?", "When was GPL version 3 published?"),
        ("S1", "When was GPL version 3 published?"),
        ("Source: S1", "When was GPL version 3 published?"),
        ("S1, S2", "When was GPL version 3 published?"),
    ],
)
def test_the_question_said_back_or_a_marker_alone_states_nothing(text, question):
    """The question again (with its asking words, which its search terms leave out), under a label, or only marker
    ids written as text: nothing stated."""
    assert model_states_nothing(text, question)


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("波士顿凯尔特人赢得了2008年NBA总决赛。", "2008年NBA总决赛的冠军是哪支球队？"),
        ("Answer: 29 June 2007.", "When was GPL version 3 published?"),
        ("S3 class ships were built in 1990.", "When were the ships built?"),
    ],
)
def test_a_labelled_answer_or_a_name_like_a_marker_states_something(text, question):
    assert not model_states_nothing(text, question)


# --- figures alone, and the prompt's instructions said back (trial 32c) -------------------------------------------


def cited(snippet: str) -> tuple[AssembledSource, ...]:
    record = ChunkRecord(
        chunk_id="policy:v1:0", source_id="policy", version=1, index=0, text=snippet, title="Policy", relevance=0.8
    )
    return (AssembledSource(marker="S1", record=record, snippet=snippet),)


@pytest.mark.parametrize("text", ["1.2", "3.", "1. 2.", "(4)"])
def test_figures_the_cited_passage_does_not_hold_state_nothing(text: str) -> None:
    assert model_states_nothing(text, Q, sources=cited(SNIPPET))


@pytest.mark.parametrize("text", ["30", "30.", "30 days"])
def test_a_figure_the_cited_passage_holds_is_a_statement(text: str) -> None:
    assert not model_states_nothing(text, Q, sources=cited(SNIPPET))


@pytest.mark.parametrize(
    "text",
    [
        "Use only facts stated in the sources. Do not use outside knowledge.",
        "2. Every paragraph cites the sources it rests on with their markers, e.g. or.",
        "If sources disagree, do not merge them: give one statement per source. Answer in English, briefly.",
        "每个资料都要用资料编号注明出处，例如 或。",
        "1. 只使用资料中写明的事实，不要使用资料以外的知识。\n2. 用中文简要回答。",
        "Reply in plain text paragraphs separated by a blank line, markers at the end of each paragraph.",
    ],
)
def test_the_instructions_said_back_state_nothing(text: str) -> None:
    assert model_states_nothing(text, Q, sources=cited(SNIPPET))


@pytest.mark.parametrize(
    "text",
    [
        "Each source states that refunds are accepted within 30 days of purchase.",
        "According to the sources, refunds are accepted within 30 days; the original receipt is needed.",
        "Only facts stated in the policy apply: refunds within 30 days of purchase with the original receipt, "
        "store credit for items without a receipt.",
        "根据资料，购买后30天内可以凭原始收据退款，礼品卡不可退款。",
    ],
)
def test_an_answer_using_some_words_of_the_instructions_is_a_statement(text: str) -> None:
    snippet = SNIPPET + " 购买后30天内可以凭原始收据退款。礼品卡不可退款。"
    assert not model_states_nothing(text, Q, sources=cited(snippet))


def test_an_earlier_question_of_the_thread_said_back_states_nothing() -> None:
    follow_up = "And for gift cards?"
    assert model_states_nothing(Q, follow_up, earlier=(Q,))
    assert model_states_nothing("Refunds are accepted within how many days of purchase.", follow_up, earlier=(Q,))
    assert not model_states_nothing(Q, follow_up)  # the thread is what makes it a repeat
    assert not model_states_nothing("Refunds are accepted within 30 days of purchase.", follow_up, earlier=(Q,))


@pytest.mark.parametrize(
    ("text", "nothing"),
    [
        ("Policy | no location provided | level: unknown", True),
        ("Answer: Policy | no location provided | level: unknown", True),
        ("资料回答：Policy", True),
        ("Deadline: refunds are accepted within 30 days.", False),
    ],
)
def test_a_source_header_under_a_label_states_nothing(text: str, nothing: bool) -> None:
    assert model_states_nothing(text, Q, sources=cited(SNIPPET)) is nothing


# --- a heading's label alone (session 33) ---------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["Answer", "Final answer", "Summary", "Sources", "答案", "回答", "结论", "参考资料"])
def test_a_label_word_alone_states_nothing(text: str) -> None:
    """A model's "## Answer [S1]" reaches the reader as "Answer" (reader_text drops the heading's marks): a label
    over the answer, not part of it, whether or not a colon follows."""
    assert model_states_nothing(text, "When was GPL version 3 published?", sources=cited("Version 3, 29 June 2007"))
    assert states_nothing(f"{text}:", "When was GPL version 3 published?")


@pytest.mark.parametrize("text", ["The answer is 29 June 2007.", "Answers are due within 30 days.", "答案是2007年。"])
def test_a_sentence_using_a_label_word_states_something(text: str) -> None:
    assert not model_states_nothing(text, "When was GPL version 3 published?", sources=cited(text))
