"""The places a text names, in one form for both languages, and the documents titled by a place. Pure.

An office guide for London and one for Shanghai say the same kinds of things in the same words: showers, badges,
opening hours. "上海办公室有淋浴间吗？" (the Shanghai guide lists no showers) was answered from the London guide's
"Showers, changing rooms and drying lockers are on the lower ground floor", and "上海办公室几点开门？" with London's
hours. A document whose title names a place is about that place; when a question asks of another place that some
candidate's title names (the sibling document for the place asked is in the corpus), a passage of the other place's
document answers only if it speaks of the place asked itself (answerability.assess, reason `other_place`).

A place is read as a Chinese word, which is how the two languages meet: in Chinese text a word jieba's tagger tags
`ns` (上海, 伦敦, 广州), without an administrative suffix (上海市 is 上海); in English text a word or two whose first
rendering in CC-CEDICT is such a word ("London" 伦敦, "Shanghai" 上海, "Hong Kong" 香港). Written in lower case too
("the shanghai office"): questions often are. "China" (first rendered 中, "middle") and "Boston" (波士顿, which jieba
tags as a person's name) are not read as places: a place missed leaves the rule silent, it never rejects more.
"""

from __future__ import annotations

import functools
import re

from .textproc import fold, has_cjk

# A value that only adds an administrative suffix ("北京" / "北京市", "New York" / "New York City") is the same place.
_SUFFIXES = ("特别行政区", "自治区", "市", "省", "县", "区", "镇", "乡", "州", "city", "county", "province", "state")
_DIVISION_CHARS = frozenset("省市县区镇乡州")
_LATIN_WORD_RE = re.compile(r"[A-Za-z]+")
_CJK_RUN_RE = re.compile(r"[\u3400-\u9fff]+")


def place_core(text: str) -> str:
    """A place without its administrative divisions: "省吉安市" (a stretch that starts after 江西) -> "吉安"."""
    words = text.replace(" ", "")
    for suffix in _SUFFIXES:
        if words.endswith(suffix) and len(words) > len(suffix):
            words = words[: -len(suffix)]
            break
    while len(words) > 2 and words[0] in _DIVISION_CHARS:
        words = words[1:]
    return words


@functools.lru_cache(maxsize=4096)
def places(text: str) -> frozenset[str]:
    """The places `text` names, each as its Chinese word (module docstring). Cached: titles are read ask after ask."""
    found = set(_chinese_places(text)) if has_cjk(text) else set()
    found |= _english_places(text)
    return frozenset(found)


def mentions(text: str, place: str) -> bool:
    """Whether `text` (a passage with its title and section path) speaks of `place` (a Chinese word of `places`), in
    either language: "上海" in a Chinese passage, "Shanghai" in an English one."""
    return fold(place) in fold(text) or place in _english_places(text)


def other_place(asked: frozenset[str], title: str | None, titled: frozenset[str]) -> frozenset[str]:
    """The places of `asked` (the question's) that a passage of the document titled `title` must speak of to answer:
    those some candidate's title names (`titled`), when this title names places and none of the asked ones. Empty
    when the rule does not apply: the question names no place a title names, or this title names none or one asked."""
    own = places(title or "")
    wanted = asked & titled
    if not own or not wanted or not own.isdisjoint(asked):
        return frozenset()
    return wanted


def _chinese_places(text: str) -> list[str]:
    import jieba.posseg  # its tagger loads on first use (services/warmup.py loads it at start-up)

    return [_key(pair.word) for run in _CJK_RUN_RE.findall(fold(text)) for pair in jieba.posseg.lcut(run)
            if pair.flag == "ns" and len(pair.word) >= 2]  # fmt: skip


def _key(word: str) -> str:
    """A place word as the rule compares it: without an administrative suffix (上海市 is 上海), unless that leaves one
    character (苏州 is 苏州, not 苏)."""
    core = place_core(word)
    return core if len(core) >= 2 else word


def _english_places(text: str) -> frozenset[str]:
    """Latin words of `text` (and pairs of them, first: "Hong Kong", "New York") whose first rendering is a place."""
    words = [w.lower() for w in _LATIN_WORD_RE.findall(text)]
    if not words:
        return frozenset()
    found: set[str] = set()
    i = 0
    while i < len(words):
        for size in (2, 1):
            if i + size <= len(words) and (place := _rendered_place(tuple(words[i : i + size]))):
                found.add(place)
                i += size
                break
        else:
            i += 1
    return frozenset(found)


@functools.lru_cache(maxsize=16384)
def _rendered_place(words: tuple[str, ...]) -> str | None:
    from jieba import posseg

    from .crosslingual import dictionary

    best = dictionary().en_zh_words.get(words)
    if best is None or not best[1]:
        return None
    first = best[1][0]
    if posseg.dt.word_tag_tab.get(first) != "ns":
        return None
    return _key(first) if len(first) >= 2 else None
