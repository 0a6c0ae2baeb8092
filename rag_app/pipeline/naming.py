"""Which documents a question names by their title. Pure.

"Under GPL v2 am I allowed to charge for a copy?" names the GNU General Public License, version 2; the
GPL version 1 passage that says "You may charge a fee for the physical act of transferring a copy" answers
it in the same words, ranks 0.005 above version 2's, and is the wrong licence. "GPL第二版是什么时候发布的？"
names version 2 of the GPL, not the GNU *Library* General Public License, version 2, whose text writes "GPL"
and "version 2" too. Retrieval ranks the qualified passages of a named document before the other qualified
passages of their level (tiering.rank_key), so the answer quotes the document the user asked about when it
qualified. Nothing is kept or rejected by this: it only orders.

A title is named when the question writes
- its name part whole (at least two words, "Apache License"; or a word in capitals or with a digit,
  "CC0"; a Chinese name of at least two characters as it stands, "山东女子学院"), or
- its initials (at least three letters, "GPL" for "GNU General Public License", with or without the
  first word's: "GFDL" and "FDL"), as a word or run together with a version ("LGPLv3"),
and, when the title carries a version ("version 2", "Version 2.0", "1.0") and the question names a number
("v2", "2.0", "第二版"), that number is the version ("2" is "2.0"). A question that names no number names
every version.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from .answerability import ORDINAL_MARKS, identifiers, short_names
from .textproc import fold, has_cjk, tokenize

_BRACKETED_RE = re.compile(r"\([^()]*\)|（[^（）]*）|\[[^\[\]]*\]|【[^【】]*】")
_VERSION_RE = re.compile(r"(?:\bversion|\bv)\.?\s*(\d+(?:\.\d+)*)\b|(?<![\w.])(\d+\.\d+)(?![\w.])", re.IGNORECASE)
# "PEP 20 – The Zen of Python" goes by either part.
_ALTERNATIVES_RE = re.compile(r"\s+[–—-]\s+|\s*[:：|]\s*")
_QUOTES_RE = re.compile(r"[\"“”「」『』]")
_CAPITALISED_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
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


def _initials(name: str) -> set[str]:
    """ "GNU General Public License" -> {"ggpl", "gpl"}: the capitalised words' first letters, with and
    without the first word's, at least three letters."""
    words = [w for w in _CAPITALISED_RE.findall(name) if w[0].isupper()]
    letters = "".join(w[0] for w in words).lower()
    return {s for s in (letters, letters[1:]) if len(s) >= _MIN_INITIALS}


def _names(name: str, folded: str, q_tokens: tuple[str, ...], q_names: frozenset[str]) -> bool:
    if has_cjk(name):
        return len(fold(name)) >= 2 and fold(name) in folded
    # A name with a word in capitals or with a digit ("PEP 20", "CC0 1.0 Universal", "MIT OpenCourseWare")
    # is named by those words (all of them: "PEP 8" does not name PEP 20); any other by all its words. In
    # order, side by side: "Is a license artistic?" names no Artistic License.
    marked = [w for w in name.split() if sum(c.isupper() for c in w) >= 2 or any(c.isdigit() for c in w)]
    tokens = tuple(tokenize(" ".join(marked) if marked else name))
    if (marked or len(tokens) >= 2) and _runs(tokens, q_tokens):
        return True
    return not q_names.isdisjoint(_initials(name))


def _runs(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """Whether `part` (not empty) occurs in `whole` as a run of consecutive items."""
    k = len(part)
    return k > 0 and any(whole[i : i + k] == part for i in range(len(whole) - k + 1))


def named_titles(question: str, titles: Iterable[str | None]) -> set[str]:
    """The titles among `titles` that `question` names (module docstring)."""
    folded = fold(question)
    q_tokens = tuple(tokenize(question))
    q_names = frozenset().union(*short_names(question).values(), {t for t in q_tokens if not has_cjk(t)})
    numbers = {_normal(n.rstrip(ORDINAL_MARKS)) for n in identifiers(question)}
    out: set[str] = set()
    for title in {t for t in titles if t}:
        names, version = _title_parts(title)
        if version is not None and numbers:
            # The digit of a name the title writes ("CC0" of "CC0 1.0 Universal") is no version.
            own = {m.group(1) for t in _tokens(names).intersection(q_tokens) if (m := _GLUED_NUMBER_RE.search(t))}
            if (numbers - own) and version not in numbers - own:
                continue
        if any(_names(name, folded, q_tokens, q_names) for name in names):
            out.add(title)
    return out


@functools.lru_cache(maxsize=4096)
def _tokens(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(t for name in names for t in tokenize(name))
