"""Does the cited snippet support the paragraph? (rule 13: a valid marker only proves retrieval.)

The lexical score is the share of the paragraph's content terms (jieba words for Chinese, words
for Latin scripts, numbers; stop words left out; traditional folded to simplified) that occur
in the snippets it cites. A verbatim quotation scores 1.0; a sentence about something the
snippet never mentions scores near 0. When an embedder is configured the caller passes a
`similarity` function and the higher of the two scores counts, so a faithful paraphrase is not
flagged for using other words.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re
from collections.abc import Callable, Sequence

from .alignment import MARKER_ID_TEXT_RE
from .assembly import source_header
from .crosslingual import numeral_digits
from .prompts import instructions
from .records import AlignedAnswer, AlignedParagraph, AssembledSource, EvidenceStatus
from .textproc import fold, query_terms, tokenize

Similarity = Callable[[str, Sequence[str]], float]


def support_score(text: str, snippets: Sequence[str], *, similarity: Similarity | None = None) -> float | None:
    """Support of `text` by `snippets` in [0, 1]; None when the text has no content terms to check."""
    if not snippets:
        return 0.0
    folded_snippets = [fold(s) for s in snippets]
    if any(fold(text).strip() in s for s in folded_snippets if text.strip()):
        return 1.0
    terms = set(tokenize(text))
    if not terms:
        return None
    available: set[str] = set()
    for snippet in snippets:
        available.update(tokenize(snippet))
    lexical = len(terms & available) / len(terms)
    # Embedding the paragraph and its snippets is the slowest step of an ask (hundreds of ms on 2
    # cores), and it cannot raise a score that is already 1: an extractive quote with " … " between
    # its sentences is not a substring, but every one of its terms is in the snippets.
    if similarity is not None and lexical < 1.0:
        lexical = max(lexical, min(1.0, max(0.0, similarity(text, snippets))))
    return round(lexical, 4)


# A number as a paragraph states it: digits with their decimal part ("1,000" is read as 1000).
_NUMBER_RE = re.compile(r"(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\d.])\d+(?:\.\d+)?(?![\d])")
# Latin proper names: a capitalised word not at the start of a sentence ("Glendale", "Pierce").
_NAME_RE = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)*")


def states_nothing(text: str, question: str = "") -> bool:
    """A paragraph that is not a statement: punctuation or a label ("资料：", "...", "Sources:"), or
    the question said back (the question again, or a part of it, or a question made of its words). A
    declarative restatement of a yes/no question ("The Apache License grants a patent license.") is
    an answer (yes), not a repeat."""
    terms = tokenize(text)
    if not terms:
        return True
    stripped = text.strip()
    if stripped.endswith((":", "：")) and len(terms) <= 3:
        return True
    if _LABEL_ALONE_RE.fullmatch(fold(stripped)):
        return True  # "Answer", "答案": a model's heading over the answer ("## Answer [S1]"), with no colon
    if question and not unsupported_facts(text, [question]):
        # Said back under a label ("Question: …", "问题：…"), and with the words that ask ("哪支", "什么时候"), which
        # the question's search terms leave out.
        body = _LABEL_RE.sub("", stripped, count=1)
        words = set(tokenize(body))
        asked = set(query_terms(question)) | set(tokenize(question))
        said_back = body.endswith(("?", "？")) or _letters(body) in _letters(question)
        return bool(words) and bool(asked) and words <= asked and said_back
    return False


# A label word alone, with or without its colon: what a model heads its answer or its list of sources with.
_LABEL_ALONE_RE = re.compile(
    r"\W*(?:(?:final|short|brief)\s+)?(?:answers?|responses?|reply|summary|conclusions?|results?|sources?|references?"
    r"|citations?|evidence|notes?|答案|回答|答复|解答|总结|结论|摘要|资料|来源|参考|参考资料|引用|出处|依据|说明)\W*"
)
# A short label opening a paragraph ("Question:", "问题：", "Source:").
_LABEL_RE = re.compile(r"^[^\s:：]{1,16}\s*[:：]\s*(?=\S)")


# What a model writes when the sources do not answer (the prompt asks it to say so), as one clause: "I don't know",
# "The context does not say how many days ...", "The answer is not in the documents", "文档中没有提到…", "无法确定".
# A clause about the sources (context, documents, passages), never about the subject ("gift cards cannot be
# refunded", "the policy does not cover interns" state something).
_SOURCES = (
    r"(?:context|sources?|documents?|docs|passages?|texts?|excerpts?|information|materials?|snippets?|references?)"
)
_NOT = r"(?:\s+not|n't|not)"
# The sources named as such: "the context", "these documents", "the information provided" (a determiner first, so
# that "Personal information does not include ..." is a statement about the subject).
_THE_SOURCES = rf"\b(?:the|these|this|those|provided|given|available|my|your|any)\s+(?:\w+\s+)?{_SOURCES}\b"
_ABSTAINS_EN = re.compile(
    "|".join(
        [
            r"\b(?:i|we)\s+(?:do|did|could|can)"
            + _NOT
            + r"\s+(?:\w+\s+)?(?:know|say|tell|determine|find|answer|confirm)\b",
            r"\b(?:i|we)\s+(?:cannot|am\s+unable\s+to|are\s+unable\s+to|have\s+no\s+(?:way|information|idea))\b",
            r"\b(?:i'm|i\s+am|we're|we\s+are)\s+(?:not\s+(?:sure|certain|able)|unsure|unable)\b",
            rf"{_THE_SOURCES}\s+(?:\w+\s+)?(?:does|do|did){_NOT}\s+(?:\w+\s+)?(?:say|state|mention|specify|contain|"
            r"include|provide|give|indicate|address|cover|answer|tell|discuss|describe|list|explain|define|show|hold)\b",
            r"\b(?:is|are|was|were)" + _NOT + r"\s+(?:\w+\s+)?(?:in|within|among|mentioned|stated|specified|given|"
            rf"provided|included|found|available|listed|addressed|covered|indicated|answered|described|defined)"
            rf"(?:\s+(?:in|by|within|among))?\s+(?:the|these|any|this|my)\s+(?:\w+\s+)?{_SOURCES}\b",
            # what is missing, said of the sources or as the whole clause: not "claims are rejected when there is
            # not enough information to verify them", "the amount cannot be determined until ..."
            r"\bthere\s+(?:is|are|was|were)\s+no\s+(?:\w+\s+)?(?:information|mention|indication|details?)\b"
            rf"(?:.*?\b(?:in|from|within)\s+{_THE_SOURCES}|(?:\s+(?:about|on|regarding|concerning)\b[^,]*)?\W*$)",
            r"\b(?:not\s+enough|insufficient)\s+(?:information|context|details)\b"
            rf"(?:\s+(?:to\s+(?:answer|determine|say|tell|know)|in\s+{_THE_SOURCES})\b|\W*$)",
            r"\b(?:cannot|can't|can\s+not|could" + _NOT + r")\s+be\s+(?:determined|answered|confirmed|known)\b"
            rf"(?:\s+(?:from|with|based\s+on|given|in)\s+{_THE_SOURCES})?\W*$",
        ]
    )
)
# Chinese: the sources or the speaker open the clause ("文档中没有提到…", "根据资料无法确定…", "我们没有找到…"), or the
# clause is only what is missing ("信息不足"): not "申请材料未提供身份证明的", "若无法确定责任方", "如果没有找到收据".
_ZH_SOURCES = (
    r"(?:文档|文件|资料|上下文|来源|材料|原文|文中|文章|段落|片段|参考资料|所给信息|提供的信息)(?:中|里|内|里面)?"
)
_ZH_OPENING = rf"^\W*(?:在|根据|从|按照|就)?(?:所给|提供的|上述|以上|给定的|这些|该)?的?{_ZH_SOURCES}"
_ABSTAINS_ZH = re.compile(
    "|".join(
        [
            rf"{_ZH_OPENING}[^。！？，,]*?(?:没有|没|未|并未|并没有)(?:明确|具体|直接|详细)?"
            r"(?:提到|提及|说明|给出|指出|写明|列出|涉及|记载|包含|提供|说|讲|回答|描述|显示|表明)",
            rf"^\W*(?:我们?|目前|因此|所以|故|{_ZH_SOURCES[:-1]}(?:中|里|内|里面)?|根据{_ZH_SOURCES})?"
            r"(?:无法|难以|没法|不能)(?:确定|回答|判断|得知|确认)",
            r"我不知道|无从得知",
            rf"^\W*(?:我们?)?(?:在{_ZH_SOURCES})?(?:没有|未|并未)(?:找到|检索到)",
            rf"^\W*(?:{_ZH_SOURCES})?没有(?:相关|足够|具体|明确)的?(?:信息|内容|说明|资料|依据)",
            r"(?:信息|资料|依据)不足\W*$",
        ]
    )
)
# Clauses: a paragraph that says the sources do not answer AND states something ("... but refunds are accepted within
# 30 days") states something. Chinese commas part clauses too: "若无法确定责任方，由部门经理裁决" states who decides.
_CLAUSE_SPLIT_RE = re.compile(
    r"[.!?;:。！？；：，、\n]+|,?\s+\b(?:but|however|although|though|yet)\b|但是|不过|然而|可是"
)
# A question's interrogative words: a paragraph that keeps one and adds no word of its own restates the question.
_ASKING_EN = re.compile(r"\b(?:how|what|which|who|whom|whose|when|where|why)\b")
_ASKING_ZH = ("多少", "几", "谁", "什么", "哪", "何时", "如何", "怎么", "怎样", "为什么", "为何", "多久", "多长")


def model_states_nothing(
    text: str, question: str = "", *, sources: Sequence[AssembledSource] = (), earlier: Sequence[str] = ()
) -> bool:
    """A model's paragraph that states nothing: what states_nothing finds, and (only a model writes these; an
    extractive quotation is held to states_nothing alone) a paragraph each clause of which says the sources do not
    answer ("I don't know", "The context does not say ...", "文档中没有提到…", "无法确定"), one that only names a
    cited source or echoes its header line in the context ("Refund policy | no location provided | level:
    official"), under a label too ("资料回答：…"), or a wh-question said back as a sentence ("Refunds are accepted
    within how many days of purchase."): it keeps the question's interrogative word and adds no word the question
    does not have. So is a paragraph of figures alone that its cited snippets do not hold (a list's numbers, "1.2"),
    and one that says the prompt's instructions back ("Use only facts stated in the sources ... e.g. [S1] or [S2]",
    whose example markers read as citations): _says_instructions_back. `earlier`: a follow-up's thread (the
    questions before `question`, which the model was shown too): one of them said back states nothing either."""
    if states_nothing(text, question) or any(states_nothing(text, asked) for asked in earlier):
        return True
    snippets = [source.snippet for source in sources]
    if _figures_alone(text, snippets) or _says_instructions_back(text, question, snippets):
        return True
    clauses = [c for c in _CLAUSE_SPLIT_RE.split(_plain_quotes(fold(text))) if tokenize(c)]
    if not clauses or all(_abstains(c) for c in clauses):
        return True
    # Under a label ("答案：", "Source:") as bare: a header line, a title or marker ids say nothing more.
    unlabelled = _LABEL_RE.sub("", text.strip(), count=1)
    if sources and not tokenize(_without_headers(unlabelled, sources)):
        return True
    # Only marker ids written as text ("S1", "Source: S1", "S1, S2"): a citation with nothing cited for.
    if not tokenize(MARKER_ID_TEXT_RE.sub(" ", unlabelled)):
        return True
    return any(asked and _restates_asking(text, asked) for asked in (question, *earlier))


def _figures_alone(text: str, snippets: Sequence[str]) -> bool:
    """Figures without a word ("1.2", "3."), none of which `snippets` holds: a list's numbering, not an answer (a bare
    "30" its passage holds answers "within how many days?")."""
    if any(ch.isalpha() for ch in text):
        return False
    stated = {_plain_number(n) for n in _NUMBER_RE.findall(fold(text))}
    missing = {_plain_number(n) for n in unsupported_facts(text, snippets, model=True)}
    return bool(stated) and stated <= missing


# How many of the instructions' words in a row a paragraph repeats before it is read as saying them back.
_ECHO_RUN = 3
_FIGURE_OR_MARKER_RE = re.compile(r"^(?:s?\d+(?:\.\d+)?|[a-z])$")


def _instruction_words(text: str) -> list[str]:
    """`text`'s words in order, without figures and marker ids (a list's numbers, "S1"), which say nothing of
    where the words came from."""
    return [w for w in tokenize(text) if not _FIGURE_OR_MARKER_RE.match(w)]


@functools.cache
def _instructions_read() -> tuple[frozenset[str], frozenset[tuple[str, ...]]]:
    """The words of every instruction the model may be told, and each run of _ECHO_RUN of them in a row."""
    words: set[str] = set()
    runs: set[tuple[str, ...]] = set()
    for text in instructions():
        told = _instruction_words(text)
        words.update(told)
        runs.update(tuple(told[i : i + _ECHO_RUN]) for i in range(len(told) - _ECHO_RUN + 1))
    return frozenset(words), frozenset(runs)


def _says_instructions_back(text: str, question: str, snippets: Sequence[str]) -> bool:
    """A paragraph made of the prompt's instructions (small models say them back, rule by rule): it repeats
    _ECHO_RUN of their words in a row ("use only facts", "资料 编号 注明"), and more of its words come from them
    than from its cited snippets (the question's words counting for neither). An answer that names "the sources"
    or opens "根据资料" takes one word from them, and its facts from the snippets."""
    told, runs = _instructions_read()
    said = _instruction_words(text)
    if not any(tuple(said[i : i + _ECHO_RUN]) in runs for i in range(len(said) - _ECHO_RUN + 1)):
        return False
    held = set(tokenize(" ".join(snippets)))
    own = set(said) - set(tokenize(question)) - set(query_terms(question))
    echoed = {w for w in own if w in told and w not in held}
    return len(echoed) > len(own & held)


def _plain_quotes(text: str) -> str:
    return text.replace("\u2019", "'").replace("\u2018", "'")


def _abstains(clause: str) -> bool:
    return _ABSTAINS_EN.search(clause) is not None or _ABSTAINS_ZH.search(clause) is not None


def _without_headers(text: str, sources: Sequence[AssembledSource]) -> str:
    """`text` (folded) without the cited sources' header lines, their parts and titles."""
    out = fold(text)
    pieces: set[str] = set()
    for source in sources:
        header = source_header(source.marker, source.record).split("] ", 1)[-1]
        pieces.add(fold(header))
        pieces.update(fold(part) for part in header.split(" | "))
        pieces.add(fold(source.record.display_title))
    for piece in sorted((p.strip() for p in pieces), key=len, reverse=True):
        if piece:
            out = out.replace(piece, " ")
    return out


def _restates_asking(text: str, question: str) -> bool:
    folded_text, folded_question = fold(text), fold(question)
    asking = {w for w in _ASKING_EN.findall(folded_question) if re.search(rf"\b{w}\b", folded_text)}
    asking.update(w for w in _ASKING_ZH if w in folded_question and w in folded_text)
    if not asking:
        return False
    terms = set(tokenize(text))
    return bool(terms) and terms <= set(query_terms(question)) and not unsupported_facts(text, [question])


def _letters(text: str) -> str:
    """Folded text without punctuation or spaces: what a verbatim repeat shares with the question."""
    return "".join(ch for ch in fold(text) if ch.isalnum())


def unsupported_facts(text: str, snippets: Sequence[str], *, model: bool = False) -> list[str]:
    """The numbers and Latin proper names the paragraph states that none of its snippets holds.

    Support by shared words cannot see the one word that matters: "the final was played in Tampa"
    shares every word but one with "the final was played in Glendale". The asked fact is usually a
    number, a date or a name, so those must come from the cited text.

    `model`: the text is a model's own words (an extractive quotation is its snippet's text, checked as
    before): numbers written in words ("sixty", "forty-five", "四十五") are read as numbers too (text2num's
    alpha2digit; cn2an through crosslingual.numeral_digits; an ordinal that counts nothing, "第一，", is none), and
    so are names where answers put them: a run of capitalised words opening a sentence ("Maria Chen approves"),
    and Chinese person names (jieba's POS tag nr, _zh_person_names).
    """
    folded = fold(" ".join(snippets))
    numbers = {_plain_number(n) for n in _NUMBER_RE.findall(folded)}
    stated = _NUMBER_RE.findall(fold(text))
    if model:
        numbers.update(_plain_number(n) for n in _NUMBER_RE.findall(_words_as_digits(folded, threshold=0)))
        stated += _cardinals(_words_as_digits(fold(text), threshold=3))
    missing = [n for n in stated if _plain_number(n) not in numbers]
    lowered = folded.lower()
    names = _NAME_RE.findall(text)
    if model:
        names += _opening_names(text) + _zh_person_names(text)
    missing += [name for name in names if fold(name) not in lowered]
    return list(dict.fromkeys(missing))


_ZH_NUMERAL_RUN_RE = re.compile(r"第?[零〇一二两三四五六七八九十百千万]+[版号代届条章期]?")
_EN_NUMBER_WORD_RE = re.compile(
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|"
    r"billion)\b"
)


def _words_as_digits(text: str, *, threshold: int) -> str:
    """`text` (folded) with its numbers in words in digits: English by text2num (numbers below `threshold` stay
    words, so "one option" is not a number), Chinese numerals by cn2an."""
    if _EN_NUMBER_WORD_RE.search(text):
        from text_to_num import alpha2digit  # imported when a text writes a number in words

        with contextlib.suppress(UnicodeError, ValueError):  # text the parser cannot take: no words read
            text = alpha2digit(text, "en", threshold=threshold)
    if _ZH_NUMERAL_RUN_RE.search(text):
        text = _ZH_NUMERAL_RUN_RE.sub(_zh_numeral, text)
    return text


def _zh_numeral(m: re.Match[str]) -> str:
    """A Chinese numeral in digits, but an ordinal that counts nothing ("第一，…第二，…", "安全第一") stays a word."""
    run = m.group(0)
    if run.startswith("第") and run[-1] not in "版号代届条章期":
        return run
    return f" {numeral_digits(run) or run} "


def _cardinals(text: str) -> list[str]:
    """The numbers of `text` that are not ordinals text2num wrote ("the third party" -> "3rd party")."""
    ordinal = {"st", "nd", "rd", "th"}
    return [m.group(0) for m in _NUMBER_RE.finditer(text) if text[m.end() : m.end() + 2] not in ordinal]


# A capitalised word (or run of them) opening the text or a sentence.
_OPENING_NAME_RE = re.compile(r"(?:^|(?<=[.!?]\s)|(?<=\n))\s*([A-Z][a-z]{2,}(?:\s+[A-Z][a-z]+)*)")


def _opening_names(text: str) -> list[str]:
    """Names opening a sentence: a run of capitalised words ("Maria Chen approves"). A
    single capitalised word opening a sentence is not read as a name: without a tagger it cannot be told from the
    word any sentence opens with ("Payment is due", "Each invoice", "During", "Baker approves" alike). The caller
    keeps those its snippets do not hold."""
    return [m.group(1) for m in _OPENING_NAME_RE.finditer(text) if " " in m.group(1)]


def _zh_person_names(text: str) -> list[str]:
    """Chinese person names in `text`: jieba's POS tag nr on a word of two or three characters that its dictionary
    does not hold as a common word, nor begins with one (its dictionary tags 马上会, 黄金周 and 严格遵守 nr too)."""
    if not any("\u4e00" <= ch <= "\u9fff" for ch in text):
        return []
    import jieba  # the tokenizer jieba is loaded already (textproc); its tagger on the paragraph only
    import jieba.posseg

    freq = jieba.dt.FREQ

    def named(word: str) -> bool:
        return 2 <= len(word) <= 3 and freq.get(word, 0) < _COMMON and freq.get(word[:2], 0) < _COMMON

    return [pair.word for pair in jieba.posseg.cut(text) if pair.flag.startswith("nr") and named(pair.word)]


# A word jieba's dictionary counts this often is a common word, not someone's name (黄金周 1,407; 李娜 438).
_COMMON = 1000


def _plain_number(raw: str) -> str:
    value = raw.replace(",", "")
    return value.rstrip("0").rstrip(".") if "." in value else value


def apply_support(
    answer: AlignedAnswer,
    *,
    min_support: float,
    similarity: Similarity | None = None,
    question: str = "",
    earlier: Sequence[str] = (),
    model: bool = False,
) -> AlignedAnswer:
    """Score every linked paragraph against its cited snippets; below min_support it is `weak`, and so
    is one that states a number or name its snippets do not hold. A paragraph that states nothing
    (states_nothing) is not evidence-backed content: it becomes `insufficient`, citations dropped.

    `model`: the paragraphs are a model's words, not quotations: model_states_nothing and unsupported_facts'
    model reading apply (an extractive answer's outcomes stay those of the quotation rules); `earlier`, a
    follow-up's earlier questions, which the model saw too and may say back (model_states_nothing)."""
    by_marker = {s.marker: s.snippet for s in answer.sources}
    by_source = {s.marker: s for s in answer.sources}
    paragraphs: list[AlignedParagraph] = []
    for para in answer.paragraphs:
        if para.status != EvidenceStatus.LINKED:
            paragraphs.append(para)
            continue
        cited = [by_source[m] for m in para.citation_ids if m in by_source]
        if (
            model_states_nothing(para.text, question, sources=cited, earlier=earlier)
            if model
            else states_nothing(para.text, question)
        ):
            paragraphs.append(
                dataclasses.replace(para, status=EvidenceStatus.INSUFFICIENT, citation_ids=(), support=0.0, weak=True)
            )
            continue
        snippets = [by_marker[m] for m in para.citation_ids if m in by_marker]
        score = support_score(para.text, snippets, similarity=similarity)
        unsupported = unsupported_facts(para.text, snippets, model=model)
        weak = (score is not None and score < min_support) or bool(unsupported)
        paragraphs.append(dataclasses.replace(para, support=score, weak=weak))
    return dataclasses.replace(answer, paragraphs=tuple(paragraphs))


def states_something(answer: AlignedAnswer) -> bool:
    """Whether any paragraph is a linked statement (not only labels, punctuation or the question)."""
    return any(p.status == EvidenceStatus.LINKED for p in answer.paragraphs)


__all__ = [
    "Similarity",
    "apply_support",
    "model_states_nothing",
    "states_nothing",
    "states_something",
    "support_score",
    "unsupported_facts",
]
