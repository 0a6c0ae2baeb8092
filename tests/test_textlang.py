"""The `text_lang` template filter (rag_app/templatetags/textlang.py): the lang= of a text in any template."""

from __future__ import annotations

from rag_app.templatetags.textlang import lang_attr, text_lang


def test_it_reads_the_language_the_text_is_written_in() -> None:
    assert text_lang("退款须在三十天内申请。") == "zh"
    assert text_lang("Refunds are paid within 30 days.") == "en"
    assert text_lang("GPL 第三版是什么时候发布的？") == "zh"  # a Chinese question naming an English title


def test_no_text_has_no_language() -> None:
    """An empty or blank text says nothing (lang=""), rather than claiming the interface's or English."""
    assert text_lang("") == "" and text_lang(None) == "" and text_lang("  \n") == ""


def test_the_attribute_names_the_language_and_is_left_off_for_a_text_without_letters() -> None:
    """A row of figures reads in the page's language: no lang= at all (an empty one would declare it unknown)."""
    assert lang_attr("退款须在三十天内申请。") == ' lang="zh"' and lang_attr("Refunds are paid.") == ' lang="en"'
    assert lang_attr("12:30 – 14:00") == "" and lang_attr("") == "" and lang_attr(None) == ""
