"""What a question asking what something is needs: a sentence that defines it. Pure.

"What does 'propagate' mean under GPL 3?", "什么是静电感应？" and "信用额度是什么意思" are answered by
the sentence that says what the term is ('To "propagate" a work means ...', "静电感应是物体内的电荷…"), not
by one that only uses it ("静电感应是可逆的" is about it, "由于信用额度是无担保的借贷金额" gives a reason).
Quoting prefers such a sentence for every question of the wider family (`definition_test`: "X是谁", "what
counts as X" too); the answerability check requires one for a question that asks only what a term means
(`asks_definition`, narrower: "X的俗名是什么" asks an attribute, "What is the GFDL for?" a purpose).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .textproc import cue_form, fold, has_cjk, query_terms, stem

# The other one: "what is X / what does X mean / who is X / 什么是X / X是什么 / X是谁 / X指什么" is answered by
# the sentence that says what X is ("“Additional permissions” are terms that supplement ...", "X是指 ..."),
# not by one that only uses X ("you may remove any additional permissions from that copy").
# Read on the question without its closing punctuation (`_definition_test`), so each group runs to the end greedily: a
# lazy group before a run of punctuation rescanned that run at every step (quadratic on a long question).
_DEFINED_RE = re.compile(
    r"^\s*(?:what|who)\s+(?:is|are|was|were)\s+(?:meant\s+by\s+)?(?P<en>.+)$"
    r"|^\s*what\s+(?:does|do)\s+\S.*?\smean\s+by\s+(?P<meanby>.+)$"
    r"|^\s*what\s+(?:does|do)\s+(?P<mean>.+?)\s+mean\b"
    r"|^\s*(?:what|who)\s+counts?\s+as\s+(?P<counts>.+)$"
    r"|\b(?:define|definition\s+of|meaning\s+of)\s+(?P<define>.+)$"
    r"|^\s*(?:什么是|何谓|何为)(?P<zh>.+)$"
    r"|^\s*(?P<is>.+?)(?:是指|指的是|是|指)(?:什么(?:意思)?|谁|哪位)$"
    r"|^\s*(?P<of>.+?)的(?:定义|含义|意思)",
    re.IGNORECASE | re.DOTALL,
)
_CLOSING = " \t\r\n?？.。!！"
# What follows the defined words in a sentence that defines them: up to two words between in English
# ('To “propagate” a work means ...'), up to four before "means" itself ('"Installation Information" for a
# User Product means ...'; not "the original publisher of the version it refers to ...").
_DEFINING_EN = (
    r"[\w-]*[”’\"')]*(?:\s*\([^()]{0,60}\))?"  # '"Confidential Information" (as defined in clause 12) means'
    r"(?:(?:\s+[\w-]+){0,2}?,?\s+(?:means?|is|are|refers?\s+to|includes?|consists?\s+of|shall\s+mean|stands\s+for"
    r"|is\s+short\s+for)|(?:\s+[\w-]+){3,4}?,?\s+(?:means|shall\s+mean))\b"
    r"|[\w-]*[”’\"')]*\s*(?::|\s[–—]\s)"  # a glossary's entry: '"Business Day": a day on which…', "Employee – a person"
)
# What precedes a term given as the name of what the sentence described ('... is also called the "Linked
# Version"', "hereinafter referred to as ...").
_NAMING_EN = r"\b(?:called|known\s+as|referred\s+to\s+as|termed|named)\s+(?:the\s+|an?\s+)?[“‘\"'(]*"
_DEFINITION_OF_RE = re.compile(r"^\s*(?:the\s+|a\s+)?(?:definition|meaning)\s+of\s+", re.IGNORECASE)
# What the defined term ends before ("a 'Larger Work' in MPL 2.0", "the 'Source' form under the Apache License").
_MEANING_OF_RE = re.compile(r"的(?:定义|含义|意思)$")
_QUOTES_RE = re.compile(r"[“”‘’「」『』\"'《》]")
_QUALIFIER_RE = re.compile(r"\s+(?:under|in|of|for|from|within|by|on|according\s+to)\s+", re.IGNORECASE)
# Between two words of a defined term: quotes and a space ('"Source" form', "“Larger Work”").
_BETWEEN_WORDS = r"[\w-]*[”’\"')]*\s+[“‘\"'(]*"
# After the term: its closing quote, a parenthesis (a transcription, "（学名：…）"), another name it goes by
# ("，又称巫医，", "，亦称做三角恋、三角恋爱，"), then the copula ("是指", "为", "就是"): "神医，又称巫医，是透过…的人",
# "从四位为日本品秩…", "所谓三鹰就是…".
# Each gap between them is one possessive run of spaces and commas: gaps written as several optional runs backtracked
# through a long run of spaces (a table's column gap) in time growing as its fourth power.
_GAP = r"[\s,，]*+"
_DEFINING_ZH_RE = re.compile(
    rf"[”’」』》\"'）)]?{_GAP}(?:[（(][^（()）]{{0,80}}[）)]{_GAP})*+"
    rf"(?:(?:又称|也称|亦称|或称|俗称|简称|又名|亦作|也作)(?:[^。；;：:,，（(]|[（(][^（()）]{{0,20}}[）)]){{0,40}}[,，]{_GAP})?"
    r"(?:是指|指的是|系指|意为|意思是|定义为|即是|就是|包括|包含|是|即|指|为|乃|系|：|:)"
)
# Before the term: the name given to what the sentence described ("…称为小鸟球", "俗称「票王」", "…时，便是速成").
_NAMING_ZH_RE = re.compile(r"(?:称为|称作|叫做|俗称|史称|简称|名为|称之为|便是)\s*[“‘「『\"']?$")


def definition_test(question: str) -> Callable[[str], str] | None:
    """For a question asking what something is, a test for a sentence that defines it: the asked term
    (in English its words in order, up to a qualifier such as "under the Apache License"; in Chinese one of
    its words) directly followed by "means / is / are / refers to" or "是指 / 是 / 即 / 指"; None for any
    other question. The test says which reading found the definition: "en" (the term's words in order), "zh"
    (one of its words), "" (none)."""
    m = _DEFINED_RE.search(cue_form(question).strip().rstrip(_CLOSING))
    if m is None:
        return None
    subject = _DEFINITION_OF_RE.sub("", next(g for g in m.groups() if g))  # "what is the definition of X"
    terms = set(query_terms(subject))
    if not terms:
        return None
    # Chinese: the term whole as the question writes it ("五月艾", which jieba cuts into 五月 and 艾), then each of
    # its words of two characters or more.
    whole = _MEANING_OF_RE.sub("", _QUOTES_RE.sub("", fold(subject))).strip()  # "胜任力", of "胜任力的定义是什么"
    zh = sorted((t for t in terms if has_cjk(t) and len(t) >= 2), key=len, reverse=True)
    # A term in Latin letters asked in Chinese ("什么是KPI？") is read the Chinese way too: "关键绩效指标（KPI）是指…".
    if (has_cjk(whole) or has_cjk(question)) and whole and whole not in zh:
        zh.insert(0, whole)
    # English: the words of the defined term, in order ('the "Source" form' of "... under the Apache
    # License"), so '"Object" form shall mean ...' or "the License is ..." do not read as its definition.
    head = _QUALIFIER_RE.split(subject, maxsplit=1)[0]
    en = [_stem_prefix(w) for w in re.findall(r"[A-Za-z][A-Za-z-]+", head) if stem(w.lower()) in terms]
    term = _BETWEEN_WORDS.join(map(re.escape, en))
    # '"X" means ...', or the name given last: '... is also called the "Linked Version"'.
    en_re = re.compile(rf"\b{term}(?:{_DEFINING_EN})|{_NAMING_EN}\b{term}", re.IGNORECASE) if en else None

    def defines(text: str) -> str:
        if en_re is not None and any(_asserts(text, m.start()) for m in en_re.finditer(text)):
            return "en"
        folded = fold(text)
        for term in zh:
            at = folded.find(term)
            while at >= 0:
                if _DEFINING_ZH_RE.match(folded, at + len(term)) and _asserts_zh(folded, at):
                    return "zh"
                if _NAMING_ZH_RE.search(folded, 0, at):
                    return "zh"
                at = folded.find(term, at + 1)
        return ""

    return defines if (zh or en_re is not None) else None


# "If the Larger Work is a combination ..." states a condition on the term, not what it is.
_CONDITION_WORDS = frozenset({"if", "when", "where", "whether", "unless", "while", "although", "once", "as"})


def _asserts(text: str, at: int) -> bool:
    """The term at `at` is what its clause is about, not the subject of a condition ("if the ...")."""
    return not any(w.lower().strip("(\"'“‘") in _CONDITION_WORDS for w in text[:at].split()[-2:])


# The same in Chinese: "由于信用额度是无担保的借贷金额，…" gives a reason, not what 信用额度 is.
_CONDITION_ZH_RE = re.compile(r"由于|因为|如果|假如|假若|若是|倘若|虽然|尽管|即使|只要|除非|一旦")
_CLAUSE_END_RE = re.compile(r"[，,。；;：:！!？?、\n]")


def _asserts_zh(text: str, at: int) -> bool:
    """The term at `at` of a folded Chinese text is what its clause is about: no word of condition or
    cause stands before it in its clause."""
    starts = [m.end() for m in _CLAUSE_END_RE.finditer(text, 0, at)]
    return _CONDITION_ZH_RE.search(text, starts[-1] if starts else 0, at) is None


def _stem_prefix(word: str) -> str:
    """The part of a word its inflections share ("permiss" for permissions, "librar" for libraries)."""
    lowered = word.lower()
    stemmed = stem(lowered)
    shared = next((i for i, (a, b) in enumerate(zip(lowered, stemmed, strict=False)) if a != b), len(stemmed))
    prefix = lowered[:shared]
    return prefix[:-1] if prefix.endswith("i") and len(prefix) > 3 else prefix


# The questions that ask only what a term means, the kind the answerability check holds to a defining sentence
# (answerability.Asked.DEFINITION): an English term in quotes ("What is a 'Larger Work' in MPL 2.0?", "What does
# GPLv3 mean by a 'Standard Interface'?"), "what does X mean", "define X / the meaning of X"; in Chinese "什么是X",
# "X是什么意思", "X的意思/含义/定义是什么", "X指的是什么", the term one phrase (no 的, no comma). Not "What is the GFDL
# for?" or "X的俗名是什么": those ask a purpose or an attribute, which a sentence answers without defining anything.
_Q = "['\"“‘「『]"
_EQ = "['\"”’」』]"
# The document a term is asked of: "in MPL 2.0", "under the Apache License", "in GPLv3" (a name, capitalised or with
# a digit), not "in days" (a unit: "What is 'annual leave' in days?" asks a number).
_OF_DOCUMENT = r"(?:\s+(?:under|in)\s+(?:the\s+)?(?:(?-i:[A-Z])|\S*\d)[^?]*)?"
# A Chinese term asked for alone: one phrase (no 的, no comma, no second question or conjunction: "什么是年假和病假",
# "什么是报销？需要什么材料"), and after 什么是 not an attribute of something ("什么是报销流程", "什么是最低工资标准",
# "什么是年假天数" ask for a procedure, a standard, a number: answered by "报销流程如下：…", which defines nothing).
_ZH_TERM = r"[^，,的？?。！!；;和与及并]+"
_ZH_ATTRIBUTE = (
    r"(?:流程|标准|天数|比例|工资|薪资|时间|日期|条件|期限|方法|方式|步骤|要求|规定|范围|金额|费用|价格|地址|地点|政策|办法|"
    r"程序|手续|材料|原因|目的|作用|区别|内容|规则|制度|安排|待遇|额度|补贴|上限|下限|数量|名单|电话|联系方式)"
)
_ASKS_DEFINITION_RE = re.compile(
    rf"^\s*what\s+(?:is|are)\s+(?:an?\s+|the\s+)?{_Q}[^'\"”’」』]+{_EQ}\s*(?:form)?{_OF_DOCUMENT}$"
    rf"|^\s*what\s+does\s+(?:an?\s+|the\s+)?{_Q}[^'\"”’」』]+{_EQ}\s+mean{_OF_DOCUMENT}$"
    rf"|^\s*what\s+does\s+(?:an?\s+|the\s+)?[\w-]+(?:\s+[\w-]+)?\s+mean{_OF_DOCUMENT}$"
    rf"|^\s*what\s+does\s+\S.*?\smean\s+by\s+(?:an?\s+|the\s+)?{_Q}[^'\"”’」』]+{_EQ}"
    rf"|^\s*(?:define|what\s+is\s+the\s+(?:definition|meaning)\s+of)\s+(?:an?\s+|the\s+)?"
    rf"(?:{_Q}[^'\"”’」』]+{_EQ}|[\w-]+(?:\s+[\w-]+)?){_OF_DOCUMENT}$"
    rf"|^\s*(?:什么是|何谓|何为)(?:[“‘「『\"'][^”’」』\"']+[”’」』\"']|(?!{_ZH_TERM}{_ZH_ATTRIBUTE}$){_ZH_TERM})$"
    rf"|^\s*{_ZH_TERM}(?:是什么意思|的意思是什么|是指什么|指的是什么|的含义是什么|的定义是什么|的意思|的含义|的定义)$",
    re.IGNORECASE,
)


def asks_definition(question: str) -> bool:
    """Whether the question asks only what a term means (`_ASKS_DEFINITION_RE`, read in `cue_form`) and names a term
    `definition_test` can look for."""
    cue = _ASKS_DEFINITION_RE.search(cue_form(question).strip().rstrip(_CLOSING))
    return cue is not None and definition_test(question) is not None
