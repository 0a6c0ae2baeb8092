"""Model output -> validated paragraphs and the cited sources (rules 5, 12).

Markers come from two places: a paragraph's `citation_ids` (structured output) and bracketed
markers written inside its text ([S1], [S1, S2], 【S1】, ［S1］). Only markers in this answer's
citation map survive; any other is deleted from the text and reported in `dropped_markers`,
never "repaired" to a nearby source. A bare S1 inside a word (MS12, S1x) is not a marker.
A paragraph left with no valid marker is `insufficient`. `sources` lists each cited marker
once, in first-citation order, with the exact snippet the model saw.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from .records import (
    AlignedAnswer,
    AlignedParagraph,
    Assembly,
    Draft,
    DraftParagraph,
    EvidenceStatus,
)

_OPEN = r"[\[【［〔（]"
_CLOSE = r"[\]】］〕）]"
_ID = r"[SsＳｓ]\s*[0-9０-９]+"
# A bracket holding one or more marker ids separated by commas / 、 / ；, ASCII parentheses too ("(S1)", as models
# write them). A parenthesis is a marker only as such a list: "(S3 class ships)" is text, never a malformed marker.
_BRACKETED_RE = re.compile(rf"(?:{_OPEN}|\()\s*({_ID}(?:\s*[,，、;；]\s*{_ID})*)\s*(?:{_CLOSE}|\))")
_ID_RE = re.compile(_ID)
# One marker id as text, in any bracket the markers are read in or none ("S1", "[S2]", "(S3)"): what a paragraph
# written only of marker ids holds (support.model_states_nothing).
MARKER_ID_TEXT_RE = re.compile(rf"(?:{_OPEN}|\()?\s*{_ID}\s*(?:{_CLOSE}|\))?")
# Marker-like brackets that are not a list of ids ([S1-S3], [S2 and S4]): deleted and reported, never expanded.
_MALFORMED_RE = re.compile(rf"{_OPEN}\s*{_ID}[^\]】］〕）\n]{{1,24}}{_CLOSE}")
_LONE_ID_RE = re.compile(r"^\s*[\[【［]?\s*([Ss]\s*[0-9]+)\s*[\]】］]?\s*$")
_SPACE_BEFORE_PUNCT_RE = re.compile(r"[ \t]+([。，、；：！？.,;:!?）)\]])")
_MULTI_SPACE_RE = re.compile(r"[ \t]{2,}")


def canonical_marker(raw: str) -> str | None:
    """'s 1', 'Ｓ１', '[S1]' -> 'S1'; anything that is not one marker id -> None."""
    m = _LONE_ID_RE.match(unicodedata.normalize("NFKC", raw))
    if not m:
        return None
    digits = re.sub(r"\s+", "", m.group(1))[1:]
    return f"S{int(digits)}"


def extract_markers(text: str) -> tuple[str, list[str]]:
    """Remove bracketed markers from text; return (clean text, markers in order of appearance).

    A malformed marker bracket ([S1-S3]) comes back verbatim in the list, so it is dropped and logged.
    """
    found: list[str] = []

    def _take(m: re.Match[str]) -> str:
        for raw in _ID_RE.findall(m.group(1)):
            marker = canonical_marker(raw)
            if marker:
                found.append(marker)
        return ""

    def _malformed(m: re.Match[str]) -> str:
        found.append(m.group(0))
        return ""

    cleaned = _BRACKETED_RE.sub(_take, text)
    cleaned = _MALFORMED_RE.sub(_malformed, cleaned)
    return tidy(cleaned), found


def tidy(text: str) -> str:
    text = _SPACE_BEFORE_PUNCT_RE.sub(r"\1", text)
    text = _MULTI_SPACE_RE.sub(" ", text)
    return "\n".join(line.strip() for line in text.strip().splitlines()).strip()


def align(draft: Draft, assembly: Assembly) -> AlignedAnswer:
    """Validate every paragraph's markers against this answer's map. Never invents or renumbers."""
    allowed = assembly.by_marker()
    paragraphs: list[AlignedParagraph] = []
    dropped: list[str] = []
    cited_order: list[str] = []
    for para in draft.paragraphs:
        text, inline = extract_markers(para.text)
        if not text:
            # A paragraph of markers only says nothing; its markers cite nothing.
            dropped.extend(m for m in _listed(para) + inline if m not in allowed)
            continue
        valid: list[str] = []
        for marker in _listed(para) + inline:
            if marker not in allowed:
                dropped.append(marker)
            elif marker not in valid:
                valid.append(marker)
        for marker in valid:
            if marker not in cited_order:
                cited_order.append(marker)
        status = EvidenceStatus.LINKED if valid else EvidenceStatus.INSUFFICIENT
        paragraphs.append(AlignedParagraph(text=text, citation_ids=tuple(valid), status=status))
    sources = tuple(allowed[m] for m in cited_order)
    return AlignedAnswer(
        paragraphs=tuple(paragraphs),
        sources=sources,
        dropped_markers=tuple(_unique(dropped)),
        conflict=draft.conflict,
    )


def _listed(para: DraftParagraph) -> list[str]:
    """Markers from citation_ids; an entry that is not a marker id is kept verbatim so it is logged."""
    out: list[str] = []
    for raw in para.citation_ids:
        marker = canonical_marker(str(raw))
        out.append(marker if marker else str(raw)[:40])
    return out


def _unique(items: Iterable[str]) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.setdefault(item, None)
    return list(seen)


__all__ = ["align", "canonical_marker", "extract_markers", "tidy"]
