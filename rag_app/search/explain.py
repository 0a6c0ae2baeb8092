"""Why a candidate was retrieved, in the question's words (rule 1: a chunk says which document, where in
it, and why it was retrieved). Pure: no Django.

The search reads each candidate against the question's terms and keeps, for the trace, which of them the
chunk holds and how, and which it lacks:

- `word`: as the question writes it (in the text, the title, the section path or an initialism of a name);
- `synonym`: through an irregular form or synonym (pipeline/synonyms.py): the one the score counted
  (scoring.bm25_made_up) when it counted one;
- `name`: a name the question writes in pinyin, spelled in characters (pipeline/pinyin.py);
- `dateline`: an issuing word ("released") the document's dateline answers (answerability.opens_with_date);
- `translation`: a passage in the other language is read through the question translated word by word
  (pipeline/crosslingual.py): the question's word and the passage's rendering of it.

Whether a word is held or lacking is read from the chunk and the question alone, never from corpus statistics,
which count documents the reader may not see (own_reading).

The trace stores the terms as the search read them (stems, jieba words); the reviewer's trace writes them as the
question and the passage write them (`in_words`, called by presentation.trace_for when a trace is read, so
the ask pays nothing for it). The review page and the API show them beside the scores.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from rag_app.pipeline.records import Held
from rag_app.pipeline.textproc import glued_pieces, version_splits, written_as

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
    synonyms: Mapping[str, Collection[str]],
    spelled: Mapping[str, str],
    issued: Collection[str],
) -> Reading:
    """The chunk read in the question's own terms (`terms`: textproc.query_terms of the question, before
    the search reads a name run together with its version as its parts). `own`: the chunk's indexed tokens;
    `made_up`: term -> the chunk's word the score counted for it (scoring.bm25_made_up); `synonyms`: term
    -> its synonyms (pipeline/synonyms.py); `spelled`: name term -> the characters that spell it; `issued`:
    the issuing terms the chunk's dateline holds (empty unless it opens with one).

    What a chunk holds and lacks depends on the chunk and the question only, never on corpus statistics:
    those count documents the reader may not see, and "does not mention" is shown to askers. So "GPLv3" is
    held where the chunk writes it or all the parts of one of its readings ("gpl", "3"), whichever the
    search chose, and a synonym the chunk holds counts whether or not the score took it (the score's choice,
    made by weight, is the word named when it made one). Terms stay as the search reads them (stems);
    `in_words` writes them out."""
    held: list[Held] = []
    missing: list[str] = []
    for t in terms:
        if _written(t, own):
            held.append(Held(t, WORD))
        elif alternative := made_up.get(t) or next((a for a in sorted(synonyms.get(t, ())) if a in own), ""):
            held.append(Held(t, SYNONYM, alternative))
        elif t in spelled:
            held.append(Held(t, NAME, spelled[t]))
        elif t in issued:
            held.append(Held(t, DATELINE))
        else:
            missing.append(t)
    return Reading(tuple(held), tuple(missing))


def _written(term: str, own: Collection[str]) -> bool:
    """The chunk writes `term`, or every part of one of its readings as a name and a version ("gpl", "3"), or, for
    a Chinese word jieba's HMM glued together, some piece of it and every piece longer than a character ("分算":
    分), as the search reads it (lexical.read_unheld)."""
    if term in own or any(all(p in own for p in split) for split in version_splits(term)):
        return True
    pieces = glued_pieces(term)
    return any(p in own for p in pieces) and all(p in own for p in pieces if len(p) > 1)


def translated_reading(
    groups: Sequence[tuple[str, Sequence[str]]],
    terms: Sequence[str],
    tokens: Sequence[str],
    own: Collection[str],
    spelled: Mapping[str, str],
    issued: Collection[str],
) -> Reading:
    """The chunk (a passage in the other language) read through the question's translation: each group (the
    question's word with every rendering it offers, in the order the dictionary prefers them, though the score
    reads only the first four the index holds, crosslingual.narrowed; every untranslatable word as itself,
    whether or not the index holds it) is held by the rendering the chunk holds most often, as the score
    counts a group (scoring.group_bm25; `tokens`: the chunk's tokens with what names and a dateline add),
    the dictionary's order breaking a tie: in its own tokens (`own`), as a name it spells in characters
    (`spelled`) or as an issuing word its dateline holds (`issued`), as in own_reading; a name run together
    with its version ("GPLv3") also where the chunk writes its parts. The question's terms already written in
    the passage's script (`terms`: "退款" of "Does 退款 need a receipt?", which the translation leaves out)
    that no group renders come after the groups, read as own_reading reads them."""
    tf = Counter(tokens)
    held: list[Held] = []
    missing: list[str] = []
    rendered: set[str] = set()
    for source, renderings in groups:
        rendered.update(source.split())
        found = max(renderings, key=lambda r: tf.get(r, 0), default=None)
        if found is None or not tf.get(found, 0):
            if _written(source, own):
                held.append(Held(source, WORD))
            else:
                missing.append(source)
        elif found in spelled and found not in own:
            held.append(Held(source, NAME, spelled[found]))
        elif found in issued and found not in own:
            held.append(Held(source, DATELINE))
        elif found == source:
            held.append(Held(source, WORD))  # a name or number the translation keeps as it is
        else:
            held.append(Held(source, TRANSLATION, found))
    for t in terms:
        if t in rendered:
            continue
        if _written(t, own):
            held.append(Held(t, WORD))
        else:
            missing.append(t)
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
    rows = [r for r in rows if r.get("term") and all(isinstance(r.get(k, ""), str) for k in ("term", "how", "as"))]
    others = [r.get("as", "") for r in rows if r.get("how") in (SYNONYM, TRANSLATION) and r.get("as")]
    passage_words = written_as(passage, others) if others else {}
    words = []
    for r in rows:
        term, how, written = r.get("term", ""), r.get("how", ""), r.get("as", "")
        written = passage_words.get(written, written) if how in (SYNONYM, TRANSLATION) else written
        words.append({"word": _word(term, question), "term": term, "how": how, "as": written})
    terms = [t for t in missing if isinstance(t, str) and t] if isinstance(missing, list) else []
    return words, list(dict.fromkeys(_word(t, question) for t in terms))


def _word(term: str, question: Mapping[str, str]) -> str:
    """`term` as the question writes it; a translated pair of words ("fire engin") word by word."""
    if term in question or " " not in term:
        return question.get(term, term)
    return " ".join(question.get(part, part) for part in term.split())
