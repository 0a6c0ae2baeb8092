"""Does a passage answer the question, or only share its topic? Pure (issue 13).

Retrieval relevance is about the *chunk*: its title, its section path and all its sentences count,
so a passage about the right team, licence or station qualifies whether or not it states what was
asked ("who coached the Celtics?" against a passage on their home games). This check reads the
passage the way a person would, after retrieval and before any generator:

- **Focus coverage.** Each of the question's content words is weighted by how rare it is among the
  candidate passages (BM25's idf over the candidates, times a length factor): words the whole topic
  shares weigh little, the detail the question asks for ("主教练" among passages on one team) the
  most. A word common in the language weighs no more than its idf in ordinary text
  (pipeline/generality.py): "top" and "own" of "extra permissions on top of GPLv3 for my own code" are
  rare among licence passages but say nothing a passage must state. A passage answers only if some
  window of two consecutive sentences, read with the chunk's title and section path (its locator says
  what the window is about), holds at least MIN_FOCUS of that weight. The words that ask ("什么时候", "哪一年"
  and jieba's pieces of them) and function words (bm25s's English and single-character Chinese lists)
  are not focus words. A Chinese question
  about an English passage is read through its word-by-word translation (pipeline/crosslingual.py),
  and the better of the two coverages counts.
- **Identifiers must match.** Numbers the question names (a year, a version, a line or a model
  number: "2009", "GPL 4", "10号线", "鑫诺三号") must occur in the passage, its title or its section
  path, or in another candidate passage of the same part of the same document version (a file compiled
  of articles: the article on 鑫诺一号 does not answer for 鑫诺三号 because another article names it).
  A passage about the 2008 final does not answer a question about 2009, however similar the rest: the
  sibling documents of one family (versions, years, numbered lines) differ exactly there. The same
  holds for the short name the question gives its subject by ("GFDL", "MPL 2.0", "LGPLv3"; the document
  may spell it out), and for a part of a document the question names ("巴士底广场…" of a file on
  squares): only that part answers.
- **Asked type.** "How many / 多少 / 几" wants a quantity (in Chinese, in the kind of unit the question
  names after 多少 / 几, when it names a length, a mass or a sum of money; "多久 / 多长时间 / how long
  does it take, last, stay valid" a span of time, not a date: `asked_unit`); "how tall / how
  far / 多远 / 多深" and
  an area ("面积有多大", "what is the area") a length or an area (a number with its unit);
  "又叫什么 / 俗名 / also known as" another name (a word that gives one: "又称", "简称", "called",
  or a parenthesis); "what year / 哪一年" a date; and "when / 什么时候 / 何时" a date, a clock time,
  a time of day, a season or an event: the window that covers
  the focus must hold one (digits, Chinese numerals, number words; years, months, dates, 世纪; 夜间,
  冬季, 之后). Questions for a person, a place or a yes/no answer are left to focus coverage: jieba's
  part-of-speech tags for names and places were measured as a check and cost more gold passages than
  they caught siblings, and so did a looser check for a word with a place's kind (县, 港, 岛) or one that
  locates (位于): 日本, 云南 and 加拿大 have neither (docs/EVALUATION.md); every sentence "states" yes or no.

A passage that fails is rejected with reason `not_answering` (the trace shows its coverage and the
window it read); when no kept passage answers, the answer is `no_evidence` / `no_answering_passage`
and the closest passages are listed as related, never cited. Thresholds were measured on the
project's own sets (docs/EVALUATION.md), not on one data set.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

import jieba

from . import generality, pinyin
from .chunking import LIST_ITEM_MARK
from .crosslingual import Group, dictionary, kindred, reads_across
from .definition import asks_definition, definition_test
from .records import ChunkRecord, Rejection, RejectReason, Selection, below_top_k
from .textproc import (
    AHEAD,
    CURRENCY_AFTER,
    CURRENCY_BEFORE,
    CURRENCY_CODES,
    CURRENCY_WORDS,
    STOPWORDS,
    THOUSANDS_NUMBER_RE,
    asked_text,
    asks_yes_or_no,
    cue_form,
    detect_language,
    fold,
    has_cjk,
    locator_tokens,
    passage_tokens,
    query_terms,
    split_sentences,
    stem,
    tokenize,
    version_splits,
    without_separators,
)

# Share of the focus weight a two-sentence window must hold (measured: docs/EVALUATION.md).
MIN_FOCUS = 0.4
# A Chinese word at least this rare in ordinary text (generality.idf; about 1 in 4,000 words or rarer) says what the
# question asks about: 丢 (3.99), 换 (3.21), 改 (2.87); the modal and light verbs (要 0.93, 能 1.15, 做 1.51, 需要
# 1.94, 必须 2.13, 找 2.17) do not. Read by `said_besides`.
SAYING_IDF = 2.5
# Share of a Chinese word's character pairs a window must hold to count as holding the word (in_text).
BIGRAM_SHARE = 0.6


class Asked(StrEnum):
    QUANTITY = "quantity"
    MEASURE = "measure"  # "how tall / how far / 多远 / 多深": a length, a height, a distance or an area
    ALIAS = "alias"  # "又叫什么 / 俗名 / 简称 / also known as": another name of the subject
    PERSON = "person"  # "现任校长是谁 / who is the principal": the person who holds a role
    DEFINITION = "definition"  # "什么是静电感应 / What is a 'Larger Work'?": what a term means (definition.py)
    DATE = "date"
    TIME = "time"  # "when / 什么时候": a date, a time of day, a season or a moment relative to an event
    CLOCK = "clock"  # "几点 / what time": a time on the clock
    OTHER = "other"


_DATE_CUE_RE = re.compile(
    r"哪一?年|哪一天|哪天|何年|几月|几号|哪个月|what (?:year|date|day|month)|which (?:year|date|day|month)",
    re.IGNORECASE,
)
# English "when" asks a time only as the question word of its clause ("when does it end", "until when"):
# "When I convey a work, do I waive ...?" and "... when distributed separately?" ask something else.
_EN_AUX = (
    r"(?:do|does|did|is|are|was|were|will|would|can|could|should|must|has|have|had|may|might|shall)(?:n['’]t)?"
    r"|don['’]t|won['’]t|can['’]t|['’]s"
)
_TIME_CUE_RE = re.compile(
    rf"什么时候|何时|什么时间|几时|\bwhen\s*(?:{_EN_AUX})\b|\b(?:until|till|since|by)\s+when\b", re.IGNORECASE
)
# "When" that ends a question asks a time as the one that opens it does: "postmortem due when?" was quoted "Action items
# from a postmortem … must have an owner and a due date" (its "due"), not "within 5 business days". Only where no other
# word asks ("who approves leave and when?" asks who, "how much is the bonus and when?" how much) and not after a
# permission or a duty ("business class allowed when?" asks the condition, as "When is business class allowed?" does);
# at the end of the question's line (a follow-up is searched with its thread's words on the next one).
# The permission or duty a "when" question may ask the condition of (`_WHEN_CONDITION_RE`, `_asks_when_last`).
_PERMISSION = (
    r"(?:allowed|permitted|required|needed|necessary|mandatory|compulsory|eligible|prohibited|forbidden|banned"
    r"|acceptable)"
)
_LAST_WHEN_RE = re.compile(r"[^\W\d_][\s,]+when(?=[ \t]*[?？.!]*[ \t]*(?:\n|$))", re.IGNORECASE)
_OTHER_ASKING_RE = re.compile(
    rf"\b(?:who|whom|whose|what|which|where|why|how)\b|\b{_PERMISSION}[\s,]+when\b",
    re.IGNORECASE,
)


def _asks_when_last(question: str) -> bool:
    """Whether the question asks "when" by ending its line with it, and asks nothing else (`_LAST_WHEN_RE`)."""
    m = _LAST_WHEN_RE.search(question)
    return m is not None and _OTHER_ASKING_RE.search(question.split("\n", 1)[0]) is None


# "When is business class allowed?", "When's a visa required for China?": a rule's permission or duty asked with "when"
# asks the condition it holds on ("for flights longer than 8 hours"), not a time; the question asks no kind of value.
# Only the predicate of the clause "when" opens (ending it, or before "for / to / if / …"): "When is the deadline for
# mandatory training?" asks a date. "When can I fly business class?" is left as a time, as "when can I submit it?" is.
_WHEN_CONDITION_RE = re.compile(
    r"\bwhen(?:\s+(?:is|are|was|were)\b|['’]s)(?:\s+(?!and\b|or\b)[^\s,;?]+){1,6}?\s+(?:not\s+)?"
    rf"{_PERMISSION}"
    r"(?=\s*(?:[?.!,;]|$)|\s+(?:for|to|if|on|in|when|under|by)\b)",
    re.IGNORECASE,
)
_CLOCK_CUE_RE = re.compile(r"几点|\bwhat time\b|\bat what hour\b", re.IGNORECASE)
# A time on the clock in digits ("8:30", "8时", "3 pm"): an answer to "what time", and part of a date.
_CLOCK_TIME = r"[0-9０-９]{1,2}\s*[:：时点]|\b\d{1,2}(?::\d{2})?\s*(?:a\.?m\b|p\.?m\b|o'clock)"
# An hour in digits as English prose writes it ("8", "9.30", "17:00"), not a share ("10 percent") or part of a
# longer number.
_HOUR = r"\d{1,2}(?:[:.]\d{2})?\b(?![.:]?\d|\s*(?:%|per\s*cent\b|percent\b))"
_CLOCK_RE = re.compile(
    rf"{_CLOCK_TIME}|(?:上午|下午|早上|晚上|凌晨|中午|傍晚|清晨)\s*[0-9０-９一二三四五六七八九十]|\bnoon\b|\bmidnight\b"
    # An hour in Chinese numerals with what makes it one ("八点半", "九点十五分", "八点开门", "九点至十七点"): a
    # bare "两点" or "一点" is as often "two points" or "a little".
    r"|(?:十[一二]?|[一二三四五六七八九两])\s*点(?:钟|半|整|[零〇一二三四五六七八九十]{1,3}分|(?=[开关起至到前后左]))"
    # An hour in English beside what makes it one, once its number is in digits (`_clock`): "half past 7",
    # "opens at 8", "from 9 to 5".
    r"|\b(?:half|(?:a\s+)?quarter)\s+(?:past|to)\s+\d{1,2}\b"
    rf"|\b(?:opens?|opened|closes?|closed|starts?|started|begins?|ends?)\s+(?:at\s+)?{_HOUR}"
    rf"|\bfrom\s+\d{{1,2}}(?:[:.]\d{{2}})?\s*(?:to|until|till|-|–)\s*{_HOUR}",
    re.IGNORECASE,
)
# The English hours a clock time is written with in words ("at eight", "nine o'clock").
_HOUR_WORD_RE = re.compile(r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b", re.IGNORECASE)
# "How far ahead / in advance / back" (textproc.AHEAD) asks how long before (a duration: _DURATION_CUE_RE), not a
# distance: "how far ahead can I book the big meeting room?" asks a number of days ("最多可提前90天预订").
# "多高" and "how high" are left to the quantity: "人口密度有多高" asks a number without a unit of length.
# An area asked ("面积有多大", "占地多少", "What is the area of ...") wants one too: a year in the passage on the
# square does not answer "维也纳英雄广场的面积有多大？".
_MEASURE_CUE_RE = re.compile(
    rf"多远|多宽|多深|\bhow (?:tall|wide|deep)\b|\bhow far\b(?!{AHEAD})|(?:面积|占地)[^，。？?]{{0,4}}(?:多大|多少|几)"
    r"|\bwhat(?:'s| is| was) the (?:total |land |surface )?area\b|\bhow (?:big|large) an area\b",
    re.IGNORECASE,
)
# Units of length in Latin letters (lower case): read by the measure check and the asked unit's (below).
_LATIN_LENGTH = (
    r"km(?![a-z])|m(?![a-z])|cm(?![a-z])|mm(?![a-z])|ft\b|feet\b|foot\b|inch(?:es)?\b|miles?\b"
    r"|(?:kilo|centi|milli)?met(?:re|er)s?\b"
)
# A number with a unit of length or area ("8.46平方公里", "40米左右", "1.601 km²", "3,000 ft", "two miles"); a
# date is no answer to "how tall".
_MEASURE_RE = re.compile(
    r"(?:[0-9０-９][0-9０-９,.]*|[零一二两三四五六七八九十百千万亿]+|\b(?:one|two|three|four|five|six|seven|eight|nine|ten"
    r"|a few|several|hundreds?|thousands?)\b)\s*(?:多|余|几)?\s*"
    rf"(?:平方|立方)?(?:米|公里|千米|厘米|毫米|公尺|英尺|英里|英寸|海里|公顷|亩|{_LATIN_LENGTH}"
    r"|yards?\b|hectares?\b|acres?\b|square\b)",
    re.IGNORECASE,
)
# Another name of the subject is asked ("亨丁顿舞蹈症又叫什么？", "白尾雀鲷还有别的名字吗", "What else is it
# called?"); it is stated with a word that gives a name ("又称", "俗名为", "简称", "also known as") or in a
# parenthesis after the name ("亨丁顿舞蹈症（缩写：HD）"). A passage on the subject that gives none ("此种变种
# 症状被列为青少年亨丁顿舞蹈症") does not answer, however well it matches.
_ALIAS_CUE_RE = re.compile(
    r"(?:又|也|还|俗|别|简|全|原|学|英文|外|绰|昵|曾|本)(?:可以|能|被)?(?:叫|称|名)(?!字)|(?:别的|其他|其它)(?:名字|名称|叫法|称呼)"
    r"|(?:以前|原来|过去|从前|曾经)叫|把.{1,12}叫什么|(?:称为|称作|叫做)什么"
    r"|\b(?:also|otherwise) (?:known|called|named)\b|\bwhat else is\b.*\bcalled\b|\bother names?\b|\bnickname",
    re.IGNORECASE,
)
# "Who holds the role?": a role named and asked for by who ("现任校长是谁？", "站长是哪位", "谁担任主教练", "Who is the
# head coach of …?") is answered by a person's name. Only a role: "由谁改编 / 谁开发的" is as often answered by a
# company or a game (CMRC dev: "男女主角亦有专属声优这一模式是由谁改编的？" -> 村雨城), and those stay OTHER.
_ROLE = (
    r"(?:校长|站长|主席|主教练|教练|总统|总理|首相|市长|省长|州长|院长|社长|会长|董事长|总裁|总经理|经理|局长|部长|主任"
    r"|作者|导演|编剧|作曲|作词|主持人|创办人|创始人|发明人|建筑师|设计师|队长|主编|制作人|国王|皇帝)"
)
_PERSON_CUE_RE = re.compile(
    rf"{_ROLE}.{{0,3}}(?:是谁|为谁|是哪位|是哪一位|叫什么名字)|(?:谁|哪位|哪一位)(?:是|担任|出任|当).{{0,8}}{_ROLE}"
    r"|\bwho (?:is|was|are|were) (?:the )?(?:\w+ )?(?:principal|president|head|coach|chairman|chairwoman|director"
    r"|author|founder|ceo|manager|mayor|king|queen|captain|designer|architect|inventor|stationmaster|editor)\b",
    re.IGNORECASE,
)
# A person named: a transliterated name ("亨利·易卜生"); in Latin letters a run of capitalised words in a sentence
# ("Maria Chen", opening it too, or after Chinese text: "为David Smith"), a title and a name ("Dr. Wang"), or one
# capitalised word after "is / was / by / named" ("the principal is Smith"); or a word of two to four characters that
# jieba tags as a person's name (nr, nrfg, nrt). The tagger also tags roads, stations and towns so ("玉函路", "田泽湖",
# "秋田", each nr), and famous names are common words in its dictionary (毛泽东, 康熙): a word opening with a common
# surname counts unless it ends as only a place ends (路, 站, 湖 …); another counts when it is not common in the
# dictionary and does not end as a place may (山, 田, 川 too). CMRC dev has 33 questions of that form; the window
# around the answer names someone so in 31 (the other two: an architects' firm, and 山田贵敏, which jieba does not tag).
_NAMED_PERSON_RE = re.compile(
    r"[\u4e00-\u9fff]{1,6}[·・•][\u4e00-\u9fff]{1,8}"
    r"|(?:(?<=[a-z,;(] )|(?<=[\u4e00-\u9fff])|^|(?<=[.!?]\s))[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+"
    r"|\b(?:Dr|Prof|Mr|Mrs|Ms|Sir|Dame)\.?\s+[A-Z][a-z]+|\b(?:is|was|by|named)\s+[A-Z][a-z]+",
    re.MULTILINE,
)
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范"
    "金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤康易常乔赖文"
)
_ONLY_PLACE_ENDINGS = frozenset("路街道站区市县省镇村桥港湾门馆楼园寺庙场线町湖岛")
_PLACE_ENDINGS = _ONLY_PLACE_ENDINGS | frozenset("山田川州洲国河")
_COMMON_WORD = 1000  # jieba's dictionary count from which a word is a common word, not someone's name


def _person_word(word: str, freq: Mapping[str, int]) -> bool:
    if not 2 <= len(word) <= 4:
        return False
    if word[0] in _SURNAMES:
        return word[-1] not in _ONLY_PLACE_ENDINGS
    return freq.get(word, 0) < _COMMON_WORD and word[-1] not in _PLACE_ENDINGS


def _names_person(text: str) -> bool:
    if _NAMED_PERSON_RE.search(text):
        return True
    if not has_cjk(text):
        return False
    import jieba.posseg  # its tagger loads on first use

    jieba.dt.check_initialized()  # the dictionary's counts are read below: loaded first, in a fresh process too
    freq = jieba.dt.FREQ
    return any(pair.flag.startswith("nr") and _person_word(pair.word, freq) for pair in jieba.posseg.cut(text))


_ALIAS_RE = re.compile(
    r"又称|又名|又叫|又译|也称|也叫|亦称|亦名|或称|俗称|俗名|别称|别名|简称|全称|原名|原称|旧称|旧名|古称|通称|统称|学名"
    r"|本名|曾用名|英文名|译名|译作|译为|缩写|简写|外号|绰号|昵称|名为|称为|称作|叫做|叫作|号称"
    r"|[（(][^）)]{2,}[）)]|\b(?:called|known as|named|nicknamed|aka|abbreviated)\b",
    re.IGNORECASE,
)
_QUANTITY_CUE_RE = re.compile(
    r"多少|几[个位名种次年岁天月日周家条座项层号]?|多长|多大|多高|多重|多远|多久|多深|多宽|百分之几"
    r"|\bhow (?:many|much|long|old|far|tall|big|large|high|often|frequently)\b"
    r"|what (?:percentage|share|proportion|number)"
    r"|\b(?:minimum|maximum)\b|\b(?:length|duration)\b(?=\s+of\b|\s*[?？.]*\s*$)"
    r"|\b(?:top|highest)\s+speed\b|\bspeed limit\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = (
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
    r"million|billion|dozen|half|once|twice|percent"
)
_QUANTITY_RE = re.compile(rf"[0-9０-９]|[零一二两三四五六七八九十百千万亿]|半|\b(?:{_NUMBER_WORDS})\b", re.IGNORECASE)
# The unit a Chinese question names after 多少 / 几, as jieba cuts it ("多少吨货物", "几公里", "多少元", "多少人"),
# by kind: a window answers only with a number in a unit of that kind ("5000公斤" for "多少吨", not "1978年" or
# "四个方向"). Kinds, not units, must agree ("230m" and "二十米" for "多少米", "5000公斤" for "多少吨"), with one scale
# kept: a distance asked in kilometres or miles is answered in those ("全长57.1公里"), not by a length in metres,
# which is the length of something smaller (the natural set's zh-109 "北京地铁10号线全长多少公里？" had been answered
# by a station's "全长195米"); a length asked in metres may be given in kilometres ("跟踪距离40km", CMRC dev). Of
# the 41 CMRC dev and trial questions naming a unit of length, 40 are answered in the asked scale and the other one
# in kilometres for metres. A count of people ("多少人", "几名", "多少员工", "How many people / students …") is
# answered by a number of people ("8000余人", "学生人数约为1.2万", "3,000 employees") or a number said of people
# ("说勉语的人约有150万", CMRC DEV_177; "人口300万"), not by a count of something else ("下设10个研究所",
# "男女生比例约为1：7": the natural set's zh-127 and demo-093); in CMRC dev and trial 24 of the 25 questions asking
# one are answered so, and the other one by the bare number this reads. 磅 is no kind: a weight or a currency.
_PERSON_NOUNS = (
    "人口",
    "人数",
    "人次",
    "人",
    "名",
    "员工",
    "雇员",
    "职工",
    "工人",
    "学生",
    "居民",
    "乘客",
    "旅客",
    "游客",
    "观众",
    "教师",
    "会员",
    "球员",
    "运动员",
)
_EN_PERSONS = (
    r"(?:people|persons|employees|staff|students|members|workers|residents|inhabitants|passengers|visitors|players"
    r"|users|pupils|teachers|riders)\b"
)
_UNIT_KINDS: dict[str, tuple[str, ...]] = {
    "length": (
        "公里",
        "千米",
        "厘米",
        "毫米",
        "公分",
        "分米",
        "微米",
        "纳米",
        "公尺",
        "英尺",
        "英里",
        "英寸",
        "海里",
        "米",
    ),
    # asked, the long scale alone (above); a length (any unit) answers the others
    "distance": ("公里", "千米", "英里", "海里"),
    "mass": ("公斤", "千克", "公吨", "吨", "毫克", "公克", "克", "斤"),
    "money": ("美元", "美金", "港元", "港币", "欧元", "日元", "英镑", "人民币", "元", "块"),
    # a span of time: "多少小时", "多少年", and every "多久" / "多长时间" (DURATION_CUE_RE); not 分 (a score's
    # point as often as a minute), nor a bare 月 or 日 (the month and day of a date)
    "duration": ("秒钟", "秒", "分钟", "小时", "钟头", "天", "星期", "礼拜", "周", "个月", "年", "赛季"),
    "persons": _PERSON_NOUNS,
}
# A question that asks how long something takes or lasts (read folded: "多長時間" too): "多久", "多长时间", "几个月",
# "多少天", and in English "how long" with an auxiliary and a verb of lasting ("How long does the offer stay
# valid?", "how long will it take", "How long can a baobab tree live?"). "How long is the Seine, the river that
# runs through Paris" and "How long can a Front-Cover Text be" ask a length, and are left to the quantity; so
# are "多久…一次" (how often) and "那几年" / "近几年" (those years).
_DURATION_CUE_RE = re.compile(
    r"多久(?!.{0,12}一次)|多长时间|多少时间|(?<![哪那这近前后头])几个?(?:月|小时|钟头|星期|礼拜|天|年|周)(?!级|代)"
    r"|多少个?(?:天|年|月|小时|钟头|分钟|秒钟?|星期|礼拜|周)(?!级|代)"
    rf"|\bhow far{AHEAD}"
    r"|\bhow long\s+(?:does|do|did|will|would|must|can|could|should|may|might|has|have|had)\b"
    r"(?:(?!\b(?:that|which|who|whose)\b)[^,;?])*?"
    r"\b(?:take|taken|last|stay|remain|live|run|keep|wait|be (?:valid|available|kept|in force|effective))\b",
    re.IGNORECASE,
)
# The same kinds written in Latin letters (after fold: lower case), and a sum of money written by its currency
# ("300澳门元", "5亿韩元", "300新台币", "5000円", "3000万镑") or its sign ("HK$4.3", "¥20", "RMB 300").
_LATIN_UNITS = {
    "length": _LATIN_LENGTH,
    "mass": r"kg(?![a-z])|mg(?![a-z])|g(?![a-z])|t(?![a-z])|tonnes?\b|tons?\b|kilograms?\b|grams?\b",
    "money": rf"[\u4e00-\u9fff]{{0,3}}?[元币圆円镑]|(?:{CURRENCY_CODES}|{CURRENCY_WORDS})\b",
    "distance": r"km(?![a-z])|kilomet(?:re|er)s?\b|(?:nautical\s+)?miles?\b",
    # "3,000 employees", "1,200 full-time students"
    "persons": rf"(?:[a-z-]+\s+){{0,2}}?{_EN_PERSONS}",
}
_TIME_WORDS = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centur(?:y|ies))\b"
# An English question for a price or a cost ("How much is a ticket …?", "How much did the restoration cost?", "How
# much may I charge for the source?") asks a sum of money, as "多少钱" does; the one Chinese questions name by the
# word after 多少 (_KIND_OF_UNIT). Only where what is asked is money: "how much" followed by a verb (is, does, may …)
# and a word of price in the same clause, or by a word of money itself ("how much money", "how much rent"). "How much
# paid leave …?", "How much time do staff spend …?" and "How much is the overtime pay rate?" ask no sum (review,
# session 33).
_EN_MONEY_CUE_RE = re.compile(
    r"\bhow much\s+(?:(?:is|are|was|were|does|do|did|will|would|can|could|may|might|must|should|shall)\b"
    r"(?:(?!\b(?:that|which|who|whose)\b)[^,;?])*?\b(?:costs?|costed|prices?|priced|fares?|tickets?|charges?|charged"
    r"|fees?|tolls?|worth)\b"
    r"|(?:money|cash|rent|tuition|fees?|fares?)\b)",
    re.IGNORECASE,
)
# A speed asked ("What is the top speed on the line?", "最高时速是多少", "以多快的速度"; not "how fast" or "多快" alone,
# which ask how soon: "who do I tell and how fast?", "报销多快能到账") is given as one: an amount per
# hour or second ("350公里/小时", "120 km/h", "60节", "2马赫") or a number a word of speed gives ("时速350公里",
# "设计速度为每小时200公里"); not "全长364.6公里" (the natural set's zh-129, asked of a railway whose passage gives its
# length alone). Both CMRC trial questions asking a speed are answered so.
_SPEED_CUE_RE = re.compile(
    r"时速|最高速度|速度(?:是|为)?多少|多快的速度"
    r"|\b(?:top|maximum|max|highest|average|design)\s+speed\b|\bspeed limit\b",
    re.IGNORECASE,
)
# "多长" and "how long is" without a verb of lasting (_DURATION_CUE_RE) ask a length or a span of time: "试用期多长" is
# answered by "试用期为6个月", not by "进行一次" or "月工资的90%", and "桥多长" by metres. Read after the unit a Chinese
# question names ("很多长途车的票价是多少元" asks money); not 多长 of 很多 / 许多 + 长途 / 长者, nor a history's age
# ("有多长的历史": "已有1200年的历史" writes a year), nor "how long ago" (a date).
_EXTENT_CUE_RE = re.compile(r"(?<![很许好最])多长(?![途者期江城篇])(?!的?历史)|\bhow long\b(?!\s+ago\b)")
# The kinds a question's words ask for in either language, read in this order.
_UNIT_CUE_RES = {
    "speed": _SPEED_CUE_RE,
    "persons": re.compile(rf"\bhow many\s+(?:[a-z-]+\s+){{0,2}}?{_EN_PERSONS}"),
    "distance": re.compile(r"\bhow many\s+(?:km|kilomet(?:re|er)s|(?:nautical\s+)?miles)\b"),
}
# A unit of both length and distance asks the distance (the narrower reading).
_KIND_OF_UNIT = {unit: kind for kind, units in _UNIT_KINDS.items() for unit in units if kind != "length"} | {
    unit: "length" for unit in _UNIT_KINDS["length"] if unit not in _UNIT_KINDS["distance"]
}
_ASKS_HOW_MANY = frozenset({"多少", "几", "几个"})
_UNIT_AMOUNT = r"(?:[0-9０-９][0-9０-９,.]*|[零〇一二两三四五六七八九十百千万亿]+|半|数)\s*[多余几来万千百亿]*\s*"
# What else gives a value of a kind than an amount in its unit.
_UNIT_OTHERWISE = {
    # A sum by its sign ("HK$4.3", "RMB 300"), and a price stated as a rule rather than a sum ("free of charge",
    # "no more than your cost of physically performing source distribution", "免费"): "How much may I charge
    # for the source?" is answered so.
    "money": rf"|(?:{CURRENCY_BEFORE}|人民币)\s*[0-9]|\bfree of charge\b|\bno charge\b|\bnominal (?:fee|charge)\b"
    r"|\b(?:the|your|its|their) cost of\b|\bat cost\b|免费|不收费|免收",
    # A number said of people: after a word that counts them ("人口约300万", "在校学生人数为1.2万"), or right after
    # the people themselves and a word of amount ("说勉语的人约有150万", "在校生约1.2万"; not 人民币, 人工, 生产, nor
    # "4艘无人试验飞船和2艘"); "a population of", "a staff of 40", "thousands of visitors".
    "persons": r"|(?:人口|人数|员工数|学生数|人次|总数)[^。；;，,]{0,8}?[0-9０-９一二两三四五六七八九十百千万]"
    r"|(?:人(?![民工造类])|生(?![产活命物日长态])|[员者客众])(?:大约|约有|共有|多达|达到|超过|将近|总计|合计|[约有共达逾为近计])*"
    r"(?:[0-9０-９]|[一二两三四五六七八九十百千]+[万千百亿])"
    r"|\bpopulation\b|\bheadcount\b|\bworkforce\b|\bstaff of\s+[0-9]"
    rf"|\b(?:hundreds|thousands|millions|dozens)\s+of\s+{_EN_PERSONS}",
}
_UNIT_RES = {
    kind: re.compile(
        rf"{_UNIT_AMOUNT}(?:{'|'.join(sorted(units, key=len, reverse=True))}|{_LATIN_UNITS[kind]})"
        # a table's heading gives the unit and its cell the number: "全长（公里）：12.5"
        rf"|[（(]\s*(?:{'|'.join(units)})\s*[)）]\s*[:：]?\s*[0-9０-９]" + _UNIT_OTHERWISE.get(kind, "")
    )
    for kind, units in _UNIT_KINDS.items()
    if kind != "duration"
}
_UNIT_RES["speed"] = re.compile(
    r"(?:时速|速度|速率|每小时|航速|车速|\bspeeds?\b)[^。；;，,]{0,8}?[0-9０-９一二三四五六七八九十百千]"
    rf"|{_UNIT_AMOUNT}(?:(?:公里|千米|km|英里|miles?)\s*(?:/|每|per\s*)\s*(?:小时|时|h\b|hr\b|hour)"
    r"|km/h|kph\b|mph\b|节|knots?\b|马赫|mach\b|米/秒|m/s\b)",
    re.IGNORECASE,
)
_YEAR = r"(?:[12][0-9]{3})"
_EN_AMOUNT = rf"(?:[0-9][0-9,.]*|{_NUMBER_WORDS}|a|an|several|few|many)"
# A span of time: an amount in a unit of time ("22.5小时", "一个半赛季", "三个多月", "半年", "一刻钟", "50,000年",
# "three years", "twelve (12) months", "a 90-day period", "5 h"), or a span between two years ("1990年至1995年",
# "1990-1995"). A date written as one is none: a year of four digits or numerals ("1978年", "二〇一〇年"), the
# month and day after it ("10月26日"), an ordinal ("第3年"), a decade or a school year ("八十年代", "一年级"),
# an anniversary ("两周年"), half of a year named ("下半年"), an age ("30 years old"). A number of 日 is a span
# only where a period is counted from it ("30日内", "三十日內", "十个工作日后", "15日起"): "3月30日内" is a date. After
# 前 an amount is a date or a rank ("前108年", "前3名"), but after 提前 a span ("最多可提前90天预订"); after 最后
# it names a week or a day as after 上 and 下 ("每季度最后一周的周四": the quarter's last week).
_UNIT_RES["duration"] = re.compile(
    rf"(?<![0-9０-９〇零一二三四五六七八九十百千万亿两年月日.,第上下元国])(?<!(?<!提)前)(?<!最后)(?!{_YEAR}\s*年|[〇零一二三四五六七八九]{{4}}\s*年){_UNIT_AMOUNT}"
    r"(?:个\s*[多半]?\s*(?:小时|钟头|星期|礼拜|月|年头|赛季)|秒钟|秒|分钟|刻钟|小时|钟头|天|星期|礼拜|周(?!年)"
    r"|年(?![代级初底末中])|赛季|(?:个\s*)?(?:工作|自然)?日(?=\s*(?:内|以内|之内|后|以后|之后|起)))"
    rf"|\b{_EN_AMOUNT}[\s-]+(?:\([0-9]+\)[\s-]+)?(?:(?:more|full|additional|calendar|business|working)\s+)?"
    rf"{_TIME_WORDS}(?![\s-]+old\b)"
    r"|\b[0-9][0-9,.]*\s*(?:h|hrs?|mins?|secs?)\b"
    rf"|{_YEAR}\s*年?\s*(?:至|到|-|–|—|~|～|\bto\b|\buntil\b)\s*(?:{_YEAR}|今)",
    re.IGNORECASE,
)

# The length of a text: how long a Front-Cover Text may be. A Chinese one as a limit ("不超过200字", "500字以内"):
# "三字经", "一行人", "第5页" give none. An English one by a number ("at most 5 words", "ten or fewer lines"), not
# "a line manager", "in a word" or "many pages".
_TEXT_NUMBER = r"(?:[0-9０-９][0-9０-９,]*|[一二两三四五六七八九十百千万]+)"
_TEXT_LENGTH_RE = re.compile(
    rf"(?:不超过|不得超过|不多于|至多|最多|限)\s*{_TEXT_NUMBER}\s*个?(?:字|行|页)|(?<!第){_TEXT_NUMBER}\s*个?字(?:以内|之内)"
    rf"|\b(?:[0-9][0-9,]*|{_NUMBER_WORDS})[\s-]+(?:or\s+(?:fewer|less|more)\s+)?(?:words?|characters?|lines?|pages?)\b",
    re.IGNORECASE,
)

# An extent (多长, "how long is"): a length, a distance, a span of time or a length of text.
_UNIT_RES["extent"] = re.compile(
    "|".join(
        f"(?:{p.pattern})" for p in (*(_UNIT_RES[k] for k in ("length", "distance", "duration")), _TEXT_LENGTH_RE)
    ),
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=1024)
def asked_unit(question: str) -> str | None:
    """The kind of unit ("length", "distance", "mass", "money", "duration", "persons", "speed") a question asks its
    quantity in, or None. A question for how long something takes or lasts asks a duration, in either language
    (_DURATION_CUE_RE), one for how much something costs a sum of money (_EN_MONEY_CUE_RE); "top speed" / "最高时速"
    a speed, "how many people / employees / students" a count of people and "how many kilometres / miles" a distance
    (_UNIT_CUE_RES); otherwise the unit of a Chinese question is the word after 多少 / 几 / 几个, or one jieba glues to
    几 that is of two characters or more or counts people ("几公里", "几名"; not "几米", which jieba also keeps whole as
    a name, the illustrator's, nor "那几年": those years), never after 第 ("第几名" asks a place in a ranking)."""
    folded = fold(question)
    if _DURATION_CUE_RE.search(folded):
        return "duration"
    if _EN_MONEY_CUE_RE.search(folded):
        return "money"
    for kind, cue in _UNIT_CUE_RES.items():
        if cue.search(folded):
            return kind
    extent = "extent" if _EXTENT_CUE_RE.search(folded) else None
    if not has_cjk(question):
        return extent
    words = [w for w in jieba.lcut(folded) if w.strip()]
    for earlier, before, word in zip(["", "", *words], ["", *words], words, strict=False):
        if earlier.endswith("第") or before.startswith("第"):
            continue
        if before in _ASKS_HOW_MANY and word in _KIND_OF_UNIT:
            return _KIND_OF_UNIT[word]
        if word[:1] == "几" and word[1:] in _KIND_OF_UNIT and (len(word) >= 3 or word[1:] in _PERSON_NOUNS):
            return _KIND_OF_UNIT[word[1:]]
    return extent


def holds_unit(unit: str, folded: str) -> bool:
    """Whether the folded text `folded` holds a number in a unit of the kind `unit` (asked_unit)."""
    return _UNIT_RES[unit].search(folded) is not None


def gives_amount(question: str, folded: str) -> bool:
    """Whether the folded text `folded` gives the amount a quantity question asks for, as far as its unit tells
    (asked_unit): the answerability check and the choice of quoted sentences (generation/extractive.py) both read
    this."""
    unit = asked_unit(question)
    return unit is None or holds_unit(unit, folded)


# "May" is a month only beside a day or a year ("May 2007", "1 May"): "a Front-Cover Text may be at most 5
# words" dates nothing.
_MONTHS = r"january|february|march|april|june|july|august|september|october|november|december"
_MAY = r"\bmay\s+\d|\b\d{1,2}(?:st|nd|rd|th)?\s+may\b"
_DATE_RE = re.compile(
    rf"[0-9０-９]{{1,4}}\s*[年月日号]|[一二三四五六七八九十〇零]+\s*[年月日]|世纪|年代|朝|年间|时期|期间"
    rf"|\b1[0-9]{{3}}\b|\b20[0-9]{{2}}\b|\b(?:{_MONTHS})\b|{_MAY}|\b(?:century|decade|era)\b|\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|{_CLOCK_TIME}",
    re.IGNORECASE,
)


# The units of a span of time, in a Chinese text after its number ("12年", "3个月", "5个工作日") and in an English one
# with it ("7 hour", "two weeks", "5 working days"). Not a date ("7月", "8日"), nor a decade ("90年代").
_SPAN_ZH = r"(?:个)?(?:年(?!代|级|版)|个月|周|星期|天|小时|钟头|分钟|工作日)"
_SPAN_UNIT_EN = r"(?:(?:working|business|calendar)\s+)?(?:minutes?|hours?|days?|weeks?|fortnights?|months?|years?)\b"
_SPAN_EN = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fourteen|fifteen|twenty|thirty|sixty"
    rf"|ninety|a|an)[\s-]+{_SPAN_UNIT_EN}"
)

