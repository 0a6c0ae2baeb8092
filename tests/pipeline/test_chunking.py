"""rag_app/pipeline/chunking.py: offsets, determinism, size limits, no split word runs (pure, no DB)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rag_app.pipeline.chunking import Block, ChunkSpan, chunk_text
from rag_app.pipeline.textproc import _WORD_RUN_RE, normalize

# A vendored head of CMRC 2018 dev (CC BY-SA 4.0; tests/fixtures/README.md): no ../shared needed.
CMRC = Path(__file__).resolve().parent.parent / "fixtures" / "cmrc2018_sample.json"
DEMO = Path(__file__).resolve().parents[2] / "demo"

# Text built from the pieces real documents contain: English words, Chinese characters, numbers
# with separators, astral CJK, combining marks, sentence and clause punctuation, line breaks.
_pieces = st.sampled_from(
    [
        "refund", "deadline", "policy", "e.g.", "3.14", "1,000", "10:30", "don't", "co-operate", "Zürich",
        "退款", "期限", "为", "三十天", "𠀀𠀁", "𪚥", "e\u0301", "。", "，", "！", "？", "；", "：", ". ", "? ",
        ", ", " ", " ", "\n", "\n\n", "- ", "1. ", "x" * 70, "长" * 90,
    ]
)  # fmt: skip
texts = st.lists(_pieces, min_size=0, max_size=400).map("".join)
sizes = st.tuples(st.integers(min_value=20, max_value=400), st.integers(min_value=0, max_value=400)).map(
    lambda t: (t[0], t[0] + t[1])
)


def _check_invariants(text: str, chunks: list[ChunkSpan], max_chars: int) -> None:
    for i, c in enumerate(chunks):
        assert c.index == i
        assert text[c.start : c.end] == c.text
        assert c.text and c.text == c.text.strip()
        assert len(c.text) <= max_chars
    for a, b in itertools.pairwise(chunks):
        assert a.end <= b.start, "chunks are in order and do not overlap"
    # Nothing but whitespace is dropped between chunks.
    covered = "".join(c.text for c in chunks)
    assert "".join(covered.split()) == "".join(text.split())


@given(texts, sizes)
@settings(max_examples=300, deadline=None)
def test_offsets_round_trip_and_limits(text: str, size: tuple[int, int]) -> None:
    """text[start:end] == chunk.text, chunks ordered, none over max_chars, no non-space text lost."""
    target, max_chars = size
    chunks = chunk_text(text, target=target, max_chars=max_chars)
    _check_invariants(text, chunks, max_chars)


@given(texts, sizes)
@example("refundco-operate退款don't", (20, 21))  # a run that ends just past the hard cut (found by hypothesis)
@example("refundrefundrefund退款e.g.e\u0301", (20, 25))  # a combining mark right after a run (found by hypothesis)
@settings(max_examples=200, deadline=None)
def test_never_splits_a_word_run_shorter_than_the_limit(text: str, size: tuple[int, int]) -> None:
    """A word run (letters/digits joined by . ' - ) shorter than max_chars is never cut in two."""
    target, max_chars = size
    chunks = chunk_text(text, target=target, max_chars=max_chars)
    cuts = {c.start for c in chunks} | {c.end for c in chunks}
    for m in _WORD_RUN_RE.finditer(text):
        if m.end() - m.start() <= max_chars:
            assert not any(m.start() < cut < m.end() for cut in cuts), (m.group(), cuts)


@given(texts)
@settings(max_examples=100, deadline=None)
def test_never_splits_astral_characters_or_combining_sequences(text: str) -> None:
    """No chunk starts with a combining mark or a lone surrogate; astral CJK stays whole."""
    for c in chunk_text(text, target=20, max_chars=25):
        assert not ("\u0300" <= c.text[0] <= "\u036f")
        assert not any(0xD800 <= ord(ch) <= 0xDFFF for ch in c.text)
        assert c.text.encode("utf-16", "strict")  # would raise on a half pair


@given(texts)
@settings(max_examples=100, deadline=None)
def test_deterministic(text: str) -> None:
    """The same text always yields the same chunks."""
    assert chunk_text(text) == chunk_text(text)


def test_chunks_never_cross_blocks_and_carry_their_locator() -> None:
    """Each chunk lies inside one block and carries that block's section and page."""
    text = "First page text. " * 30 + "\n\n" + "第二页的内容。" * 40
    split = text.index("\n\n")
    blocks = [Block(0, split, section="Intro", page=1), Block(split + 2, len(text), section="正文", page=2)]
    chunks = chunk_text(text, blocks, target=120, max_chars=200)
    _check_invariants(text, chunks, 200)
    for c in chunks:
        block = blocks[0] if c.end <= split else blocks[1]
        assert block.start <= c.start and c.end <= block.end
        assert (c.section, c.page) == (block.section, block.page)
    assert {c.page for c in chunks} == {1, 2}


def test_chinese_text_breaks_at_chinese_sentence_ends() -> None:
    """CJK text is cut after 。！？； (or at a paragraph end) when a boundary exists within the target."""
    data = json.loads(CMRC.read_text("utf-8"))["data"]
    text = normalize("\n\n".join(a["paragraphs"][0]["context"] for a in data[:20]))
    chunks = chunk_text(text, target=200, max_chars=300)
    _check_invariants(text, chunks, 300)
    at_boundary = [c.text[-1] in "。！？；”」）)" or text[c.end : c.end + 1] in ("", "\n") for c in chunks]
    assert sum(at_boundary) / len(chunks) > 0.95


def test_hard_wrapped_english_is_chunked_by_sentence_not_line() -> None:
    """A single newline is a soft wrap: a chunk may span lines and ends at a sentence end."""
    text = normalize((DEMO / "licenses" / "gpl-3.0.txt").read_text("utf-8"))
    chunks = chunk_text(text, target=350, max_chars=600)
    _check_invariants(text, chunks, 600)
    assert sum("\n" in c.text for c in chunks) > len(chunks) / 2
    sentence_final = sum(c.text[-1] in '.;:)"' for c in chunks)
    assert sentence_final / len(chunks) > 0.8


def test_overlong_sentence_is_cut_at_a_clause_mark() -> None:
    """A sentence longer than max_chars is cut after a comma/、 rather than mid-clause."""
    clause = "退款申请须在购买后三十天内提交，"
    text = clause * 30 + "结束。"
    chunks = chunk_text(text, target=100, max_chars=120)
    _check_invariants(text, chunks, 120)
    assert all(c.text.endswith(("，", "。")) for c in chunks)


def test_bad_sizes_are_rejected() -> None:
    """target must be positive and not above max_chars."""
    import pytest

    with pytest.raises(ValueError):
        chunk_text("x", target=0, max_chars=10)
    with pytest.raises(ValueError):
        chunk_text("x", target=20, max_chars=10)


def test_empty_and_blank_text_yield_no_chunks() -> None:
    """No text, no chunks (the ingest service turns that into a clear error)."""
    assert chunk_text("") == []
    assert chunk_text(" \n\n \t") == []


def test_a_wrapped_version_number_or_option_does_not_start_a_list_item() -> None:
    """ "3.11.2" or "--color=never" at the start of a line continue the sentence: a chunk never ends before them."""
    text = (
        "The build now requires the Python interpreter at version\n3.11.2 or later on every platform.\n"
        "Colour is chosen with an option such as --color=always or\n--color=never. Lists still split:\n- one item\n"
    )
    chunks = chunk_text(text, target=40, max_chars=200)
    assert [c.text for c in chunks] == [
        "The build now requires the Python interpreter at version\n3.11.2 or later on every platform.",
        "Colour is chosen with an option such as --color=always or\n--color=never.",
        "Lists still split:\n- one item",
    ]


def test_a_sentence_that_introduces_a_list_opens_the_chunk_of_the_list() -> None:
    """ "…provided that you meet the following conditions:" never ends a chunk while its list follows: it opens the
    list's chunk, so the conditions are read and quoted with the words that say what they are."""
    intro = "You may distribute copies in any medium, provided that you meet the following conditions:"
    text = (
        "Copying is allowed for any purpose and in any number of copies, without asking anyone first.\n\n"
        f"{intro}\n"
        "(a) You must give any other recipients a copy of this License; and\n"
        "(b) You must cause any modified files to carry prominent notices stating that you changed them.\n"
    )
    chunks = chunk_text(text, target=120, max_chars=300)
    _check_invariants(text, chunks, 300)
    holding = [c for c in chunks if intro in c.text]
    assert len(holding) == 1 and holding[0].text.startswith(intro)
    assert "(a) You must give" in holding[0].text
    assert not any(c.text.endswith(":") for c in chunks)


def test_an_introducing_sentence_is_not_carried_past_the_hard_limit() -> None:
    """Carried into the next chunk only while the two fit in max_chars: a chunk never grows past the limit."""
    text = "Short opening words stand here. 方法如下：\n1. " + "长" * 296  # with the intro: 305 characters
    chunks = chunk_text(text, target=40, max_chars=300)
    _check_invariants(text, chunks, 300)
    assert chunks[0].text.endswith("方法如下：")


def test_no_chunk_of_the_licences_ends_with_an_introducing_sentence() -> None:
    """Every "…one of the following:" of the demo licences is chunked with what it introduces."""
    from rag_app.ingest.parsers import parse
    from rag_app.pipeline.chunking import introduces

    for path in sorted((DEMO / "licenses").glob("*.txt")):
        doc = parse(path.read_bytes(), path.name)
        chunks = chunk_text(doc.text, doc.blocks)
        ends = [c.text[-80:] for c in chunks if introduces(c.text)]
        assert ends == [], path.name
        assert sum(introduces(s) for c in chunks for s in c.text.split("\n")) >= 2, path.name


def test_introducing_sentences_one_after_another_stay_together_with_what_they_introduce() -> None:
    """ "The following rules apply:" then "Travel is booked as follows:": both open the chunk of the list, neither is
    left as a chunk of its own (a chunk of a few words says nothing and is never found)."""
    filler = "Staff who travel on company business are covered by this policy in every office of the company. " * 3
    text = (
        f"{filler}The following rules apply:\n"
        "- Travel expenses are reimbursed only as follows, for all staff travelling on company business in any "
        "country:\n- Economy class is booked for every flight under six hours, business class for longer flights, and "
        "any upgrade is paid by the traveller, hotels are booked through the approved agency at the negotiated rate, "
        "and meals are reimbursed up to the daily allowance of the destination city.\n"
    )
    chunks = chunk_text(text, target=350, max_chars=600)
    _check_invariants(text, chunks, 600)
    assert all(len(c.text) > 60 for c in chunks), [c.text for c in chunks]
    holding = next(c for c in chunks if "The following rules apply:" in c.text)
    assert holding.text.startswith("The following rules apply:") and "- Economy class" in holding.text
    zh = "公司员工因公出差，须遵守本办法的各项规定，并在出差前提交出差申请，经部门负责人批准后方可出行。" * 2 + (
        "具体规定如下：\n一、交通费报销标准如下：\n二、乘坐飞机的，一律乘坐经济舱，确有特殊需要的须经分管领导事先书面批准，"
        "乘坐火车的，可以乘坐二等座或硬卧，超出标准的部分由个人承担。\n"
    )
    chunks = chunk_text(zh, target=120, max_chars=200)
    _check_invariants(zh, chunks, 200)
    assert not any(c.text == "具体规定如下：" for c in chunks), [c.text for c in chunks]


def test_a_smile_is_no_colon_that_introduces() -> None:
    from rag_app.pipeline.chunking import introduces

    assert introduces("Do one of the following:") and introduces("办法如下：") and introduces('as follows:"')
    assert not introduces("ask reception :)") and not introduces("The meeting starts at 10:30.")


def test_a_chunk_that_ends_inside_the_list_it_introduces_runs_on() -> None:
    from rag_app.pipeline.chunking import is_list_item, list_runs_on

    opening = "You may distribute copies, provided that You meet the following conditions:\n\n(a) You must give a copy."
    assert list_runs_on(opening)
    assert list_runs_on("报销办法如下：\n一、填写报销单；")
    # No introducing sentence, a last line that is no item, one line alone, a colon that ends no sentence before it.
    assert not list_runs_on("Some text.\n\n(a) You must give a copy.")
    assert not list_runs_on("The conditions are as follows:\n\n(a) You must give a copy.\n\nThat is all.")
    assert not list_runs_on("(a) You must give a copy of the following:")
    assert not list_runs_on("Note :) it works.\n\n- Linux")
    assert all(map(is_list_item, ["(b) You must cause any modified files…", "  2. Click", "一、…"]))
    assert not is_list_item("3.11.2 is out") and not is_list_item("--color=never.")
