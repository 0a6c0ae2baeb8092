"""Which documents a question names by their title. Pure.

"Under GPL v2 am I allowed to charge for a copy?" names the GNU General Public License, version 2; the
GPL version 1 passage that says "You may charge a fee for the physical act of transferring a copy" answers
it in the same words, ranks 0.005 above version 2's, and is the wrong licence. "GPL第二版是什么时候发布的？"
names version 2 of the GPL, not the GNU *Library* General Public License, version 2, whose text writes "GPL"
and "version 2" too. Retrieval ranks the qualified passages of a named document before the other qualified
passages (tiering.rank_key), so the answer quotes the document the user asked about when it qualified; and
the answerability check does not take a passage of another document that does not speak of it (`mentions`:
the GPL's "Gnomovision comes with ABSOLUTELY NO WARRANTY" does not answer "Does the Artistic License come
with any warranty?").

A title is named when the question writes one of its names (the title without its version or what is
bracketed; "PEP 20 – The Zen of Python" has two), as words in order ("Apache License", "the Zen of
Python"), by its words in capitals or with a digit ("CC0", "PEP 20"), by its initials ("GPL", "GFDL",
"LGPLv3") or by its first words and the initials of the rest ("GNU GPL", "Library GPL"); a Chinese name
of at least two characters as it stands ("山东女子学院"). When the title carries a version ("version 2",
"Version 2.0", "1.0") and the question names a number ("v2", "2.0", "第二版"), the number must be the
version ("2" is "2.0"); a question that names no number names every version. Where the question writes one
title's name inside another's ("GPL" inside "Library GPL"), it names the longer one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .answerability import ORDINAL_MARKS, identifiers
from .textproc import fold, has_cjk, tokenize, version_splits

_BRACKETED_RE = re.compile(r"\([^()]*\)|（[^（）]*）|\[[^\[\]]*\]|【[^【】]*】")
_VERSION_RE = re.compile(r"(?:\bversion|\bv)\.?\s*(\d+(?:\.\d+)*)\b|(?<![\w.])(\d+\.\d+)(?![\w.])", re.IGNORECASE)
# "PEP 20 – The Zen of Python" goes by either part.
_ALTERNATIVES_RE = re.compile(r"\s+[–—-]\s+|\s*[:：|]\s*")
_QUOTES_RE = re.compile(r"[\"“”「」『』]")
_MIN_INITIALS = 3
_GLUED_NUMBER_RE = re.compile(r"(?<=[a-z])(\d+(?:\.\d+)*)$")


@functools.lru_cache(maxsize=4096)
def _title_parts(title: str) -> tuple[tuple[str, ...], str | None]:
    """The title's names (without what is bracketed or its version) and its version, normalised."""
    text = _BRACKETED_RE.sub(" ", title)
    version = None
    m = _VERSION_RE.search(text)
    if m is not None and not has_cjk(text):
        version = _normal(m.group(1) or m.group(2))
        text = text[: m.start()] + " " + text[m.end() :]
    names = (" ".join(_QUOTES_RE.sub(" ", part).split()).strip(" ,.;") for part in _ALTERNATIVES_RE.split(text))
    return tuple(n for n in names if n), version


def _normal(number: str) -> str:
    """ "2.0" and "2" are one version; "2.1" is not "2"."""
    while number.endswith(".0"):
        number = number[:-2]
    return number


