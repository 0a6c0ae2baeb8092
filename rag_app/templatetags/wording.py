"""`{{ words|word_list }}`: a list of words (a passage's missing question words, the words none of the related
passages mentions) written as the reader's language lists them, "a, b, c" / "甲、乙、丙". The one rule is
`presentation.word_list`, which the reviewer's decision details use too. The result is plain text: the template
engine escapes it (the words come from a question or a document)."""

from __future__ import annotations

from collections.abc import Iterable

from django import template

from rag_app.presentation import word_list as _word_list

register = template.Library()


@register.filter
def word_list(words: Iterable[object]) -> str:
    return _word_list(words)