# "When" is answered by a date, but as often by a time of day, a season or an event ("夜间出没",
# "退役之后", "after the first release"), and in rules by a condition or a dated event ("only if you would
# otherwise be required", "as of the date such litigation is filed", "within 60 days"): any of those counts.
_TIME_RE = re.compile(
    r"[夜晚早午晨昏春夏秋冬季]|白天|日间|凌晨|傍晚|黄昏|之后|以后|之前|以前|期间|时期|当时|最初|起初|后来|随后"
    r"|\b(?:morning|afternoon|evening|night|noon|midnight|daytime|season|spring|summer|autumn|fall|winter"
    r"|after|before|during|until|since|once|upon|whenever|later|earlier"
    r"|if|unless|provided|date|within)\b"
    # A deadline given as a span ("You have two weeks.", "due in 3 working days", "7天内"): what "when must I hand it
    # in" asks. Only a span a deadline gives, not any quantity of time ("25 days of annual leave", "每周工作40小时").
    rf"|\b(?:have|has|had|due|in)\s+(?:(?:at\s+(?:least|most)|up\s+to|no\s+more\s+than)\s+)?{_SPAN_EN}"
    rf"|[0-9０-９一二三四五六七八九十两]+\s*{_SPAN_ZH}\s*(?:内|以内|之内)",
    re.IGNORECASE,
)


