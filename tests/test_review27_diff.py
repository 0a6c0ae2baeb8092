"""Review of session 27's diff (2772d6c..HEAD): the defects it found, each fixed since (they were strict xfails).

Run: DEBUG=1 .venv/bin/python -m pytest -q tests/test_review27_diff.py -p no:cacheprovider
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rag_app.ingest.parsers.text import parse_text
from rag_app.pipeline import crosslingual
from rag_app.pipeline.chunking import chunk_text
from rag_app.pipeline.textproc import passage_tokens

# --- 1. Plain-text parser: a line of a paragraph is lost ----------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9]+|[\u4e00-\u9fff]")


def _chunked_words(data: str) -> Counter[str]:
    """Every word the chunks of the parsed text hold, with the section paths they carry."""
    doc = parse_text(data.encode())
    chunks = chunk_text(doc.text, doc.blocks)
    out: Counter[str] = Counter()
    for chunk in chunks:
        out.update(_WORD.findall(chunk.text))
    for section in {c.section for c in chunks if c.section}:
        out.update(_WORD.findall(section))
    return out


CJK_LIST = "用户须知：\n\n一、用户应当遵守本协议\n二、用户不得复制软件\n\n以上条款自发布之日起生效。"


def test_a_chinese_numbered_list_keeps_every_item():
    lost = Counter(_WORD.findall("一、用户应当遵守本协议")) - _chunked_words(CJK_LIST)
    assert not lost, f"lost: {''.join(lost.elements())}"


_latin = st.sampled_from("alpha beta License Software Notice party shall copy WARRANTY terms 2.0 v3".split())
_latin_line = st.tuples(
    st.lists(_latin, min_size=1, max_size=12).map(" ".join), st.sampled_from(["", ".", ",", ":"])
).map("".join)
_cjk_line = st.tuples(
    st.text(alphabet="本许可证软件使用条款权利复制分发修改中国公司人员", min_size=1, max_size=12),
    st.sampled_from(["", "。", "，"]),
).map("".join)
_line = st.one_of(_latin_line, _cjk_line)
_plain = st.lists(_line, min_size=1, max_size=6).map("\n".join)


def _boxed(arg: tuple[str, list[str]]) -> str:
    char, lines = arg
    width = max(len(ln) for ln in lines) + 4
    return "\n".join([char * width, *(f"{char} {ln.ljust(width - 4)} {char}" for ln in lines), char * width])


_box = st.tuples(st.sampled_from("*#|"), st.lists(_latin_line, min_size=1, max_size=4))
_list = st.lists(
    st.tuples(st.sampled_from(["- ", "* ", "1. ", "2) ", "a) ", "一、", "二、", "(a) ", "（一）"]), _line).map("".join),
    min_size=2,
    max_size=4,
).map("\n".join)
_setext = st.tuples(_latin_line, st.sampled_from("=-~")).map(lambda a: f"{a[0]}\n{a[1] * max(3, len(a[0]))}")
_outline = st.tuples(st.sampled_from(["* ", "** "]), _latin_line).map("".join)
_rule = st.sampled_from(["-----", "* * *", "====="])
# (is body text, text): a heading alone may name an empty section, body text (a paragraph, a box, a list of two
# or more items) must reach a chunk.


def _shouted(text: str) -> bool:
    """One line in capitals ("WARRANTY"): a heading as the parser reads it, and a heading alone may name an empty
    section (two in a row: "WARRANTY" under "alpha / WARRANTY"), so its words need not reach a chunk."""
    return "\n" not in text and re.fullmatch(r"[A-Z0-9 .,:]+", text) is not None


_para = st.one_of(
    _plain.map(lambda t: (not _shouted(t), t)),
    _box.map(lambda a: (not (len(a[1]) == 1 and _shouted(a[1][0])), _boxed(a))),
    _list.map(lambda t: (True, t)),
    _setext.map(lambda t: (False, t)),
    _outline.map(lambda t: (False, t)),
    _rule.map(lambda t: (False, t)),
)
_document = st.lists(_para, min_size=1, max_size=6).map(lambda ps: [*ps, (True, "Closing text here.")])


@settings(max_examples=150, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(_document)
@example([(True, "说明：\n\n一、用户应当遵守本协议\n二、用户不得复制软件"), (True, "Closing text here.")])
def test_parsing_plain_text_loses_no_word_and_is_deterministic(paragraphs):
    data = "\n\n".join(text for _, text in paragraphs)
    first, second = parse_text(data.encode()), parse_text(data.encode())
    assert (first.text, first.blocks) == (second.text, second.blocks)
    body = Counter(w for is_body, text in paragraphs if is_body for w in _WORD.findall(text))
    lost = body - _chunked_words(data)
    assert not lost, f"{data!r} lost {sorted(lost.elements())}"


# --- 2. The mainland-wording fold against CC-CEDICT's headwords ---------------------------------------------------


@pytest.mark.parametrize(
    ("question", "english", "passage"),
    [
        ("How many pushups a day?", "pushup", "每天做五十个伏地挺身。"),
        ("Is the disk drive broken?", "disk drive", "磁碟机坏了。"),
    ],
)
def test_an_english_question_still_finds_the_chinese_word_it_translates_to(question, english, passage):
    groups = [g for g in crosslingual.translate(question) if g.source == english]
    assert groups, f"{english!r} is translated"
    assert set(groups[0].terms) & set(passage_tokens(passage))


# --- 3. Verdict notes: shown to a reviewer the same answer is withheld from ------------------------------------


@pytest.mark.django_db
def test_a_reviewer_refused_a_verdict_does_not_read_notes_on_the_hidden_document(
    levels, staff_user, reviewer_user, admin_user_role
):
    from django.test import Client

    from rag_app.models import Document
    from rag_app.services.levels import document_set_groups
    from tests import factories
    from tests.views.answers import Para, make_answer

    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    factories.make_document("Board memo: refunds will be cut to 10 days in May.", source_id="memo")
    document_set_groups(
        user=admin_user_role, document=Document.objects.get(source_id="memo"), groups=[factories.make_group("board")]
    )
    chunk = factories.chunks_of("refunds")[0]
    memo = factories.chunks_of("memo")[0]
    answer = make_answer(
        user=staff_user,
        paragraphs=[Para("Refunds are paid within 30 days.", cites=[("S1", chunk)])],
        trace={
            "threshold": 0.5,
            "candidates": [
                {"chunk_id": chunk.chunk_id, "source_id": "refunds", "kept": True, "marker": "S1"},
                {"chunk_id": memo.chunk_id, "source_id": "memo", "kept": False, "reason": "below_threshold"},
            ],
            "context": f"[S1] {chunk.text}\n[S2] {memo.text}",
        },
    )
    boss = factories.make_user("boss", groups=("staff", "reviewer", "board"))
    client = Client()
    client.force_login(boss)
    posted = client.post(
        f"/api/v1/answers/{answer.pk}/review",
        data=json.dumps({"verdict": "wrong", "note": "the board memo cuts this to 10 days"}),
        content_type="application/json",
    )
    assert posted.status_code == 201
    reviewer = Client()
    reviewer.force_login(reviewer_user)
    refused = reviewer.post(
        f"/api/v1/answers/{answer.pk}/review", data=json.dumps({"verdict": "ok"}), content_type="application/json"
    )
    assert refused.status_code == 403  # the answer rests on a document this reviewer cannot access
    notes = [r["note"] for r in reviewer.get(f"/api/v1/answers/{answer.pk}/review").json()]
    assert all(note is None for note in notes)  # withheld: null (note_withheld), never the board memo
    assert "board memo" not in " ".join(note or "" for note in notes)