@functools.lru_cache(maxsize=4096)
def _forms(name: str) -> tuple[tuple[str, ...], ...]:
    """The token runs that write a (Latin) name: its words; or, when at least half of them are in capitals
    or have a digit ("PEP 20", "CC0 1.0 Universal", "MIT OpenCourseWare", "BSD licence"), those words (all
    of them: "PEP 8" does not name PEP 20); and its capitalised words' initials, from the first word or the
    second ("GFDL", "FDL"), after words written whole or not ("GPL", "GNU GPL", "Library GPL", "Lesser GPL"
    for the GNU Lesser General Public License). A single plain word names nothing ("Apache" alone may be
    the foundation), nor do two initials alone, nor "GNU" alone."""
    words = name.split()
    marked = [w for w in words if sum(c.isupper() for c in w) >= 2 or any(c.isdigit() for c in w)]
    forms: set[tuple[str, ...]] = set()
    whole = tuple(tokenize(name))
    if len(whole) >= 2:
        forms.add(whole)
    if marked and 2 * len(marked) >= len(words):
        forms.add(tuple(tokenize(" ".join(marked))))
    for first in (0, 1):
        for split in range(first, len(words)):
            rest = words[split:]
            if not all(w[:1].isupper() for w in rest):
                continue
            letters = "".join(w[0] for w in rest).lower()
            written = tuple(tokenize(" ".join(words[first:split])))
            if len(letters) >= (2 if written else _MIN_INITIALS):
                forms.add((*written, letters))
    return tuple(f for f in forms if f)


def _readings(token: str) -> frozenset[str]:
    """A question token and, for a name run together with its version, the name ("lgplv3" -> lgplv, lgpl)."""
    return frozenset({token, *(split[0] for split in version_splits(token) if len(split) == 2)})


def _spans(name: str, folded: str, q_tokens: tuple[frozenset[str], ...]) -> list[tuple[int, int]]:
    """Where the question writes `name`, by any of its forms: token positions, or character positions of
    the folded question for a Chinese name."""
    if has_cjk(name):
        key = fold(name)
        return [(m.start(), m.end()) for m in re.finditer(re.escape(key), folded)] if len(key) >= 2 else []
    return [
        (i, i + len(form))
        for form in _forms(name)
        for i in range(len(q_tokens) - len(form) + 1)
        if all(form[j] in q_tokens[i + j] for j in range(len(form)))
    ]


def named_titles(question: str, titles: Iterable[str | None]) -> set[str]:
    """The titles among `titles` that `question` names (module docstring). Where one title's name is written
    only inside another's ("GPL" inside "Library GPL"), the question names the longer one only."""
    folded = fold(question)
    tokens = tuple(tokenize(question))
    q_tokens = tuple(_readings(t) for t in tokens)
    numbers = {_normal(n.rstrip(ORDINAL_MARKS)) for n in identifiers(question)}
    found: dict[str, list[tuple[bool, int, int]]] = {}
    for title in {t for t in titles if t}:
        names, version = _title_parts(title)
        if version is not None and numbers:
            # The digit of a name the title writes ("CC0" of "CC0 1.0 Universal") is no version.
            own = {m.group(1) for t in _tokens(names).intersection(tokens) if (m := _GLUED_NUMBER_RE.search(t))}
            if (numbers - own) and version not in numbers - own:
                continue
        spans = [(has_cjk(name), *span) for name in names for span in _spans(name, folded, q_tokens)]
        if spans:
            found[title] = spans
    every = [span for spans in found.values() for span in spans]
    return {title for title, spans in found.items() if any(not _inside(span, every) for span in spans)}


def _inside(span: tuple[bool, int, int], others: list[tuple[bool, int, int]]) -> bool:
    """Whether `span` lies within a longer one of `others` (of the same script)."""
    cjk, start, end = span
    return any(o[0] == cjk and o[1] <= start and end <= o[2] and o[2] - o[1] > end - start for o in others)


@functools.lru_cache(maxsize=4096)
def _tokens(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(t for name in names for t in tokenize(name))


def mentions(text: str, titles: Iterable[str]) -> bool:
    """Whether `text` (a passage with its title and section path) names any of `titles` by the same forms,
    whatever version it gives: a GPL passage that says "the Artistic License" speaks of it."""
    folded = fold(text)
    q_tokens = tuple(_readings(t) for t in tokenize(text))
    return any(_spans(name, folded, q_tokens) for title in titles for name in _title_parts(title)[0])
