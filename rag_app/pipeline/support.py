"""Does the cited snippet support the paragraph? (rule 13: a valid marker only proves retrieval.)

The lexical score is the share of the paragraph's content terms (jieba words for Chinese, words
for Latin scripts, numbers; stop words left out; traditional folded to simplified) that occur
in the snippets it cites. A verbatim quotation scores 1.0; a sentence about something the
snippet never mentions scores near 0. When an embedder is configured the caller passes a
`similarity` function and the higher of the two scores counts, so a faithful paraphrase is not
flagged for using other words.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from .records import AlignedAnswer, EvidenceStatus
from .textproc import fold, tokenize

Similarity = Callable[[str, Sequence[str]], float]


def support_score(text: str, snippets: Sequence[str], *, similarity: Similarity | None = None) -> float | None:
    """Support of `text` by `snippets` in [0, 1]; None when the text has no content terms to check."""
    if not snippets:
        return 0.0
    folded_snippets = [fold(s) for s in snippets]
    if any(fold(text).strip() in s for s in folded_snippets if text.strip()):
        return 1.0
    terms = set(tokenize(text))
    if not terms:
        return None
    available: set[str] = set()
    for snippet in snippets:
        available.update(tokenize(snippet))
    lexical = len(terms & available) / len(terms)
    # Embedding the paragraph and its snippets is the slowest step of an ask (hundreds of ms on 2
    # cores), and it cannot raise a score that is already 1: an extractive quote with " … " between
    # its sentences is not a substring, but every one of its terms is in the snippets.
    if similarity is not None and lexical < 1.0:
        lexical = max(lexical, min(1.0, max(0.0, similarity(text, snippets))))
    return round(lexical, 4)


def apply_support(answer: AlignedAnswer, *, min_support: float, similarity: Similarity | None = None) -> AlignedAnswer:
    """Score every linked paragraph against its cited snippets; below min_support it is `weak`."""
    by_marker = {s.marker: s.snippet for s in answer.sources}
    paragraphs = []
    for para in answer.paragraphs:
        if para.status != EvidenceStatus.LINKED:
            paragraphs.append(para)
            continue
        snippets = [by_marker[m] for m in para.citation_ids if m in by_marker]
        score = support_score(para.text, snippets, similarity=similarity)
        weak = score is not None and score < min_support
        paragraphs.append(dataclasses.replace(para, support=score, weak=weak))
    return dataclasses.replace(answer, paragraphs=tuple(paragraphs))


__all__ = ["Similarity", "apply_support", "support_score"]
