"""Snippet markup built by the app: the part of a cited snippet that supports a paragraph.

Every character of the snippet is escaped first; the only markup added is <mark>, and the
result goes through bleach with an allow-list of exactly that tag before it is marked safe.
This is the one place in the UI that emits markup next to document text.
"""

from __future__ import annotations

import html
import re

import bleach
from django.utils.safestring import SafeString, mark_safe

from rag_app.pipeline.textproc import sentence_spans, tokenize

ALLOWED_TAGS = frozenset({"mark"})
# Below this share of a sentence's terms found in the paragraph, nothing is highlighted.
MIN_OVERLAP = 0.5
# Shorter paragraphs are not looked up verbatim: a few characters match anywhere.
MIN_QUOTE_CHARS = 6
_ELLIPSIS_RE = re.compile(r"\s*(?:…|\.\.\.)\s*")


def _verbatim_spans(snippet: str, paragraph: str) -> list[tuple[int, int]]:
    """Spans where the paragraph's pieces (split at ellipses) occur in the snippet, whitespace-insensitive."""
    spans: list[tuple[int, int]] = []
    for piece in _ELLIPSIS_RE.split(paragraph):
        words = piece.split()
        if len(piece.strip()) < MIN_QUOTE_CHARS:
            continue
        found = re.search(r"\s+".join(re.escape(w) for w in words), snippet)
        if found is None:
            return []  # one piece not found: not a quotation of this snippet
        spans.append(found.span())
    return spans


def supporting_spans(snippet: str, paragraph: str) -> list[tuple[int, int]]:
    """Character spans of `snippet` that support `paragraph`.

    A verbatim quotation (extractive answers, possibly joined with ellipses and re-wrapped) is
    found as it stands; otherwise each sentence of the snippet is marked when most of its terms
    occur in the paragraph.
    """
    quoted = _verbatim_spans(snippet, paragraph)
    if quoted:
        return quoted
    para_terms = set(tokenize(paragraph))
    if not para_terms:
        return []
    spans: list[tuple[int, int]] = []
    for start, end in sentence_spans(snippet):
        terms = set(tokenize(snippet[start:end]))
        shared = terms & para_terms
        # One shared word is chance, not support: at least two unless the sentence is one word.
        if terms and len(shared) >= min(2, len(terms)) and len(shared) / len(terms) >= MIN_OVERLAP:
            spans.append((start, end))
    return spans


def render_marked(text: str, spans: list[tuple[int, int]]) -> SafeString:
    """Escape `text`, wrap `spans` in <mark>, and sanitise with bleach (allow-list: mark only)."""
    parts: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start < pos:
            start = pos
        if start >= end:
            continue
        parts.append(html.escape(text[pos:start]))
        parts.append("<mark>" + html.escape(text[start:end]) + "</mark>")
        pos = end
    parts.append(html.escape(text[pos:]))
    cleaned = bleach.clean("".join(parts), tags=ALLOWED_TAGS, attributes={}, protocols=[], strip=True)
    return mark_safe(cleaned)  # noqa: S308 - escaped above, then bleach-sanitised to <mark> only


def highlight_snippet(snippet: str, paragraph: str) -> SafeString:
    return render_marked(snippet, supporting_spans(snippet, paragraph))
