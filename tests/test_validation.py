"""rag_app/validation.py: the input rules, pure (no database)."""

from __future__ import annotations

import pytest
from django.utils import translation

from rag_app.validation import (
    MAX_COMMENT_CHARS,
    MAX_FILE_NAME_CHARS,
    MAX_QUESTION_CHARS,
    InvalidInput,
    InvalidQuestion,
    clean_comment,
    clean_question,
    file_name_problem,
    is_blank,
    source_id_problem,
    title_problem,
)


@pytest.mark.parametrize(
    "text", ["", " ", "\u200b", "\u2060\u200d\n", "\ufeff\u00ad\t", "\u200e\u200f", "\u3000\u200b"]
)
def test_whitespace_and_format_characters_alone_are_blank(text):
    assert is_blank(text)


@pytest.mark.parametrize("text", ["a", "\u200ba", "\u00a0x", "。", "\u202e", "-"])
def test_anything_visible_is_not_blank(text):
    """A bidi override is a format character too (U+202E is Cf): alone it is blank; the rules refuse it apart."""
    assert is_blank(text) == (text == "\u202e")


@pytest.mark.parametrize("text", ["\u200b\u2060", " \u200d "])
def test_one_rule_for_an_empty_question_and_a_name_that_shows_nothing(text):
    with pytest.raises(InvalidQuestion):
        clean_question(text)
    assert title_problem(text) is not None and title_problem(text, what="label", limit=100) is not None


def test_a_blank_title_is_left_to_the_caller_and_a_visible_one_passes():
    """An empty title keeps (upload) or clears (PATCH) the title: the caller's business, not the rule's. A zero-width
    space beside text is not blank."""
    assert title_problem("") is None
    assert title_problem("\u200bRefund policy") is None


@pytest.mark.parametrize(
    ("problem", "english", "chinese"),
    [
        (lambda: source_id_problem(" a.txt"), "must not start or end with whitespace", "开头和结尾"),
        (lambda: source_id_problem("a\u200b.txt"), "control or invisible characters (found U+200B)", "U+200B"),
        (lambda: source_id_problem("a/../b"), "path segments", "路径段"),
        (lambda: title_problem("Bell\x07"), "the title contains control", "标题包含控制字符"),
        (lambda: title_problem("\u200b", what="label", limit=100), "the label shows nothing", "名称不显示任何内容"),
        (lambda: file_name_problem("n" * 501 + ".txt"), "the file name is 505 characters long", "文件名有 505 个字符"),
    ],
)
def test_a_refusal_is_in_the_readers_language(problem, english, chinese):
    """The same rule, in English (the CLI, the API without Accept-Language) or the reader's Chinese."""
    with translation.override("en"):
        assert english in problem()
    with translation.override("zh-hans"):
        assert chinese in problem()


def test_a_file_name_as_long_as_a_source_id_may_be_is_accepted():
    assert file_name_problem("n" * (MAX_FILE_NAME_CHARS - 4) + ".txt") is None
    assert file_name_problem("n" * (MAX_FILE_NAME_CHARS - 3) + ".txt") is not None


@pytest.mark.parametrize("typed", ["first line\r\nsecond line", "first line\rsecond line", "first line\nsecond line"])
def test_a_line_break_is_text_however_it_was_sent(typed):
    """A browser posts a textarea's Enter as CRLF, an API client may send CR or LF: each is one line break."""
    assert clean_question(typed) == "first line\nsecond line"
    assert clean_comment(typed) == "first line\nsecond line"


def test_a_line_break_counts_as_one_character_of_the_limit():
    """The limits count what was typed: Enter is one character in the box, though the form posts it as two."""
    lines = "\r\n".join(["x" * 99] * 20)  # 20 * 99 + 19 line breaks = 1,999 characters typed
    assert len(clean_question(lines)) == 1999 <= MAX_QUESTION_CHARS
    with pytest.raises(InvalidInput):
        clean_comment(lines + "\r\n" + "y")  # 2,001 typed: over MAX_COMMENT_CHARS
    assert len(clean_comment(lines)) == 1999 <= MAX_COMMENT_CHARS


@pytest.mark.parametrize("control", ["\x00", "\x07", "\x1b[31m", "\x0b", "\x0c", "\x85"])
def test_other_control_characters_are_still_refused(control):
    with pytest.raises(InvalidQuestion):
        clean_question(f"first{control}second")
    with pytest.raises(InvalidInput):
        clean_comment(f"first{control}second")
