"""Chinese names an English question writes in pinyin ("Beitucheng station", "Hujialou") (pure).

An English speaker asking about a Chinese document writes its place and person names in pinyin, without
tones. The dictionary translation (crosslingual.py) knows Beijing but not a subway station, and no index
token holds "beitucheng". So a word of the question that the dictionary leaves untranslated and that reads
as two or more pinyin syllables is matched against the Chinese characters that read that way: "beitucheng"
matches 北土城 (bei-tu-cheng) in a passage. Wherever the question's words are looked for in a passage (the
search's scoring, the answerability check, the choice of quoted sentences), `held` adds the names a text
spells in characters to the words it holds, so the three agree.

The readings come from pypinyin's character table (a maintained library; every reading of a character
counts, tones and the ü dots dropped). Only CJK characters are matched, so an English text never holds a
name this way, and a name needs two syllables or more (one syllable would match single characters
everywhere).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .crosslingual import translate
from .textproc import detect_language, tokenize

MIN_SYLLABLES = 2
MAX_SYLLABLES = 8
MAX_READINGS = 8  # ways to cut one word into syllables ("xian": xi-an or xian) that are tried
_LATIN_WORD_RE = re.compile(r"[A-Za-z]+")


@functools.lru_cache(maxsize=1)
def _characters() -> dict[str, str]:
    """Toneless syllable -> the CJK unified ideographs that can read so, as a regex character class body."""
    from pypinyin.pinyin_dict import pinyin_dict

    by_syllable: dict[str, list[str]] = {}
    for code, readings in pinyin_dict.items():
        if not 0x4E00 <= code <= 0x9FFF:
            continue
        for reading in readings.split(","):
            plain = "".join(c for c in unicodedata.normalize("NFD", reading) if not unicodedata.combining(c))
            plain = plain.lower().replace("ü", "u")
            # A one-letter syllable (a, e, o, n, m: interjections) would cut almost any word into pinyin.
            if plain.isascii() and plain.isalpha() and len(plain) > 1:
                by_syllable.setdefault(plain, []).append(chr(code))
    return {s: "".join(sorted(set(chars))) for s, chars in by_syllable.items()}


def _cuts(word: str) -> list[list[str]]:
    """Ways to read `word` as pinyin syllables, at most MAX_READINGS, each of MIN..MAX_SYLLABLES syllables."""
    table = _characters()
    longest = max(map(len, table))
    out: list[list[str]] = []

    def walk(pos: int, cut: list[str]) -> None:
        if len(out) >= MAX_READINGS or len(cut) > MAX_SYLLABLES:
            return
        if pos == len(word):
            if len(cut) >= MIN_SYLLABLES:
                out.append(list(cut))
            return
        for end in range(min(len(word), pos + longest), pos, -1):  # longer syllables first
            if word[pos:end] in table:
                cut.append(word[pos:end])
                walk(end, cut)
                cut.pop()

    walk(0, [])
    return out


@functools.lru_cache(maxsize=4096)
def _pattern(word: str) -> re.Pattern[str] | None:
    cuts = _cuts(word)
    if not cuts:
        return None
    table = _characters()
    return re.compile("|".join("".join(f"[{table[s]}]" for s in cut) for cut in cuts))


@functools.lru_cache(maxsize=1024)
def names(question: str) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """The question's words that read as a Chinese name in pinyin: (the word's token, as the question's
    terms spell it; the pattern of the characters that read so). A word the dictionary translates is a
    word, not a name ("change" reads chang-e); so is anything in a Chinese question (it writes names in
    characters)."""
    if detect_language(question) == "zh":
        return ()
    untranslated = {g.source for g in translate(question) if g.terms == (g.source,)}
    out: dict[str, re.Pattern[str]] = {}
    for m in _LATIN_WORD_RE.finditer(question):
        word = m.group().lower()
        tokens = tokenize(word)
        if len(tokens) != 1 or tokens[0] not in untranslated or tokens[0] in out:
            continue
        pattern = _pattern(word)
        if pattern is not None:
            out[tokens[0]] = pattern
    return tuple(out.items())


def held(found: tuple[tuple[str, re.Pattern[str]], ...], text: str) -> set[str]:
    """The names of `found` (from names()) that `text` spells in characters."""
    return set(spelled(found, text))


def spelled(found: tuple[tuple[str, re.Pattern[str]], ...], text: str) -> dict[str, str]:
    """The names of `found` (from names()) that `text` spells in characters, each with the first characters
    that spell it ("beitucheng" -> "北土城"), which the trace shows."""
    out: dict[str, str] = {}
    for token, pattern in found:
        m = pattern.search(text)
        if m is not None:
            out[token] = m.group()
    return out
