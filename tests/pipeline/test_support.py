"""Support check (rule 13): a valid marker is not proof; the cited snippet must carry the paragraph."""

from __future__ import annotations

import pytest

from rag_app.pipeline.alignment import align
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.records import ChunkRecord, Draft, DraftParagraph, EvidenceStatus
from rag_app.pipeline.support import apply_support, states_nothing, support_score, unsupported_facts

SNIPPET = "Refunds are accepted within 30 days of purchase with the original receipt."


def test_a_verbatim_quote_scores_one() -> None:
    """Quoting the snippet is full support."""
    assert support_score("Refunds are accepted within 30 days of purchase", [SNIPPET]) == 1.0


def test_a_faithful_paraphrase_scores_high_and_an_unrelated_claim_low() -> None:
    """Shared content words raise the score; a claim about something else scores near zero."""
    good = support_score("A refund is accepted within 30 days if you have the receipt.", [SNIPPET])
    bad = support_score("Employees get free parking at the headquarters building.", [SNIPPET])
    assert good is not None and bad is not None
    assert good >= 0.6
    assert bad <= 0.1


def test_chinese_support_and_traditional_folding() -> None:
    """Chinese content words count, traditional characters match simplified ones."""
    snippet = "购买后30天内可以申请退款，需要提供发票。"
    assert support_score("購買後30天內可以申請退款", [snippet]) == 1.0
    unrelated = support_score("员工每年有十五天带薪年假", [snippet])
    assert unrelated is not None and unrelated < 0.35


def test_no_content_words_gives_no_score() -> None:
    """A paragraph of only stop words cannot be checked: None, not a made-up number."""
    assert support_score("the of and", [SNIPPET]) is None


def test_similarity_hook_can_only_raise_the_score() -> None:
    """A configured embedder rescues a paraphrase in other words; it never lowers the lexical score."""
    text = "Money back is possible for a month after buying."
    lexical = support_score(text, [SNIPPET])
    assert lexical is not None and lexical < 0.35
    assert support_score(text, [SNIPPET], similarity=lambda t, s: 0.9) == 0.9
    assert support_score(SNIPPET, [SNIPPET], similarity=lambda t, s: 0.1) == 1.0


def test_apply_support_flags_weak_linked_paragraphs_only() -> None:
    """Linked paragraphs get a score and a weak flag under the threshold; insufficient ones are left alone."""
    record = ChunkRecord(chunk_id="r:v1:0", source_id="r", version=1, index=0, text=SNIPPET, relevance=0.9)
    assembly = assemble([record], budget_chars=5000)
    draft = Draft(
        paragraphs=(
            DraftParagraph("Refunds are accepted within 30 days [S1]."),
            DraftParagraph("The cafeteria serves lunch at noon [S1]."),
            DraftParagraph("Nobody knows."),
        )
    )
    out = apply_support(align(draft, assembly), min_support=0.35)
    strong, weak, none = out.paragraphs
    assert strong.support == 1.0 and not strong.weak
    assert weak.support is not None and weak.support < 0.35 and weak.weak
    assert none.status == EvidenceStatus.INSUFFICIENT and none.support is None and not none.weak


def test_the_similarity_hook_is_not_called_when_every_term_is_already_supported() -> None:
    """A quote of two sentences with an ellipsis between them is no substring, but it is fully supported."""
    calls: list[str] = []

    def similarity(text: str, snippets: object) -> float:
        calls.append(text)
        return 0.5

    snippet = "Refunds are accepted within 30 days. Staff wear blue. Receipts are required."
    quote = "Refunds are accepted within 30 days. … Receipts are required."
    assert support_score(quote, [snippet], similarity=similarity) == 1.0
    assert calls == []
    assert support_score("Refunds need a manager's approval.", [snippet], similarity=similarity) == 0.5
    assert len(calls) == 1


# --- paragraphs that state nothing, facts the snippet does not hold (issue 13) -----------------


@pytest.mark.parametrize("text", ["资料：", "...", "Sources:", "  ", "（）"])
def test_labels_and_punctuation_state_nothing(text: str) -> None:
    assert states_nothing(text, "GPL 有没有担保？")


def test_the_question_said_back_states_nothing() -> None:
    question = "Does the Apache License grant a patent license?"
    assert states_nothing("Does the Apache License grant a patent license?", question)
    assert states_nothing("the Apache License grant a patent license", question)
    assert states_nothing("波士顿凯尔特人的主教练是谁？", "波士顿凯尔特人的主教练是谁？")
    # A declarative restatement of a yes/no question is its answer (yes), not a repeat.
    assert not states_nothing("The Apache License grants a patent license.", question)
    assert not states_nothing("Each Contributor grants You a royalty-free patent license.", question)


def test_a_number_or_name_the_snippet_lacks_is_unsupported_even_when_every_other_word_is_there() -> None:
    snippet = "The 2008 final was played in Glendale, Arizona, on June 6."
    assert unsupported_facts("The 2008 final was played in Tampa, Florida, on June 6.", [snippet]) == [
        "Tampa",
        "Florida",
    ]
    assert unsupported_facts("The final was played on June 7.", [snippet]) == ["7"]
    assert unsupported_facts("It was played in Glendale, Arizona on June 6.", [snippet]) == []
    assert unsupported_facts("退款期限为1,000天。", ["退款期限为1000天。"]) == []
