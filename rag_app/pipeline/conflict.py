"""Do two sources disagree on what the question asks? (rule 14)

Method: from each source's cited sentence pull typed facts (durations normalised to hours,
working days, dates, years, percentages, money, counts with their unit word) and its
polarity (negation cues in Chinese and English). Two statements from different documents
conflict when they are about the same thing (their content words overlap) and either
- they state facts of the same kind whose value sets share nothing (30 days vs 14 days,
  2023-05-01 vs 2023-06-01, 5% vs 8%), or
- they are near-identical apart from negation ("may" vs "may not", 可以 vs 不可以), or
- they are the same words but for one short stretch that is the asked value and not the same value
  written another way (a place, a name, an organisation: "played in Tampa" vs "played in Glendale";
  七日 vs 7天 and 北京 vs 北京市 are the same).
Conservative on purpose: a missed conflict leaves two cited statements side by side, a false
one only adds a review flag. tests/pipeline/test_conflict.py measures it on a crafted zh+en set.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import math
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import jieba

from .answerability import Asked, asked, holds, names_no_amount
from .crosslingual import all_terms, reads_across, translate
from .records import AlignedAnswer
from .textproc import (
    CURRENCY_AFTER,
    CURRENCY_BEFORE,
    STOPWORDS,
    asks_yes_or_no,
    cue_form,
    detect_language,
    fold,
    query_terms,
    split_sentences,
    tokenize,
)

# Overlap coefficient of content words two statements need to be "about the same thing".
MIN_TOPIC_OVERLAP = 0.3
# Polarity flips need near-identical statements (Jaccard similarity of their content words).
MIN_POLARITY_OVERLAP = 0.6
# Relative tolerance when comparing converted quantities (1 year vs 12 months); dates compare exactly.
REL_TOL = 0.03
_TOLERANT_KINDS = frozenset({"duration", "money", "percent"})

_HOURS = {
    "minute": 1 / 60,
    "hour": 1.0,
    "day": 24.0,
    "week": 168.0,
    "month": 720.0,
    "year": 8760.0,
}
_EN_UNITS = {
    "minute": "minute",
    "minutes": "minute",
    "min": "minute",
    "mins": "minute",
    "hour": "hour",
    "hours": "hour",
    "hr": "hour",
    "hrs": "hour",
    "day": "day",
    "days": "day",
    "calendar day": "day",
    "calendar days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
}
_ZH_UNITS = {
    "分钟": "minute",
    "小时": "hour",
    "个小时": "hour",
    "天": "day",
    "日": "day",
    "周": "week",
    "个星期": "week",
    "星期": "week",
    "个月": "month",
    "年": "year",
}
_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for m in names
}

_NUM = r"\d+(?:,\d{3})*(?:\.\d+)?"
_ZH_NUM = r"[零〇一二两三四五六七八九十百千万亿]+"
_MONTH_NAMES = "|".join(sorted(_MONTHS, key=len, reverse=True))

_DATE_PATTERNS = [
    re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"),
    re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)"),
    re.compile(rf"\b({_MONTH_NAMES})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.IGNORECASE),
    re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_NAMES})\.?,?\s+(\d{{4}})\b", re.IGNORECASE),
]
_MONTH_PATTERNS = [
    re.compile(r"(\d{4})\s*年\s*(\d{1,2})\s*月(?![\d日号])"),
    re.compile(rf"\b({_MONTH_NAMES})\.?,?\s+(\d{{4}})\b", re.IGNORECASE),
]
_MONTH_DAY_RE = re.compile(r"(?<!\d)(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_YEAR_RE = re.compile(r"(?<![\d.])((?:1[5-9]|20)\d{2})(?:\s*年|(?![\d.]))")
_PERCENT_RE = re.compile(rf"(?:({_NUM})\s*(?:%|percent\b|per cent\b))|(?:百分之({_NUM}|{_ZH_NUM}))")
# A sum with its currency before it ("$500", "USD 500", "CNY 1,000") or after it ("500 USD", "600元", "5万美元").
# A multiple after the number ("CNY 3万", "USD 5 million", "5万美元") is part of it (`_number`).
_MULTIPLE = r"(?:\s*(?:[万亿]|(?:thousand|million|billion)\b))?"
_MONEY_RE = re.compile(
    rf"(?:({CURRENCY_BEFORE})\s*({_NUM}{_MULTIPLE}))|(?:({_NUM}{_MULTIPLE}|{_ZH_NUM})\s*({CURRENCY_AFTER}))",
    re.IGNORECASE,
)
_EN_DURATION_RE = re.compile(
    rf"\b({_NUM}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|"
    rf"twenty|thirty|sixty|ninety)[\s-]+(business|working|calendar)?\s*"
    rf"(minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
_ZH_DURATION_RE = re.compile(
    rf"({_NUM}|{_ZH_NUM}|半)\s*(个工作日|工作日|分钟|个半小时|个小时|小时|天|日|个星期|星期|周|个半月|个月|年半|年)(半)?"
)
# Counts: a number with a unit word (English) or a measure word (Chinese). Identifiers such as
# 16号线 or 3楼 are not quantities, so only measure words that count things are taken.
_ZH_MEASURES = "个人名次种家位条件项所座台辆本张只头匹岁克吨米倍份间"
_COUNT_RE = re.compile(rf"(?<![\d.])({_NUM})\s*([a-z]{{3,14}}|[{_ZH_MEASURES}])(?![a-z])", re.IGNORECASE)
_EN_WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fourteen": 14,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "sixty": 60,
    "ninety": 90,
}

_ZH_NEGATIONS = frozenset(
    "不 没 没有 无 未 非 禁止 不得 不可 不能 无法 不会 不是 不用 无需 不需要 勿 别 严禁 不予 不再 否"
    # words jieba keeps whole ("至今仍然未有定论" -> 未有)
    " 未有 未曾 未能 尚未 并未 从未 没能 从不 并不 绝不 决不 毫无 从没 并非 未经".split()
)
_EN_NEGATIONS = frozenset(
    "not no never cannot can't won't isn't aren't don't doesn't didn't wasn't weren't shouldn't mustn't "
    "prohibited forbidden nor neither without".split()
)
# Words that begin with a negation character but do not negate.
_NOT_NEGATIONS = frozenset("不同 不断 不仅 不过 不但 无论 无线 不少 非常 未来 不久 无数 毫无疑问".split())


# "得不到", "看不见", "做不到": a verb, 不, its complement (the potential form) says "cannot".
_ZH_POTENTIAL_NOT = frozenset("对不起 了不起 差不多 怪不得 恨不得 巴不得 少不了 免不了".split())


def _zh_negation(tok: str) -> bool:
    if tok in _NOT_NEGATIONS:
        return False
    if tok in _ZH_NEGATIONS:
        return True
    return len(tok) == 3 and tok[1] == "不" and tok not in _ZH_POTENTIAL_NOT


_EN_WORD_RE = re.compile(r"[a-z]+(?:'[a-z]+)?")
_CJK_RUN_RE = re.compile(r"[\u3400-\u9fff]+")


@dataclass(frozen=True, slots=True)
class Statement:
    """One cited sentence of one source. `kinds`: the kinds of typed facts it may disagree on (None: every
    kind); a sentence from a chunk that answers less well than its document's best speaks on the kind the
    question asks, not on a date or sum it happens to cite (fact_kinds)."""

    marker: str
    source_id: str
    text: str
    kinds: frozenset[str] | None = None


@dataclass(frozen=True, slots=True)
class Conflict:
    markers: tuple[str, str]
    kind: str
    values: tuple[str, str]

    def as_dict(self) -> dict[str, object]:
        """As the trace stores it."""
        return {"markers": list(self.markers), "kind": self.kind, "values": list(self.values)}


def extract_facts(text: str) -> dict[str, set[float]]:
    """Typed facts of a sentence: {"duration": {720.0}, "date": {20230501}, "percent": {5.0}, ...}."""
    t = unicodedata.normalize("NFKC", text)
    facts: dict[str, set[float]] = {}
    masked = t

    def add(kind: str, value: float) -> None:
        facts.setdefault(kind, set()).add(value)

    def mask(m: re.Match[str]) -> str:
        return " " * (m.end() - m.start())

    for pat in _DATE_PATTERNS:
        for m in pat.finditer(masked):
            y, mo, d = _date_parts(m.groups())
            if y and 1 <= mo <= 12 and 1 <= d <= 31:
                add("date", y * 10000 + mo * 100 + d)
                add("month", y * 100 + mo)
                add("year", y)
        masked = pat.sub(mask, masked)
    for pat in _MONTH_PATTERNS:
        for m in pat.finditer(masked):
            g = m.groups()
            y, mo = (int(g[0]), int(g[1])) if g[0].isdigit() else (int(g[1]), _MONTHS[g[0].lower()])
            if 1 <= mo <= 12:
                add("month", y * 100 + mo)
                add("year", y)
        masked = pat.sub(mask, masked)
    for m in _MONTH_DAY_RE.finditer(masked):
        add("month_day", int(m.group(1)) * 100 + int(m.group(2)))
    masked = _MONTH_DAY_RE.sub(mask, masked)
    for m in _PERCENT_RE.finditer(masked):
        value = _number(m.group(1) or m.group(2))
        if value is not None:
            add("percent", value)
    masked = _PERCENT_RE.sub(mask, masked)
    for m in _MONEY_RE.finditer(masked):
        value = _number(m.group(2) or m.group(3))
        if value is not None:
            add("money", value)
    masked = _MONEY_RE.sub(mask, masked)
    for m in _EN_DURATION_RE.finditer(masked):
        value = _number(m.group(1))
        unit = _EN_UNITS[m.group(3).lower()]
        if value is not None:
            if (m.group(2) or "").lower() in {"business", "working"}:
                add("workdays", value)
            else:
                add("duration", value * _HOURS[unit])
    masked = _EN_DURATION_RE.sub(mask, masked)
    for m in _ZH_DURATION_RE.finditer(masked):
        value = 0.5 if m.group(1) == "半" else _number(m.group(1))
        raw_unit = m.group(2)
        if value is None:
            continue
        if "半" in raw_unit or m.group(3):  # 两年半, 一个半月, 三个半小时: and a half
            value += 0.5
            raw_unit = raw_unit.replace("个半", "个").replace("年半", "年")
        if raw_unit == "年" and value >= 1000:
            add("year", value)
        elif "工作日" in raw_unit:
            add("workdays", value)
        else:
            add("duration", value * _HOURS[_ZH_UNITS[raw_unit]])
    masked = _ZH_DURATION_RE.sub(mask, masked)
    for m in _YEAR_RE.finditer(masked):
        add("year", float(m.group(1)))
    masked = _YEAR_RE.sub(mask, masked)
    for m in _COUNT_RE.finditer(masked):
        value = _number(m.group(1))
        if value is not None:
            add(f"count:{m.group(2).lower()}", value)
    return facts


# compare() runs for every pair of statements, so the same text is read many times per answer:
# negated() (jieba) and the facts are memoized per text (pure functions of it).
@functools.lru_cache(maxsize=2048)
def negated(text: str) -> bool:
    """Odd number of negation cues = the statement says no. A cue that bounds a quantity ("no more than your
    cost", "must not exceed 30 days", "不超过30天", "不少于三年") says how much, not no: `_bounds`."""
    folded = fold(text).replace("’", "'")
    words = _EN_WORD_RE.findall(folded)
    count = sum(
        1
        for i, w in enumerate(words)
        if (w in _EN_NEGATIONS or w.endswith("n't")) and not _bounds(words[i + 1 : i + 5])
    )
    for run in _CJK_RUN_RE.findall(folded):
        tokens = jieba.lcut(run)
        count += sum(1 for i, tok in enumerate(tokens) if _zh_negation(tok) and not _zh_bound(tok, tokens[i + 1 :]))
    return count % 2 == 1


# A negation before a comparison bounds a quantity: "no more than", "not later than", "must not exceed"; "不超过",
# "不得超过", "不低于" (jieba cuts 不 from the comparison; "不少于", "不迟于" are no negations to begin with).
_EN_BOUNDS = frozenset(
    "more less later earlier fewer greater longer shorter sooner higher lower exceed exceeds exceeding".split()
)
_ZH_BOUNDS = frozenset("超过 超出 多于 少于 高于 低于 大于 小于 晚于 早于 迟于 长于 短于".split())


def _bounds(following: Sequence[str]) -> bool:
    """Whether the words after an English negation compare a quantity: a comparison and "than" ("no more than", "not be
    later than", "may not work more than"), or "exceed", within the next three words."""
    words = list(following)
    for i, word in enumerate(words):
        if word.startswith("exceed") or (word in _EN_BOUNDS and words[i + 1 : i + 2] == ["than"]):
            return True
    return False


def _zh_bound(token: str, following: Sequence[str]) -> bool:
    """Whether a Chinese negation token bounds a quantity: the word after it compares ("不" + "超过")."""
    return bool(following) and following[0] in _ZH_BOUNDS


def topic_overlap(a: str, b: str) -> float:
    """Overlap coefficient of content words, numbers and negations left out."""
    ta, tb = _topic_terms(a), _topic_terms(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / min(len(ta), len(tb))


def _likeness(a: str, b: str) -> float:
    """Jaccard similarity of the same content words: unlike the overlap coefficient, a short clause
    ("provided the MMC is eligible for relicensing.") is not near-identical to a long sentence that
    contains its words and says something else ("... had no cover texts ...")."""
    ta, tb = _topic_terms(a), _topic_terms(b)
    if not ta or not tb:
        return 0.0
    return len(ta & tb) / len(ta | tb)


def compare(a: Statement, b: Statement, question: str = "") -> Conflict | None:
    """The first way in which two statements from different sources disagree, or None."""
    if a.source_id == b.source_id:
        return None
    overlap = topic_overlap(a.text, b.text)
    if overlap < MIN_TOPIC_OVERLAP:
        return None
    fa, fb = _facts(a.text), _facts(b.text)
    limits = [k for k in (a.kinds, b.kinds) if k is not None]
    if _asks_a_claim(question):
        limits.append(frozenset())
    allowed = frozenset.intersection(*limits) if limits else None
    shared = fa.keys() & fb.keys() if allowed is None else fa.keys() & fb.keys() & allowed
    for kind in sorted(shared, key=_kind_priority):
        if not _share_any(fa[kind], fb[kind], tol=REL_TOL if kind in _TOLERANT_KINDS else 0.0):
            return Conflict((a.marker, b.marker), kind, (_fmt(kind, fa[kind]), _fmt(kind, fb[kind])))
    if _likeness(a.text, b.text) >= MIN_POLARITY_OVERLAP and negated(a.text) != negated(b.text):
        return Conflict(
            (a.marker, b.marker), "yes_no", ("no" if negated(a.text) else "yes", "no" if negated(b.text) else "yes")
        )
    changed = changed_stretch(a.text, b.text)
    if changed is not None and allowed is not None and any(_facts(c).keys() - allowed for c in changed):
        return None  # a date or sum of a kind the question does not ask, cited in a weaker chunk
    if changed is not None and any(_PLACEHOLDER_RE.fullmatch(c) for c in changed):
        return None  # a template's blank ("Copyright (C) <year>" / "19yy"): no value is stated
    if (
        changed is not None
        and not _ASKS_VERSION_RE.search(cue_form(question))
        and changed_stretch(_unversioned(a.text), _unversioned(b.text)) is None
    ):
        return None  # two versions of one document each naming its own ("Version 1.2 or any later version")
    if changed is not None and _asked_slot(changed, a.text, question):
        return Conflict((a.marker, b.marker), "value", changed)
    return None


# Two statements identical but for one short stretch ("…was played in Tampa, Florida." / "…in
# Glendale, Arizona.") give two values for one slot, whatever kind of value it is. The stretch is
# cut to whole words; numbers, dates and durations in it were already compared as typed facts.
MAX_SPAN_CHARS = 60
MIN_SHARED_SHARE = 0.5
_WORD_CHAR_RE = re.compile(r"[0-9a-z\u00c0-\u024f]")
_NUMERAL_CHAR_RE = re.compile(r"[0-9零〇一二两三四五六七八九十百千万亿]")


def changed_stretch(a: str, b: str) -> tuple[str, str] | None:
    """The one stretch two statements differ in, as each writes it (cut to whole words and numbers), when the rest is
    shared and the two stretches are not one value written two ways; else None."""
    fa, fb = fold(a).strip(), fold(b).strip()
    if fa == fb:
        return None
    shortest = min(len(fa), len(fb))
    head, tail = _shared_ends(fa, fb)
    # Widen to whole Latin words ("Tampa" vs "Tallahassee" share a "Ta") and whole numbers ("二十年" vs
    # "二十六年" differ by an inserted "六", "120" vs "20" by a "1": the values are 20 and 26, 120 and 20).
    while head > 0 and (_WORD_CHAR_RE.match(fa[head - 1]) or _NUMERAL_CHAR_RE.match(fa[head - 1])):
        head -= 1
    while tail > 0 and (_WORD_CHAR_RE.match(fa[len(fa) - tail]) or _NUMERAL_CHAR_RE.match(fa[len(fa) - tail])):
        tail -= 1
    if head + tail < MIN_SHARED_SHARE * shortest:
        return None
    mid_a, mid_b = fa[head : len(fa) - tail].strip(" ,，、"), fb[head : len(fb) - tail].strip(" ,，、")
    if not mid_a or not mid_b or max(len(mid_a), len(mid_b)) > MAX_SPAN_CHARS:
        return None
    # The stretch is negated when both statements say no, or when what follows it does ("must" / "may"
    # before "not be used ... without permission": two cues, so the whole sentence counts as not negated).
    negative = (negated(a) and negated(b)) or _NEGATES_NEXT_RE.match(fa[len(fa) - tail :]) is not None
    if _same_value(mid_a, mid_b, negative=negative):
        return None
    return mid_a, mid_b


_NEGATES_NEXT_RE = re.compile(r"\s*(?:not|never)\b")


def _shared_ends(a: str, b: str) -> tuple[int, int]:
    """The lengths of the longest start and (not overlapping it) the longest end `a` and `b` share;
    compared by slices, halving, not character by character: a chunk is a thousand characters."""
    shortest = min(len(a), len(b))
    lo, hi = 0, shortest
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    head = lo
    lo, hi = 0, shortest - head
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return head, lo


# One passage copies another when they are the same text but for one stretch of at most MAX_COPY_STRETCH
# characters that is at most a fifth of the text: last year's policy beside this year's with one value
# changed, a licence text copied with one clause edited. Two articles on one topic, or two licences of one
# family ("the Library" for "the Program" all through), are no copies.
MAX_COPY_STRETCH = 80
MIN_COPY_SHARE = 0.8
MIN_COPY_CHARS = 50  # a heading or a one-line chunk repeated is no copy of a text


def copy_form(text: str) -> str:
    """A passage as `copies` compares it: as written (a copy is in the script of its original), its lines
    rewrapped. Folding every pair of a search's candidates would cost more than the search."""
    return " ".join(text.split())


def copies(a: str, b: str) -> bool:
    """Whether passage `a` copies passage `b` but for one short stretch (or not even that)."""
    return same_but_one_stretch(copy_form(a), copy_form(b))


def same_but_one_stretch(a: str, b: str) -> bool:
    """`copies` for two passages in `copy_form`."""
    return min(len(a), len(b)) >= MIN_COPY_CHARS and one_stretch_apart(a, b)


def one_stretch_apart(a: str, b: str) -> bool:
    """Two texts the same but for one stretch of at most MAX_COPY_STRETCH characters, the rest at least
    MIN_COPY_SHARE of the longer: "…享年60岁。" / "…享年六十岁。" (any length; `same_but_one_stretch` asks it of
    passages)."""
    if abs(len(a) - len(b)) > MAX_COPY_STRETCH:
        return False
    longest = max(len(a), len(b))
    need = max(longest - MAX_COPY_STRETCH, MIN_COPY_SHARE * longest)
    # The shared start or the shared end is at least half of what must be shared: two slices tell most pairs apart.
    half = math.ceil(need / 2)
    if a[:half] != b[:half] and a[len(a) - half :] != b[len(b) - half :]:
        return False
    head, tail = _shared_ends(a, b)
    return head + tail >= need


def _same_value(a: str, b: str, *, negative: bool = False) -> bool:
    """Two stretches that name one value: equal typed facts (七日 / 7天, 30 / thirty, Feb 7, 2021 /
    2021-02-07), one month named in full and short (Feb. / February), the same words reordered around a
    number ("20 December" / "December 20"), function words only ("does not" / "do not" leave "does" /
    "do"), one place with and without its administrative
    divisions (北京 / 北京市, 江西吉安 / 江西省吉安市), one that only adds words to the other ("mailing" /
    "electronic mailing"), or two modal verbs of one force (能够 / 可以; "must not" / "may not" when both
    statements say no)."""
    month = _MONTHS.get(a.strip(" .").lower())
    if month is not None and month == _MONTHS.get(b.strip(" .").lower()):
        return True  # one month named in full and short ("Feb." / "February" before the same year)
    fa, fb = extract_facts(a), extract_facts(b)
    if (_NUMERIC_RE.search(a) or _NUMERIC_RE.search(b)) and sorted(tokenize(a)) == sorted(tokenize(b)):
        return True  # a date or amount written in another order ("20 December" / "December 20")
    if fa or fb or _NUMERIC_RE.search(a) or _NUMERIC_RE.search(b):
        if fa.keys() & fb.keys():
            return all(
                _share_any(fa[k], fb[k], tol=REL_TOL if k in _TOLERANT_KINDS else 0.0) for k in fa.keys() & fb.keys()
            )
        na, nb = _number(a), _number(b)
        return na is not None and na == nb
    if negated(a) or negated(b):
        return True  # "not", "prohibited" / "not allowed": polarity, which compare() checks on its own
    force = _modal_force(a, negative)
    if force is not None and force == _modal_force(b, negative):
        return True
    wa, wb = _words_of(a), _words_of(b)
    if not wa and not wb and force is None and _modal_force(b, negative) is None:
        return True  # function words only ("does" / "do", "the" / "a"): grammar, not a value
    ca, cb = _place_core(a), _place_core(b)
    if ca == cb:
        return True
    return (bool(wa) or bool(wb)) and (wa <= wb or wb <= wa)  # one only adds words, maybe to nothing


# Modal verbs by what they say. Under a negation every one of them forbids ("must not", "may not",
# "cannot", "不得", "不能"), so there they are one force.
_MODALS = {
    **dict.fromkeys("能 能够 可以 可 得以 允许 准许 may can could might".split(), "permit"),
    **dict.fromkeys("必须 须 应 应当 应该 需 需要 must shall should".split(), "oblige"),
}


def _modal_force(text: str, negative: bool) -> str | None:
    force = _MODALS.get(text.strip())
    return "forbid" if force and negative else force


def _words_of(text: str) -> frozenset[str]:
    return frozenset(tokenize(text))


# A blank of a template, to be filled in by whoever uses it: "<year>", "[name of author]", "{date}", "19yy", "20XX".
_PLACEHOLDER_RE = re.compile(
    r"<[^<>]{1,40}>|\[[^\[\]]{1,40}\]|\{[^{}]{1,40}\}|\d{1,3}(?:y{1,3}|x{1,3})|y{4}", re.IGNORECASE
)
# A version number as a text gives it ("Version 1.2", "v3", "版本 2.0", "第二版"): what tells two versions of one
# document apart, not a value either states, unless the question asks which version.
_VERSION_NUMBER_RE = re.compile(
    r"\b(?:version|v)\s*\.?\s*\d+(?:\.\d+)*|版本\s*\d+(?:\.\d+)*|第\s*[\d一二三四五六七八九十]+\s*版", re.IGNORECASE
)
# "Which version …", "Which Python version …", "What is the current version …", "什么版本", "哪个版本"; not a version
# the question names ("What does version 3 say …").
_ASKS_VERSION_RE = re.compile(
    r"\b(?:which|what)\b[^?？]{0,40}?\bversions?\b(?!\s*v?\d)|什么版本|哪(?:个|一)?版|第几版|版本号", re.IGNORECASE
)


def _unversioned(text: str) -> str:
    """`text` with its version numbers blanked alike."""
    return _VERSION_NUMBER_RE.sub("version", fold(text))


def _asked_slot(changed: tuple[str, str], statement: str, question: str) -> bool:
    """Whether the changed stretch is the value the question asks for, not its subject or an unrelated
    detail: the question's content words are in the part both statements share, none in the stretch.
    Without a question (annotating an answer after the fact) every changed stretch counts."""
    if not question:
        return True
    if not _ASKS_REFERENCE_RE.search(cue_form(question)) and (
        all(_REFERENCE_RE.fullmatch(c) for c in changed) or _cites(changed[0], statement)
    ):
        return False  # "Subsection 2c" / "2d", "Paragraphs 3 and 4" / "3 and 5": a cross-reference
    if _asks_a_claim(question) and not all(names_no_amount(c) for c in changed):
        return False  # "Do interns get parental leave?" is not asked in weeks: 12 / 16 is another detail
    terms = _asked_terms(question, statement)
    changed_terms = set(tokenize(changed[0])) | set(tokenize(changed[1]))
    # A question word in the stretch makes it the subject, unless the part both share names it too: "由美国
    # 雷明登武器公司生产" / "由鑫诺卫星通信有限公司生产" change the maker, whose name repeats the product's.
    shared = set(tokenize(fold(statement).replace(changed[0], " ", 1)))
    if (terms & changed_terms) - shared:
        return False
    if _asks_a_time(question) and not any(holds(Asked.TIME, c) for c in changed):
        return False  # "When was GFDL 1.3 released?": three or five authors is another detail
    return bool(terms & set(tokenize(statement)))


def _asked_terms(question: str, statement: str) -> set[str]:
    """The question's words as `statement` may write them: a statement in the other language holds them as
    their word-by-word renderings (crosslingual.reads_across, as search and the answerability check read
    it), so "Where should paper receipts be submitted?" asks the slot of "纸质单据须提交至北京总部财务室"."""
    terms = set(query_terms(question))
    if reads_across(detect_language(statement), detect_language(question)):
        terms |= set(all_terms(translate(question)))
    return terms


# A question whose slot is a point in time: a date asked for ("哪一年", "what year"), a clock time, or an
# English "when" about a past event ("when was / were / did"). A present-tense "when" in rules asks a
# condition as often ("When can cover texts go on the covers?" -> "if the Document is less than one half").
_PAST_WHEN_RE = re.compile(r"\bwhen\s+(?:was|were|did)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def _asks_a_claim(question: str) -> bool:
    """Whether the question asks whether something holds, naming no amount (textproc.asks_yes_or_no,
    answerability.names_no_amount): "Do interns get parental leave?", "Is parental leave paid at full salary?". Its
    slot is the claim, which two sources dispute by saying yes and no; a number they differ in ("12 weeks" / "16
    weeks") is another detail. A yes-or-no question that names a number ("is it still 3 days in the office?", "Was
    it released in 2007?") asks that value too."""
    return bool(question) and asks_yes_or_no(question) and names_no_amount(question)


def _asks_a_time(question: str) -> bool:
    kind = asked(question)
    if kind in (Asked.DATE, Asked.CLOCK):
        return True
    return kind is Asked.TIME and _PAST_WHEN_RE.search(cue_form(question)) is not None


def _cites(number: str, statement: str) -> bool:
    """Whether `number` is the number of a paragraph, section or clause the statement refers to."""
    if not number.isdigit():
        return False
    pattern = rf"{_CITING}\s+(?:[\d.]+[a-z]?\s*(?:,|and|or|to|through|&)\s*)*{re.escape(number)}(?![\d.]*\d)"
    return re.search(pattern, fold(statement)) is not None


_REFERENCE_WORDS = r"paragraph|section|subsection|clause|article"
_CITING = rf"\b(?:{_REFERENCE_WORDS})s?"
_REFERENCE_RE = re.compile(r"(?:§\s*)?\d+(?:\.\d+)*[a-z]|\(?[a-z]\)|§\s*\d+(?:\.\d+)*", re.IGNORECASE)
_ASKS_REFERENCE_RE = re.compile(rf"\b(?:{_REFERENCE_WORDS})\b|第几|哪一?[条款章节]", re.IGNORECASE)


def _place_core(text: str) -> str:
    """A place without its administrative divisions: "省吉安市" (a stretch that starts after 江西) -> "吉安"."""
    words = text.replace(" ", "")
    for suffix in _SUFFIXES:
        if words.endswith(suffix) and len(words) > len(suffix):
            words = words[: -len(suffix)]
            break
    while len(words) > 2 and words[0] in _DIVISION_CHARS:
        words = words[1:]
    return words


# A value that only adds an administrative suffix ("北京" / "北京市", "New York" / "New York City") is
# the same place.
_SUFFIXES = ("特别行政区", "自治区", "市", "省", "县", "区", "镇", "乡", "州", "city", "county", "province", "state")
_DIVISION_CHARS = frozenset("省市县区镇乡州")
_NUMERIC_RE = re.compile(r"[\d零〇一二两三四五六七八九十百千万亿]")


_TIME_KINDS = frozenset({"date", "month_day", "month", "year"})
_AMOUNT_KINDS = frozenset({"duration", "workdays", "percent", "money"})


def fact_kinds(question: str) -> frozenset[str]:
    """The kinds of typed facts that are the value a question asks for: dates for "when / 哪一年", amounts
    and durations for "how many / how long / 多少"; none for a question asking anything else."""
    kind = asked(question)
    if kind in (Asked.DATE, Asked.TIME, Asked.CLOCK):
        return _TIME_KINDS
    if kind in (Asked.QUANTITY, Asked.MEASURE):
        return _AMOUNT_KINDS
    return frozenset()


def detect_conflicts(statements: Sequence[Statement], question: str = "") -> list[Conflict]:
    """Every pair of statements from different sources that disagree, in statement order."""
    out: list[Conflict] = []
    for i, a in enumerate(statements):
        for b in statements[i + 1 :]:
            found = compare(a, b, question)
            if found:
                out.append(found)
    return out


def conflicting_markers(conflicts: Iterable[Conflict]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for c in conflicts:
        for m in c.markers:
            seen.setdefault(m, None)
    return tuple(seen)


def trust_order(level_weight: float | None, effective_from: dt.date | None) -> tuple[float, int]:
    """How the sides of a disagreement are ordered, wherever they are listed (the extractive answer's statements, a
    model's answer's added ones, the page's "sources disagree" banner): the higher level first, then the newer
    effective date (a source without one after those with one). A sort key; what ties keeps its order, so each
    caller says what breaks a tie (the assembly's order, the order of citation)."""
    return (-(level_weight or 0.0), -(effective_from or dt.date.min).toordinal())


@dataclass(frozen=True, slots=True)
class ShownDisagreement:
    """What a viewer is shown of the disagreements an answer recorded (shown_disagreement)."""

    conflicts: list[dict[str, Any]]  # the recorded entries (Conflict.as_dict) shown whole; [] for a flat record
    markers: tuple[str, ...]  # every side's marker, in recorded order; () when none is shown


def shown_disagreement(recorded: object, named: object, shown: Mapping[str, str]) -> ShownDisagreement:
    """Which of the disagreements an answer recorded a viewer is shown, and the markers of their sides: the one rule
    for the "sources disagree" banner, the `conflict` flag of the answer and of the answer lists (the stored flag is
    this rule for a viewer shown every citation, services.answers) and the conflicts the trace keeps.

    `recorded`: the trace's `conflicts` (Conflict.as_dict entries, each naming the markers that disagree), or
    anything else for a trace that did not keep them; `named`: the flat list of markers named as disagreeing, read
    only then, as one disagreement among all of them (which disagrees with which was not recorded); `shown`:
    marker -> source_id of every marker the viewer is shown. A disagreement counts only if the viewer is shown each
    of its markers and they are of two documents at least: one side shown would say that a hidden document
    disagrees, and two shown sources that each disagree with a hidden one need not disagree with each other."""
    flat = not isinstance(recorded, list)
    entries = [{"markers": named}] if flat else recorded
    kept: list[dict[str, Any]] = []
    for entry in entries if isinstance(entries, list) else []:
        markers = entry.get("markers") if isinstance(entry, dict) else None
        if not isinstance(markers, list) or not all(isinstance(m, str) and m in shown for m in markers):
            continue
        if len({shown[m] for m in markers}) >= 2:
            kept.append(entry)
    sides = tuple(dict.fromkeys(m for entry in kept for m in entry["markers"]))
    return ShownDisagreement(conflicts=[] if flat else kept, markers=sides)


def annotate_conflicts(answer: AlignedAnswer, question: str = "") -> AlignedAnswer:
    """Flag an aligned answer whose cited statements from different sources disagree.

    Each linked paragraph is a statement of every source it cites; when it cites several, the
    statement of each is the snippet sentence closest to the paragraph. A conflict the generator
    already declared stays declared.
    """
    by_marker = {s.marker: s for s in answer.sources}
    statements: list[Statement] = []
    for para in answer.paragraphs:
        for marker in para.citation_ids:
            source = by_marker.get(marker)
            if source is None:
                continue
            text = para.text if len(para.citation_ids) == 1 else _closest_sentence(source.snippet, para.text)
            statements.append(Statement(marker, source.record.source_id or "", text))
    found = detect_conflicts(statements, question)
    markers = conflicting_markers(found)
    if answer.conflict and not markers:
        markers = tuple(m for p in answer.paragraphs for m in p.citation_ids if m in by_marker)
        markers = tuple(dict.fromkeys(markers))
    conflict = answer.conflict or bool(found)
    notes = dict(answer.notes)
    if found:
        notes["conflicts"] = [c.as_dict() for c in found]
    return dataclasses.replace(answer, conflict=conflict, conflicting_markers=markers, notes=notes)


def _closest_sentence(snippet: str, text: str) -> str:
    target = _topic_terms(text)
    best, best_overlap = snippet, -1.0
    for sentence in split_sentences(snippet):
        terms = _topic_terms(sentence)
        overlap = len(terms & target) / len(terms) if terms else 0.0
        if overlap > best_overlap:
            best, best_overlap = sentence, overlap
    return best


def _kind_priority(kind: str) -> tuple[int, str]:
    order = ["date", "month_day", "duration", "workdays", "percent", "money", "month", "year"]
    return (order.index(kind) if kind in order else len(order), kind)


def _share_any(a: set[float], b: set[float], *, tol: float) -> bool:
    return any(abs(x - y) <= tol * max(abs(x), abs(y)) for x in a for y in b)


def _fmt(kind: str, values: set[float]) -> str:
    """A typed fact as the trace shows it: a date as 1996-12-20 (facts hold it as 19961220), a month as
    1996-12, a duration in hours, a whole number in full ("%g" printed both 19961220 and 19961221 as 1.99612e+07)."""

    def one(v: float) -> str:
        if kind == "date" and v == int(v):
            n = int(v)
            return f"{n // 10000:04d}-{n // 100 % 100:02d}-{n % 100:02d}"
        if kind == "month" and v == int(v):
            n = int(v)
            return f"{n // 100:04d}-{n % 100:02d}"
        text = str(int(v)) if v == int(v) else repr(v)
        return f"{text} h" if kind == "duration" else text  # durations are held in hours

    return ", ".join(one(v) for v in sorted(values))


@functools.lru_cache(maxsize=2048)
def _facts(text: str) -> dict[str, set[float]]:
    """extract_facts(), memoized for compare(), which only reads it."""
    return extract_facts(text)


@functools.lru_cache(maxsize=2048)
def _topic_terms(text: str) -> frozenset[str]:
    """Content words with the negation left out: a potential negative is its verb (得不到 -> 得到)."""
    return frozenset(
        t[0] + t[2] if len(t) == 3 and _zh_negation(t) else t
        for t in tokenize(text)
        if not any(ch.isdigit() for ch in t)
        and t not in _ZH_NEGATIONS
        and t not in _EN_NEGATIONS
        and t not in STOPWORDS
        and t not in _ZH_DIGITS
    )


def _date_parts(groups: tuple[str | None, ...]) -> tuple[int, int, int]:
    a, b, c = (g or "" for g in groups[:3])
    if a.isdigit() and len(a) == 4:
        return int(a), int(b), int(c)
    if a.lower() in _MONTHS:  # Month D, YYYY
        return int(c), _MONTHS[a.lower()], int(b)
    return int(c), _MONTHS.get(b.lower(), 0), int(a)  # D Month YYYY


def _number(raw: str | None) -> float | None:
    if not raw:
        return None
    raw = raw.strip().lower()
    if raw in _EN_WORD_NUMBERS:
        return float(_EN_WORD_NUMBERS[raw])
    if re.fullmatch(_NUM, raw):
        return float(raw.replace(",", ""))
    if (m := _EN_MULTIPLE_RE.fullmatch(raw)) is not None:
        return float(m.group(1).replace(",", "")) * _EN_MULTIPLES[m.group(2)]
    return _zh_number(raw)


_EN_MULTIPLES = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_EN_MULTIPLE_RE = re.compile(rf"({_NUM})\s*(thousand|million|billion)")


def _zh_number(raw: str) -> float | None:
    """Chinese numerals, alone or after digits ("二十八亿", "28亿", "两千万", "1.5万"), by cn2an (a
    maintained converter); None for anything it does not read as one number."""
    import cn2an  # 0.2 s to import: only when a stretch is not plain digits

    try:
        return float(cn2an.cn2an(raw, "smart"))
    except (ValueError, TypeError, KeyError, IndexError):
        return None


__all__ = [
    "Conflict",
    "ShownDisagreement",
    "Statement",
    "annotate_conflicts",
    "compare",
    "conflicting_markers",
    "copies",
    "copy_form",
    "detect_conflicts",
    "extract_facts",
    "negated",
    "one_stretch_apart",
    "same_but_one_stretch",
    "shown_disagreement",
    "topic_overlap",
    "trust_order",
]
