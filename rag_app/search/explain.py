"""Why a candidate was retrieved, in the question's words (rule 1: a chunk says which document, where in
it, and why it was retrieved). Pure: no Django.

The search reads each candidate against the question's terms and keeps, for the trace, which of them the
chunk holds and how, and which it lacks:

- `word`: as the question writes it (in the text, the title, the section path or an initialism of a name);
- `synonym`: through an irregular form or synonym (pipeline/synonyms.py), the one the score counted
  (scoring.bm25_made_up);
- `name`: a name the question writes in pinyin, spelled in characters (pipeline/pinyin.py);
- `dateline`: an issuing word ("released") the document's dateline answers (answerability.opens_with_date);
- `translation`: for a passage in the other language whose relevance came from the question translated
  word by word (pipeline/crosslingual.py), the question's word and the passage's rendering of it.

The trace stores the terms as the search read them (stems, jieba words); the reviewer's trace writes them as the
question and the passage write them (`in_words`, called by presentation.trace_for when a trace is read, so
the ask pays nothing for it). The review page and the API show them beside the scores.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from rag_app.pipeline.records import Held
from rag_app.pipeline.textproc import written_as

WORD = "word"
SYNONYM = "synonym"
NAME = "name"
DATELINE = "dateline"
TRANSLATION = "translation"


@dataclass(frozen=True, slots=True)
class Reading:
    """Which of the question's words a chunk holds (in the question's order) and which it lacks."""

    held: tuple[Held, ...] = ()
    missing: tuple[str, ...] = ()


def own_reading(
    terms: Sequence[str],
    own: Collection[str],
    made_up: Mapping[str, str],
    spelled: Mapping[str, str],
    issued: Collection[str],
) -> Reading:
    """The chunk read in the question's own terms. `own`: the chunk's indexed tokens; `made_up`: term -> the
    chunk's word that made it up (scoring.bm25_made_up); `spelled`: name term -> the characters that spell
    it; `issued`: the issuing terms the chunk's dateline holds (empty unless it opens with one). Terms stay
    as the search reads them (stems); `in_words` writes them out."""
    held: list[Held] = []
    missing: list[str] = []
    for t in terms:
        if t in own:
            held.append(Held(t, WORD))
        elif t in made_up:
            held.append(Held(t, SYNONYM, made_up[t]))
        elif t in spelled:
            held.append(Held(t, NAME, spelled[t]))
        elif t in issued:
            held.append(Held(t, DATELINE))
        else:
            missing.append(t)
    return Reading(tuple(held), tuple(missing))


def translated_reading(
    groups: Sequence[tuple[str, Sequence[str]]],
    own: Collection[str],
    spelled: Mapping[str, str],
    issued: Collection[str],
) -> Reading:
    """The chunk read through the question's translation: each group (the question's word, its renderings
    in the order the dictionary prefers them) is held by the first rendering the chunk holds: in its own
    tokens (`own`), as a name it spells in characters (`spelled`) or as an issuing word its dateline holds
    (`issued`), as in own_reading."""
    held: list[Held] = []
    missing: list[str] = []
    for source, renderings in groups:
        found = next((r for r in renderings if r in own or r in spelled or r in issued), None)
        if found is None:
            missing.append(source)
        elif found in spelled and found not in own:
            held.append(Held(source, NAME, spelled[found]))
        elif found in issued and found not in own:
            held.append(Held(source, DATELINE))
        elif found == source:
            held.append(Held(source, WORD))  # a name or number the translation keeps as it is
        else:
            held.append(Held(source, TRANSLATION, found))
    return Reading(tuple(held), tuple(missing))


def in_words(
    held: object, missing: object, question: Mapping[str, str], passage: str
) -> tuple[list[dict[str, str]], list[str]]:
    """A candidate's reading as the trace stored it (`held`: rows of term, how and the passage's term;
    `missing`: terms) written as the question (`question`: term -> the question's word, textproc.written_as
    of the question) and the passage (`passage`: its text) write them: "wrote -> written", "专利 -> Patents".
    A term neither writes (a part of "GPLv3" read as "gpl", a word of the title) stays as it is. What the
    trace holds is read as untrusted: anything but rows of strings is left out."""
    rows = [r for r in held if isinstance(r, dict)] if isinstance(held, list) else []
    rows = [r for r in rows if all(isinstance(r.get(k, ""), str) for k in ("term", "how", "as"))]
    others = [r.get("as", "") for r in rows if r.get("how") in (SYNONYM, TRANSLATION) and r.get("as")]
    passage_words = written_as(passage, others) if others else {}
    words = []
    for r in rows:
        term, how, written = r.get("term", ""), r.get("how", ""), r.get("as", "")
        written = passage_words.get(written, written) if how in (SYNONYM, TRANSLATION) else written
        words.append({"word": question.get(term, term), "term": term, "how": how, "as": written})
    terms = [t for t in missing if isinstance(t, str)] if isinstance(missing, list) else []
    return words, list(dict.fromkeys(question.get(t, t) for t in terms))
