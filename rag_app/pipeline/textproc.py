"""CJK-aware text processing: normalisation, tokenizing for search, sentence splitting.

Pure Python (jieba and zhconv are plain libraries, no Django). Traditional characters are
folded to simplified for *matching only*; stored and displayed text is never converted.
"""

from __future__ import annotations

import functools
import logging
import re
import sys
import threading
import unicodedata
from collections.abc import Collection, Iterator

import jieba
import sentencex
import Stemmer
import zhconv
from breame.data.spelling_constants import BRITISH_ENGLISH_SPELLINGS

jieba.setLogLevel(logging.WARNING)

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
_CJK_RE = re.compile(f"[{_CJK}]")
# A "word run": letters/digits that must never be split by the chunker or tokenizer.
_WORD_RUN_RE = re.compile(r"[0-9A-Za-z\u00c0-\u024f]+(?:[.'’\-][0-9A-Za-z\u00c0-\u024f]+)*")
_TOKEN_OK_RE = re.compile(f"^(?:[{_CJK}]+|[0-9a-z\u00c0-\u024f]+(?:[.'\\-][0-9a-z\u00c0-\u024f]+)*)$")

# Sentence ends: Chinese and Western terminal punctuation, with closing quotes/brackets kept attached.
# ASCII !?; end a sentence only before a space, the end or a CJK character ("zh-hk:工匠;zh-tw" does not).
_SENTENCE_END_RE = re.compile(f"(?:[。！？；]+|[!?;]+(?=\\s|$|[{_CJK}])|\\.(?=\\s|$)|…{{1,2}})[”’」』）)\\]】\"']*")
# A clause's number or letter: "6.", "4.2.", "(a)", "b)". It opens the sentence after it (sentence_spans).
_CLAUSE_NUMBER = r"\(?(?:\d{1,3}(?:\.\d{1,3})*|[A-Za-z])[.)]"
_CLAUSE_NUMBER_ONLY_RE = re.compile(f"{_CLAUSE_NUMBER}$")
# Clause marks for cutting an over-long sentence. ASCII "," and ":" count only before a space, so
# "1,000" and "10:30" are never cut.
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufeff]")
_CLAUSE_END_RE = re.compile(r"[，、：﹐﹕]|[,:](?=\s)")

STOPWORDS: frozenset[str] = frozenset(
    """
    的 了 是 在 和 与 及 或 也 都 而 就 被 把 对 从 向 以 为 于 之 其 这 那 这个
    那个 这些 那些 一个 有 没有 什么 哪 哪个 哪些 哪里 哪儿 谁 何 何时 多少 几 怎么
    怎样 如何 为什么 吗 呢 吧 啊 么 请问 请 是否 是不是 什么样 多久 多长 哪一 哪一年
    哪年 何地 何种 上 中 下 个 等 被称为 称为 位于 之一 由 将 已 曾 a an the
    of in on at to for from by with and or not no is
    are was were be been being do does did what which
    who whom whose when where why how that this these
    those it its as into than then there about can
    could would should will shall may might must i you
    he she we they me him her us them my your please
    tell much many
    say says said tells mention mentions mentioned describe describes regarding concerning according
    any anything also
    规定 关于 有关 内容 提到 介绍 说 讲
    """.split()
)
# The last lines are question-template words ("what does X say about", "有什么规定", "关于…的内容"):
# in a question they carry no topic, and dropping them from the index too keeps both sides comparable.