# The words that ask when a document was issued ("When was Apache License 2.0 released?", "GPL第二版是什么时候
# 发布的？", "when did the FSF put out version 3"): a document's dateline states it without them ("Apache
# License / Version 2.0, January 2004"; a policy's "Version 3, effective 1 March 2024"). In a document's
# opening that states a date (`dateline`), they count as held, in this check and in quoting. English words
# as stems (as the question's terms are), Chinese as jieba cuts them.
_ISSUING_EN = (
    "release released publish published issue issued put out come came adopt adopted introduce introduced"
    " write wrote written announce announced launch launched"
)
_ISSUING_ZH = "发布 发表 颁布 公布 出台 推出 印发 出版 问世 发行 制定"


@functools.cache
def issuing() -> frozenset[str]:
    """The tokens of the words that ask when a document was issued (stems and Chinese words)."""
    return frozenset(stem(w) for w in _ISSUING_EN.split()) | frozenset(_ISSUING_ZH.split())


# A question for the date something was issued, in the past: "When was / did ... released / put out",
# "...是什么时候发布的" (not "When must I publish ...", "什么时候要发布").
_ISSUED_EN_RE = re.compile(r"\bwhen\s+(?:was|were|did)\b", re.IGNORECASE)
_ISSUED_ZH_RE = re.compile(rf"(?:{'|'.join(_ISSUING_ZH.split())})(?:的|了)")


def _issued(question: str) -> bool:
    question = cue_form(question)
    if _ISSUED_ZH_RE.search(question):
        return True
    return _ISSUED_EN_RE.search(question) is not None and not issuing().isdisjoint(query_terms(question))


# The opening of a document: the first lines of its first chunk (title, version line, date line).
OPENING_LINES = 3
# A dateline is a short line ("Version 2.0, January 2004", "Version 3, effective 1 March 2024", "2004年1月") in
# the title block, the short lines a document opens with. A line of prose that states a date ("The operator of
# an MMC Site may republish … before August 1, 2009"), or a date after one ("<signature of Ty Coon>, 1 April
# 1990" under a paragraph), says when something else happens, even in a file's first passage.
DATELINE_CHARS = 80


def _dateline_of(text: str) -> str | None:
    """The dateline of a document's first chunk `text`: the first of its first OPENING_LINES lines that states
    a date, when it and every line before it is short; None when there is none."""
    return _dateline_in(text[: (DATELINE_CHARS + 1) * OPENING_LINES])


@functools.lru_cache(maxsize=4096)
def _dateline_in(head: str) -> str | None:
    for line in [line.strip() for line in head.split("\n") if line.strip()][:OPENING_LINES]:
        if len(line) > DATELINE_CHARS:
            return None
        if states(Asked.DATE, line):
            return line
    return None


def dateline(record: ChunkRecord, kind: Asked, text: str) -> bool:
    """Whether `text` (a sentence or a window of sentences of `record`, on lines of their own) holds its
    document's dateline, for a question asking the date something was issued: one of its sentences is
    (part of) the dateline line and states the date. The issuing words count as held in it (`issuing`)."""
    if record.index != 0 or kind is not Asked.DATE:
        return False
    line = _dateline_of(record.text)
    if line is None:
        return False
    return any(s.strip() and s.strip() in line and states(Asked.DATE, s) for s in text.split("\n"))


def opens_with_date(record_index: int, text: str) -> bool:
    """Whether a chunk holds its document's dateline (`dateline`), as retrieval reads it. Search counts the
    issuing words a date question asks with as held by it (search/hybrid.py), so "When was LGPL 2.1
    released?" finds "GNU Lesser General Public License / Version 2.1, February 1999", which never says
    "released"."""
    return record_index == 0 and _dateline_of(text) is not None


def issue_words(question: str, translated: Collection[str] = ()) -> list[str]:
    """The issuing words a question asks a date with ("When was it released", "put out"; through its
    translation, "发布的" -> release, publish), which a dateline holds (`opens_with_date`); none for other
    questions ("When must I publish the source?" asks a time, which no dateline gives)."""
    if asked(question) is not Asked.DATE:
        return []
    return sorted(issuing() & (frozenset(query_terms(question)) | frozenset(translated)))


# English function words ("under", "if", "have", "just", "now", "some"): NLTK's list as bm25s ships it,
# stemmed as query terms are. They say nothing about what a passage must state; the index keeps its own
# shorter list (textproc.STOPWORDS), so only this check reads the longer one.
@functools.cache
def function_words() -> tuple[frozenset[str], frozenset[str]]:
    """(English function words, stemmed; Chinese function words), read once from the lists bm25s ships (NLTK's English
    list; of its Chinese list, the single characters asked alone, "又", "叫", "能", and the longer entries jieba's
    tagger reads as a conjunction, a preposition or a particle, "还是", "按照", "的话": its other longer entries, such
    as "允许", "规定" or the pronoun "每天" (how often), can be what a question asks). "周末加班有加班费吗？还是只能
    调休" weighed "还是" (or) as a word a passage must hold. Importing bm25s takes a quarter of a second, so not at
    start-up."""
    from bm25s.stopwords import STOPWORDS_CHINESE, STOPWORDS_EN_PLUS
    from jieba import posseg  # its tagger loads on first use

    def grammatical(word: str) -> bool:
        tagged = posseg.lcut(word)
        return len(tagged) == 1 and tagged[0].flag in _FUNCTION_TAGS

    return (
        frozenset(stem(w) for w in STOPWORDS_EN_PLUS if w.isalpha()),
        frozenset(w for w in STOPWORDS_CHINESE if len(w) == 1 or grammatical(w)),
    )


# jieba's tags of function words: conjunction, preposition, particle.
_FUNCTION_TAGS = frozenset({"c", "p", "u"})


# A short name as staff write it ("GFDL", "CC0", "MPL", "LGPLv3", "12M"): capitals, or letters and digits run
# together. It names the document, product or route the question is about.
_LATIN_WORD_RE = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9.\-]*")  # not "x100" of "4x100米"


def short_names(question: str, *, typed: bool = True) -> dict[str, frozenset[str]]:
    """The short names a question gives its subject by, each with the tokens that write it: itself and,
    for a name run together with its version, the name part ("LGPLv3" -> lgplv3, lgplv, lgpl; "v2" -> v2, 2).
    The version number is also one of the question's identifiers. Two-letter words in capitals ("US", "EU") are
    left out: they are as often written as a word of the other language ("美国"). In a question whose case says
    nothing (`caseless`: "under gpl v2 can i charge for a copy", "HOW DO I CONNECT TO THE VPN"), a word is marked by
    a digit only, or by being a short word that is no English word (`_initials_like`: gpl, lgpl, gfdl, bsd).
    `typed=False`: a passage's text (pipeline/naming.py), whose capitals are read as written ("NO WARRANTY FOR THE
    PROGRAM" is a licence's own emphasis, not caps lock)."""
    question = cue_form(question)
    silent = typed and caseless(question)
    out: dict[str, frozenset[str]] = {}
    for m in _LATIN_WORD_RE.finditer(question):
        # "BSD-licensed" names BSD; "licensed" is no name.
        for word in m.group().rstrip(".-").split("-"):
            capitals = not silent and sum(c.isupper() for c in word) >= 2
            if not (capitals or any(c.isdigit() for c in word) or (silent and _initials_like(word))):
                continue
            tokens = tokenize(word)
            for token in tokens:
                splits = version_splits(token)
                if token.replace(".", "").isdigit() or (len(token) < 3 and not splits):
                    continue
                readings = {token} | {split[0] for split in splits}  # a bare version ("v2"): its number
                out[word if len(tokens) == 1 else token] = frozenset(readings)
    return out


def clipped_names(question: str, records: Sequence[ChunkRecord]) -> dict[str, frozenset[str]]:
    """short_names(question), where the question's case says nothing (`caseless`), each name of letters only also
    written as the words of `records` (text, title, section path) that it clips (`clips`): "how fast do i need to ack a
    pagerduty page?" names "ack" as it names "gpl" (no English word), and the on-call policy's "The primary must
    acknowledge a page within 5 minutes" mentions it. In a question that uses case, a name is written as typed. These
    spellings hold a name; they never make it one the documents are known to write (assess reads that from
    short_names' own): a passage that writes "Slack" does not make "sla" a name every answer must mention."""
    names = short_names(question)
    letters = [n for n in names if n.isalpha()] if names and caseless(cue_form(question)) else []
    if not letters:
        return names
    tokens = frozenset().union(*((r.terms or frozenset(passage_tokens(r.text))) | _context(r) for r in records))
    for name in letters:
        if longer := frozenset(t for t in tokens if any(clips(reading, t) for reading in names[name])):
            names[name] = names[name] | longer
    return names


def clips(name: str, token: str) -> bool:
    """Whether `name` (a short name as a token: "ack") is `token` (a passage's stemmed word) cut short: the start of a
    word more than twice as long, all letters ("acknowledg", "repositori"). A word a letter or three longer is another
    word that happens to start so ("slack" for "sla", "vaccin" for "vac", "seven" for "sev")."""
    return len(token) > 2 * len(name) and token.startswith(name) and token.isascii() and token.isalpha()


