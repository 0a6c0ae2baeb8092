"""rag_app.highlight: the app-built <mark> markup next to document text (pure, no DB)."""

from __future__ import annotations

from rag_app.highlight import highlight_snippet, supporting_spans


def test_it_marks_a_verbatim_quotation():
    """An extractive paragraph is found inside the snippet and marked exactly."""
    assert str(highlight_snippet("Intro. Refunds take 14 days. Outro.", "Refunds take 14 days.")) == (
        "Intro. <mark>Refunds take 14 days.</mark> Outro."
    )


def test_it_marks_the_sentences_a_paraphrase_rests_on():
    """Without a verbatim match, sentences sharing most of their terms with the paragraph are marked."""
    html = str(highlight_snippet("退款需要十四天。其他内容在这里。", "退款需要十四天的时间"))
    assert html == "<mark>退款需要十四天。</mark>其他内容在这里。"


def test_it_marks_nothing_when_nothing_matches():
    """An unrelated paragraph leaves the snippet unmarked."""
    assert supporting_spans("Refunds take 14 days.", "Parking is free on Sundays.") == []


def test_it_escapes_everything_it_does_not_build():
    """Markup in the snippet comes out as text; only <mark> survives."""
    html = str(highlight_snippet('<script>alert(1)</script><img src=x onerror="a()"> refund rules', "refund rules"))
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "<mark>refund rules</mark>" in html


def test_short_paragraphs_are_not_matched_verbatim():
    """A one-letter paragraph does not mark a random letter of the snippet."""
    assert "<mark>" not in str(highlight_snippet("a &amp; <b>x</b>", "x"))


def test_it_marks_each_piece_of_a_quotation_joined_with_ellipses():
    """Extractive quotations joined with … and re-wrapped lines still mark each quoted piece."""
    snippet = "You may add terms\nfor use, reproduction, or distribution. Unrelated middle. The conditions stated here."
    html = str(highlight_snippet(snippet, "for use, reproduction, or distribution. … The conditions stated here."))
    assert html == (
        "You may add terms\n<mark>for use, reproduction, or distribution.</mark> Unrelated middle. "
        "<mark>The conditions stated here.</mark>"
    )
