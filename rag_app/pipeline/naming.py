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
Python"), by its words in capitals or with a digit ("CC0", "PEP 20"), by its initials written in capitals
("GPL", "GFDL", "LGPLv3") or by its first words and the initials of the rest ("GNU GPL", "Library GPL"); a
Chinese name of at least two characters as it stands ("山东女子学院"). When the title carries a version
("version 2", "Version 2.0", "1.0"), a number beside the name ("GPL v2", "GPL 2.0", "LGPLv3") or, failing
that, one given as a version anywhere ("version 2", "v3", "第二版", "the very first version", "version two")
must be it ("2" is "2.0"); a question that gives no version names every version, and other numbers ("30
days", "section 2") are no version.
A title is named, too, without the word that says what kind of document it is ("Guide", "Policy", 指南, 制度 …:
`_GENRE_RE`) when two words or four characters are left: "the London office" names the "London Office Guide",
上海办公室 the 上海办公室指南.
Where the question writes one title's name only inside another's ("GPL" inside "Library GPL"), it names
the longer one.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .answerability import identifiers, licence_names, short_names
from .textproc import (
    cue_form,
    fold,
    has_cjk,
    initialisms,
    query_words,
    subject_swapped,
    swaps_subject,
    tokenize,
    version_splits,
)

_BRACKETED_RE = re.compile(r"\([^()]*\)|（[^（）]*）|\[[^\[\]]*\]|【[^【】]*】")
_VERSION_RE = re.compile(r"(?:\bversion|\bv)\.?\s*(\d+(?:\.\d+)*)\b|(?<![\w.])(\d+\.\d+)(?![\w.])", re.IGNORECASE)
# "PEP 20 – The Zen of Python" goes by either part; "ISO 8601:2004" is one name.
_ALTERNATIVES_RE = re.compile(r"\s+[–—-]\s+|\s*[:：|]\s+|\s*[：|]\s*")
_QUOTES_RE = re.compile(r"[\"“”「」『』]")
_NUMBER_RE = re.compile(r"\d+(?:\.\d+)*")
# A number given as a version anywhere in the question: "version 2", "v2", "v 3.0".
_VERSION_WORD_RE = re.compile(r"(?:\bversion|(?<![^\W\d_])v)\.?\s*(\d+(?:\.\d+)*)", re.IGNORECASE)
# An ordinal before the word: "the 1st version", "the 3rd edition" (spelled ones are read as digits first).
_ORDINAL_VERSION_RE = re.compile(r"\b(\d+)(?:st|nd|rd|th)\s+(?:version|edition|release)\b", re.IGNORECASE)
_VERSION_NOUN_RE = re.compile(r"\b(?:version|edition|release)s?\b", re.IGNORECASE)
# Several versions after the plural: "versions 2 and 3", "versions 2, 2.1 or 3" (spelled ones read as digits);
# a number of three digits or more ("versions 2 and 3, 2007 and 1991") is no version of a list.
_LISTED_VERSION = r"\d{1,2}(?:\.\d{1,3})*(?!\d|\.\d)"
_VERSIONS_RE = re.compile(
    rf"\bversions\s+({_LISTED_VERSION}(?:\s*(?:,|/|&|\band\b|\bor\b)\s*{_LISTED_VERSION})+)", re.IGNORECASE
)


@dataclass(frozen=True, slots=True)
class _Form:
    """A token run that writes a name; `initials`: its last token is initials, which the text must write in
    capitals ("GPL", not the word "gpl" of some other text; "TOP" for "Time Off Policy", not "top")."""

    tokens: tuple[str, ...]
    initials: bool = False


# The word a title ends with that says what kind of document it is, not what it is about: staff name the "London
# Office Guide" as "the London office" and the 上海办公室指南 as "上海办公室". A year after it ("Employee Benefits Guide
# 2025") goes with it. Not "License": a licence is named by its own name ("the Apache License", "GPL").
_GENRE_RE = re.compile(
    r"(?:\s+(?:guide|handbook|manual|policy|procedures?|faq|checklist|guidelines))+(?:\s+\d{4})?$"
    r"|(?:指南|手册|政策|制度|规定|办法|流程|须知|清单|常见问题)+$",
    re.IGNORECASE,
)
# What is left must still say something of its own: two words ("Remote Work", not "Travel"), or four characters
# ("费用报销", not "差旅", a word any question on travel writes).
_SUBJECT_CHARS = 4


@functools.lru_cache(maxsize=4096)
def _title_parts(title: str) -> tuple[tuple[str, ...], str | None]:
    """The title's names (without what is bracketed or its version) and its version, normalised; each name also
    without the word that says what kind of document it is (`_GENRE_RE`), when what is left names something."""
    text = _BRACKETED_RE.sub(" ", title)
    version = None
    m = _VERSION_RE.search(text)
    if m is not None and not has_cjk(text):
        version = _normal(m.group(1) or m.group(2))
        text = text[: m.start()] + " " + text[m.end() :]
    names = [
        n for part in _ALTERNATIVES_RE.split(text) if (n := " ".join(_QUOTES_RE.sub(" ", part).split()).strip(" ,.;"))
    ]
    subjects = (_GENRE_RE.sub("", n).strip(" ,.;") for n in names)
    kept = [s for s in subjects if (len(s) >= _SUBJECT_CHARS if has_cjk(s) else len(s.split()) >= 2)]
    return tuple(dict.fromkeys([*names, *kept])), version


def _normal(number: str) -> str:
    """ "2.0", "2.00" and "2" are one version; "2.1" is not "2"."""
    return re.sub(r"(?:\.0+)+$", "", number)


@functools.lru_cache(maxsize=4096)
def _forms(name: str) -> tuple[_Form, ...]:
    """The token runs that write a (Latin) name: its words (two or more: "Apache" alone may be the
    foundation); or, when at least half of them are in capitals or have a digit ("PEP 20", "CC0 1.0
    Universal", "MIT OpenCourseWare", "BSD licence"), those words (all of them, a letter among them: "PEP 8"
    does not name PEP 20, "10" does not name "Windows 10"); or its initials (textproc.initialisms, as the
    index reads them: "GPL", "GFDL", "LGPL" and never "GPL" for the Library GPL), after words written whole
    or not ("GNU GPL", "Library GPL", "Lesser GPL")."""
    words = name.split()
    forms: set[_Form] = set()
    whole = tuple(tokenize(name))
    if len(whole) >= 2:
        forms.add(_Form(whole))
    marked = [w for w in words if sum(c.isupper() for c in w) >= 2 or any(c.isdigit() for c in w)]
    marked_tokens = tuple(tokenize(" ".join(marked)))
    if marked and 2 * len(marked) >= len(words) and any(not _NUMBER_RE.fullmatch(t) for t in marked_tokens):
        forms.add(_Form(marked_tokens))
    for first in (0, 1):  # "Library GPL" leaves off "GNU"
        for split in range(first, len(words)):
            written = tuple(tokenize(" ".join(words[first:split])))
            if split > first and not written:
                continue  # "The" alone before the initials: the same form as without it
            rest = " ".join(words[split:])
            forms.update(_Form((*written, letters), initials=True) for letters in initialisms(rest))
    return tuple(f for f in forms if f.tokens)


@dataclass(frozen=True, slots=True)
class _Reading:
    """A text read for names: its folded text, each token's readings ("lgplv3": lgplv3, lgplv, lgpl) with
    the version a token gives of itself ("lgplv3": 3, "v2": 2, "2.0": 2), and the readings of the words it
    writes in capitals."""

    folded: str
    raw: tuple[str, ...]
    tokens: tuple[frozenset[str], ...]
    versions: tuple[str | None, ...]
    capitals: frozenset[str]

    @classmethod
    def of(cls, text: str, *, typed: bool = True) -> _Reading:
        """`typed`: a question as typed, whose case may say nothing (answerability.caseless); a passage (False) is
        read as written."""
        tokens = tokenize(text)
        readings, versions = [], []
        for token in tokens:
            splits = [split for split in version_splits(token) if split]
            readings.append(frozenset({token, *(split[0] for split in splits if len(split) == 2)}))
            number = token if _NUMBER_RE.fullmatch(token) else next((split[-1] for split in splits), None)
            versions.append(None if number is None else _normal(number))
        capitals = frozenset().union(*short_names(text, typed=typed).values())
        return cls(fold(text), tuple(tokens), tuple(readings), tuple(versions), capitals)


def _spans(name: str, reading: _Reading) -> list[tuple[int, int, str | None]]:
    """Where the text writes `name`, by any of its forms, with the version written right after it or run
    into its last token ("GPL v2", "GPL 2.0", "LGPLv3"; None for none): token positions, or character
    positions of the folded text for a Chinese name (no version)."""
    if has_cjk(name):
        key = fold(name)
        found = re.finditer(re.escape(key), reading.folded) if len(key) >= 2 else ()
        return [(m.start(), m.end(), None) for m in found]
    out = []
    tokens = reading.tokens
    for form in _forms(name):
        k = len(form.tokens)
        for i in range(len(tokens) - k + 1):
            if not all(form.tokens[j] in tokens[i + j] for j in range(k)):
                continue
            if form.initials and form.tokens[-1] not in reading.capitals:
                continue
            # "lgplv3" read as "lgpl" gives its version; "cc0" read as itself gives none.
            glued = reading.versions[i + k - 1] if reading.raw[i + k - 1] != form.tokens[-1] else None
            after = reading.versions[i + k] if i + k < len(tokens) else None
            out.append((i, i + k, glued or after))
    return out


# A word that points back into the thread ("Does it apply to contractors?", "那纸质单据交到哪里？", "他后来去了哪里？").
_REFERS_BACK_RE = re.compile(
    r"\b(?:it|its|they|them|their|theirs|this|that|these|those|he|him|his|she|her|hers|such|same|also|too|"
    r"either|above|former|latter)\b|[它其这那该此他她]|上述|前者|后者|同样|也|还|呢"
)


def stands_alone(follow_up: str, earlier: Sequence[str]) -> bool:
    """Whether a follow-up asks of a subject of its own, not of the thread's: it names a document the thread's earlier
    questions do not (a short name, answerability.short_names: "GPLv2", "MIT"; or a licence's name,
    answerability.licence_names: "the Zephyr licence", "Zephyr 许可证"), and no word of it points back into the
    thread (it, that, 那, 这, 也, 呢…; swaps_subject's "And …?" always points back). "Who may use the Zephyr licence?"
    after a question on the ACME Public License is searched alone; "Is the deadline different in December?", "Can I
    submit it in English?" and "Does it apply to Zephyr?" are searched with the thread, as before."""
    if swaps_subject(follow_up) or _REFERS_BACK_RE.search(fold(follow_up)):
        return False
    before = {t for question in earlier for t in tokenize(question)}
    for question in earlier:
        for readings in (*short_names(question).values(), *licence_names(question).values()):
            before |= readings
    named = [*short_names(follow_up).values(), *licence_names(follow_up).values()]
    return any(readings.isdisjoint(before) for readings in named)


def retrieval_text(question: str, history: Sequence[str]) -> str:
    """What is searched for `question` (asks and replays alike: services.ask, services.answers): a follow-up with the
    previous question's topic terms (`history`: the thread's questions, oldest first), as that question writes them
    (textproc.query_words: its stems would be stemmed again, "license" searched as "licen"), or as it was searched
    when it swapped the subject itself: "And what is the timeline?" after "那时间表呢？" after
    "蓝鳍计划的补偿标准是什么？" still asks of 蓝鳍计划. A follow-up that only swaps the subject ("And version 2?"
    after "When was version 3 released?"; textproc.swaps_subject) asks what the question it swaps from asked: the
    nearest earlier one that is not itself a swap ("那国内呢？" after "And abroad?" after "How much is the daily
    meal allowance?" asks the allowance). It is searched with that question whole, its asking words ("when", "how many")
    included, which the search and the answerability check read for the kind of value asked, less its numbers where
    the follow-up names its own (textproc.subject_swapped) and its names where the follow-up names another ("And GPL
    3?" after a question on the Apache License: `without_earlier_names`)."""
    if not history or stands_alone(question, history):
        return question
    if swaps_subject(question):
        return question + "\n" + without_earlier_names(question, subject_swapped(question, _swapped_from(history)))
    # A previous follow-up that swapped the subject says little alone ("那时间表呢？"): read as it was searched.
    previous = retrieval_text(history[-1], history[:-1]) if swaps_subject(history[-1]) else history[-1]
    return question + "\n" + " ".join(query_words(previous))


def _swapped_from(history: Sequence[str]) -> str:
    """The question a follow-up that swaps the subject asks again: the nearest of `history` that is not itself such a
    follow-up of the questions before it (the thread's first question when every later one is)."""
    for i in range(len(history) - 1, 0, -1):
        if not swaps_subject(history[i]):
            return history[i]
    return history[0]


_BARE_VERSION = re.compile(r"v?\d+(?:\.\d+)*$", re.IGNORECASE)


def without_earlier_names(follow_up: str, earlier: str) -> str:
    """The earlier question a subject-swapping follow-up asks again (textproc.swaps_subject), less the licence it named
    (answerability.licence_names: the words before "license") when the follow-up names a subject of its own (a short
    name or a licence's name, as `stands_alone` reads them): "And GPL 3?" after "Does the Apache license give me a
    patent license?" asks the GPL 3 for a patent licence, and is not searched for "Apache" as well. Other names stay:
    "And in the NYC office?" after "When is the VPN maintenance window?" still asks of the VPN. The words are taken out
    where the earlier question writes them as words."""
    names = (*short_names(follow_up).items(), *licence_names(follow_up).items())
    own = [readings for word, readings in names if not _BARE_VERSION.match(word)]  # "v3" names no other subject
    if not own:
        return earlier
    held = frozenset().union(*own)
    theirs = {word for word, readings in licence_names(earlier).items() if readings.isdisjoint(held)}
    out = earlier
    for word in sorted(theirs, key=len, reverse=True):
        out = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", out)
    return " ".join(out.split())


def named_titles(question: str, titles: Iterable[str | None]) -> set[str]:
    """The titles among `titles` that `question` names (module docstring). Where one title's name is written
    only inside another's ("GPL" inside "Library GPL"), the question names the longer one only."""
    reading = _Reading.of(question)
    # Versions given anywhere ("version 2", "v3", "第二版") stand for a name written without one beside it.
    anywhere = _versions_given(question)
    found: dict[str, list[tuple[bool, int, int]]] = {}
    for title in {t for t in titles if t}:
        names, version = _title_parts(title)
        spans = [
            (has_cjk(name), start, end)
            for name in names
            for start, end, given in _spans(name, reading)
            if version is None or given == version or (given is None and (not anywhere or version in anywhere))
        ]
        if spans:
            found[title] = spans
    every = [span for spans in found.values() for span in spans]
    return {title for title, spans in found.items() if any(not _inside(span, every) for span in spans)}


def _versions_given(question: str) -> set[str]:
    """The versions a question gives anywhere: "version 2", "v3", "versions 2 and 3", "第二版", and in English
    words ("the very first version", "version two", "the third edition", "versions two or three"), which
    text2num (a maintained parser of spelled numbers) writes as digits first; only for a question that says
    "version(s)", "edition(s)" or "release(s)", so "one of the licences" is no version 1. An ordinal counts
    only when no version is given otherwise: "the first release of GPL version 3" names version 3."""
    question = cue_form(question)
    given = _versions_written(question)
    given |= {_normal(n[:-1]) for n in identifiers(question) if n.endswith("版")}
    if _VERSION_NOUN_RE.search(question):
        from text_to_num import alpha2digit  # imported when a question speaks of a version

        try:
            digits = alpha2digit(question, "en", threshold=0)
        except (UnicodeError, ValueError):  # text the parser cannot take (a lone surrogate): no words read
            return given
        given |= _versions_written(digits)
        if not given:
            given = {_normal(m.group(1)) for m in _ORDINAL_VERSION_RE.finditer(digits)}
    return given


def _versions_written(text: str) -> set[str]:
    """The versions `text` writes in digits: "version 2", "v3", and each of "versions 2 and 3"."""
    given = {_normal(m.group(1)) for m in _VERSION_WORD_RE.finditer(text)}
    for m in _VERSIONS_RE.finditer(text):
        given |= {_normal(n) for n in _NUMBER_RE.findall(m.group(1))}
    return given


def _inside(span: tuple[bool, int, int], others: list[tuple[bool, int, int]]) -> bool:
    """Whether `span` lies within a longer one of `others` (of the same script)."""
    cjk, start, end = span
    return any(o[0] == cjk and o[1] <= start and end <= o[2] and o[2] - o[1] > end - start for o in others)


def mentions(text: str, titles: Iterable[str]) -> bool:
    """Whether `text` (a passage with its title and section path) names any of `titles` by the same forms,
    whatever version it gives. A passage of a title's other version speaks of it (its own title writes the
    name): only ranking tells the GPL version 1 from version 2, this rule tells the GPL from the Artistic
    License. The passage is tokenized only when a name is Latin (a Chinese name is a substring)."""
    names = [name for title in titles for name in _title_parts(title)[0]]
    folded = fold(text)
    if any(has_cjk(name) and len(fold(name)) >= 2 and fold(name) in folded for name in names):
        return True
    latin = [name for name in names if not has_cjk(name)]
    if not latin:
        return False
    reading = _passage_reading(text)
    return any(_spans(name, reading) for name in latin)


@functools.lru_cache(maxsize=4096)
def _passage_reading(text: str) -> _Reading:
    """A passage's reading, once per process: the answerability check asks of the same passages question
    after question."""
    return _Reading.of(text, typed=False)