_CAPITAL_RE = re.compile("[A-Z]")
_LATIN_RUN_RE = re.compile("[A-Za-z]{2,}")
# The Latin words a question typed in capitals throughout has at least: "GPL?" or "FIFA 2026?" alone writes a name.
_SHOUTED_WORDS = 3


def caseless(text: str) -> bool:
    """Whether the case of `text` says nothing of what is a name: typed without capitals (in an English question none
    but a sentence's first letter and the word "I": "can i use gpl code in our app?", "Does the gpl allow it?"; in a
    Chinese one none at all: "gpl第二版…", where "Apache 许可证…" writes a name) or in capitals throughout ("HOW DO I
    CONNECT TO THE VPN FROM HOME": an English question of three Latin words or more, none in small letters; "NBA和CBA
    的MVP是谁" writes names)."""
    english = detect_language(text) == "en"
    words = _LATIN_RUN_RE.findall(text)
    if english and len(words) >= _SHOUTED_WORDS and all(w.isupper() for w in words):
        return True
    for m in _CAPITAL_RE.finditer(text):
        before = text[: m.start()]
        if not english or before[-1:].isalpha():
            return False  # inside a word ("GPL", "iPhone"), or a Latin word's capital in Chinese
        if m.group() == "I" and not text[m.end() : m.end() + 1].isalpha():
            continue
        opening = before.rstrip(" \t\"'“‘([")
        if opening and opening[-1] not in ".!?:;\n":
            return False  # a capital inside a sentence: "Under the Apache License"
    return True


def _initials_like(word: str) -> bool:
    """A word of three to five letters that is no English word (generality: wordfreq's list holds it nowhere), as
    initials are: gpl, lgpl, gfdl, bsd, wfh; not mit, vpn, top (common words too)."""
    return word.isascii() and word.isalpha() and 3 <= len(word) <= 5 and not generality.known(stem(word.lower()))


# A name an English question writes in capitals, two words or more ("the Commons Clause", "Boost Software License"):
# words that start with a capital and go on in small letters (an initialism is a short name, above). A sentence's
# first word has its capital from the sentence ("Next question. Explain Corresponding Source…"). A name after a
# preposition of place, time or means only qualifies what is asked ("an Uber from Heathrow Airport", "for my Virgin
# Active membership", "working on Christmas Day"): a passage that answers the rule need not name it; nor does a
# greeting ("Dear Support Team, …"). A question in title case ("How Do I Reset My Password?") capitalises every word
# but the small ones, and names nothing so.
_CAPITALISED = r"[A-Z][a-z][A-Za-z\-]*"
_CAPITALISED_RUN_RE = re.compile(rf"(?<![\w'’-]){_CAPITALISED}(?:['’]s)?(?:[ \t]+{_CAPITALISED}(?:['’]s)?)+(?![\w-])")
_SENTENCE_START_RE = re.compile(r"(?:^|[.!?:;\n])[\s\"'“‘(\[]*$")
# A greeting's words: the name after them (or glued to them in one run of capitals) is whom it is to.
_GREETINGS = frozenset({"dear", "hi", "hello", "hey", "thanks"})
_QUALIFYING_RE = re.compile(
    r"\b(?:from|to|in|at|on|for|with|by|near|into|onto|via|through|during|inside|within|around|across|between)"
    r"(?:\s+(?:the|a|an|my|our|your|their|his|her|its|this|that))?\s+$"
    rf"|(?:^|[.!?,;]\s*)(?:{'|'.join(sorted(_GREETINGS))}|thank\s+you)\s*,?\s+$",
    re.IGNORECASE,
)
_TITLE_CASE_SMALL = frozenset(
    "a an the and but or nor for so yet as at by from in into of off on onto out over per to up via with".split()
)
_LOWER_WORD_RE = re.compile(r"(?<![\w'’-])[a-z]+(?![\w'’-])")


def capitalised_names(question: str) -> dict[str, tuple[str, ...]]:
    """The names an English question asks about in capitals, two words or more, each with its search tokens in order
    (possessives dropped: "the Initial Developer's grants" names "Initial Developer"). A passage holds such a name when
    its text, title or section path gives those tokens in that order (`holds_name`). Not a name after a preposition of
    place, time or means (it qualifies what is asked), nor anything in a question written in title case: one whose
    only words in small letters are those title case leaves small ("a", "the", "for", "of"…)."""
    question = cue_form(question)
    if detect_language(question) != "en":
        return {}
    runs = list(_CAPITALISED_RUN_RE.finditer(question))
    if not runs or all(w in _TITLE_CASE_SMALL for w in _LOWER_WORD_RE.findall(question)):
        return {}
    out: dict[str, tuple[str, ...]] = {}
    for m in runs:
        before = question[: m.start()]
        if _QUALIFYING_RE.search(before):
            continue
        words = re.sub(r"['’]s\b", "", m.group()).split()
        if words[0].lower() in _GREETINGS:
            continue  # "Dear Support Team, …"
        if _SENTENCE_START_RE.search(before):
            words = words[1:]  # a sentence's first word has its capital from the sentence
        tokens = name_tokens(" ".join(words))
        if len(words) >= 2 and len(tokens) >= 2:
            out[" ".join(words)] = tokens
    return out


@functools.lru_cache(maxsize=4096)
def name_tokens(text: str) -> tuple[str, ...]:
    """The search tokens of `text` in order, less the "s" a possessive leaves ("Affirmer's Copyright": affirm,
    copyright), as a name is read on both sides (cached: a candidate's text is read for each name, then judged)."""
    return tuple(t for t in tokenize(text) if t != "s")


def holds_name(tokens: Sequence[str], text: str) -> bool:
    """Whether `text` gives the search tokens of a name (capitalised_names) one after another."""
    return f" {' '.join(tokens)} " in f" {' '.join(name_tokens(text))} "


# A licence as a question names it: "the zlib license", "the Eclipse Public License", "Creative Commons BY-NC licence",
# "MIT 许可证".
_LICENCE_NOUN_RE = re.compile(r"\blicen[cs]es?\b|许可证|许可协议", re.IGNORECASE)
# A passage's tokens (textproc.passage_tokens, stemmed) that say "licence": what names a licence as one.
_LICENCE_TOKENS = frozenset({"licens", "licensor", "licensee", "许可", "许可证", "授权"})
_VERSION_WORD_RE = re.compile(r"v?\d+(?:\.\d+)*", re.IGNORECASE)
_NAME_GAP_RE = re.compile(r"\s*(?:\d+(?:\.\d+)*\s*)?")


def licence_names(question: str) -> dict[str, frozenset[str]]:
    """The words a question names a licence by, each with its search tokens: the Latin words right before "license",
    "licence", 许可证 or 许可协议 that write a name (a capital, but for an English question's first word; a capital
    inside; a digit; or no English word at all, "zlib"), up to the first that does not ("What does the zlib license
    say…": zlib; "Eclipse Public License": Eclipse, Public). A licence named by a word no document the reader may read
    holds is one the corpus lacks (assess: no passage answers a question about it)."""
    return _name_words(licences_named(question))


def _name_words(licences: Sequence[Mapping[str, frozenset[str]]]) -> dict[str, frozenset[str]]:
    """The words of every licence's name, with their tokens (licence_names, of licences_named's)."""
    return {word: tokens for licence in licences for word, tokens in licence.items()}


def licences_named(question: str) -> list[dict[str, frozenset[str]]]:
    """Each licence the question names (licence_names), its name's words in the question's order: "Is the MIT license
    compatible with the Apache License?" names two, "the Python Software Foundation License" one of three words."""
    question = cue_form(question)
    english = detect_language(question) == "en"
    silent = caseless(question)  # a capital then says nothing: "no English word at all" still does
    out: list[dict[str, frozenset[str]]] = []
    for noun in _LICENCE_NOUN_RE.finditer(question):
        end = noun.start()
        words: dict[str, frozenset[str]] = {}
        for m in reversed(list(_LATIN_WORD_RE.finditer(question[:end]))):
            if not _NAME_GAP_RE.fullmatch(question[m.end() : end]):
                break  # not right before the noun (but for a version number), or the name before it has ended
            word = m.group().rstrip(".-")
            end = m.start()
            if _VERSION_WORD_RE.fullmatch(word):
                continue  # "GPL v3 license": a version, not a name
            tokens = frozenset(t for t in tokenize(word) if not t.replace(".", "").isdigit())
            first = english and not question[: m.start()].strip()
            cased = not silent and (any(c.isupper() for c in word[1:]) or (word[:1].isupper() and not first))
            written = cased or any(c.isdigit() for c in word[1:])
            if not tokens or not (written or not any(generality.known(t) for t in tokens)):
                break
            words[word] = tokens
        if words:
            out.append(dict(reversed(words.items())))
    return out


# Function characters jieba glues to a name it does not know ("马赛罗是" -> "马赛" + "罗是").
_GLUED = "是的了在为和与被把将对于从向以及也都而就曾已所"
# Auxiliaries jieba glues to the one-character word before them where its dictionary has no word for the pair
# ("碰到水会怎样" -> "水会", "10号线要" -> "线要", "几门课有" -> "课有").
_AUXILIARIES = "会要有能"
# Modals jieba glues to the verb of one character after them ("能订", "要换", "可报"); not 有, which asks with what
# follows it ("有何", "有啥": what the passage must say is asked, not a verb).
_MODALS = "会要能可"

# A number as a question writes it, in thousands too ("3,000": one number, read as 3000 by `_number`).
_NUMBER_TOKEN_RE = re.compile(
    rf"{THOUSANDS_NUMBER_RE.pattern}|(?<![\d.])(?:(?<!\d,)|(?!\d{{3}}(?!\d)))\d+(?:\.\d+)?(?![\d.])"
)
# A number without its thousands separators ("3,000" -> "3000"), as `_mentions` reads a text.
_number = without_separators


# A span of time the asker is in, after a number of one or two digits (no ordinal's 第, no year's leading zero).
_SPAN_AFTER_RE = re.compile(rf"\s*{_SPAN_ZH}|[\s-]*{_SPAN_UNIT_EN}", re.IGNORECASE)
# "第四版", "三号", "第十届" name one of a family; "第一次" (the first time) does not.
ORDINAL_MARKS = "号版代期届条章"
_ZH_ORDINAL_RE = re.compile(rf"第?([一二三四五六七八九十]{{1,3}})(?=[{ORDINAL_MARKS}])")
_ZH_DIGITS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


# The kinds of amount a yes-or-no question offers, each by its unit after the number: a span of time, a sum, people,
# a length of text (digits, characters, words: "12 characters", "14位"), a count (copies, times) or a share. A sum may
# be written in thousands or ten thousands ("20k USD", "5万美元"; "a 300k purchase" is one too).
_OFFERED_UNITS = {
    "time": _SPAN_AFTER_RE.pattern,
    "money": rf"\s*(?:(?:k\b|千|万|亿|(?:thousand|million|billion)\b)\s*)?(?:{CURRENCY_AFTER})|k\b",
    "persons": rf"\s*(?:个?人|{_EN_PERSONS})",
    "length": r"\s*(?:个(?:字符|字)|[位字](?![符母体节])|(?:characters?|chars|digits|letters|words|lines|pages)\b)",
    "count": r"\s*(?:[次份]|(?:copies|times)\b)",
    "share": r"\s*(?:[%％]|(?:percent|per\s*cent)\b)",
}
_OFFERED_UNIT_RES = {kind: re.compile(unit, re.IGNORECASE) for kind, unit in _OFFERED_UNITS.items()}
# A sum with its currency before the number ("$3,000", "USD 20,000", "¥600").
_CURRENCY_BEFORE_RE = re.compile(rf"(?:{CURRENCY_BEFORE})\s*$", re.IGNORECASE)
# An amount of each kind as a passage states it ("at least 14 characters", "15个工作日", "每晚不超过600元").
_STATED_AMOUNT_RES = {
    kind: re.compile(
        rf"(?:[0-9０-９][0-9０-９,.]*|[零一二两三四五六七八九十百千万]+|\b(?:{_NUMBER_WORDS}))(?:{unit})"
        # a sum with its currency before it ("more than CNY 10,000", "$5,000")
        + (rf"|(?:{CURRENCY_BEFORE})\s*[0-9０-９]" if kind == "money" else ""),
        re.IGNORECASE,
    )
    for kind, unit in _OFFERED_UNITS.items()
}


def offered_amounts(question: str) -> dict[int, tuple[str, str]]:
    """The amounts a question offers, each as its number (`_number`) and kind by its position in the folded question:
    any amount of a kind in a yes-or-no question (textproc.asks_yes_or_no: "Are passwords required to be 12
    characters?" -> 12, a length; "差旅报销的期限是30天吗？" -> 30, a time), and a sum of money in any question, the
    asker's own ("Who approves a 20k USD purchase?", "买一台8000元的电脑要谁批？"), which a policy states as a range
    ("above 5,000 USD"). A passage that states another amount of the kind answers the question ("at least 14
    characters": no; "from 5,000 USD up to 50,000 USD require the Finance Controller"), so these are neither names the
    passage must write (`identifiers`) nor its focus (`focus_terms`); the passage's document must write the number or
    state an amount of the kind instead (`assess`). Not a number run on from letters ("GB2312", a name), an ordinal
    (第3), one of a family ("10号") nor a year ("2009年")."""
    yes_or_no = asks_yes_or_no(question)
    folded = fold(question)
    if not yes_or_no and not any(c.isdigit() for c in folded):
        return {}
    out: dict[int, tuple[str, str]] = {}
    for m in _NUMBER_TOKEN_RE.finditer(folded):
        before, after = folded[: m.start()], folded[m.end() :]
        if (before[-1:].isascii() and before[-1:].isalpha()) or before.rstrip().endswith("第"):
            continue
        if len(m.group()) == 4 and after.lstrip().startswith("年"):
            continue
        if _CURRENCY_BEFORE_RE.search(before):
            kind: str | None = "money"
        else:
            kind = next((k for k, unit in _OFFERED_UNIT_RES.items() if unit.match(folded, m.end())), None)
        if kind is not None and (yes_or_no or kind == "money"):
            out[m.start()] = (_number(m.group()), kind)
    return out


@functools.lru_cache(maxsize=1024)
def _offered_only(question: str) -> tuple[tuple[str, str], ...]:
    """The (number, kind) of each amount a yes-or-no question offers whose number is no identifier of it as well ("GPL
    3 … 3 copies" keeps its 3 a name): what `assess` asks of a passage's document instead, and `focus_terms` leaves
    out."""
    numbers = identifiers(question)
    offered = {(number, kind) for number, kind in offered_amounts(question).values() if number not in numbers}
    return tuple(sorted(offered))


def identifiers(question: str) -> list[str]:
    """The numbers a question names, as digits ("2009", "2.0" stays "2.0"); a number that names one of a
    family keeps its mark ("第四版" -> "4版", "鑫诺七号" -> "7号", "10号线" -> "10号"), so "7月" does
    not stand for 鑫诺七号. Not a span of time the asker is in (`_SPAN_AFTER_RE`: "工作12年有几天年假？", "a 7 hour
    flight"): a policy states it as a range ("满10年不满20年的", "6 hours or longer"), never the asker's number. Nor an
    amount a yes-or-no question offers (`offered_amounts`: "Is the hotel cap 600 yuan a night?"), which the passage
    that states the cap answers whatever it is."""
    folded = fold(question)
    found: list[str] = []
    offered = offered_amounts(question)
    for m in _NUMBER_TOKEN_RE.finditer(folded):
        if (
            len(m.group()) <= 2
            and not m.group().startswith("0")
            and not folded[: m.start()].rstrip().endswith("第")
            and _SPAN_AFTER_RE.match(folded, m.end())
        ):
            continue
        if m.start() in offered:
            continue
        mark, number = folded[m.end() : m.end() + 1], _number(m.group())
        found.append(number + mark if mark and mark in ORDINAL_MARKS else number)
    cue = cue_form(question)
    for m in _ZH_ORDINAL_RE.finditer(cue):
        value = _zh_small_number(m.group(1))
        if value is not None:
            found.append(f"{value}{cue[m.end()]}")
    return list(dict.fromkeys(found))


