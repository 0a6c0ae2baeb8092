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
import re
from collections.abc import Callable, Sequence

from .records import AlignedAnswer, AlignedParagraph, EvidenceStatus
from .textproc import fold, query_terms, tokenize

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


# A number as a paragraph states it: digits with their decimal part ("1,000" is read as 1000).
_NUMBER_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\d.])\d+(?:\.\d+)?(?![\d])")
# Latin proper names: a capitalised word not at the start of a sentence ("Glendale", "Pierce").
_NAME_RE = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)*")


def states_nothing(text: str, question: str = "") -> bool:
    """A paragraph that is not a statement: punctuation or a label ("资料：", "...", "Sources:"), or
    the question said back (the question again, or a part of it, or a question made of its words). A
    declarative restatement of a yes/no question ("The Apache License grants a patent license.") is
    an answer (yes), not a repeat."""
    terms = tokenize(text)
    if not terms:
        return True
    stripped = text.strip()
    if stripped.endswith((":", "：")) and len(terms) <= 3:
        return True
    if question and not unsupported_facts(text, [question]):
        asked = set(query_terms(question))
        said_back = stripped.endswith(("?", "？")) or _letters(text) in _letters(question)
        return bool(asked) and set(terms) <= asked and said_back
    return False


def _letters(text: str) -> str:
    """Folded text without punctuation or spaces: what a verbatim repeat shares with the question."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def unsupported_facts(text: str, snippets: Sequence[str]) -> list[str]:
    """The numbers and Latin proper names the paragraph states that none of its snippets holds.

    Support by shared words cannot see the one word that matters: "the final was played in Tampa"
    shares every word but one with "the final was played in Glendale". The asked fact is usually a
    number, a date or a name, so those must come from the cited text.
    """
    folded = fold(" ".join(snippets))
    numbers = {_plain_number(n) for n in _NUMBER_RE.findall(folded)}
    missing = [n for n in _NUMBER_RE.findall(fold(text)) if _plain_number(n) not in numbers]
    lowered = folded.lower()
    missing += [name for name in _NAME_RE.findall(text) if name.lower() not in lowered]
    return list(dict.fromkeys(missing))


def _plain_number(raw: str) -> str:
    value = raw.replace(",", "")
    return value.rstrip("0").rstrip(".") if "." in value else value


def apply_support(
    answer: AlignedAnswer, *, min_support: float, similarity: Similarity | None = None, question: str = ""
) -> AlignedAnswer:
    """Score every linked paragraph against its cited snippets; below min_support it is `weak`, and so
    is one that states a number or name its snippets do not hold. A paragraph that states nothing
    (states_nothing) is not evidence-backed content: it becomes `insufficient`, citations dropped."""
    by_marker = {s.marker: s.snippet for s in answer.sources}
    paragraphs: list[AlignedParagraph] = []
    for para in answer.paragraphs:
        if para.status != EvidenceStatus.LINKED:
            paragraphs.append(para)
            continue
        if states_nothing(para.text, question):
            paragraphs.append(
                dataclasses.replace(para, status=EvidenceStatus.INSUFFICIENT, citation_ids=(), support=0.0, weak=True)
            )
            continue
        snippets = [by_marker[m] for m in para.citation_ids if m in by_marker]
        score = support_score(para.text, snippets, similarity=similarity)
        weak = (score is not None and score < min_support) or bool(unsupported_facts(para.text, snippets))
        paragraphs.append(dataclasses.replace(para, support=score, weak=weak))
    return dataclasses.replace(answer, paragraphs=tuple(paragraphs))


def states_something(answer: AlignedAnswer) -> bool:
    """Whether any paragraph is a linked statement (not only labels, punctuation or the question)."""
    return any(p.status == EvidenceStatus.LINKED for p in answer.paragraphs)


__all__ = ["Similarity", "apply_support", "states_nothing", "states_something", "support_score", "unsupported_facts"]