def normalize(text: str) -> str:
    """Canonical stored form: NFC, unix newlines, no trailing spaces, at most one blank line."""
    text = unicodedata.normalize("NFC", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    # NULs, stray BOMs and C0 controls other than tab/newline (PDF extraction leaves some) are noise.
    text = _CONTROL_RE.sub("", text)
    text = re.sub(r"[ \t\u00a0\u3000]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


# MediaWiki LanguageConverter markup, as Chinese Wikipedia text carries it: "-{…}-" blocks that pick
# a wording per script variant. zhconv (already a dependency) has convert_for_mw, but it converts
# the whole text to the target variant (stored text is never converted here), its no-conversion
# mode keeps the first variant rather than the simplified one, it splits a value at every ":"
# ("-{10:30}-" gives "30"), and it reads the rest of the text after an unclosed "-{" as a rule.
_WIKI_DELIM_RE = re.compile(r"-\{|\}-")
_WIKI_PREFERRED = ("zh-hans", "zh-cn", "zh-sg", "zh-my", "zh")  # simplified first, then "zh" (unconverted)
_WIKI_CODE = "zh(?:-(?:hans|hant|cn|tw|hk|sg|mo|my))?"
# One rule of a mapping: "zh-hans:计算机" or, one-way, "巨集=>zh-cn:宏"; rules are separated by a ";"
# that is followed by another rule (a value may contain ";" or "；"), as MediaWiki splits them.
_WIKI_RULE_RE = re.compile(rf"(?:^|;)\s*(?:(?P<uni>[^;|]*?)\s*=>\s*)?(?P<code>{_WIKI_CODE})\s*:", re.IGNORECASE)
_WIKI_FLAG_RE = re.compile(rf"[ATRDHN-]|(?i:{_WIKI_CODE})")  # flags are upper case; variant codes are not
_WIKI_MAX_DEPTH = 20


def clean_wiki_variants(text: str) -> str:
    """Resolve MediaWiki LanguageConverter markup ("-{…}-") to the text a reader of zh-hans sees.

    - "-{zh-hans:计算机; zh-hant:電腦;}-" and "-{zh:…;zh-hans:…;zh-tw:…}-" give the zh-hans (else zh-cn,
      zh-sg, zh-my, zh) wording, else the first one; "-{A|…}-" the same (it also adds a page-wide rule).
    - "-{H|…}-", "-{-|…}-", "-{T|…}-", "-{D|…}-" and "-{N|…}-" (rules, title, description, variant
      name) give nothing; "-{R|text}-", "-{zh;zh-hant|text}-" and plain "-{text}-" give the text.
    - Blocks nest ("-{zh-hans:台湾作-{公釐}-;zh-hant:…}-"); an unclosed "-{" and a stray "}-" stay as
      they are, so malformed markup never swallows the text after it.

    Only the delimiters and the unchosen wordings are removed: the result is made of slices of the
    input and is never longer. Text without "-{" is returned as it is.
    """
    if "-{" not in text:
        return text
    return _wiki_resolve(text, 0)


def _wiki_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) of the outermost balanced "-{ … }-" blocks; unmatched delimiters are text."""
    closed: list[tuple[int, int]] = []
    opened: list[int] = []
    for m in _WIKI_DELIM_RE.finditer(text):
        if m.group() == "-{":
            opened.append(m.start())
        elif opened:
            closed.append((opened.pop(), m.end()))
    outer: list[tuple[int, int]] = []
    for start, end in sorted(closed):
        if not outer or start >= outer[-1][1]:  # pairs from a stack nest: skip those inside another
            outer.append((start, end))
    return outer


def _wiki_resolve(text: str, depth: int) -> str:
    out: list[str] = []
    pos = 0
    for start, end in _wiki_blocks(text):
        out.append(text[pos:start])
        inner = text[start + 2 : end - 2]
        out.append(inner if depth >= _WIKI_MAX_DEPTH else _wiki_block(inner, depth + 1))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _wiki_block(inner: str, depth: int) -> str:
    """The text one block shows; `inner` is what lies between its "-{" and "}-"."""
    # Separators inside nested blocks do not count: search a copy with those blocks blanked out.
    masked = list(inner)
    for start, end in _wiki_blocks(inner):
        masked[start:end] = "\x00" * (end - start)
    mask = "".join(masked)
    bar = mask.find("|")
    if bar >= 0:
        flags = [f.strip() for f in mask[:bar].split(";") if f.strip()]
        if all(_WIKI_FLAG_RE.fullmatch(f) for f in flags):
            body, body_mask = inner[bar + 1 :], mask[bar + 1 :]
            if "R" in flags:
                return _wiki_resolve(body, depth)
            if "A" not in flags and any(f in {"H", "-", "T", "D", "N"} for f in flags):
                return ""
            return _wiki_choose(body, body_mask, depth)
    return _wiki_choose(inner, mask, depth)


def _wiki_choose(body: str, mask: str, depth: int) -> str:
    """The preferred wording of a variant mapping, or the body itself when it is not one."""
    rules = list(_WIKI_RULE_RE.finditer(mask))
    if not rules or mask[: rules[0].start()].strip(" \t\n;"):
        return _wiki_resolve(body, depth)
    wordings: list[tuple[str, str, str | None]] = []  # (variant, value, one-way source)
    for i, rule in enumerate(rules):
        end = rules[i + 1].start() if i + 1 < len(rules) else len(body)
        value = body[rule.end() : end].strip()
        uni = rule.group("uni")
        source = body[rule.start("uni") : rule.end("uni")].strip() if uni is not None else None
        wordings.append((rule.group("code").lower(), value.removesuffix(";").strip(), source))
    for variant in _WIKI_PREFERRED:
        for code, value, _ in wordings:
            if code == variant:
                return _wiki_resolve(value, depth)
    code, value, source = wordings[0]
    return _wiki_resolve(source if source is not None else value, depth)


def _format_characters() -> str:
    """A character class of Unicode's format characters (category Cf): zero-width space, non-joiner and joiner,
    word joiner, soft hyphen, byte-order mark, bidi marks. Every one lies below U+20000 or in the tags block."""
    points = (cp for block in (range(0x20000), range(0xE0000, 0xE1000)) for cp in block)
    return "".join(re.escape(chr(cp)) for cp in points if unicodedata.category(chr(cp)) == "Cf")


_FORMAT_RE = re.compile(f"[{_format_characters()}]+")


def drop_format(text: str) -> str:
    """`text` without format characters. They show nothing, and text pasted from a web page or a word processor
    carries them inside words ("G\u200bPL", "pub\u00adlished"), where they would split one word into two
    search terms; `validation.is_blank` calls a text of them alone empty."""
    return _FORMAT_RE.sub("", text)


@functools.lru_cache(maxsize=65536)
def fold(text: str) -> str:
    """Matching form: without format characters (`drop_format`), NFKC (fullwidth -> ASCII), lower case,
    traditional -> simplified in mainland wording (`to_mainland`: 軟體 -> 软件, 伊莉莎白 -> 伊丽莎白, 公尺 -> 米),
    so that a question written in Taiwan or Hong Kong, or pasted from a rich page, finds a mainland document's
    words and the other way round."""
    text = unicodedata.normalize("NFKC", drop_format(text)).lower()
    if _CJK_RE.search(text):
        text = to_mainland(text)
    return text


def cue_form(question: str) -> str:
    """The question as its cue words are read ("什么时候", "哪一年", "when was", "version 3", "颜色"): as `fold`
    reads it but with its letters' case kept (English names and their capitals still read as written), so a
    question typed in Traditional characters or in full-width letters ("什麼時候發佈的", "ＷＨＥＮ ＷＡＳ") asks
    for what its plain form asks for. Every check of a question's wording reads this form; the question shown,
    stored and sent to a model stays as typed."""
    text = with_apostrophes(unicodedata.normalize("NFKC", drop_format(question)))
    return to_mainland(text) if _CJK_RE.search(text) else text


# English short forms as chat writes them, without the apostrophe: "whats", "hows", "dont", "doesnt", "cant", "isnt",
# "ive", "youre". Only forms that are no other word: "its", "were", "well", "ill", "id", "shell", "shed" and "hell" are
# words of their own, and "im" is also IM (instant messaging). "cant" and "wont" are words too, too rare in a
# question to be read so.
_UNMARKED_SHORT_RE = re.compile(
    r"\b(?:(what|how|where|who|when|why|that|there|here)(s)"
    r"|(do|does|did|is|are|was|were|has|have|had|ca|wo|could|should|would|must|need|might)(nt)"
    r"|(i)(ve)|(you|they)(re|ve|ll|d)|(we)(ve)|(it|that)(ll))\b",
    re.IGNORECASE,
)


def with_apostrophes(text: str) -> str:
    """`text` with its English short forms written without the apostrophe given one ("whats" -> "what's", "dont" ->
    "don't", "ive" -> "i've"), and its spoken Chinese words that ask written as they are written down ("啥时候" ->
    "什么时候", "咋办" -> "怎么办": `_SPOKEN_ASKING`): the form every check of a question's wording reads (cue_form,
    asked_text, swaps_subject). Letters and case stay."""

    def marked(m: re.Match[str]) -> str:
        head, tail = (g for g in m.groups() if g is not None)
        return f"{head}n't" if tail.lower() == "nt" else f"{head}'{tail}"

    text = _UNMARKED_SHORT_RE.sub(marked, text)
    return _SPOKEN_ASKING_RE.sub(lambda m: _SPOKEN_ASKING[m.group()], text) if _SPOKEN_HINT_RE.search(text) else text


# The words that ask as chat writes them: 啥 ("what") and 咋 ("how"), which the words that ask (ASKING_RE) and the cues
# of what is asked ("什么时候": a time) read in their written forms; "病假工资咋算的" asks what "怎么算的" asks.
# Not 咋舌 or 咋呼, words of their own.
_SPOKEN_ASKING = {"啥": "什么", "咋": "怎么"}
_SPOKEN_HINT_RE = re.compile(r"[啥咋]")
_SPOKEN_ASKING_RE = re.compile(r"啥|咋(?![舌呼])")


def for_embedding(text: str) -> str:
    """The text an embedder reads: Chinese characters and words as `to_mainland` writes them, punctuation and
    everything else as written (case kept: the model's vocabulary is cased), less format characters
    (`drop_format`: a zero-width space pasted into a question is no token of it). The bundled e5 model put a
    traditional question far from the simplified passage that answers it (CMRC 2018 trial, questions only
    in traditional: docs/EVALUATION.md, session 27); questions and passages are embedded in one form. Corner
    brackets stay as written: 「」 -> “” was most of what the conversion changed in simplified passages, and moved
    their vectors for no gain (docs/EVALUATION.md, session 27)."""
    text = drop_format(text)
    return _convert(text, "zh-cn", punctuation=False) if _CJK_RE.search(text) else text


@functools.cache
def _conversion_table(
    locale: str, *, punctuation: bool = True
) -> tuple[dict[str, str], Collection[str], dict[int, str], re.Pattern[str]] | None:
    """zhconv's table for `locale` ("zh-hans", "zh-cn"), read for `_convert`: (every mapping, every prefix of a
    key, the one-character mappings as a str.translate table, the characters a longer key starts with), or None
    when this zhconv keeps its table elsewhere (then zhconv.convert itself is called). Without `punctuation`,
    the one-character mappings of punctuation (「 -> “) are left out."""
    try:
        from zhconv import zhconv as impl

        table = impl.getdict(locale)
        prefixes = impl.pfsdict[locale]
    except (ImportError, AttributeError, KeyError, TypeError):
        return None
    if not punctuation:
        table = {k: v for k, v in table.items() if len(k) > 1 or not unicodedata.category(k).startswith("P")}
    singles = {ord(key): value for key, value in table.items() if len(key) == 1}
    starts = "".join(sorted({key[0] for key in table if len(key) > 1}))
    return table, prefixes, singles, re.compile(f"[{re.escape(starts)}]" if starts else "(?!)")


def to_simplified(text: str) -> str:
    """zhconv.convert(text, "zh-hans"): traditional characters as simplified ones, the words left as they are
    (the evaluation's answer matching, docs/EVALUATION.md "Metrics"; counting how common a character is)."""
    return _convert(text, "zh-hans")


def to_mainland(text: str) -> str:
    """zhconv.convert(text, "zh-cn"): simplified characters and mainland wording, from MediaWiki's conversion
    tables that zhconv ships (數位相機 -> 数码相机, 紐西蘭 -> 新西兰, 行人路 -> 人行道, 部份 -> 部分). Text
    already in mainland wording comes out as it went in."""
    return _convert(text, "zh-cn")


def _convert(text: str, locale: str, *, punctuation: bool = True) -> str:
    """zhconv.convert(text, locale), about twice as fast: the same longest-match walk over zhconv's own
    table, taken only where a character starts a key of two or more characters; every other stretch is
    converted character by character with str.translate. The ask folds each candidate's text once (about
    50 texts a question at 100k chunks: 3.9 ms with zhconv's loop; docs/PERFORMANCE.md, session 22).
    tests/pipeline/test_textproc.py checks it against zhconv on real and generated text."""
    read = _conversion_table(locale, punctuation=punctuation)
    if read is None:
        converted = str(zhconv.convert(text, locale))
        if punctuation or len(converted) != len(text):
            return converted
        pairs = zip(text, converted, strict=True)
        return "".join(old if unicodedata.category(old).startswith("P") else new for old, new in pairs)
    table, prefixes, singles, starts = read
    out: list[str] = []
    pos, end = 0, len(text)
    while pos < end:
        found = starts.search(text, pos)
        if found is None:
            out.append(text[pos:].translate(singles))
            break
        at = found.start()
        if at > pos:
            out.append(text[pos:at].translate(singles))
        # zhconv's walk from `at`: the longest key that the text continues with, else the character.
        best, last = None, at
        stop, piece = at, text[at]
        while stop < end and piece in prefixes:
            if piece in table:
                best, last = table[piece], stop
            stop += 1
            piece = text[at : stop + 1]
        if best is None:
            out.append(text[at])
            pos = at + 1
        else:
            out.append(best)
            pos = last + 1
    return "".join(out)


def has_cjk(text: str) -> bool:
    return _CJK_RE.search(text) is not None


def detect_language(text: str) -> str:
    """'zh' when CJK characters make up a noticeable share of the letters, else 'en'."""
    cjk = len(_CJK_RE.findall(text))
    latin = sum(len(m) for m in re.findall(r"[A-Za-z]+", text))
    return "zh" if cjk and cjk * 3 >= latin else "en"


def is_traditional(text: str) -> bool:
    """Whether `text` is written in traditional characters: more of its characters have a simplified form
    (zhconv's zh-hans table, character by character: 報, 銷, 費) than have a traditional one (报, 这, 们). A text of
    characters common to both scripts (三十日, 住宿) is not; nor is a simplified text that writes 著 or 乾."""
    chars = _CJK_RE.findall(text)
    return sum(map(_has_simplified_form, chars)) > sum(map(_has_traditional_form, chars))


@functools.cache
def _has_simplified_form(ch: str) -> bool:
    return _convert(ch, "zh-hans") != ch


@functools.cache
def _has_traditional_form(ch: str) -> bool:
    return _convert(ch, "zh-hant") != ch


_stemmers = threading.local()


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """English Snowball (Porter 2) stem of a plain word (licensed/licenses -> licens) from PyStemmer, a
    maintained C implementation; other tokens (CJK, numbers, versions like gpl-2.0) are unchanged. A
    British spelling is read as the American one first (breame's list: licence, colour, labelled, metres),
    so a question asked in one spelling finds a document written in the other.
    PyStemmer's stemmers are not thread-safe: one per thread."""
    if not (word.isascii() and word.isalpha()):
        return word
    stemmer = getattr(_stemmers, "english", None)
    if stemmer is None:
        stemmer = _stemmers.english = Stemmer.Stemmer("english")
    return str(stemmer.stemWord(BRITISH_ENGLISH_SPELLINGS.get(word, word)))


def tokenize(text: str, *, keep_stopwords: bool = False) -> list[str]:
    """Search tokens: jieba search mode for Chinese, whole words for Latin scripts and digits."""
    return list(_tokens(text, keep_stopwords))


def written_as(text: str, tokens: Collection[str] | None = None) -> dict[str, str]:
    """The words of `text` as written, by the token each gives (tokenize, stop words kept): "warranti" ->
    "Warranty", "授权" -> "授權" (a Chinese token is in the simplified script; the text may be in the traditional
    one, `_chinese_written`). The first word that gives a token is kept; with `tokens`, only those are looked for
    and the reading stops when all are found."""
    out: dict[str, str] = {}
    wanted = None if tokens is None else set(tokens)
    chinese = [t for t in (tokenize(text, keep_stopwords=True) if wanted is None else wanted) if has_cjk(t)]
    out |= _chinese_written(text, chinese)
    if wanted is not None:
        wanted.difference_update(chinese)
        if not wanted:
            return out
    for m in _WORD_RUN_RE.finditer(text):
        word = m.group()
        # A plain word is its lower-case stem, as tokenize would give it (jieba keeps a Latin word whole);
        # read so without jieba, as the trace reads every candidate's words this way.
        for tok in (stem(word.lower()),) if word.isascii() and word.isalpha() else tokenize(word, keep_stopwords=True):
            if tok in out or (wanted is not None and tok not in wanted):
                continue
            out[tok] = word
            if wanted is not None:
                wanted.discard(tok)
                if not wanted:
                    return out
    return out


def _chinese_written(text: str, tokens: Collection[str]) -> dict[str, str]:
    """Each Chinese token as `text` writes it: the stretch of a run of Chinese characters whose fold is the
    token. A run zhconv rewrites at another length (長度多少公尺 -> 长度多少米) is read character by character; a
    token the text does not spell so stands for itself."""
    out = {t: t for t in tokens}
    runs = []
    for run in _CJK_RUN_RE.findall(text):
        folded = fold(run)
        runs.append((run, folded if len(folded) == len(run) else "".join(fold(ch)[:1] or " " for ch in run)))
    for t in tokens:
        for run, folded in runs:
            at = folded.find(t)
            if at >= 0:
                out[t] = run[at : at + len(t)]
                break
    return out


_CJK_RUN_RE = re.compile(f"[{_CJK}]+")


# One ask tokenizes the same sentences and snippets several times (sentence scoring, the anchor
# term, conflict detection, the support check), and popular chunks come back across asks; jieba
# is the largest cost of extractive generation. Tokens are interned, so an entry is a tuple of
# pointers into one shared vocabulary (a few KB for a 600-character chunk).
@functools.lru_cache(maxsize=4096)
def _tokens(text: str, keep_stopwords: bool) -> tuple[str, ...]:
    # A text of several sentences is the concatenation of its sentences' tokens when each cut
    # falls where jieba cuts anyway (see _sentence_pieces), so an ask tokenizes each sentence of
    # a snippet once and reads the whole snippet's tokens from those.
    pieces = _sentence_pieces(text)
    if pieces is not None:
        return tuple(tok for s, e in pieces for tok in _tokens(text[s:e], keep_stopwords))
    return _jieba_tokens(text, keep_stopwords)


# jieba segments each run of these characters on its own, and yields any other character alone.
_JIEBA_RUN = jieba.re_han_default


def _sentence_pieces(text: str) -> list[tuple[int, int]] | None:
    """The sentences of `text` (per line, as sentence_spans finds them) when tokenizing them one by
    one gives exactly the tokens of the whole text, else None (one sentence, or a cut jieba would not make).

    Exact because it is checked: folding the pieces and the whitespace between them must give
    fold(text) (NFKC, case and traditional-to-simplified conversions do not reach across a cut), and
    no cut may fall inside a run of characters jieba segments as one block (the folded characters on
    both sides of every cut are never both run characters). Then jieba's blocks, and so its words,
    are the same either way; what lies between pieces must fold to whitespace, which yields no tokens.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.split("\n"):
        spans.extend(sentence_spans(text, pos, pos + len(line)))
        pos += len(line) + 1
    if len(spans) < 2:
        return None
    parts: list[str] = []
    prev = 0
    for s, e in spans:
        parts.append(fold(text[prev:s]))
        parts.append(fold(text[s:e]))
        prev = e
    parts.append(fold(text[prev:]))
    if "".join(parts) != fold(text) or any(gap.strip() for gap in parts[::2]):
        return None
    left = ""
    for part in parts:
        if not part:
            continue
        if left and _JIEBA_RUN.match(left[-1]) and _JIEBA_RUN.match(part[0]):
            return None
        left = part
    return spans


def _jieba_tokens(text: str, keep_stopwords: bool) -> tuple[str, ...]:
    folded = fold(text)
    out: list[str] = []
    for tok in jieba.cut_for_search(folded):
        tok = tok.strip()
        if not tok or not _TOKEN_OK_RE.match(tok):
            continue
        # Stop words are checked on the word as written: "does" must not survive as the stem "doe".
        if not keep_stopwords and tok in STOPWORDS:
            continue
        if not has_cjk(tok):
            tok = stem(tok)
        out.append(sys.intern(tok))
    return tuple(out)


def passage_tokens(text: str) -> list[str]:
    """The tokens a passage offers a question: its words, then the initialisms of the names it spells.

    Staff ask with the short form ("GPL", "FSF", "MPL") of a name a document writes out ("GNU General
    Public License", "Free Software Foundation"); a question's own acronym is a plain token ("gpl"), so
    indexing the initialism beside the words lets it match. Used for every passage-side token set (the
    index, the answerability check, sentence scoring), never for the question."""
    return [*tokenize(text), *initialisms(text)]


@functools.lru_cache(maxsize=16384)
def locator_tokens(title: str | None, section: str | None) -> frozenset[str]:
    """The passage tokens of a chunk's title and section path: what the locator says the chunk is about,
    read with each of its sentences (the answerability check, the quote's sentence choice). Cached on its
    own: every chunk of a document shares them, and `_tokens`' cache turns over with the sentences of the
    passages an ask reads (at 100k chunks, reading titles again was half the answerability screen's time).
    A section path's words are read step by step ("瓦勒普斯岛 > 第1节"): its first steps are the title or a
    parent heading, read once for every chunk under them, and " > " ends a run of characters for jieba, so
    they are the words of the whole path; its initialisms are read from the whole path, as always."""
    steps = section.split(SECTION_SEPARATOR) if section else []
    words = (tok for step in steps if step for tok in tokenize(step))
    return frozenset((*(passage_tokens(title) if title else ()), *words, *(initialisms(section) if section else ())))


# Between the headings of a section path (ingest/parsers: "Terms and Conditions > 2. Grant").
SECTION_SEPARATOR = " > "


# A word of a name: Title-case or all capitals (ASCII letters; "I", "A" and "iPhone" break a run). A connector
# may sit inside a name ("Department of Defense", "Food and Drug Administration"); its letter is left out
# (FDA) or kept (DoD), both are indexed, except the "a" of "and" (written "And" too), which no initialism keeps:
# "Confidential and Restricted" gave "car", and "is there a company car scheme?" was answered by a clause on printing
# documents. The few real acronyms that keep it (SCADA, SWAT) are lost; "Health and Safety Executive" no longer
# gives "has".
_NAME_WORD_RE = re.compile(r"[A-Za-z]+")
_CONNECTORS = frozenset({"of", "and", "for", "de", "du", "des", "von", "van", "der"})
MAX_NAME_WORDS = 5  # a longer run of capitals is a Title-Case heading, not a name


@functools.lru_cache(maxsize=16384)
def initialisms(text: str) -> tuple[str, ...]:
    """Initialisms of the capitalised names in `text`, folded and stemmed like tokens, once per name
    occurrence: "GNU General Public License" -> ggp, ggpl, gpl (every stretch of 2 to 5 name words giving 3
    or more letters; 2 letters only for a whole 2-word name: "European Union" -> eu). A stretch starts at
    the name's first word or after leading words that are short capitals or an article ("GNU", "The"):
    "GNU Library General Public License" gives lgpl, never gpl, which names another licence."""
    out: list[str] = []
    run: list[tuple[str, bool, bool]] = []  # (initial, is a connector, may be left off the front) per word

    def flush() -> None:
        while run and run[-1][1]:
            run.pop()
        names = [k for k, (_, connector, _) in enumerate(run) if not connector]
        if 2 <= len(names) <= MAX_NAME_WORDS:
            seen: set[str] = set()
            for a in range(len(names)):
                if a and not run[names[a - 1]][2]:
                    break  # a stretch may leave off only leading "GNU" / "The" words
                for b in range(a + 1, len(names)):
                    stretch = run[names[a] : names[b] + 1]
                    whole = a == 0 and b == len(names) - 1
                    for letters in (
                        "".join(c for c, connector, _ in stretch if not connector),
                        "".join(c for c, connector, _ in stretch if not connector or c != "a"),
                    ):
                        if (len(letters) < 3 and not (whole and len(names) == 2)) or letters in seen:
                            continue
                        seen.add(letters)
                        if letters not in STOPWORDS:
                            out.append(sys.intern(stem(letters)))
        run.clear()

    last_end = -1
    numbered = False  # the current run follows a clause number ("3. Grant of Patent License.")

    def end_run(*, ends_clause_title: bool) -> None:
        if numbered and ends_clause_title:
            run.clear()  # the title of a numbered clause, not a name
        flush()

    for m in _NAME_WORD_RE.finditer(text):
        word = m.group()
        gap = text[last_end : m.start()].strip() if last_end >= 0 else ""
        if gap and gap not in {"-", "&"}:
            end_run(ends_clause_title=gap[0] in ".:")
        last_end = m.end()
        lower = word.lower()
        if lower in _CONNECTORS and (word.islower() or word.isupper() or lower == "and"):
            if run:
                run.append((lower[0], True, False))
        elif len(word) > 1 and word[0].isupper() and (word[1:].islower() or word.isupper()):
            if not run:
                numbered = _CLAUSE_NUMBER_RE.search(text, max(0, m.start() - 24), m.start()) is not None
            run.append((lower[0], False, lower == "the" or (word.isupper() and len(word) <= 3)))
        else:
            end_run(ends_clause_title=False)
    end_run(ends_clause_title=not text[last_end:].strip() or text[last_end:].lstrip(" \t")[:1] in "\n.:")
    return tuple(out)


_TITLE_WORD = r"(?:[A-Z][\w'’-]*|of|and|the|to|for|in|on|or|a|an|by|with)"
_TITLE_RE = re.compile(
    rf"^(?:{_CLAUSE_NUMBER}\s+[A-Z][\w'’-]*(?:\s+{_TITLE_WORD}){{0,7}}"
    rf"|[A-Z][\w'’-]*(?:\s+{_TITLE_WORD}){{1,7}})\s*[.:]?$"
)


def is_title(sentence: str) -> bool:
    """A sentence that is only a clause's title ("2. Grant of Copyright License.", "11. Patents.", "Disclaimer
    of Warranty."): capitalised words and connectors, one to eight after a clause number, two to eight
    without; or a clause's number alone ("6.", where nothing follows it on its line). It names a topic, or
    less, and answers nothing."""
    stripped = sentence.strip()
    return _TITLE_RE.match(stripped) is not None or _CLAUSE_NUMBER_ONLY_RE.match(stripped) is not None


# A clause number at the start of a line or sentence, right before a Title-Case run: "3. Grant of Patent
# License." is a clause's title, not a name, so it gives no initialism (it gave "gpl", and an Apache clause
# answered "GPL 第三版对专利有什么规定？"). A heading of a section path starts after " > " (SECTION_SEPARATOR)
# as a line does: "Apache License, Version 2.0 > 3. Grant of Patent License" gave "gpl" until session 17.
_CLAUSE_NUMBER_RE = re.compile(rf"(?:^|[\n.;:>]\s)\s*{_CLAUSE_NUMBER}\s+$")


_VERSIONED_RE = re.compile(r"([a-z]*)(\d+(?:\.\d+)*)")


def version_splits(term: str) -> list[tuple[str, ...]]:
    """Readings of a name run together with its version number, the longer name first: "gplv3" ->
    [("gplv", "3"), ("gpl", "3")], "lgpl-2.1" -> [("lgpl", "2.1")], "v2" -> [("2",)]; [] for a plain
    number or anything else. The search takes the first reading whose parts are all indexed."""
    m = _VERSIONED_RE.fullmatch(term.replace("-", ""))
    if m is None or not m.group(1):
        return []
    name, number = m.groups()
    names = [name] + ([name[:-1]] if name.endswith("v") else [])
    out: list[tuple[str, ...]] = []
    for n in names:
        if len(n) >= 2:
            out.append((n, number))
        elif not n:
            out.append((number,))
    return out


@functools.lru_cache(maxsize=4096)
def glued_pieces(term: str) -> tuple[str, ...]:
    """The dictionary words of a Chinese term jieba's dictionary lacks, which its HMM made by running single
    characters together ("分算" of "7分算正常吗" -> 分, 算; "水会" -> 水, 会), without stop words; () for a
    dictionary word, a Latin term, a single character, or a name jieba's tagger reads as one ("张伟峰", "米泽站": a
    person's, a place's, an organisation's or another proper name is a word of its own, however jieba cut it).
    The search reads a term no chunk holds by them (lexical.read_unheld)."""
    if len(term) < 2 or not has_cjk(term) or jieba.dt.FREQ.get(term):
        return ()
    from jieba import posseg  # its tagger loads on first use

    if any(pair.flag[:2] in _NAME_TAGS for pair in posseg.lcut(term) if pair.word == term):
        return ()
    pieces = [p for p in jieba.lcut(term, HMM=False) if p not in STOPWORDS]
    return tuple(pieces) if pieces != [term] else ()


# jieba's tags of proper names: a person's (nr, nrt, nrfg), a place's (ns), an organisation's (nt), another's (nz).
_NAME_TAGS = frozenset({"nr", "ns", "nt", "nz"})


# What "how far" asks when it asks how long before, not a distance: "how far ahead / in advance / back" (read here as
# words that ask, and by answerability as a question for a span of time).
AHEAD = r"\s+(?:ahead|in\s+advance|beforehand|back|before)\b"


# The words that ask, not what is asked about: "什么时候", "哪一年", "哪三关", "多大", "几个", "叫什么名字",
# "还有别的名字", "简述", "文中提到"; English "how long / how big / how far", "what year", and the "'s" of "what's" and
# "Women's". jieba cuts the Chinese ones into pieces ("时候", "一年", "三关", "大") that a passage
# answering the question rarely holds, so as query terms they only lowered the relevance of the right
# passage. A match counts only where jieba's own cut of the question starts and ends a word there:
# "多高" asks in "这座桥有多高" but not in "许多高楼" (许多 + 高楼); 几何, 几乎, 几率 and 几内亚 are words, not
# "几" + a measure word; "怎么" takes only "样 / 办" with it: "怎么死" is about 死.
ASKING_RE = re.compile(
    r"什么(?:时候|时间|样子?|地方|人|名字|名称)?|哪(?!吒)(?:一|几|[一二三四五六七八九十两])?[\u4e00-\u9fff]?"
    r"|多少钱?|多(?:长时间|[大长高远深宽久])|几(?![何乎内率丁])[\u4e00-\u9fff]?|何[时年地种人]|为什么|为何"
    r"|怎么(?:样|办)?|怎样|如何|是否|是不是"
    # "is there": "有没有" and "有无" ask as 是否有 does (有 is a stop word); read as a word, 有没有 was
    # translated "have", and "公司有没有无息购房贷款" (an interest-free home loan) was answered by "London does not
    # have a meal allowance"
    r"|有没有|有无"
    # how often, as "how often" is in English: the "一次" that ends "多久要换一次？", "体检几年做一次？" (read as
    # "once, first time", it was answered by GPL 3's "the first time you have received notice"); only after the
    # words that ask for a span (asking_spans: "报销只能报一次？" asks about once)
    r"|一次(?=[?？!！。.\s]*$)"
    # a request's frame: "帮我查一下…", "麻烦问下…", "介绍一下…" (一下, "a bit", softens a verb; read as a word it was
    # translated "give, go, one, time", and "帮我查一下年假有几天" was read through it)
    r"|帮(?:我|忙)|麻烦(?:你|您)?|一下"
    # naming a thing ("又被称作什么", "本来叫什么名字"), and instructions ("简述", "文中提到")
    r"|(?:被|又)?(?:称作|称为|叫做|叫作|名为|叫)(?=什么)|简述|简要|概述|请问|(?:文中|本文|文章|上文)(?:提到|提起|所说|中)?"
    r"|(?:还有)?(?:别的|其他|其它)(?:名字|名称|叫法|称呼)"
    # "how far ahead / in advance / back" asks how long before (AHEAD): "ahead" is no word of what the answering
    # passage writes ("may be booked up to 90 days in advance")
    rf"|\bhow\s+far{AHEAD}"
    # "how quickly / promptly / frequently" ask as "how soon" and "how often" do: the passage that answers writes
    # "within 1 business day", "every 90 days" ("quick" as a term, with no rendering in a Chinese corpus, lowered the
    # relevance of "评审人须在 1 个工作日内给出首次反馈" for "how quickly must a reviewer respond to a PR?")
    r"|\bhow\s+(?:long|big|large|far|old|tall|high|wide|deep|often|soon|heavy|fast|quickly|promptly|frequently|steep"
    r"|much|many)\b"
    r"|\b(?:what|which)\s+(?:year|date|day|month)\b|(?<=[a-z0-9])['’]s\b"
    # "what happens if / to", "what kind of": the question's frame, which the answering passage does not write
    # ("What happened at Hujialou station?" asks for the event: 发生 there is what the passage says)
    r"|\bwhat\s+happens(?=\s+(?:if|to|when)\b)|\b(?:what|which)\s+(?:kinds?|sorts?|types?)\s+of\b"
    # the bound or the measure a question asks for ("What's the minimum password length?", "the maximum line length",
    # "the length of the probation"): the value answers it, written "at least 14 characters long", "79 characters"
    r"|\b(?:minimum|maximum)\b|\b(?:length|duration)\b(?=\s+of\b|\s*[?？.]*\s*$)"
    # "have to", "need to" as a question's modal ("How often do I have to change it?", "Do we need to register?"):
    # what the answering passage writes as "must" or "are required to", never "have"
    r"|\b(?:have|has|had|need|needs)\s+to\b(?=\s+[a-z])"
    # a negated auxiliary written short ("can't", "doesn't"): a function word, as "cannot" and "does not" are;
    # tokenized it left "t" and "doesn", terms no passage answers with
    r"|\b[a-z]+n['’]t\b"
    # the rest of English's short forms: "I'm", "I've", "you'll", "they're", "we'd" (tokenized, "m" and "ve" were terms)
    r"|(?<=[a-z])['’](?:m|ve|ll|re|d)\b"
    # asking for a definition: "How does MPL 1.1 define 'Commercial Use'?", "the meaning of ..."; the
    # passage that answers says "means" ("defined by law" asks about the law and stays)
    r"|\bdefines?(?=\s+[\"'“‘]?\w)|\b(?:definition|meaning)\s+of\b"
    # a Chinese modal, as English "can", "must", "should" are stop words: "采购电脑要IT审批吗",
    # "新员工的电脑入职当天能拿到吗" ask about buying a laptop and getting one, and the passage that answers writes
    # no "要" or "能"; asked both ways too ("能不能", "要不要", "可不可以"), as "是不是" is, the same modal both ways
    # only: the 不要 of "周末能不要加班吗" and the 不用 of "可以不用打卡吗" are what is asked. Only as a word of its
    # own in jieba's cut (asking_spans): 主要, 能力, 会议, 可能 and 要求 are other words
    r"|能不能|要不要|会不会|可不可以|需不需要|用不用|能够|可以|可|能|要|会|需要|应该|应当|必须|须|需"
    # the "when" of a clause, as English "when" is a stop word: "离职的时候电脑交给谁", "离职时怎么处理" ask about
    # leaving, and the passage that answers writes "离职前" or "最后工作日"; only 时 cut as a word of its own
    # (时间, 同时, 当时, 小时 are other words) and not after a number ("晚上9时": o'clock), and 时候 after 的
    # ("什么时候" asks, above)
    r"|(?<=的)时候|(?<![0-9〇零一二三四五六七八九十两])时",
    re.IGNORECASE,
)


# The words that ask for a span of time, after which a closing "一次" asks how often ("多久要换一次？").
_SPAN_ASKED_RE = re.compile(r"多久|多长时间|几个?(?:年|月|天|周|星期|小时)|每隔|隔")


def asking_spans(folded: str) -> list[tuple[int, int]]:
    """(start, end) of the words in a folded question that ask (ASKING_RE, on jieba's word boundaries)."""
    matches = [
        m.span()
        for m in ASKING_RE.finditer(folded)
        if m.group() != "一次" or _SPAN_ASKED_RE.search(folded, 0, m.start()) is not None
    ]
    if not matches:
        return []
    bounds = {0, len(folded)}
    for _, start, end in jieba.tokenize(folded):
        bounds.update((start, end))
    return [(s, e) for s, e in matches if s in bounds and e in bounds]


@functools.lru_cache(maxsize=1024)
def asked_text(question: str) -> str:
    """The folded question with the words that ask blanked out: what the question is about. Cached: one
    ask reads its question's terms in the search, the check, the quote, the support and conflict checks."""
    folded = fold(with_apostrophes(question))
    for s, e in asking_spans(folded):
        folded = f"{folded[:s]}{' ' * (e - s)}{folded[e:]}"
    return folded


def query_terms(text: str) -> list[str]:
    """Distinct content terms of a question, in first-seen order: its search tokens without the words
    that ask (ASKING_RE)."""
    seen: dict[str, None] = {}
    for tok in tokenize(asked_text(text)):
        seen.setdefault(tok, None)
    return list(seen)


# A follow-up that only swaps the subject of the question before it: an opening "and", "what about", "那", then no word
# that asks of its own (an interrogative, an opening auxiliary, 吗).
_FOLLOW_UP_OPENER_RE = re.compile(
    r"^[\W_]*(?:(?:and|or|but|so|also|then|what\s+about|how\s+about|same\s+for)\b|那么|那|还有|至于|另外)[\W_]*"
)
_WH = (
    r"\b(?:how|what|which|who|whom|whose|when|where|why)\b"
    r"|多少|几|谁|什么|哪|何时|如何|怎么|怎样|为什么|为何|多久|多长"
)
_YES_NO = (
    r"^[\W_]*(?:is|are|was|were|do|does|did|can|could|may|might|must|shall|should|will|would|has|have|had)\b"
    r"|吗|是否|能否|可否|是不是|有没有|有无"
)
_OWN_ASKING_RE = re.compile(f"{_WH}|{_YES_NO}")
_WH_RE = re.compile(_WH)
_YES_NO_RE = re.compile(_YES_NO)


def asks_yes_or_no(question: str) -> bool:
    """Whether a question is asked to be answered yes or no: it opens with an auxiliary ("Are passwords …", "Do I get
    …") or asks with 吗, 是否, 有没有 …, and asks no interrogative word besides ("有没有规定…怎么报销？" asks how)."""
    folded = fold(with_apostrophes(question))
    return _YES_NO_RE.search(folded) is not None and _WH_RE.search(folded) is None


def swaps_subject(follow_up: str) -> bool:
    """Whether a follow-up asks nothing of its own but what the question before it asked, of another subject:
    "And version 2?", "What about contractors?", "那第二版呢？" (read off an opening "and" / "what about" / "那", no
    interrogative word, no opening auxiliary, no 吗 is left). "Why?", "Who invented it?" and "Does it apply to
    contractors?" ask their own question."""
    return _OWN_ASKING_RE.search(_FOLLOW_UP_OPENER_RE.sub("", fold(with_apostrophes(follow_up)))) is None


# A number a question names: digits, or a Chinese ordinal ("第三版"); and a version written "v2" or run together with
# its name ("GPLv2", "LGPLv3"), which a follow-up swaps only for a version of its own.
_NAMED_NUMBER_RE = re.compile(r"(?<![\w.])\d+(?:\.\d+)*(?![\w.]*\d)|第[一二三四五六七八九十百两〇零\d]+")
_NAMED_VERSION_RE = re.compile(r"(?:(?<![\w.])|(?<=[a-z]))v\.?\d+(?:\.\d+)*(?![\w.]*\d)", re.IGNORECASE)
_VERSION_GIVEN_RE = re.compile(
    rf"\bversion\s*\d|{_NAMED_VERSION_RE.pattern}|第[一二三四五六七八九十\d]+版", re.IGNORECASE
)


def subject_swapped(follow_up: str, earlier: str) -> str:
    """The earlier question asked again of a swapping follow-up's subject (swaps_subject): the whole question, less
    its numbers when the follow-up names one ("And version 2?" after "When was version 3 released?" asks about 2,
    and a passage need not name 3 as well), and its versions written "v2" or "GPLv2" when the follow-up names a version
    ("And v3?", "And version 3?"); a year or a count swapped ("And in 2024?") leaves "the v2 API" as it is."""
    folded = fold(follow_up)
    if _NAMED_NUMBER_RE.search(folded) is None and _NAMED_VERSION_RE.search(folded) is None:
        return earlier
    out = _NAMED_NUMBER_RE.sub(" ", earlier)
    if _VERSION_GIVEN_RE.search(folded):
        out = _NAMED_VERSION_RE.sub(" ", out)
    return re.sub(r"\s{2,}", " ", out).strip()


def query_words(text: str) -> list[str]:
    """A question's search terms (query_terms) as the question writes them: "Software", not the stem "softwar".
    What a reader is shown as searched, and what a text searched again must hold (a follow-up's thread,
    naming.retrieval_text): a stem read again is stemmed again ("licens" -> "licen", "releas" -> "relea"),
    a word as written gives its own term back."""
    asked = written_as(text)
    words = list(dict.fromkeys(asked.get(t, t) for t in query_terms(text)))
    # A number in thousands is one word as written ("12,000", which the index reads as "12" and "000"): a follow-up
    # searched with "12 000元" offered "000元", a sum no document states. Its pieces stay where the text writes them
    # as numbers of their own too.
    folded = fold(text)
    if "," not in folded or not (thousands := THOUSANDS_NUMBER_RE.findall(folded)):
        return words
    elsewhere = set(re.findall(r"\d+", THOUSANDS_NUMBER_RE.sub(" ", folded)))
    pieces = {p for number in thousands for p in number.split(",")} - elsewhere
    out: list[str] = []
    for word in words:
        whole = next((n for n in thousands if n.split(",")[0] == word), None)
        if whole is not None:
            out.append(whole)
        if word not in pieces:
            out.append(word)
    return list(dict.fromkeys(out))


# A number written in thousands ("12,000"; not a list "1,2", nor the start of a decimal's "3,000.5"): one number, read
# as such where a question's numbers are (here, and answerability's identifiers and offered amounts).
THOUSANDS_NUMBER_RE = re.compile(r"(?<![\d.])(?<!\d,)\d{1,3}(?:,\d{3})+(?![\d,.])")
_THOUSANDS_SEPARATOR_RE = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")


# A currency as it is written after a sum ("600元", "20,000 USD", "50 dollars") and before one ("$3,000", "USD 500",
# "CNY 10,000", "¥600"): one vocabulary for every reader of sums (answerability's offered and stated amounts and the
# units it reads a quantity in, conflict's money values). Patterns for a case-insensitive regex or folded text. Not
# "pounds", as often a weight ("bags up to 50 pounds") as a sum: a sum in pounds is written "£50", "GBP 50" or 英镑.
CURRENCY_CODES = r"usd|rmb|cny|hkd|eur|gbp|jpy"
CURRENCY_WORDS = r"yuan|dollars?|euros?"
CURRENCY_AFTER = rf"美元|美金|港元|港币|欧元|日元|英镑|人民币|[元块]|(?:{CURRENCY_CODES}|{CURRENCY_WORDS})\b"
CURRENCY_BEFORE = rf"[$¥£€￥]|\b(?:{CURRENCY_CODES})"


def without_separators(text: str) -> str:
    """`text` with its numbers' thousands separators left out ("3,000" -> "3000")."""
    return _THOUSANDS_SEPARATOR_RE.sub("", text) if "," in text else text


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> Iterator[tuple[int, int]]:
    """(start, end) offsets of sentences in text[start:end], whitespace trimmed, none empty.

    A full stop followed by Latin text ends a sentence only where the sentencex segmenter (Wikimedia's,
    maintained, with abbreviation lists per language) also ends one: "Dr. Apgar", "e.g. the heart rate",
    "the U.S. Copyright Office" stay one sentence. Before a CJK character or the end, and for the other
    marks (。！？； and ASCII !?; before a space), a sentence ends as the marks say.

    A clause's number ("6.", "4.2.", "(a)") opens the sentence after it: "6. This agreement terminates …" is
    one sentence, never "6." and "This agreement terminates …" (a number alone states nothing, and a quote
    must not end with the next clause's number). Only a number with nothing after it in the range stays
    alone."""
    end = len(text) if end is None else end
    opened: int | None = None  # where the clause numbers waiting for their sentence start
    numbers_end = start
    for s, e in _marked_spans(text, start, end):
        if _CLAUSE_NUMBER_ONLY_RE.match(text, s, e):
            opened = s if opened is None else opened
            numbers_end = e
            continue
        yield (s if opened is None else opened), e
        opened = None
    if opened is not None:
        yield opened, numbers_end


def _marked_spans(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    pos = start
    periods: frozenset[int] | None = None
    for m in _SENTENCE_END_RE.finditer(text, start, end):
        if m.group().startswith(".") and _LATIN_NEXT_RE.match(text, m.end(), end):
            if periods is None:
                periods = _period_ends(text[start:end], start)
            if m.end() not in periods:
                continue
        yield from _trimmed(text, pos, m.end())
        pos = m.end()
    yield from _trimmed(text, pos, end)


_WIDE_RE = re.compile("[\u3000-\U0010ffff]")
_LATIN_NEXT_RE = re.compile(r"\s*[\x21-\x7e\u00a0-\u2fff]")


@functools.lru_cache(maxsize=4096)
def _segmenter_ends(text: str) -> frozenset[int]:
    """Where sentencex ends the sentences of `text` (English rules: a full stop is read the same way in a
    Chinese text's Latin passages), trailing whitespace excluded. CJK characters and punctuation are read as
    spaces (one for one, so offsets hold): sentencex reads "好。Dr." as one word, not the abbreviation."""
    ends: set[int] = set()
    for boundary in sentencex.get_sentence_boundaries("en", _WIDE_RE.sub(" ", text)):
        e = boundary["end_index"]
        while e > 0 and text[e - 1].isspace():
            e -= 1
        ends.add(e)
    return frozenset(ends)


def _period_ends(text: str, offset: int) -> frozenset[int]:
    return frozenset(e + offset for e in _segmenter_ends(text))


def split_sentences(text: str) -> list[str]:
    out: list[str] = []
    for para in re.split(r"\n\s*\n|\n", text):
        out.extend(para[s:e] for s, e in sentence_spans(para))
    return out


def clause_cut_points(text: str, start: int, end: int) -> list[int]:
    return [m.end() for m in _CLAUSE_END_RE.finditer(text, start, end)]


def safe_cut(text: str, pos: int, lo: int) -> int:
    """Move a hard cut position left so it falls outside a word run and a combining sequence.

    Python strings index code points, so an astral character (a surrogate pair in UTF-16) is one
    index and can never be halved; a lone surrogate is still stepped over. If the word run around
    `pos` starts at `lo` (one run longer than the whole piece) the position is returned unchanged.
    """
    # Stepping back over a combining mark can land inside the word run it follows ("e.g.e" + U+0301),
    # so both checks repeat until neither moves the position.
    while True:
        moved = pos
        # Scan past pos: a run cut short by the scan window would look as if it ended at pos.
        for m in _WORD_RUN_RE.finditer(text, lo, min(len(text), pos + 64)):
            if m.start() < pos < m.end():
                if m.start() > lo:
                    pos = m.start()
                break
        while pos > lo and 0xDC00 <= ord(text[pos]) <= 0xDFFF:
            pos -= 1
        while pos > lo and unicodedata.combining(text[pos]):
            pos -= 1
        if pos == moved:
            return pos


def _trimmed(text: str, s: int, e: int) -> Iterator[tuple[int, int]]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if e > s:
        yield s, e