# How an English text writes a version before its number ("version 2", "Ver. 2", "v3", run together with its name
# too, "gplv3"; not the "v" ending another word, "dev 1"), in folded text.
_VERSION_NOUN = r"\b(?:version|ver\.|edition|release|revision)\s*|\bv\s?|(?<=[a-z])v(?=\d)"


def _zh_small_number(text: str) -> int | None:
    """一 .. 九十九 as an int (ordinals and model numbers); None for anything else."""
    if text == "十":
        return 10
    if "十" in text:
        tens, _, units = text.partition("十")
        high = _ZH_DIGITS.get(tens, 1 if not tens else 0)
        low = _ZH_DIGITS.get(units, 0) if units else 0
        return high * 10 + low if high else None
    return _ZH_DIGITS.get(text) if len(text) == 1 else None


def _mentions(number: str, text: str) -> bool:
    """`number` occurs in `text` as a number (not inside a longer one), in digits or in Chinese numerals;
    a marked one ("7号") with the same mark in a Chinese passage (an English one says "Version 3")."""
    if number[-1] in ORDINAL_MARKS:
        value, mark = number[:-1], number[-1]
        if not has_cjk(text):
            # An English passage writes a version with its noun ("第一版" is "version 1", "v1", "GPLv1"): "Sections 1
            # and 2 above" in GPL 2 does not name version 1. Any other mark: the number (a section is written in too
            # many ways, "5. Submission", "Sections 4 and 5", "Article 5", to ask for one).
            if mark != "版":
                return _mentions(value, text)
            number_re = rf"{re.escape(value)}(?![\d]|\.\d)"
            return re.search(rf"(?:{_VERSION_NOUN}){number_re}", text) is not None
        for m in re.finditer(rf"(?<![\d.])(\d+(?:\.\d+)?)\s*{mark}|([一二三四五六七八九十]{{1,3}})(?={mark})", text):
            if m.group(1) is not None and m.group(1) == value:
                return True
            if m.group(2) is not None and value.isdigit() and _zh_small_number(m.group(2)) == int(value):
                return True
        return False
    text = without_separators(text)
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", text) is not None


def asked(question: str) -> Asked:
    """The kind of answer the question wants, where a cheap reliable cue says so (read in `cue_form`: "什麼時候"
    and "ＷＨＥＮ ＷＡＳ" ask what "什么时候" and "When was" ask)."""
    question = cue_form(question)
    if _CLOCK_CUE_RE.search(question):
        return Asked.CLOCK
    if _DATE_CUE_RE.search(question):
        return Asked.DATE
    if (_TIME_CUE_RE.search(question) or _asks_when_last(question)) and not _WHEN_CONDITION_RE.search(question):
        # "When was it released / published / 什么时候发布的" asks the date of an issue, not a condition ("When
        # must I publish the source?").
        return Asked.DATE if _issued(question) else Asked.TIME
    if _MEASURE_CUE_RE.search(question):
        return Asked.MEASURE
    if _QUANTITY_CUE_RE.search(question):
        return Asked.QUANTITY
    if _ALIAS_CUE_RE.search(question):
        return Asked.ALIAS
    if _PERSON_CUE_RE.search(question):
        return Asked.PERSON
    if asks_definition(question):
        return Asked.DEFINITION
    return Asked.OTHER


# The kinds whose answer is a value the check can see in a window (a date, a time, a number, a measure): asked for,
# the window that answers must hold one, which is what lets a passage read across languages qualify on less of the
# threshold (tiering.share). Not an alias: its cue in a passage (a parenthesis, "称为") is too common to screen by.
VALUE_KINDS = frozenset({Asked.QUANTITY, Asked.MEASURE, Asked.DATE, Asked.TIME, Asked.CLOCK})


def names_no_amount(question: str) -> bool:
    """Whether the question writes no number at all: no digit, Chinese numeral, 半 nor English number word
    (conflict reads a yes-or-no question so as asking a claim, not a value)."""
    return _QUANTITY_RE.search(cue_form(question)) is None


def asks_value(question: str) -> bool:
    """Whether the question asks for a value of a kind the check reads (VALUE_KINDS)."""
    return asked(question) in VALUE_KINDS


# What quoting prefers (generation/extractive.py): a sentence that plainly states a value of the asked kind.
# Stricter than `holds`, the check's lenient gate: a Chinese numeral counts only with a measure word after it
# ("一般", "统一" state no quantity), a year needs three or four digits, and "when" wants a date.
_STATED_QUANTITY_RE = re.compile(r"[0-9０-９]|[一二两三四五六七八九十百千万]+[个位名种次年岁天月日米公里元]")
# A line's number of clause or item ("2.3 试用期工资为…", "25. （直属经理）…", "5.2.4 ", "(3) ", "一、") states no
# quantity: in a numbered policy every sentence would, and "试用期多长" was quoted with "25. 入职第3个月进行一次
# 试用期中期反馈" over "标准试用期为6个月". The list marks the chunker reads (chunking.LIST_ITEM_MARK) and a number of
# sections before a space and a word ("2.3 The allowance", "2.3 试用期"; not "2.5 days", "3.5 公里", "1.5 万人").
_LABEL_RE = re.compile(
    rf"^[ \t]*(?:{LIST_ITEM_MARK}|[(（][0-9]{{1,3}}[)）]|[0-9]{{1,3}}(?:\.[0-9]{{1,3}})+[ \t]+(?=[A-Z\u4e00-\u9fff])"
    r"(?!万|亿|千|百|个|公里|公斤|米|天|月|年|周|小时|分钟|(?:Million|Billion|Thousand)\b))",
    re.MULTILINE,
)
# An ordinal ("入职第3个月", "第二次") gives a place in a sequence, not an amount: it states a quantity only for a
# question that asks for a place ("第几名", "排名多少"), not for one that names something by its ordinal
# ("第二次世界大战死亡多少人").
_ORDINAL_RE = re.compile(r"第\s*[0-9０-９零一二两三四五六七八九十百千]+")
_ASKS_ORDINAL_RE = re.compile(r"第\s*(?:几|多少)|排名|名次|排第|\bwhat (?:rank|place|position)\b", re.IGNORECASE)
# An English reference by number ("section 3", "Version 2.1", "Article 11", "subsection 4(b)") names a part or an
# edition, as an ordinal does: it states a quantity only for a question that asks which one ("Which section…",
# "what version"). "If the Cover Text requirement of section 3 is applicable" gives no number of copies.
_REFERENCE_RE = re.compile(
    r"\b(?:version|section|subsection|article|chapter|clause|paragraph|exhibit|appendix|schedule)s?"
    r"\s+[0-9]+(?:\.[0-9]+)*(?:\s*\([a-z0-9]{1,3}\))*",
    re.IGNORECASE,
)
# A reference to a section of the same document by its number: "Section 3", "clause 4.2".
_SECTION_REFERENCE_RE = re.compile(r"\b(?:section|clause|article)s?\s+([0-9]+(?:\.[0-9]+)*)", re.IGNORECASE)
_ASKS_REFERENCE_RE = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:version|section|subsection|article|chapter|clause|paragraph|exhibit|appendix"
    r"|schedule)s?\b|\bversion number\b",
    re.IGNORECASE,
)
_STATED_DATE_RE = re.compile(
    r"[0-9０-９]{3,4}\s*年|[0-9]{1,2}\s*月|[0-9]{1,2}\s*日|世纪|年代|朝|年间|\b1[0-9]{3}\b|\b20[0-9]{2}\b",
    re.IGNORECASE,
)


# A deadline a rule gives as a span from an event states when, as a date does ("must be published … within 5 business
# days of the incident being resolved", "3个工作日内", "出发前3天", "提前两周", "2 weeks in advance"), and so does the
# date of an event ("effective on the date Contributor first makes Commercial Use"): what "postmortem due when?" asks.
# Only "when" (TIME): a question for a date ("what date", "哪一天") wants the date. Not a span that names a length ("a
# week-long bootcamp").
_ZH_SPAN_NUMBER = r"[0-9０-９一二三四五六七八九十两半]+"
_STATED_DEADLINE_RE = re.compile(
    rf"\b(?:within|after|before|in|no\s+later\s+than)\s+(?:(?:at\s+(?:least|most)|up\s+to|no\s+more\s+than)\s+)?"
    rf"(?:the\s+first\s+)?{_SPAN_EN}(?!-)"
    rf"|\b{_SPAN_EN}(?!-)\s+(?:in\s+advance|ahead|beforehand|before|prior\s+to|after)\b"
    # the date of an event: "the licenses … are effective on the date Contributor first makes Commercial Use"
    r"|\b(?:on|as\s+of|from)\s+the\s+date\b"
    rf"|{_ZH_SPAN_NUMBER}\s*{_SPAN_ZH}\s*(?:内|以内|之内|之后|以后|之前|以前|后|前)"
    rf"|(?:提前|[前后])\s*{_ZH_SPAN_NUMBER}\s*{_SPAN_ZH}",
    re.IGNORECASE,
)


def states(kind: Asked, text: str, question: str = "") -> bool:
    """Whether `text` plainly states a value of the asked kind (never for OTHER): what quoting prefers. A quantity is
    not a line's clause number (`_LABEL_RE`), nor an ordinal unless the `question` asks for a place
    (`_ASKS_ORDINAL_RE`)."""
    if kind is Asked.TIME and _STATED_DEADLINE_RE.search(text) is not None:
        return True
    if kind in (Asked.DATE, Asked.TIME):
        return _STATED_DATE_RE.search(text) is not None
    if kind is Asked.CLOCK:
        return _clock(text)
    if kind is Asked.QUANTITY:
        text = _LABEL_RE.sub("", text)
        if not _ASKS_ORDINAL_RE.search(question):
            text = _ORDINAL_RE.sub("", text)
        if not _ASKS_REFERENCE_RE.search(question):
            text = _REFERENCE_RE.sub("", text)
        return _STATED_QUANTITY_RE.search(text) is not None
    if kind in (Asked.MEASURE, Asked.ALIAS, Asked.PERSON):
        return holds(kind, text)
    return False


def _states_value(kind: Asked, text: str, question: str) -> bool:
    """What a passage that reached only the lower bar of a value question must give (assess's `stating`): a value
    plainly stated (`states`), and for "when" a time on the clock too ("早上8点开门" says when the library opens)."""
    return states(kind, text, question) or (kind is Asked.TIME and _clock(text))


def _clock(text: str) -> bool:
    """Whether `text` holds a time on the clock, in digits or in words ("opens at eight", "nine o'clock":
    read as digits by text2num, the parser of spelled numbers the version names use)."""
    if _CLOCK_RE.search(text) is not None:
        return True
    if _HOUR_WORD_RE.search(text) is None:
        return False
    from text_to_num import alpha2digit  # imported when a window writes a number in words

    try:
        digits = alpha2digit(text, "en", threshold=0)
    except (UnicodeError, ValueError):  # text the parser cannot take (a lone surrogate): no words read
        return False
    return _CLOCK_RE.search(digits) is not None


def holds(kind: Asked, text: str) -> bool:
    """Whether `text` holds a value of the asked kind (always true for OTHER)."""
    if kind is Asked.DATE:
        return _DATE_RE.search(text) is not None
    if kind is Asked.TIME:
        return _DATE_RE.search(text) is not None or _TIME_RE.search(text) is not None or _clock(text)
    if kind is Asked.CLOCK:
        return _clock(text)
    if kind is Asked.QUANTITY:
        return _QUANTITY_RE.search(text) is not None
    if kind is Asked.MEASURE:
        return _MEASURE_RE.search(text) is not None
    if kind is Asked.ALIAS:
        return _ALIAS_RE.search(text) is not None
    if kind is Asked.PERSON:
        return _names_person(text)
    return True


@dataclass(frozen=True, slots=True)
class Verdict:
    answers: bool
    focus: float  # share of the focus weight the best window holds (1.0: nothing to look for)
    typed: bool  # the best window holds a value of the asked kind
    window: str  # the best window, for the trace
    detail: str  # why, in words, for the trace
    # The same as data (records.Rejection.facts), for the pages to say in the reader's language.
    facts: Mapping[str, object] = field(default_factory=dict, compare=False, hash=False)


