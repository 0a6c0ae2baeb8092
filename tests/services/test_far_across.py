"""A Chinese question answered only through its word-by-word translation needs the embedder to place a passage near it.

"公司有股票期权吗" (does the company have stock options?) of an English IT policy was answered by its "Encrypt option"
clause: the translation renders 期权 as "option" and 公司 as "company", both held. The embedder, which reads the whole
question, puts that clause far from it (cosine under answerability.ACROSS_FLOOR), and the answer is now `no_evidence`
with the reason `no_answering_passage`, the clause listed as related. A Chinese question the policy does answer still
is. Asked through the real pipeline with the embedder on (`hybrid`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app import services
from rag_app.models import Answer
from tests.factories import ingest_text

POLICY = """# Information Security Policy

## 5. Passwords

5.1 Passwords must be at least 12 characters long and are changed every 180 days.

5.2 Passwords are never shared, including with the IT Service Desk.

## 7. Sending documents

7.3 Restricted company documents sent outside the company are encrypted with the "Encrypt" option in Outlook, or sent
as a password-protected archive with the password given by a separate channel.
"""


@pytest.fixture
def policy(levels) -> None:
    ingest_text(POLICY, source_id="it/isp", file_name="isp.md", title="Information Security Policy", level="official")


@pytest.mark.django_db
def test_stock_options_are_not_answered_by_an_encrypt_option(hybrid, policy, staff_user) -> None:
    answer = services.ask(user=staff_user, question="公司有股票期权吗")
    assert answer.state == Answer.State.NO_EVIDENCE, [p.text for p in answer.paragraphs.all()]
    assert answer.reason == "no_answering_passage"
    far = [c for c in answer.trace.candidates if (c.get("facts") or {}).get("code") == "far_across"]
    assert far, [(c["chunk_id"], c.get("dense_score"), c["reason"], c.get("detail")) for c in answer.trace.candidates]


@pytest.mark.django_db
def test_a_chinese_question_the_policy_answers_is_answered(hybrid, policy, staff_user) -> None:
    answer = services.ask(user=staff_user, question="密码至少要多少位？")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert "12 characters" in answer.paragraphs.first().text


DEMO = Path(__file__).resolve().parents[2] / "demo" / "licenses"


@pytest.mark.django_db
def test_a_passage_of_the_document_the_question_names_is_not_held_to_the_floor(hybrid, levels, staff_user) -> None:
    """The README's example, "GPL 第三版是什么时候发布的？", is answered by the licence's dateline "Version 3, 29 June
    2007", which the embedder puts at a cosine of .7748 to the question, a hair under the floor: the question names the
    document (the GNU General Public License, version 3), so the passage was matched by no chance word (session 53)."""
    ingest_text(
        (DEMO / "gpl-3.0.txt").read_text(encoding="utf-8"),
        source_id="licenses/gpl-3.0",
        file_name="gpl-3.0.txt",
        title="GNU General Public License, version 3",
        level="official",
    )
    answer = services.ask(user=staff_user, question="GPL 第三版是什么时候发布的？")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert "29 June 2007" in answer.paragraphs.first().text
