"""How common a search token is in the language at large. Pure: no Django.

The answerability check weighs a question's words by how rare they are among the candidate passages
(pipeline/answerability.py), and quoting weighs a snippet's sentences the same way. Among 50 passages on
licences, "top", "extra" and "own" are as rare as the detail asked, so "Can I add extra permissions on top
of GPLv3 for my own code?" asked every window to hold them as much as "permissions": the clause on
additional permissions did not answer. A word that is common in the language says little about what a
passage states, however rare it is among the candidates: its weight is at most its idf in ordinary text
(`idf`).

"In ordinary text" is read as: the chance that a text of TEXT_TOKENS words holds the token, from its
frequency in the language. English frequencies are the `wordfreq` package's (code Apache 2.0, data
CC BY-SA 4.0, inside the package; frozen since 2024, and general word frequencies do not go out of date),
summed over the words that stem to one search token ("license", "licensed", "licenses" -> licens).
Chinese frequencies are those of jieba's own dictionary (already loaded to cut the text, and cut the same
way as the tokens). A token neither knows (most names, a number, a word run together with its version) is
not common: no cap. A name that is also a common word (北京, Paris, Windows) is capped like one.
"""

from __future__ import annotations

import functools
import math

from .textproc import has_cjk

# The words of an ordinary text the chance is read over (measured on the natural-question set and the
# answerability test bed: docs/EVALUATION.md, session 14). Only tokens more frequent than about 1 in 40,000
# words get a cap below the largest idf of a 50-passage pool.
TEXT_TOKENS = 400
# English words rarer than this are left out of the table: their cap would be above any pool's idf.
MIN_FREQUENCY = 1e-6


def capped(token: str, rare: float) -> float:
    """`rare` (the token's idf among the texts being read) at most the token's idf in ordinary text: the
    weight the answerability check and quoting give a question's word."""
    return min(rare, idf(token))


def known(token: str) -> bool:
    """Whether `token` is a word of the language at large: a table holds it (most names, initials such as "gpl" and
    words run together with their version are not)."""
    return idf(token) != math.inf


def idf(token: str) -> float:
    """The idf of `token` in ordinary text (`math.inf` for a token neither table knows): log(1 + 1/p), p the
    chance that a text of TEXT_TOKENS words holds it, the same form as BM25's idf."""
    frequency = _chinese(token) if has_cjk(token) else _english().get(token, 0.0)
    if not frequency:
        return math.inf
    chance = 1.0 - (1.0 - min(frequency, 0.5)) ** TEXT_TOKENS
    return math.log(1.0 + 1.0 / chance)


@functools.cache
def _english() -> dict[str, float]:
    """Word frequencies by search token (stem), from wordfreq's English list (about 0.5 s, once per process,
    on the first question the check reads). Stop words are left out as the tokenizer leaves them out ("does"
    is no occurrence of the stem "doe"); wordfreq's own caches of the whole list are emptied afterwards."""
    import wordfreq

    from .textproc import STOPWORDS, stem

    table: dict[str, float] = {}
    for word, frequency in wordfreq.get_frequency_dict("en").items():
        if frequency < MIN_FREQUENCY:
            break  # the list is in descending frequency
        if word.isalpha() and word not in STOPWORDS:
            token = stem.__wrapped__(word)  # not through stem's cache: these words are looked up once
            table[token] = table.get(token, 0.0) + frequency
    wordfreq.get_frequency_dict.cache_clear()
    wordfreq.get_frequency_list.cache_clear()
    return table


def _chinese(token: str) -> float:
    """The frequency of a Chinese word in jieba's dictionary (0.0 for a word it does not hold)."""
    import jieba

    jieba.dt.check_initialized()
    count = jieba.dt.FREQ.get(token, 0)
    return count / jieba.dt.total if count else 0.0


__all__ = ["MIN_FREQUENCY", "TEXT_TOKENS", "capped", "idf"]