def assess(
    question: str,
    records: Sequence[ChunkRecord],
    groups: Sequence[Group] = (),
    *,
    judged: Sequence[ChunkRecord] | None = None,
    whole_documents: bool = False,
    indexed: Collection[str] | None = None,
    named: Collection[str] = (),
    limit: int | None = None,
    synonyms: Mapping[str, Collection[str]] | None = None,
    language: str = "",
    stating: Collection[str] = (),
) -> dict[str, Verdict]:
    """A verdict for each of `judged` (default: every record), by chunk_id, read against `records` as the
    candidate pool. With `whole_documents`, a record whose document version already has an answering
    passage earlier in `judged` gets no verdict: its document is judged whole, so it stays either way.
    `indexed`: the spellings of the question's short names that some chunk of the whole index holds
    (None: only the candidates are known). `named`: the titles of the candidates' documents the question
    names (pipeline/naming.py). `synonyms`: the other words a passage may write a question term as
    (pipeline/synonyms.alternatives, by term). `limit`: judging stops once the first `limit` records that
    stay (answering, or of a part that answers) are known: every record before them judged, or of a part
    that answered already (with `whole_documents` those get no verdict, as always); the records after the
    record being judged when it stops get no verdict (the caller cuts them at RAG_TOP_K). `language`: the
    language the question is asked in when the caller knows it better than `question` says (a follow-up is
    searched with its thread's earlier terms: "When does the badge office open?" after a Chinese question). `stating`:
    the chunk_ids whose window must *state* a value of the asked kind (`states`, stricter than `holds`: a date, not
    "之后" or "after"), the passages that reached only the lower bar of a question asking for a value
    (hybrid.qualify, tiering.VALUE_ACROSS_SHARE)."""
    from . import naming  # naming reads this module's identifiers and short names

    synonyms = synonyms or {}
    # The short name the question gives its subject by ("GFDL", "LGPLv3") must be held by the passage's
    # document (below); a word of the question that writes it is held wherever any of its spellings is.
    names = clipped_names(question, records)
    spellings = frozenset().union(*names.values())
    words = {
        w: parts.union(*(r for r in names.values() if not r.isdisjoint(parts))) for w, parts in _words(question).items()
    }
    # A word is also held where the passage writes it otherwise (`synonyms`: "wrote" as "written"); how
    # much it weighs is still read from the word itself.
    held_as = {w: parts.union(synonyms.get(w, ())) for w, parts in words.items()}
    kind = asked(question)
    unit = asked_unit(question) if kind is Asked.QUANTITY else None
    # What a term means is answered by a window that defines it ("静电感应是物体内的电荷…"), not one that only uses it
    # ("静电感应是可逆的"); read in the question's language only: the test looks for the term as the question writes it.
    defines = definition_test(question) if kind is Asked.DEFINITION else None
    translated = [g.terms for g in groups]
    n = max(1, len(records))
    # A name the question writes in pinyin ("Beitucheng") is held by a text that writes it in characters.
    spelled = pinyin.names(question)
    # A searched record's terms already hold the names (hybrid.search adds them); others are read here.
    pools = [
        (r.terms or (frozenset(passage_tokens(r.text)) | pinyin.held(spelled, _whole(r)))) | _context(r)
        for r in records
    ]
    numbers = identifiers(question)
    offered = _offered_only(question)
    # Each candidate's whole text, folded, read once: for a name spelled from glued pieces and for the
    # numbers the question names.
    glued = any(has_cjk(w) and w not in parts for w, parts in words.items())
    wholes = [_whole(r) for r in records] if glued or numbers or offered else [""] * len(records)
    df = {
        w: sum(
            not pool.isdisjoint(parts) or (glued and w not in parts and w in whole)
            for pool, whole in zip(pools, wholes, strict=True)
        )
        for w, parts in words.items()
    }
    # A word common in the language ("good", "get", "back") says little, however rare among the candidates.
    weight = {w: generality.capped(w, _idf(df[w], n)) * _length(w) for w in words}
    # The translated reading is for passages in the other language, as in the search (hybrid.search): a
    # Chinese passage read through a Chinese question's English glosses would hold only the words the
    # translation keeps as they are ("NBA", a name the index holds), and pass on those alone.
    asked_in = detect_language(question)
    across = [reads_across(r.language, asked_in) for r in records]
    # The part of its document each candidate (and each judged record) belongs to, read once.
    part_of = {r.chunk_id: _part(r) for r in (*records, *(judged or ()))}

    # A translated word none of those candidates holds is more often a dictionary sense the documents do
    # not use ("专利许可" is a patent *license*, not "allow, permit") than a missing detail: left out. Not a
    # common noun of a Chinese question (`nouns`): what it names is what is asked about, and its renderings
    # are the word's few senses, not a verb's many. "停车场几点开门？" asked of documents in which no passage
    # says "parking" or "car park" is not answered by the canteen's opening hours, which hold only "open".
    # Only a question asked in Chinese: an English follow-up searched with a Chinese thread's words is not held to them.
    # The nouns are read only when some word is unrendered among passages read across (the tagger is not free).
    def rendered_by(terms: Collection[str]) -> int:
        return sum(not pool.isdisjoint(terms) for pool, other in zip(pools, across, strict=True) if other)

    group_df = [rendered_by(g) for g in translated]
    unrendered = any(across) and not all(group_df)
    nouns = common_nouns(question) if unrendered and (language or asked_in) == "zh" else frozenset()
    # A noun no candidate renders is still read as its dictionary siblings write it (crosslingual.kindred: 食堂 is
    # "dining hall", and 饭堂, also "dining hall", is "canteen"): "食堂几点开门？" is answered by the canteen's hours.
    for i, (g, count) in enumerate(zip(groups, group_df, strict=True)):
        if not count and g.source in nouns and (wider := kindred(g.source)):
            translated[i] = (*translated[i], *wider)
            group_df[i] = rendered_by(translated[i])
    rendered = [
        (g, terms, count)
        for g, terms, count in zip(groups, translated, group_df, strict=True)
        if count or g.source in nouns
    ]
    group_weight = [(terms, _idf(count, n) * _length(max(g.terms, key=len))) for g, terms, count in rendered]
    # One translated word is a weak reading of a question that says more: "我的电脑丢了怎么办？" read as "computer"
    # alone was answered by GPL 3's "general-purpose computers", while "火车票怎么订？" read as "train ticket" alone is
    # answered by "Train tickets are booked through the travel desk" (订's senses do not include "book"). When a
    # Chinese question is read across languages through one word, and other words of it say what it asks (丢: one
    # character, never translated; or words no candidate renders), a passage in the other language is read through
    # that word only if the embedder, which reads the whole question, likes it best of the candidates read across:
    # the lost-laptop passage (cosine .82) over GPL 3's (.76); the train tickets (.79) over the canteen (.74).
    besides: tuple[str, ...] = ()
    kept = ""
    dense_top: float | None = None
    if len(group_weight) == 1 and any(across) and (language or asked_in) == "zh":
        kept = rendered[0][0].source
        besides = said_besides(question, kept)
        dense = [r.dense_score for r, other in zip(records, across, strict=True) if other and r.dense_score is not None]
        dense_top = max(dense, default=None)

    # A number the question names may sit in another passage of the same document version ("第二届" in
    # the chunk that opens the article, the prize money in the next one): the document names it.
    named_by: dict[tuple[str | None, int, str], set[str]] = {}
    for r, whole in zip(records, wholes, strict=True) if numbers else ():
        named_by.setdefault(part_of[r.chunk_id], set()).update(num for num in numbers if _mentions(num, whole))
    # An amount a yes-or-no question offers is answered by the document that writes its number ("increased from 2 to
    # 3" for "is it still 3 days…?") or states another amount of its kind ("at least 14 characters" for "12
    # characters?"), not by one that does neither: a passage on passwords that says nothing of a length. A number
    # written as a clause's label or a reference ("12. No Surrender of Others' Freedom", "section 12") is no amount.
    stating_by: dict[tuple[str | None, int, str], set[tuple[str, str]]] = {}
    for r, whole in zip(records, wholes, strict=True) if offered else ():
        folded_whole, amounts = fold(whole), _REFERENCE_RE.sub("", _LABEL_RE.sub("", r.text))
        stating_by.setdefault(part_of[r.chunk_id], set()).update(
            (number, kind)
            for number, kind in offered
            if _mentions(number, amounts) or _STATED_AMOUNT_RES[kind].search(folded_whole)
        )

    # A passage that refers to a section of its document ("- Section 3: the maximum number of remote days per week has
    # been increased.", a change log) is read with what that section states ("3.1 … up to 3 days per week").
    def stated_for(record: ChunkRecord) -> set[tuple[str, str]]:
        its_part = part_of[record.chunk_id]
        stated = set(stating_by.get(its_part, set()))
        for number in {m.group(1) for m in _SECTION_REFERENCE_RE.finditer(record.text)}:
            stated.update(
                *(found for part, found in stating_by.items()
                  if part[:2] == its_part[:2] and re.match(rf"{re.escape(number)}(?:[.\s]|$)", part[2]))
            )  # fmt: skip
        return stated

    # So may the short name the question gives its subject by ("GFDL", "MPL", "LGPLv3"), written out in the
    # document's title ("GNU Free Documentation License": its initials are among the passage's tokens): a
    # passage of another document does not answer "GFDL 1.1 版是什么时候发布的？", however well its words
    # match, even when no candidate is of the GFDL (the index holds `gfdl`: the question is not about
    # these candidates). A name the index holds nowhere is not required: it is as often a concept the
    # documents write out otherwise ("DRM" for "technological measures") as a licence the corpus lacks.
    held_by: dict[tuple[str | None, int, str], set[str]] = {}
    for r, pool in zip(records, pools, strict=True) if names else ():
        held_by.setdefault(part_of[r.chunk_id], set()).update(spellings & pool)
    # A name the index (else the candidate pool) holds somewhere is required; one it holds nowhere is not.
    # Known from the names as typed, never from the words they clip (clipped_names).
    typed_spellings = frozenset().union(*short_names(question).values())
    known = (frozenset().union(*held_by.values()) | frozenset(indexed or ())) & typed_spellings
    # A licence the question names by a word that neither the candidates nor the reader's index hold is one the corpus
    # lacks: "What does the zlib license say about altered source versions?" is not answered by MPL 2.0's clause on
    # altering the recipients' rights, however well its words match. Read only where the index was asked (`indexed`).
    # Asked of licence texts only (a candidate's title or section path names a licence): "How do I get a Photoshop
    # license?" asked of an IT policy on software licences names a product, not a licence text the corpus lacks.
    named_licences = licences_named(question) if indexed is not None else []  # the question read once for both
    licences = _name_words(named_licences)
    lacking: list[str] = []
    of_licences = bool(licences) and any(_LICENCE_NOUN_RE.search(f"{r.title or ''} {r.section or ''}") for r in records)
    everywhere = frozenset(indexed or ()).union(*pools) if of_licences else frozenset()
    if of_licences:
        lacking = [name for name, readings in licences.items() if everywhere.isdisjoint(readings)]
    # A licence the question names is one the passage's part names, as a licence: every word of the licence's name that
    # the index or the candidates hold, and a licence word (license, licence, 许可, 授权) in the part's text, title or
    # section path. "Does the MIT licence require attribution?" is not answered by MIT OpenCourseWare's opening, which
    # names MIT and no licence, nor "Does the Python Software Foundation License allow commercial use?" by MPL 1.1's
    # "commercial item", which names no Python. Read as `lacking` is, where some candidate is a licence text; a question
    # naming two licences is answered by a part that names either.
    unlicensed: dict[tuple[str | None, int, str], list[str]] = {}
    if of_licences:
        held_names = [{w: t for w, t in licence.items() if not everywhere.isdisjoint(t)} for licence in named_licences]
        noun = m.group() if (m := _LICENCE_NOUN_RE.search(cue_form(question))) else ""
        wanted = [f"{' '.join(licence)} {noun}".strip() for licence in held_names]
        part_tokens: dict[tuple[str | None, int, str], set[str]] = {}
        for r, pool in zip(records, pools, strict=True):
            part_tokens.setdefault(part_of[r.chunk_id], set()).update(pool)
        for whose, tokens in part_tokens.items():
            as_licence = not tokens.isdisjoint(_LICENCE_TOKENS)
            if not (
                as_licence and any(all(not tokens.isdisjoint(t) for t in licence.values()) for licence in held_names)
            ):
                unlicensed[whose] = wanted
    # A name the question writes in capitals, two words or more ("What is the Commons Clause and can it be added to the
    # Apache license?"), that no candidate in the question's language holds, words in order, in its text, title or
    # section path, is something these passages do not speak of: Apache 2.0's "You may add Your own attribution
    # notices" does not answer it, however well "add" and "Apache license" match (each candidate that lacks half the
    # name's words or more is turned away, in `judge`). Candidates are found by the search for the question, rare
    # words of the name included, so one that held the name would be among them. A passage read across languages is
    # not held to it: it writes the name in its own language.
    capitalised = capitalised_names(question)
    unheld = {
        name: frozenset(tokens)
        for name, tokens in capitalised.items()
        if not any(
            holds_name(tokens, _text_with_locator(r)) for r, other in zip(records, across, strict=True) if not other
        )
    }
    # A question that names a part of a compiled document ("巴士底广场中间那根柱子是纪念什么的？" of "巴黎与维也纳
    # 的广场和街道 > 巴士底广场") is answered by that part only: the fountain in the file's part on 弗赖永广场
    # says nothing of it, however well "广场中间 … 纪念" match.
    asked_text_folded = fold(question)
    named_parts: dict[tuple[str | None, int], set[str]] = {}
    for (source_id, version, part), title in {part_of[r.chunk_id]: r.title or "" for r in records}.items():
        if part and _names_part(part, asked_text_folded, fold(title)):
            named_parts.setdefault((source_id, version), set()).add(part)

    def judge(record: ChunkRecord) -> Verdict:
        its_part = part_of[record.chunk_id]
        facts: dict[str, object]  # the detail as data (records.Rejection.facts)
        if numbers:
            missing = [num for num in numbers if num not in named_by.get(its_part, set())]
            if missing:
                detail = f"does not mention {', '.join(missing)}, which the question names"
                facts = {"code": "unnamed", "words": missing}
                return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        if offered and (unstated := [n for n, k in offered if (n, k) not in stated_for(record)]):
            detail = f"states no amount such as {', '.join(unstated)}, which the question offers"
            facts = {"code": "unnamed", "words": unstated}
            return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        if lacking:
            detail = f"does not mention {', '.join(lacking)}, which the question names"
            facts = {"code": "unnamed", "words": lacking}
            return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        if unheld and not reads_across(record.language, asked_in):
            # Lacking half the words of the name or more ("Commons Clause" of Apache 2.0, or of a BSD text that says
            # "clause"), the passage does not speak of it. One that writes the rest ("no staff car parking" for a "Car
            # Parking Permit", "sick pay" for the "Sick Pay Policy"), or every word apart or in another order
            # ("annual leave … entitlement"), is read as any other: a word in capitals is as often a generic one.
            its_tokens = frozenset(name_tokens(_text_with_locator(record)))
            lacked = [name for name, tokens in unheld.items() if 2 * len(tokens - its_tokens) >= len(tokens)]
            if lacked:
                detail = f"does not mention {', '.join(lacked)}, which the question names"
                facts = {"code": "unnamed", "words": lacked}
                return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        document_names = frozenset(held_by.get(its_part, ()))
        if names:
            missing = [
                name
                for name, readings in names.items()
                if document_names.isdisjoint(readings) and not known.isdisjoint(readings)
            ]
            if missing:
                detail = f"does not mention {', '.join(missing)}, which the question names"
                facts = {"code": "unnamed", "words": missing}
                return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        # A question that names a document ("Does the Artistic License come with any warranty?") is not
        # answered by a passage of another one that does not speak of it: the GPL's "Gnomovision comes with
        # ABSOLUTELY NO WARRANTY" says nothing of the Artistic License.
        if named and record.title not in named and not naming.mentions(_text_with_locator(record), named):
            detail = f"of another document than the one the question names ({', '.join(sorted(named))})"
            facts = {"code": "other_document", "names": sorted(named)}
            return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        parts = named_parts.get((record.source_id, record.version))
        if parts and its_part[2] not in parts:
            detail = f"in another part of its document than the one the question names ({', '.join(sorted(parts))})"
            facts = {"code": "other_part", "names": sorted(parts)}
            return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        # After the document and part the question names (their reasons are the more telling ones).
        if its_part in unlicensed:
            words = unlicensed[its_part]
            detail = f"does not mention {', '.join(words)}, which the question names"
            facts = {"code": "unnamed", "words": words}
            return Verdict(answers=False, focus=0.0, typed=False, window="", detail=detail, facts=facts)
        context = _context(record)
        # The first window that answers (focus held, a value of the asked kind), else the one holding the
        # most focus. Windows are read lazily: the sentences after an answering one are not tokenized.
        best: tuple[bool, float, bool, str] = (False, -1.0, False, "")
        locator = " ".join(fold(p) for p in (record.title, record.section) if p)
        other_language = reads_across(record.language, asked_in)
        # One word of a question that says more (`besides`), read in a passage the embedder does not put first.
        alone = bool(besides) and other_language and (dense_top is None or (record.dense_score or 0.0) < dense_top)
        read_across = bool(group_weight) and other_language and not alone
        for text, folded, window_tokens in _windows(record.text):
            # The locator says what the window is about, and so does the short name its document holds.
            tokens = window_tokens | context | document_names
            if dateline(record, kind, text):
                tokens = tokens | issuing()  # "Version 2.0, January 2004" says when it was released
            if spelled:
                tokens = tokens | pinyin.held(spelled, f"{folded} {locator}")
            cover = _cover(weight, held_as, tokens, f"{folded} {locator}")
            if read_across:
                cover = max(cover, _cover_groups(group_weight, tokens))
            if not weight and not read_across:
                cover = 1.0  # a question of template words only: nothing to look for
            if defines is not None:
                typed = other_language or bool(defines(text))
            else:
                typed = (_states_value(kind, text, question) if record.chunk_id in stating else holds(kind, text)) and (
                    kind is not Asked.QUANTITY or gives_amount(question, folded)
                )
            candidate = (cover >= MIN_FOCUS and typed, cover, typed, text)
            if candidate[:2] > best[:2]:
                best = candidate
            if best[0]:
                break
        answers, cover, typed, text = best
        cover = max(cover, 0.0)
        if alone and not answers:
            detail = (
                f"read in its language through {kept} alone, not {', '.join(besides)}, and not the passage closest"
                " to the whole question"
            )
            facts = {"code": "one_word", "held": kept, "words": list(besides)}
            return Verdict(answers=False, focus=round(cover, 4), typed=typed, window=text, detail=detail, facts=facts)
        if answers:
            detail = f"focus {cover:.2f} in one passage window"
            facts = {"code": "focus", "focus": round(cover, 4)}
        elif cover < MIN_FOCUS:
            detail = f"on topic, but no two sentences hold the question's focus (best {cover:.2f} < {MIN_FOCUS:.2f})"
            facts = {"code": "no_focus", "focus": round(cover, 4), "min": MIN_FOCUS}
        else:
            detail = f"the sentences on the question's focus give no {kind.value}" + (f" in {unit}" if unit else "")
            facts = {"code": "no_value", "kind": kind.value, "unit": unit or ""}
        return Verdict(answers=answers, focus=round(cover, 4), typed=typed, window=text, detail=detail, facts=facts)

    out: dict[str, Verdict] = {}
    answered: set[tuple[str | None, int, str]] = set()
    ordered = list(records if judged is None else judged)
    # The passages that may hold the whole focus (their text, title and section path hold every focus word) are judged
    # first: one that does, and answers, may outdo a passage ranked before it (`_Outdoing`).
    at = {r.chunk_id: i for i, r in enumerate(records)}
    holders = [
        r
        for r in ordered
        if weight and r.chunk_id in at and _holds_all(at[r.chunk_id], r, pools, weight, held_as, group_weight, across)
    ]
    first = {r.chunk_id: judge(r) for r in holders} if holders and not joins(question) else {}
    outdoing = _Outdoing.of([r for r in holders if r.chunk_id in first], first)
    unread = Counter(part_of[r.chunk_id] for r in ordered)  # records of each part not yet come to
    for record in ordered:
        its_part = part_of[record.chunk_id]
        unread[its_part] -= 1
        if not (whole_documents and its_part in answered):
            verdict = first.get(record.chunk_id) or judge(record)
            out[record.chunk_id] = verdict = outdoing.read(record, verdict)
            if verdict.answers:
                answered.add(its_part)
        if limit is not None and _settled(ordered, part_of, answered, unread, limit):
            break  # the first `limit` passages that stay are known: the rest would be cut by RAG_TOP_K
    return out


