"""rag_app/pipeline/prompts.py: what the model is told."""

from __future__ import annotations

from rag_app.pipeline.prompts import build_messages
from rag_app.pipeline.records import Assembly


def test_a_follow_up_prompt_carries_the_thread_as_context_not_as_sources() -> None:
    """The earlier questions come before the sources, labelled as context; no history, no such block."""
    assembly = Assembly(sources=(), context="[S1] text")
    messages = build_messages(
        question="And for interns?",
        assembly=assembly,
        language="en",
        structured=True,
        history=("Within how many days are travel expenses reimbursed?",),
    )
    user = messages[1]["content"]
    assert "Earlier questions in this conversation (context only, not sources):" in user
    assert user.index("- Within how many days") < user.index("Sources:") < user.index("Question: And for interns?")
    plain = build_messages(question="Q?", assembly=assembly, language="zh", structured=False)
    assert "之前的问题" not in plain[1]["content"]