# A passage that holds the question's focus only in part is no answer when a passage of another document holds all
# of it, answers, and is far more relevant: "I lost my badge in London, what do I do?" is not answered by the travel
# policy's "lost luggage" clause (official, so ranked first; relevance .28) when the London office guide says what to do
# about a lost badge (.81). Under OUTDONE_SHARE of the focus weight, and at most 1/OUTDONE_RATIO of that passage's
# relevance, a passage is outdone. The ratio keeps a paraphrase close to it: the Artistic License's "You may not charge
# a fee for this Package itself" (.45) holds no "sell" and stays beside "may be sold commercially" (.50), and a Chinese
# handbook's sick-pay clause (.56, with the question's 算) beside an English one read through a translation that has no
# rendering for 算 (.78). Measured: docs/EVALUATION.md, session 41.
OUTDONE_SHARE = 0.75
OUTDONE_RATIO = 2.0
WHOLE_FOCUS = 0.999  # every focus word, as a share of the weight (rounding aside)


# Words that join two subjects or compare them: a question that asks of two ("伦敦和上海的年假各多少天？", "how does the
# 2024 policy differ from the 2025 one?") is answered by a passage on each, each holding its half of the focus, and a
# third passage that names both (a transfer rule mentioning both offices) must not outdo them. Such a question is not
# read for `outdone` (a review's case, session 41).
_JOINING_ZH = frozenset("和 与 跟 及 以及 还是 或 或者 比 相比 对比 比较 区别 差别 不同 分别 各".split())
_JOINING_EN_RE = re.compile(
    r"\b(?:and|or|vs|versus|between|compared?|comparing|differ|differs|different|difference|both|each)\b"
)


def joins(question: str) -> bool:
    """Whether the question joins or compares two subjects (_JOINING_ZH, _JOINING_EN_RE)."""
    folded = fold(question)
    if has_cjk(folded) and not _JOINING_ZH.isdisjoint(_tagged(folded)):
        return True
    return _JOINING_EN_RE.search(folded.lower()) is not None


def _holds_all(
    i: int,
    record: ChunkRecord,
    pools: Sequence[frozenset[str]],
    weight: dict[str, float],
    held_as: dict[str, frozenset[str]],
    group_weight: list[tuple[tuple[str, ...], float]],
    across: Sequence[bool],
) -> bool:
    """Whether the record (`i`: its place among the candidates) holds every focus word in its text, title or section
    path, or, read across languages, every translated word: only such a record's window can."""
    if _cover(weight, held_as, pools[i], _whole(record)) >= WHOLE_FOCUS:
        return True
    return across[i] and bool(group_weight) and _cover_groups(group_weight, pools[i]) >= WHOLE_FOCUS


@dataclass(frozen=True, slots=True)
class _Outdoing:
    """The passage that answers with the whole focus and is the most relevant of those that do (`leader`), and the
    documents of all of those (`holding`)."""

    leader: ChunkRecord | None = None
    holding: frozenset[str] = frozenset()

    @classmethod
    def of(cls, judged: Sequence[ChunkRecord], verdicts: Mapping[str, Verdict]) -> _Outdoing:
        whole = [r for r in judged if verdicts[r.chunk_id].answers and verdicts[r.chunk_id].focus >= WHOLE_FOCUS]
        if not whole:
            return cls()
        return cls(max(whole, key=lambda r: r.relevance), frozenset(r.source_id or "" for r in whole))

    def read(self, record: ChunkRecord, verdict: Verdict) -> Verdict:
        """`verdict`, or not answering (`outdone`) when it answers with under OUTDONE_SHARE of the focus, of another
        document than those holding all of it, and the leader is at least OUTDONE_RATIO times as relevant."""
        leader = self.leader
        if leader is None or not verdict.answers or verdict.focus >= OUTDONE_SHARE:
            return verdict
        if (record.source_id or "") in self.holding or leader.relevance < OUTDONE_RATIO * record.relevance:
            return verdict
        by = leader.chunk_id
        detail = f"holds {verdict.focus:.2f} of the question's focus, where {by} of another document holds all of it"
        facts = {"code": "outdone", "focus": verdict.focus, "by": by}
        return dataclasses.replace(verdict, answers=False, detail=detail, facts=facts)


def _settled(
    ordered: Sequence[ChunkRecord],
    part_of: dict[str, tuple[str | None, int, str]],
    answered: set[tuple[str | None, int, str]],
    unread: Counter[tuple[str | None, int, str]],
    limit: int,
) -> bool:
    """Whether the first `limit` records that stay are known: walking `ordered`, each record before them is
    of a part that answers (it stays) or of a part whose every record has been judged (it goes)."""
    staying = 0
    for record in ordered:
        part = part_of[record.chunk_id]
        if part in answered:
            staying += 1
            if staying >= limit:
                return True
        elif unread[part] > 0:
            return False  # its part may still answer through a record not judged yet
    return False


def screen(
    selection: Selection,
    question: str,
    groups: Sequence[Group] = (),
    indexed: Collection[str] | None = None,
    named: Collection[str] = (),
    limit: int | None = None,
    synonyms: Mapping[str, Collection[str]] | None = None,
    stating: Collection[str] = (),
) -> Selection:
    """`selection` with every kept passage that does not answer moved to the rejected ones (`not_answering`).

    The candidate pool for the focus weights is every candidate, kept or not, so a term the whole topic shares
    weighs little and the detail the question asks for weighs most. A document (a part of one, `_part`) is judged
    whole: when one of its passages answers, its other qualified passages stay, because the answer often runs on
    into the next chunk (the extractive generator reads a source's chunks as one text), after the passages that
    answer (`_answering_first`). With `limit` (the caller's RAG_TOP_K), passages are judged in rank order until the
    first `limit` that stay are known; the passages not judged by then stay kept, behind them, for the caller's cut
    (`over_budget`), while those judged not answering go as always (a hybrid ask at 100k chunks judged 27 passages
    at the median to keep 8). The passages kept after the cut are the same with and without `limit`; a passage below
    the cut may be given `over_budget` instead of `not_answering`. The floor for a question read across languages
    only (`far_across`) reads the first `limit` kept passages (every one without `limit`). `stating`: as assess's.
    """
    if not selection.kept:
        return selection
    pool = [*selection.kept, *(r.record for r in selection.rejected)]
    verdicts = assess(
        question,
        pool,
        groups,
        judged=selection.kept,
        whole_documents=True,
        indexed=indexed,
        named=named,
        limit=limit,
        synonyms=synonyms,
        language=selection.asked_in,
        stating=stating,
    )
    part_of = {r.chunk_id: _part(r) for r in selection.kept}
    answering = {part_of[r.chunk_id] for r in selection.kept if r.chunk_id in verdicts and verdicts[r.chunk_id].answers}

    def goes(record: ChunkRecord) -> bool:
        return part_of[record.chunk_id] not in answering and record.chunk_id in verdicts

    kept = _answering_first([r for r in selection.kept if not goes(r)], part_of, verdicts)
    dropped = tuple(
        Rejection(r, RejectReason.NOT_ANSWERING, verdicts[r.chunk_id].detail, verdicts[r.chunk_id].facts)
        for r in selection.kept
        if goes(r)
    )
    # The floor reads the passages the caller's cut keeps: with `limit`, those behind the first `limit` may not have
    # been judged (a Chinese passage, or an English one nearer the question, that does not answer), and must not lift
    # it for the ones before them, which would be kept alone after the cut.
    within = kept if limit is None else kept[:limit]
    own = own_closest(pool, selection.asked_in)
    far = far_across(within, selection.asked_in, named, own=own.dense_score if own is not None else None)
    if far is not None:
        cosine, floor = far
        facts: dict[str, object] = {"code": "far_across", "cosine": round(cosine, 4), "floor": round(floor, 4)}
        if floor > ACROSS_FLOOR and own is not None and own.dense_score is not None:
            # Named by its chunk_id too: a viewer who may not read that passage is not told its cosine (presentation).
            facts |= {"own": round(own.dense_score, 4), "own_by": own.chunk_id}
            detail = (
                f"read across languages only, and a passage in the question's language ({own.chunk_id}) is much"
                f" nearer the whole question (cosine {cosine:.4f}, against {own.dense_score:.4f})"
            )
        else:
            detail = (
                f"read across languages only, and no such passage is near the whole question (cosine {cosine:.4f} <"
                f" {floor:.3f})"
            )
        behind = tuple(below_top_k(r, limit) for r in kept[len(within) :]) if limit is not None else ()
        dropped = tuple(Rejection(r, RejectReason.NOT_ANSWERING, detail, facts) for r in within) + dropped + behind
        kept = ()
    return dataclasses.replace(selection, kept=kept, rejected=dropped + selection.rejected)


# A Chinese question whose every answering passage is English, read through the question's word-by-word translation,
# needs the embedder (which reads the whole question) to put one of them at least this close (cosine). The translation
# matches words, not what is asked: "公司有股票期权吗" (stock options?) was answered by an Outlook "Encrypt option",
# "我们CEO是谁" by the travel management company. Measured on the workplace and natural sets (docs/EVALUATION.md,
# session 41): of the Chinese questions answered from English passages only, the gold ones' closest passage was at .781
# and above, the unanswerable ones' at .777 and below, and the answers from a wrong document at .779 and below. English
# questions on Chinese passages are not held to it: there the gold passages' cosines run as low as the wrong ones' (.69
# to .87). A passage of a document the question names by its title (`named`: "GPL 第三版" names the GNU General Public
# License, version 3) is no word matched by chance: "GPL 第三版是什么时候发布的？", the README's example, is answered by
# that licence's dateline "Version 3, 29 June 2007" at a cosine of .7748 (session 53).
ACROSS_FLOOR = 0.775
# Nor when the embedder puts a candidate in the question's own language more than this much closer (cosine) than the
# closest of them: the passages read across then match words of the question, not what it asks. In a corpus of Chinese
# policies beside English licences, "报销有时间限制吗" was answered by GPL 2's "limitation ... time" (.788), the
# reimbursement rule's own passage being at .882; "请年假要提前几天申请" by GPL 3's "from time to time" (.787, the leave
# rule at .888). Measured (docs/EVALUATION.md, session 58): on the workplace and natural sets, the Chinese questions
# answered from English passages only with their gold passage were at most 0.098 under their closest Chinese candidate
# (0.060 on the natural set), the wrong answers up to 0.154.
ACROSS_GAP = 0.08


def far_across(
    kept: Sequence[ChunkRecord], asked_in: str, named: Collection[str] = (), *, own: float | None = None
) -> tuple[float, float] | None:
    """(the closest cosine of `kept`, the floor it is under) when the question is Chinese, every kept passage is in the
    other language, each with a cosine, none is of a document the question names (`named`: titles), and the closest is
    under the floor: ACROSS_FLOOR, or ACROSS_GAP under `own` (the cosine of the candidate in the question's own
    language the embedder puts nearest, `own_closest`), whichever is higher; else None (the passages stand)."""
    if asked_in != "zh" or not kept or not all(reads_across(r.language, asked_in) for r in kept):
        return None
    if any(r.title in named for r in kept):
        return None
    cosines = [r.dense_score for r in kept]
    if any(c is None for c in cosines):
        return None  # lexical retrieval only (no embedder), or a passage with no stored vector (not embedded yet)
    best = max(c for c in cosines if c is not None)
    floor = max(ACROSS_FLOOR, own - ACROSS_GAP) if own is not None else ACROSS_FLOOR
    return (best, floor) if best < floor else None


def own_closest(candidates: Iterable[ChunkRecord], asked_in: str) -> ChunkRecord | None:
    """The candidate in the question's own language the embedder puts nearest (None: no such candidate has a cosine)."""
    return max(
        (r for r in candidates if r.dense_score is not None and not reads_across(r.language, asked_in)),
        key=lambda r: (r.dense_score or 0.0, r.chunk_id),
        default=None,
    )


def _answering_first(
    kept: list[ChunkRecord], part_of: Mapping[str, tuple[str | None, int, str]], verdicts: Mapping[str, Verdict]
) -> tuple[ChunkRecord, ...]:
    """`kept` with, within each part of a document, the passages that answer before those that stay with them
    (judged not answering, or not judged), each group in rank order; the parts keep the places their passages
    had. The assembly keeps a source's first chunks (RAG_CHUNKS_PER_SOURCE): asked "When was version 2 of the GPL
    published?", the dateline "Version 2, June 1991", sixth of the GPL 2's kept passages, was cut, and four that
    state no date were quoted."""
    answering = {r.chunk_id for r in kept if r.chunk_id in verdicts and verdicts[r.chunk_id].answers}
    places: dict[tuple[str | None, int, str], list[ChunkRecord]] = {}
    for record in kept:
        places.setdefault(part_of[record.chunk_id], []).append(record)
    queues = {
        part: iter(sorted(records, key=lambda r: r.chunk_id not in answering))  # stable: rank order within each
        for part, records in places.items()
    }
    return tuple(next(queues[part_of[record.chunk_id]]) for record in kept)


def _windows(text: str) -> Iterator[tuple[str, str, frozenset[str]]]:
    """Every sentence with the one after it (and a lone last sentence): its text, folded text and tokens.

    Each sentence is folded and tokenized once, when its window is reached (both cached: the generator
    reads the same sentences later); a window's folded text is its two sentences' folded texts joined, as
    fold works within words. Its text keeps them on lines of their own, so a dateline stays a line
    (`dateline`).
    """
    sentences = [s for s in split_sentences(text) if s.strip()]
    if len(sentences) == 1:
        yield sentences[0], fold(sentences[0]), frozenset(passage_tokens(sentences[0]))
        return
    previous: tuple[str, str, frozenset[str]] | None = None
    for sentence in sentences:
        current = (sentence, fold(sentence), frozenset(passage_tokens(sentence)))
        if previous is not None:
            yield f"{previous[0]}\n{current[0]}", f"{previous[1]} {current[1]}", previous[2] | current[2]
        previous = current


def _part(record: ChunkRecord) -> tuple[str | None, int, str]:
    """The part of its document version a record belongs to: the first step of its section path below the
    document's title ("卫星与航天机构资料 > 鑫诺一号通信卫星": 鑫诺一号通信卫星), "" without one. A file compiled
    of articles, a handbook of policies: what one part names (a number, a short name) is not said of another,
    and a part that answers keeps its other qualified passages, not the whole file's."""
    return (record.source_id, record.version, _part_name(record.title or "", record.section or ""))


@functools.lru_cache(maxsize=4096)
def _part_name(title: str, section: str) -> str:
    folded_title = fold(title)
    for step in section.split(" > "):
        folded = fold(step.strip())
        if folded and folded != folded_title:
            return folded
    return ""


_BRACKETED_RE = re.compile(r"\s*[(（\[【][^)）\]】]*[)）\]】]\s*")


def _names_part(part: str, question: str, title: str) -> bool:
    """Whether the (folded) question names the (folded) part of a document: its label without what is
    bracketed ("英雄广场 (维也纳)": 英雄广场), written whole (a Latin label as words, at least four letters; a
    Chinese one at least two characters), and not the document's own title ("GNU GENERAL PUBLIC LICENSE"
    heads the GPL's first part: naming the licence names no part of it)."""
    label = _BRACKETED_RE.sub(" ", part).strip()
    if len(label) < 2 or label in title or title in label:
        return False
    if has_cjk(label):
        return label in question
    return len(label) >= 4 and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", question) is not None


def _whole(record: ChunkRecord) -> str:
    """The record's title, section path and text, folded for matching."""
    return fold(_text_with_locator(record))


def _text_with_locator(record: ChunkRecord) -> str:
    return " ".join(p for p in (record.title, record.section, record.text) if p)


def _context(record: ChunkRecord) -> frozenset[str]:
    """The tokens of the record's title and section path (textproc.locator_tokens, cached)."""
    return locator_tokens(record.title, record.section)


def common_nouns(question: str) -> frozenset[str]:
    """The common nouns of a Chinese question (two characters or more), as jieba's part-of-speech tagger reads
    them ("停车场", "健身房", "源代码"; not names, verbs or verbal nouns)."""
    return frozenset(word for word, flag in _tagged(fold(question)).items() if flag == "n" and len(word) >= 2)


def said_besides(question: str, word: str) -> tuple[str, ...]:
    """The Chinese words of `question` besides `word` that say what it asks about (`_says`), outside the words that ask
    (asked_text: "怎么办", "多久"), not a piece of `word` or holding it; a word jieba cuts into characters counts whole
    (`shattered`: 年假, not 年 and 假). ("我的电脑丢了怎么办？" besides 电脑: 丢; "密码要多长？" besides 密码: none, 要
    is a modal.) Nothing when `word` itself says nothing ("帮我查一下年假有几天" read through 一下, a numeral's
    measure): the question is then not read through one word of it."""
    tags = _tagged(asked_text(question))
    if not _says(word, tags.get(word, "n")):
        return ()
    whole = shattered(question)
    pieces = {ch for w in whole for ch in w}
    out: dict[str, None] = {}
    for piece, flag in (*tags.items(), *((w, "n") for w in whole)):
        piece = piece.strip()
        if piece in pieces or piece in word or word in piece:
            continue
        if _says(piece, flag):
            out.setdefault(piece, None)
    return tuple(out)


def _says(word: str, flag: str) -> bool:
    """A Chinese noun, verb or adjective (jieba's tags n*, v*, a*) no commoner in ordinary text than SAYING_IDF allows,
    and no stop word: a word that says what a question asks about (丢, 换, 电脑), not a modal or light verb (要, 做)."""
    return (
        flag[:1] in ("n", "v", "a") and has_cjk(word) and word not in STOPWORDS and generality.idf(word) >= SAYING_IDF
    )


def _idf(df: int, n: int) -> float:
    """BM25's idf over the candidate pool: a word most candidates share is the topic, worth ~nothing."""
    return math.log((n - df + 0.5) / (df + 0.5) + 1.0)


def _length(term: str) -> float:
    # A longer word is a more specific one (in both scripts), as in the extractive generator's scoring.
    return 1.0 + 0.25 * min(len(term), 4)


def _cover(weights: dict[str, float], words: dict[str, frozenset[str]], tokens: frozenset[str], text: str) -> float:
    total = sum(weights.values())
    held = sum(w for t, w in weights.items() if not tokens.isdisjoint(words[t]) or in_text(t, text))
    return held / total if total else 0.0


def in_text(word: str, text: str, *, single: bool = False) -> bool:
    """A Chinese word found in the (folded) text by its characters: jieba cuts a question differently from
    a passage ("迟泽凤为" for 迟泽凤 + 为, "罗是" for 马赛罗 + 是), so most of its character pairs in
    the text count as the word. With `single`, a word of one character counts where the text writes it
    ("卵" of "产卵", "卵为黄色"): for choosing, among the sentences of passages that passed this check, the one
    to quote. The check does not read one so: "鲉" of "蓑鲉" and "达" of "可达" say nothing of whether a passage
    answers "长鳍新平鲉的体长可达多少公分？"."""
    if not has_cjk(word) or (len(word) < 2 and not single):
        return False
    if word in text:
        return True
    pairs = [word[i : i + 2] for i in range(len(word) - 1)]
    return len(pairs) > 1 and sum(p in text for p in pairs) >= BIGRAM_SHARE * len(pairs)


def focus_terms(question: str, *, unit: bool = True) -> list[str]:
    """The question's terms that say what it is about: its query terms (without the words that ask,
    textproc.ASKING_RE) less the pieces of asking words jieba leaves, English function words ("under", "if",
    "have"), the amounts a yes-or-no question offers (`offered_amounts`) and a limit asked with its quantity
    (`_LIMIT_ASKED_RE`: 最多 of "最多能订多久"). What this check weighs (without `unit`: the unit an English question
    counts in, `_ASKED_IN_UNIT_RE`), and what the extractive generator weighs when it picks the sentence to quote
    (with it: among a passage's sentences, the one that writes "days" is the one that counts them)."""
    english, _ = function_words()
    offered = offered_terms(question)
    if not unit:
        offered |= {stem(u.lower()) for u in _ASKED_IN_UNIT_RE.findall(question)}
    limits = set(_LIMIT_ASKED_RE.findall(fold(question)))
    auxiliaries = set(_LIMIT_AUXILIARIES.replace("|", ""))
    terms = [
        t
        for t in query_terms(question)
        if not any(cue.fullmatch(t) for cue in (_QUANTITY_CUE_RE, _DATE_CUE_RE, _TIME_CUE_RE, _CLOCK_CUE_RE))
        and t not in english
        and t not in offered
        and not any(t.startswith(limit) and set(t[len(limit) :]) <= auxiliaries for limit in limits)
    ]
    # A word jieba cuts into its characters is asked whole ("年假", not 年 and 假), where its first piece was; a piece
    # the question also writes elsewhere stays ("年假可以请半天假吗": 假).
    words = shattered(question)
    if not words:
        return terms
    first = {word[0]: word for word in words}
    rest = asked_text(question)
    for word in words:
        rest = rest.replace(word, " ")
    pieces = {ch for word in words for ch in word if ch not in rest}
    out = [first.get(t, t) for t in terms if t not in pieces or t in first]
    return list(dict.fromkeys([*out, *words]))


# The unit an English question counts in ("how many days", "how many times"): what the answer's number is counted
# in, as 天 of 几天 is (_QUANTITY_CUE_RE), not what the question is about, for the check of a passage (`focus_terms`
# without `unit`). As a focus word, "days" let "4.1 Employees may take up to 5 days of paid study leave" answer
# "bereavement leave how many days": "leave" and "days" held, "bereavement" not. The check still asks the number's
# unit (asked_unit); the quote still weighs the word, which the sentence counting the days writes.
_ASKED_IN_UNIT_RE = re.compile(
    r"\bhow\s+many\s+(?:more\s+|working\s+|business\s+|calendar\s+)?"
    r"(days?|weeks?|months?|years?|hours?|minutes?|times)\b",
    re.IGNORECASE,
)


# A limit asked with its quantity, before the verb it limits ("会议室最多能订多久", "至少要提前几天", "最高可以报多少"):
# the passage that answers states it in its own words ("单次预订不超过2小时", "须提前3个工作日"), seldom as the
# question's 最多 / 至少; no focus word (`focus_terms`), nor the word jieba makes of it and the auxiliary ("最多能").
# Still searched for, and read through its translation ("at least 14 characters"). Not a superlative before a noun,
# which is what is asked about ("最高气温是多少度", "最少几人").
_LIMIT_AUXILIARIES = "能|可|要|得|会|需|须|必须|允许"
_LIMIT_ASKED_RE = re.compile(
    rf"(最多|最长|最久|最少|至少|最高|最低)(?=(?:{_LIMIT_AUXILIARIES})[^，,。？?！!]{{0,10}}?(?:多少|多久|多长|几))"
)


@functools.lru_cache(maxsize=1024)
def offered_terms(question: str) -> frozenset[str]:
    """The question's query terms that write an amount it offers (`_offered_only`), no identifier of it: "20k" of "a
    20k USD purchase", "3" and "000" of "3,000 dollar", "600" of "Is the hotel cap 600 yuan a night?". Not a focus
    word (`focus_terms`), and not what makes a passage relevant when none writes it (hybrid.search)."""
    offered = {number for number, _ in _offered_only(question)}
    if not offered:
        return frozenset()
    pieces = {
        piece for m in _NUMBER_TOKEN_RE.finditer(fold(question)) if _number(m.group()) in offered
        for piece in m.group().split(",")
    }  # fmt: skip
    return frozenset(t for t in query_terms(question) if _MULTIPLIED_RE.sub("", t) in offered | pieces)


_MULTIPLIED_RE = re.compile(r"(?<=\d)(?:k|千|万|亿)$")


def _words(question: str) -> dict[str, frozenset[str]]:
    """The question's words, each with the tokens that stand for it: jieba's search mode yields a
    compound and its parts ("主教练", "主教", "教练"), which are one word asked once, not three.

    The words that ask ("什么时候", "哪一年") are not in the question's terms (textproc.query_terms); nor is a
    function character asked alone ("又", "叫"). A piece jieba glued to a function character after a name it does
    not know ("罗是" in "马赛罗是…", "潘淑是") is spelled as the name it belongs to; a spelled key is
    matched in the passage's text.
    """
    folded = fold(question)
    _, chinese = function_words()
    terms = focus_terms(question, unit=False)
    spelled = {t: _unglued(t, terms, folded) for t in terms}
    words: dict[str, frozenset[str]] = {}
    whole = shattered(question)
    for t in terms:
        if t in whole:
            # A word jieba's dictionary lacks, cut into its characters: held where the text writes it whole (no
            # token stands for it, so the candidates that hold it are counted in their text, as a glued name's are).
            words[t] = frozenset()
            continue
        if _auxiliary_glued(t, folded, before=True):
            # "能订", "要换": an auxiliary jieba glued to the verb of one character after it, a pair no passage writes.
            # The verb is the word, held where the text writes it (预订, 更换), as a shattered word is.
            words.setdefault(t[1], frozenset())
            continue
        key = spelled[t]
        if any(key != spelled[u] and key in spelled[u] for u in terms) or key in chinese or demonstrative(key):
            continue
        # "水会": a word of one character and the auxiliary jieba glued to it. It is held where 水 is written as a
        # word too, and it is no word of its own where another word of the question writes it ("几门课有" beside 课程).
        alone = {key[0]} if _auxiliary_glued(key, folded) else set()
        if alone and any(key[0] in spelled[u] and len(spelled[u]) > 1 and spelled[u] != key for u in terms):
            continue
        parts = frozenset(u for u in terms if u in key and (u == key or len(u) > 1))
        words[key] = words.get(key, frozenset()) | parts | {t} | alone
    return words


@functools.lru_cache(maxsize=1024)
def shattered(question: str) -> tuple[str, ...]:
    """The words of `question` (without the words that ask) that jieba cuts into single characters: `_shattered`."""
    return _shattered(asked_text(question))


def _shattered(folded: str) -> tuple[str, ...]:
    """The words of a (folded) question that jieba's dictionary lacks and so cuts into single characters, found as a
    run of one-character words that CC-CEDICT lists whole (2 to 4 characters, longest first): "年假" (annual leave)
    is cut 年 + 假 (year, holiday), and a passage on sick leave (病假) "每年享有 10 天带薪病假" held the question's
    every other word; weighed as two common characters, 年假 hardly counted. Function characters (的, 是, 在) are
    never part of one."""
    _, chinese = function_words()
    tags = _tagged(folded)
    out: list[str] = []
    run: list[str] = []
    previous = ""
    for word, start, end in (*jieba.tokenize(folded), ("", -2, -2)):
        # A character right after a number is its unit ("2024年", "60岁"), no word's first; an adverb, a
        # preposition, a pronoun or a locative (再, 在, 我, 中: jieba's tags d, p, r, f) is no word's piece.
        if (
            end - start == 1
            and has_cjk(word)
            and word not in chinese
            and word not in STOPWORDS
            and word not in _GLUED
            and tags.get(word, "x")[:1] not in ("d", "p", "r", "f", "c", "u", "y")
            and not (not run and _NUMBER_WORD_RE.fullmatch(previous))
        ):
            run.append(word)
            previous = word
            continue
        # The run ends here: its longest dictionary words, left to right (CC-CEDICT is read only for a run of two).
        table = dictionary().zh_en if len(run) > 1 else {}
        i = 0
        while i < len(run) - 1:
            for size in range(min(4, len(run) - i), 1, -1):
                candidate = "".join(run[i : i + size])
                # Two verbs are a verb and its result ("写完"), not a word the dictionary lacks.
                verbs = all(tags.get(ch, "")[:1] == "v" for ch in candidate)
                if candidate in table and not jieba.dt.FREQ.get(candidate) and not verbs:
                    out.append(candidate)
                    i += size
                    break
            else:
                i += 1
        run = []
        previous = word
    return tuple(dict.fromkeys(out))


_NUMBER_WORD_RE = re.compile(r"[\d.,]+|[零〇一二两三四五六七八九十百千万亿]+")


def _auxiliary_glued(term: str, question: str, *, before: bool = False) -> bool:
    """ "水会", "线要", "课有": a Chinese character and an auxiliary after it (`before`: a modal, then the
    character: "能订", "要换"), a pair jieba's dictionary does not hold and its part-of-speech tagger does not read in
    `question` as a person's name (刘能 of "刘能和刘德华是什么关系？")."""
    if not (len(term) == 2 and has_cjk(term) and not jieba.dt.FREQ.get(term)):
        return False
    if term[0 if before else 1] not in (_MODALS if before else _AUXILIARIES):
        return False
    return _tagged(question).get(term) != "nr"


@functools.lru_cache(maxsize=1024)
def _tagged(question: str) -> dict[str, str]:
    """Each word of the question as jieba's part-of-speech tagger cuts it, with its tag. Cached: one check reads a
    question's tags several times (common_nouns, said_besides, _auxiliary_glued)."""
    import jieba.posseg  # its tagger loads on first use, not at start-up

    return {pair.word: pair.flag for pair in jieba.posseg.lcut(question)}


def _unglued(term: str, terms: list[str], question: str) -> str:
    """ "罗是" -> "马赛罗" when the question reads "马赛罗是" and "马赛" is the word before it; "遇水会" -> "遇水" (an
    auxiliary after it); else `term`."""
    if len(term) < 2 or not has_cjk(term) or term[-1] not in _GLUED + _AUXILIARIES or jieba.dt.FREQ.get(term):
        return term  # "属于", "现在" are words of jieba's dictionary; "罗是" is not
    if len(term) > 2:
        return term[:-1]  # "潘淑是" -> "潘淑"
    if term[1] in _AUXILIARIES:
        return term  # "水会" of "甲醇钠碰到水会怎样" is 水 and "will" (`_words`), never a name "碰到水"
    head = term[0]
    for u in terms:
        if u != term and has_cjk(u) and len(u) >= 2 and f"{u}{head}{term[1]}" in question:
            return f"{u}{head}"
    return term


@functools.lru_cache(maxsize=4096)
def demonstrative(word: str) -> bool:
    """Whether a Chinese word points at its thing instead of naming it: a word jieba's dictionary tags as a pronoun
    or a numeral with its measure word, opening with 这, 那 or 哪 ("那边", "那根", "这部", "哪些"). Not other pronouns:
    "每天" asks how often, and an asking word ("何处") is not for this to drop."""
    if not word or word[0] not in "这那哪":
        return False
    import jieba.posseg  # the dictionary's tags load on first use (services/warmup.py loads them at start-up)

    return jieba.posseg.dt.word_tag_tab.get(word) in {"r", "mq"}


def _cover_groups(groups: list[tuple[tuple[str, ...], float]], tokens: frozenset[str]) -> float:
    total = sum(w for _, w in groups)
    return sum(w for g, w in groups if not tokens.isdisjoint(g)) / total if total else 0.0


__all__ = [
    "MIN_FOCUS",
    "Asked",
    "Verdict",
    "asked",
    "assess",
    "dateline",
    "holds",
    "identifiers",
    "in_text",
    "issue_words",
    "issuing",
    "opens_with_date",
    "screen",
    "shattered",
]
