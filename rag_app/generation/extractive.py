"""The default generator: verbatim sentences of the assembled snippets, no model needed.

Every sentence of every snippet is scored against the question: the IDF-weighted share of the
question's content terms it contains, blended with the share of the question's Chinese
character bigrams it contains (robust to segmentation differences). The answer quotes the
best sentences of ONE source, the top-ranked one unless another source's best sentence is
clearly better (or states what was asked where the top one's does not), so each paragraph cites
exactly the source its words came from. The sentence right after the best one is quoted too
(answers often follow the sentence naming the subject; a clause's number is part of the clause it opens, and a
number alone, like a clause's title, is never quoted: textproc.sentence_spans, is_title), and so is the best
sentence of every other kept chunk of that source (the answer often sits just across a chunk boundary); each
chunk's quotes form a paragraph citing that chunk. Another document whose best sentence matches the question at least as
well is quoted after them, in a paragraph citing it: words cannot tell which of the two answers. A
sentence shaped like the answer the question wants (a date for "when", a number for "how many", what X is
for "what is X") scores a little higher. Defaults were
tuned on CMRC 2018 dev and checked on trial (see the commit message); nothing in them is specific to
that data.

When the sentences of different sources disagree (conflict.py; a document speaks through each of its
chunks that answers about as well as its best one), the answer gives one quoted statement per source
instead, the higher level and newer effective date first, and the draft is flagged `conflict`. When
no sentence shares anything with the question, the answer says so in an uncited paragraph (shown as
insufficient evidence) instead of quoting something irrelevant.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rag_app.pipeline import generality, pinyin
from rag_app.pipeline.answerability import (
    Asked,
    asked,
    dateline,
    focus_terms,
    function_words,
    gives_amount,
    holds,
    in_text,
    issuing,
    shattered,
    states,
)
from rag_app.pipeline.chunking import CLAUSE_MARKS, introduces, is_list_item, opens_list, paragraph_break
from rag_app.pipeline.conflict import (
    Conflict,
    Statement,
    changed_stretch,
    compare,
    conflicting_markers,
    copies,
    copy_form,
    fact_kinds,
    one_stretch_apart,
    topic_overlap,
    trust_order,
)
from rag_app.pipeline.crosslingual import narrowed, reads_across, translate
from rag_app.pipeline.definition import definition_test
from rag_app.pipeline.naming import retrieval_text
from rag_app.pipeline.records import (
    AlignedAnswer,
    AlignedParagraph,
    AssembledSource,
    Assembly,
    ChunkRecord,
    Draft,
    DraftParagraph,
    EvidenceStatus,
)
from rag_app.pipeline.support import states_nothing
from rag_app.pipeline.textproc import (
    asked_text,
    cue_form,
    detect_language,
    fold,
    glued_pieces,
    has_cjk,
    is_title,
    locator_tokens,
    passage_tokens,
    query_terms,
    sentence_spans,
    stem,
    tokenize,
    version_splits,
)

_CJK_RE = re.compile(r"[\u3400-\u9fff]")
# A colour is the one kind of answer only quoting prefers; the kinds the answerability check also reads
# (a quantity, a date, a time, a clock time) are asked and recognised by pipeline/answerability.py alone.
_COLOUR_CUE_RE = re.compile(r"颜色|什么色|\bcolou?r\b", re.I)
# A colour stated: a colour word ("樱色", "黄色", "blue"), not a word that only has 色 in it (颜色 itself, 特色, 角色,
# 出色, 景色, 声色, 色彩).
_COLOUR_RE = re.compile(
    r"(?<![颜特角出景脸神声货气本成物女好失变音])色(?![彩调素])|\b(?:red|blue|green|yellow|black|white|brown|grey|gray)\b",
    re.I,
)
# "Where is it?" is answered by the sentence that says where it lies ("武藏浦和站是一个位于埼玉县…的铁路车站",
# "is located in"), over one that only names the place in passing: a locative verb. Another kind only quoting
# prefers.
_PLACE_CUE_RE = re.compile(
    r"在哪(?!些|种|个方面)|哪里|哪儿|什么地方|什么位置|何处|何地|(?:位置|地址|地点)是?什么"
    r"|\bwhere (?:is|are|was|were)\b",
    re.I,
)
_LOCATED_RE = re.compile(
    r"位于|坐落|座落|地处|设于|设在|位在|\b(?:located|situated|headquartered|based) (?:in|at|on|near)\b", re.I
)
_HEADING_RE = re.compile(r"^\s*#{1,6}\s")
# The label of a question or an answer in a FAQ ("Q:", "A:", "问：", "答："): no part of what the sentence states, in a
# text that labels both (`_is_faq`; "A: exceeds expectations" of a rating scale is the grade's statement).
_QA_LABEL_RE = re.compile(r"\s*(?:Q|A|问|答)\s*[:：]\s*")
_Q_LABEL_RE = re.compile(r"(?:^|(?<=[\n.!?。！？]))\s*(?:Q|问)\s*[:：]")
_A_LABEL_RE = re.compile(r"(?:^|(?<=[\n.!?。！？]))\s*(?:A|答)\s*[:：]")
# A sentence span that ends with a semicolon, closing quotes or brackets after it: the clause after it goes on with it.
_SEMICOLON_END_RE = re.compile(r"[;；][\s\"'”’」』）)\]】]*$")
# A sentence span that ends a clause, not a sentence: a semicolon or a colon, closing quotes or brackets after it; or a
# comma, where a chunk boundary cut an over-long sentence ("… or any and all other commercial damages or losses),").
_CLAUSE_END_RE = re.compile(rf"[{CLAUSE_MARKS}][\s\"'”’」』）)\]】]*$")
# An item enumerated inside a sentence: "(1) notify the manager; (2) return the laptop …", "① …；② …", "一是…；二是…".
_ENUMERATED_RE = re.compile(r"\s*(?:[(（]\d{1,2}[)）]|\d{1,2}[)）]|[①-⑳]|[一二三四五六七八九十]是)")

# What a sentence stating the asked kind gains (a date for "when", a number for "how many"), and one defining
# the asked term (English); the share of an English sentence's score read from the question's word pairs.
# Measured on the natural-question set, CMRC dev and trial and the test bed: docs/EVALUATION.md, session 29.
TYPE_BONUS = 0.25
DEFINITION_BONUS = 0.4
PAIR_SHARE = 0.3
# A sentence that states a value of the asked kind too, beside a best sentence that does, is another answer (another
# category's period in a retention list: "Customer contract records are kept for 7 years" beside "Employee personnel
# files are kept for 5 years" for "离职员工的档案要保留几年？"), not context: quoted only when it matches the question
# nearly as well (this share of the best's score).
RIVAL_RATIO = 0.75
# How far a quote may run, in multiples of max_chars, when its best sentence introduces a list or a sample
# (`_pick`): far enough for the four conditions of a licence's redistribution clause.
INTRODUCED_CHARS = 2

NOT_FOUND = {
    "en": "The retrieved sources do not state this directly; try other terms or ask a reviewer.",
    "zh": "检索到的资料没有直接说明这一点；请换个说法或咨询审核人员。",
}


@dataclass(frozen=True, slots=True)
class ScoredSentence:
    marker: str
    rank: int  # position of the source in the assembly
    start: int
    end: int
    text: str
    score: float
    typed: bool = False  # states a value of the asked kind (or defines what was asked): got a bonus
    asks: bool = False  # part of an FAQ's question ("Q: Can I fly business class?"): quoted only with its answer


class ExtractiveGenerator:
    mode = "extractive"
    model = "extractive"

    def __init__(
        self,
        *,
        max_sentences: int = 4,
        max_chars: int = 450,
        keep_ratio: float = 0.5,
        switch_margin: float = 0.2,
        min_score: float = 0.05,
        follow: bool = True,
        lead: bool = False,
        type_bonus: float = TYPE_BONUS,
        definition_bonus: float = DEFINITION_BONUS,
        conflict_ratio: float = 0.8,
        crosslingual: bool = True,
    ) -> None:
        self.crosslingual = crosslingual
        self.conflict_ratio = conflict_ratio
        self.follow = follow
        self.lead = lead
        self.type_bonus = type_bonus
        self.definition_bonus = definition_bonus
        self.max_sentences = max_sentences
        self.max_chars = max_chars
        self.keep_ratio = keep_ratio
        self.switch_margin = switch_margin
        self.min_score = min_score

    def generate(self, *, question: str, assembly: Assembly, language: str, history: Sequence[str] = ()) -> Draft:
        # Quotations come from the sources alone; a follow-up is read with its thread (`thread_reading`).
        lang = "zh" if language == "zh" else "en"
        question, anchor = thread_reading(question, history)
        scored = self._score(question, assembly, anchor=anchor)
        trace: dict[str, object] = {"generator": "extractive", "query_terms": query_terms(question)}
        best_by_marker = _best_sentences(scored)
        if not best_by_marker or max(s.score for s in best_by_marker.values()) < self.min_score:
            trace["decision"] = "no sentence shares terms with the question"
            return self._draft((DraftParagraph(NOT_FOUND[lang]),), trace)

        by_marker = assembly.by_marker()
        primary = self._primary(best_by_marker, by_marker, assembly.named, language)
        within = self._read_by_characters(question, assembly, scored, anchor=anchor)
        conflicts, said = self._conflicts(question, assembly, scored, best_by_marker, always=(primary,), reading=within)
        if conflicts:
            markers = conflicting_markers(conflicts)
            ordered = sorted(markers, key=lambda m: _trust_key(by_marker[m]))
            paragraphs = tuple(DraftParagraph(said.get(m, best_by_marker[m].text), (m,)) for m in ordered)
            trace["decision"] = "conflict"
            trace["conflicts"] = [c.as_dict() for c in conflicts]
            return self._draft(paragraphs, trace, conflict=True)

        # The primary source's chunks are read as one text: its best sentence may sit in one chunk and
        # the answer in the next one, and each quoted chunk becomes a paragraph citing that chunk. Its
        # sentences are told apart by the question's Chinese words written in them too, whatever jieba cut
        # there (`characters`); which source answers was chosen on words alone ("熊猫" writes 猫 and is
        # another animal).
        group = _same_source(by_marker, primary)
        follows, continuing = _follows(by_marker, group), _continuing(by_marker, group)
        chosen = self._pick(
            within,
            group,
            said_back=lambda text: states_nothing(text, question),
            snippets={m: by_marker[m].snippet for m in group},
            follows=follows,
            continuing=continuing,
            rivals=asked(question) in _VALUE_KINDS,
        )
        quoted: list[DraftParagraph] = []
        # The passage holding the best sentence speaks first, with the chunks after it in document order, then those
        # before it: an answer opens with what answers ("Who approves business class?" opened with the chunk before's
        # "Trips abroad require written approval…"). A passage is the run of chunks the best one's goes on from: a
        # paragraph cut at a chunk boundary, or a list after the sentence introducing it, is never read back to front.
        lead = group.index(max(chosen, key=lambda s: s.score).marker) if chosen else 0
        while lead > 0 and self._runs_on(group[lead - 1], group[lead], chosen, follows, continuing):
            lead -= 1
        for marker in group[lead:] + group[:lead]:
            mine = [s for s in chosen if s.marker == marker]
            if mine:
                quoted.append(DraftParagraph(_quote(by_marker[marker].snippet, mine), (marker,)))
        also = self._also_quoted(best_by_marker, assembly, primary, group, chosen, question, within, language)
        quoted += [DraftParagraph(_quote(by_marker[s.marker].snippet, [s]), (s.marker,)) for s in also]
        trace["decision"] = "quote"
        trace["sentences"] = [
            {"marker": s.marker, "score": round(s.score, 4), "text": s.text} for s in (*chosen, *also)
        ]
        return self._draft(tuple(quoted), trace)

    def _also_quoted(
        self,
        best: dict[str, ScoredSentence],
        assembly: Assembly,
        primary: str,
        group: list[str],
        chosen: list[ScoredSentence],
        question: str,
        within: list[ScoredSentence],
        language: str = "",
    ) -> list[ScoredSentence]:
        """The best sentence of another document that matches the question at least as well as the quoted
        document's best (at most ALSO_QUOTED of them, best first), each to be quoted as a paragraph of its own
        after the quote (one sentence, beyond max_chars). Words cannot tell such sentences apart: "d) If the
        work has interactive user interfaces, each must display Appropriate Legal Notices" ties with the
        sentence that says when an interface displays them, in a passage retrieval ranked second. Unlike the
        tie of `_primary` (which source is quoted at all: relevance within TIE_SHARE), this one adds a source
        and reads the sentences alone.

        `best` holds the scores sources are chosen by (words as jieba cut them: "熊猫的平均寿命为20年。" does not
        hold 猫); `within`, the reading the quote was chosen by (characters too). Not taken: a source of a lower
        level than the quoted one (a note beside the official text), or one read across languages that the quoted one
        outweighs (`_outweighed`); one the question does not name as it
        names the quoted one (`_named_alike`: the GFDL 1.2 beside the GFDL 1.3 asked about); a version whose
        period ends before the quoted one's (kept only by RAG_EXPIRED_POLICY=demote). Nor a sentence that says
        a quoted one again (one stretch apart, "享年60岁" / "享年六十岁", or the same content words), only says
        the question back, or on `within` matches the question less well than the quoted sentence."""
        by_marker = assembly.by_marker()
        quoted = by_marker[primary].record
        top = max(best[m].score for m in group if m in best)
        read = {(x.marker, x.start): x.score for x in within}
        quoted_top = max(c.score for c in chosen)
        seen = {_document(by_marker[m]) for m in group}
        out: list[ScoredSentence] = []
        for s in sorted(best.values(), key=lambda s: (-s.score, s.rank)):
            if len(out) >= ALSO_QUOTED or s.score < top - 1e-9:  # float sums of equal coverage
                break
            source = by_marker[s.marker]
            record, document = source.record, _document(source)
            if s.asks or document in seen or read[(s.marker, s.start)] < quoted_top - 1e-9:
                continue
            if record.level_weight < quoted.level_weight or not _named_alike(record, quoted, assembly.named):
                continue
            if _outweighed(record, quoted, language):
                continue
            if record.effective_until is not None and (
                quoted.effective_until is None or record.effective_until < quoted.effective_until
            ):
                continue
            text = copy_form(s.text)
            if states_nothing(s.text, question) or any(
                topic_overlap(s.text, c.text) >= SAME_STATEMENT or one_stretch_apart(text, copy_form(c.text))
                for c in chosen
            ):
                continue
            seen.add(document)
            out.append(s)
        return out

    def disagreements(
        self, *, question: str, assembly: Assembly, cited: Sequence[str] = (), history: Sequence[str] = ()
    ) -> tuple[list[Conflict], dict[str, str]]:
        """The check an extractive answer makes before it quotes, for an answer written by a model: do
        qualified sources give different values for what was asked? The sources the model cited are
        always compared; the others as the extractive answer would compare them (answering about as
        well as the best, naming the question's subject). A follow-up (`history`: its thread) is read as
        `generate` reads it (`thread_reading`). Returns the conflicts and, per conflicting source, the
        sentence that states its side."""
        question, anchor = thread_reading(question, history)
        scored = self._score(question, assembly, anchor=anchor)
        best_by_marker = _best_sentences(scored)
        always = tuple(m for m in cited if m in best_by_marker)
        if not always or max(s.score for s in best_by_marker.values()) < self.min_score:
            return [], {}  # no sentence says anything of what was asked: nothing to disagree on (as `generate` quotes)
        within = self._read_by_characters(question, assembly, scored, anchor=anchor)
        return self._conflicts(question, assembly, scored, best_by_marker, always=always, reading=within)

    def _read_by_characters(
        self, question: str, assembly: Assembly, scored: list[ScoredSentence], *, anchor: str = ""
    ) -> list[ScoredSentence]:
        """The sentences scored with the question's Chinese words read by their characters too
        (`score_sentences(characters=True)`, with the follow-up's `anchor`); a question without Chinese has no such
        word, and its scores are `scored` as they stand."""
        if not has_cjk(question):
            return scored
        return self._score(question, assembly, characters=True, anchor=anchor)

    def _score(
        self, question: str, assembly: Assembly, *, characters: bool = False, anchor: str = ""
    ) -> list[ScoredSentence]:
        """`score_sentences` with this generator's settings."""
        return score_sentences(
            question,
            assembly.sources,
            type_bonus=self.type_bonus,
            definition_bonus=self.definition_bonus,
            crosslingual=self.crosslingual,
            characters=characters,
            anchor=anchor,
        )

    def _conflicts(
        self,
        question: str,
        assembly: Assembly,
        scored: list[ScoredSentence],
        best_by_marker: dict[str, ScoredSentence],
        *,
        always: tuple[str, ...],
        reading: list[ScoredSentence],
    ) -> tuple[list[Conflict], dict[str, str]]:
        """Which documents are compared is decided on `scored` (words as jieba cuts them: "熊猫" is not about
        猫); which of their sentences speak for them, on `reading` (the question's Chinese words read by their
        characters too, as the quote reads the quoted document): the copy whose second chunk says "卵为白色"
        against the quoted "卵为黄色" is heard."""
        by_marker = assembly.by_marker()
        read_best = _best_sentences(reading)
        top = max(best_by_marker[m].score for m in always)

        # A document speaks through all its kept chunks: the asked value often sits in a chunk that matches
        # the question less well than the one naming its subject ("The threshold ... is not precisely
        # defined by law." in the chunk after the one on header files).
        def document(marker: str) -> str:
            return _document(by_marker[marker])

        doc_best: dict[str, float] = {}
        for s in best_by_marker.values():
            doc_best[document(s.marker)] = max(doc_best.get(document(s.marker), 0.0), s.score)
        asked = frozenset(query_terms(question))
        always_docs = {document(m) for m in always}
        # Compare the documents that answer the question about as well as the answer's own source does; a
        # source that matches only loosely is more likely about something else ... Of another level than the answer's
        # source, one whose best sentence states a value of the asked kind is compared down to keep_ratio of it: the
        # stale FAQ note's "住宿费每晚最多报销450元。" (0.57) beside the official
        # "员工出差住宿标准为每晚不超过600元。" (0.79) for "出差住宿每晚能报多少钱？", a disagreement between sources
        # of different trust, which a reader most needs to see. Between sources of one level the ratio stands (the
        # bed's 鑫诺一号 "在轨寿命为15年" beside 鑫诺三号's 12 years). Below the usual ratio such a source speaks on
        # values of the asked kind only (`bar`, below).
        levels = {by_marker[m].record.level for m in always}
        stating = {
            document(s.marker)
            for s in best_by_marker.values()
            if s.typed and s.score >= top * self.keep_ratio and by_marker[s.marker].record.level not in levels
        }
        docs = {
            d for d, score in doc_best.items() if d in always_docs or score >= top * self.conflict_ratio or d in stating
        }
        # ... and that name the question's most specific term (its subject, usually), so two
        # articles about different people or places never "disagree". The source the answer quotes is
        # always compared: the official policy that says "refund ... within 30 days" is weighed against
        # the note on "the refund window" even though only the note names the window.
        # A document whose kept chunks lack the anchor is still compared when its best sentence is a copy of
        # one of the answer's own, naming every question word that one names, and the answer's document
        # names the anchor (a copy whose other chunk, the one naming it, was not kept). "The Bravo line
        # station has 6 exits ..." is no copy of "The Alpha line station has 4 exits ...": it lacks "Alpha".
        anchor = _anchor_term(
            question, assembly.sources, [src for m, src in by_marker.items() if document(m) in always_docs]
        )
        if anchor is not None:
            doc_tokens: dict[str, set[str]] = {}
            doc_locator: dict[str, set[str]] = {}  # the tokens of each document's titles and section paths
            for m, src in by_marker.items():
                if m in best_by_marker:
                    doc_tokens.setdefault(document(m), set()).update(_source_terms(src))
                    doc_locator.setdefault(document(m), set()).update(_locator_terms(src))
            answer_best = [
                (s.text, asked & set(tokenize(s.text)))
                for s in best_by_marker.values()
                if document(s.marker) in always_docs and anchor in doc_tokens[document(s.marker)]
            ]

            # A copy shares the answer's locator: the question's words that the answer's title or section
            # path names ("Apache", "2.0") are named by the copy's too; MPL 2.0 words its definition of
            # "control" like the Apache License does, and is another document, not a copy.
            named_by_locator = asked & set().union(*(doc_locator.get(d, set()) for d in always_docs))

            def copies_the_answer(d: str) -> bool:
                if not named_by_locator <= doc_locator[d]:
                    return False
                return any(
                    topic_overlap(s.text, text) >= SAME_STATEMENT and named <= set(tokenize(s.text))
                    for s in best_by_marker.values()
                    if document(s.marker) == d
                    for text, named in answer_best
                )

            docs = {d for d in docs if d in always_docs or anchor in doc_tokens[d] or copies_the_answer(d)}
        # Each chunk of such a document that answers about as well as its best one speaks for it.
        read_doc_best: dict[str, float] = {}
        for s in read_best.values():
            read_doc_best[document(s.marker)] = max(read_doc_best.get(document(s.marker), 0.0), s.score)
        # A document the question does not name as it names the answer's is not compared (as `_also_quoted` does not
        # quote it): "under GPL v2" is not contradicted by what version 1 or 3 of the licence says.
        answer_records = [by_marker[m].record for m in always]

        def named_as_the_answer(marker: str) -> bool:
            return any(_named_alike(by_marker[marker].record, r, assembly.named) for r in answer_records)

        relevant = [
            s
            for s in read_best.values()
            if s.marker in always
            or (
                document(s.marker) in docs
                and named_as_the_answer(s.marker)
                and s.score >= read_doc_best[document(s.marker)] * self.keep_ratio
            )
        ]
        # Each source speaks through its few best sentences and the one after its best, not only the
        # best one: two copies that differ in one sentence share their best sentence, and the asked value
        # often sits in the next (the same sentences the quote would show), which then names a question word
        # the best one does not ("预备兵力" after "常备兵力"; `_statement_sentences`).
        # A chunk below the bar its document had to meet speaks on the asked claim (a negation, the asked
        # value) and on typed facts of the asked kind only: "(June 1995)" / "(June 1997)" cited in a copy's
        # second chunk is no disagreement on "Which C.F.R. section defines 'commercial item'?".
        bar = max(read_best[m].score for m in always) * self.conflict_ratio
        weak_kinds = fact_kinds(question)
        statements = [
            Statement(
                x.marker,
                by_marker[x.marker].record.source_id or "",
                x.text,
                None if s.score >= bar else weak_kinds,
            )
            for s in relevant
            for x in self._statement_sentences(reading, s, asked)
        ]
        # A passage that copies another document's but for one stretch (this year's policy beside last year's) speaks
        # through the sentence that changed as well: the value changed there is what the two disagree on when the
        # question asks it, however few of its words that sentence names ("线路全长548公里" / "线路全长712公里" for
        # "德龙烟铁路全长多少公里？": the best sentences of both copies are on another line of the railway).
        speaking = [m for m in by_marker if m in always or (document(m) in docs and named_as_the_answer(m))]
        statements += _changed_sentences(question, reading, by_marker, speaking, document, self.conflict_ratio)
        # A document that speaks on the asked kinds only (each of its statements below `bar`) does so in every sentence
        # its statements are weighed against: "兆康苑总站…现时有3条巴士路线以此处为总站。" is no disagreement on
        # "富泰巴士总站在哪", whose answer says 5 routes end there.
        weak = {st.source_id for st in statements} - {st.source_id for st in statements if st.kinds is None}
        source_of = {m: src.record.source_id or "" for m, src in by_marker.items()}
        sentences = [
            Statement(x.marker, source_of[x.marker], x.text, weak_kinds if source_of[x.marker] in weak else None)
            for x in scored
        ]
        return _aligned_conflicts(statements, question, sentences)

    def _statement_sentences(
        self, scored: list[ScoredSentence], best: ScoredSentence, asked: frozenset[str] = frozenset()
    ) -> list[ScoredSentence]:
        """A source's statements for the conflict check: its best sentence, then its next best ones (at
        most STATEMENTS_PER_SOURCE, each scoring at least keep_ratio of its best) and the sentence after
        its best, those only when they name one of the question's terms (`asked`) that the best sentence does
        not: a date changed in a sentence about something else is not a disagreement on what was asked."""
        own = [s for s in scored if s.marker == best.marker]
        ranked = sorted(own, key=lambda s: (-s.score, s.start))
        extra = [s for s in ranked[1:STATEMENTS_PER_SOURCE] if s.score >= best.score * self.keep_ratio]
        after = min((s for s in own if s.start >= best.end), key=lambda s: s.start, default=None)
        if after is not None and after not in extra:
            extra.append(after)
        # A sentence that names no question word the best one does not is about something else of the same
        # subject: "doubtful cases shall be resolved in favor of coverage" beside the definition of a consumer
        # product, for "what kind of use makes something a consumer product?".
        named = asked & set(tokenize(best.text))
        on_topic = [s for s in extra if s is not best and (asked & set(tokenize(s.text))) - named]
        return [best, *on_topic]

    def _primary(
        self,
        best: dict[str, ScoredSentence],
        by_marker: dict[str, AssembledSource],
        named: frozenset[str],
        language: str = "",
    ) -> str:
        """The source the answer quotes: the top-ranked one, unless a source of the same level answers
        clearly better. A lower level never overrides a higher one that qualified in the question's language: a stale
        note that repeats the question's words does not replace the official policy that says it in its own.
        `language`: the question's."""
        first = min(best.values(), key=lambda s: s.rank)
        # A passage read across languages stands on a word-by-word translation, whose renderings include a word's lesser
        # senses (密码, "secret code": "code"): one of a higher level that qualified so at under OUTWEIGHED_SHARE of the
        # relevance of a lower level's passage whose best sentence matches as well does not keep that one from
        # answering. "我的密码至少要几位？" was answered from GPL 3's "valid for at least three years" (official, 0.37)
        # over the reviewed IT rules' "Passwords must be at least 14 characters long" (0.75).
        top = by_marker[first.marker].record
        if language and reads_across(top.language, language):
            # Only a passage that ranks with it otherwise: of a document the question names as it names the first's
            # (naming outranks level), and in effect as long as it (a version kept out of its period ranks last).
            # Outweighed also where its best sentence matches the question at under OUTWEIGHED_SHARE of the other's:
            # "每周可以在家办公几天" was answered from an official training rule's "at least 2 weeks before the course"
            # (relevance 0.42, its sentence 0.55) over the reviewed remote-work rule's "may work remotely up to 2 days
            # per week" (0.61, 0.95).
            stronger = [
                s
                for s in best.values()
                if (
                    _outweighed(top, (other := by_marker[s.marker].record), language)
                    or first.score < OUTWEIGHED_SHARE * s.score
                )
                and s.score >= first.score
                and _named_alike(other, top, named)
                and (other.effective_until is None or (top.effective_until or dt.date.max) <= other.effective_until)
            ]
            if stronger:
                first = max(stronger, key=lambda s: (by_marker[s.marker].record.relevance, -s.rank))
        level = by_marker[first.marker].record.level_weight
        peers = [s for s in best.values() if by_marker[s.marker].record.level_weight >= level]
        challenger = max(peers, key=lambda s: (s.score, -s.rank))
        if challenger.score > first.score + self.switch_margin:
            return challenger.marker
        # The top-ranked source's best sentence does not state what was asked (a date for "when", what X
        # is for "what is X") and a peer's does, matching the question about as well: the peer answers.
        if not first.typed and challenger.typed and challenger.score > first.score:
            return challenger.marker
        # Retrieval that cannot tell two sources apart (relevance within TIE_SHARE of the first's) leaves the
        # choice to their sentences: "…incorporated prior to November 1, 2008" answers "By what date must
        # works have been added to an MMC?" better than "…may republish an MMC … before August 1, 2009",
        # whose passage ranked first by 0.007.
        # Only a source of the same level can tie (a higher one ranked first already; one below, or a
        # version kept out of its period, ranks after it on purpose), and only one the question names as
        # it names the first (`named`, from retrieval: pipeline/naming.py; "GPL v2" tells the GPL version 2
        # from version 1).
        top = by_marker[first.marker].record
        tied = [
            s
            for s in best.values()
            if by_marker[s.marker].record.level == top.level
            and by_marker[s.marker].record.level_weight == top.level_weight
            and _named_alike(by_marker[s.marker].record, top, named)
            and abs(by_marker[s.marker].record.relevance - top.relevance) <= TIE_SHARE * top.relevance
        ]
        contender = max(tied, key=lambda s: (s.score, -s.rank))
        if contender.score > first.score and contender.typed >= first.typed:
            return contender.marker
        # Sources of one level that retrieval cannot tell apart and whose best sentences score alike (a policy and its
        # newer edition stating the same rule, most often) are quoted from the newer, as it would speak first in a
        # disagreement (`_trust_key`): "who does the travel policy apply to" quoted the 2024 policy, ranked first by
        # 0.005, over the 2026 one. Scores are sums of weights: alike within rounding.
        alike = [s for s in tied if abs(s.score - first.score) <= 1e-9 and s.typed == first.typed]
        newer = min(alike, key=lambda s: (_trust_key(by_marker[s.marker])[:2], s.rank))
        trusted = _trust_key(by_marker[newer.marker])[:2] < _trust_key(by_marker[first.marker])[:2]
        return newer.marker if trusted else first.marker

    def _pick(
        self,
        scored: list[ScoredSentence],
        group: list[str],
        said_back: Callable[[str], bool] = lambda _: False,
        snippets: Mapping[str, str] | None = None,
        follows: Mapping[str, str] | None = None,
        continuing: Mapping[str, str] | None = None,
        rivals: bool = False,
    ) -> list[ScoredSentence]:
        """The best sentence of the group, the one after it, the best one of each other chunk, then others
        scoring near the best, within max_sentences / max_chars. Besides the best, a sentence that only says
        the question back (`said_back`: "额亦都（；）", a name and an emptied parenthesis) is not taken: in a
        chunk of its own it would be a paragraph that states nothing.

        `group` lists one document's markers in document order; the result is in that order too. `follows`: each
        marker whose chunk comes right after another's, with that other; `continuing`: those of them that go on with
        the other's paragraph (`_continuing`). `rivals`: the question asks a value (a quantity, a measure, a date, a
        time), so a sentence stating another one beside a best sentence that states one is a rival (RIVAL_RATIO).
        """
        snippets, follows, continuing = snippets or {}, follows or {}, continuing or {}
        position_of = {m: i for i, m in enumerate(group)}
        in_order = sorted(
            (s for s in scored if s.marker in position_of), key=lambda s: (position_of[s.marker], s.start)
        )
        own = sorted(in_order, key=lambda s: (-s.score, position_of[s.marker], s.start))
        best = own[0]
        chosen = [best]
        used = len(best.text)
        # The sentence after the best match often carries the answer ("In 1779 ... . The county was X."), when it goes
        # on with the best one's paragraph: one that opens another paragraph (a blank line between them, or the next
        # chunk, whose paragraph the snippets do not show) is taken only when it shares something with the question
        # ("… a lost badge must be reported within 24 hours." is not followed by the next paragraph's training).
        position = in_order.index(best)
        neighbours = []
        # The sentence right after the best one is its context, whatever it states ("…其中就包括乔丹车队的蒙泰罗。" is
        # followed by "最终蒙泰罗…获得第3名。"); another that states a value of the asked kind is a rival (`rival`).
        follower: ScoredSentence | None = None
        if self.follow and position + 1 < len(in_order):
            after = in_order[position + 1]
            if after.marker == best.marker:
                same_paragraph = not paragraph_break(snippets.get(best.marker, ""), best.end, after.start)
            else:
                same_paragraph = continuing.get(after.marker) == best.marker
            if (same_paragraph or after.score > 0) and passage_tokens(after.text):  # not a connective ("or,")
                neighbours.append(after)
                follower = after
        # A best sentence that introduces what follows ("…provided that you meet the following conditions:",
        # "办法如下：") is quoted with what it introduces, the rest of its chunk in order, on a budget of
        # INTRODUCED_CHARS times max_chars: the conditions are the answer, the words before the colon only say
        # what they are. The run stops at the first sentence that does not fit, so no item is skipped silently.
        # The run ends where a new paragraph that is no list item begins: that is what follows the list. It goes on into
        # the next chunk of the document when that chunk is kept too (`follows`: the conditions (b), (c) and (d) of the
        # Apache License's redistribution clause lie in the chunks after the one that opens with it and (a)). So is one
        # that holds the list's first item after its colon (`opens_list`: a paragraph ran the list's lines together).
        if introduces(best.text) or opens_list(best.text):
            previous = best
            for s in in_order[position + 1 :]:
                if used + len(s.text) > self.max_chars * INTRODUCED_CHARS:
                    break
                item = is_list_item(s.text)
                if s.marker != previous.marker:
                    if follows.get(s.marker) != previous.marker or not item:
                        break
                elif not item and paragraph_break(snippets.get(s.marker, ""), previous.end, s.start):
                    break
                chosen.append(s)
                used += len(s.text)
                previous = s
        if self.lead and position > 0:
            neighbours.append(in_order[position - 1])
        # Every other kept chunk of the document contributes its best sentence: the chunk passed the
        # threshold as part of this document, and the answer often sits just across a chunk boundary.
        for marker in group:
            best_here = next((s for s in own if s.marker == marker and s.score > 0 and not said_back(s.text)), None)
            if best_here is not None and best_here.marker != best.marker:
                neighbours.append(best_here)

        def rival(s: ScoredSentence) -> bool:
            return rivals and best.typed and s.typed and s.score < best.score * RIVAL_RATIO and s is not follower

        for near in neighbours:
            if near not in chosen and used + len(near.text) <= self.max_chars and not rival(near):
                chosen.append(near)
                used += len(near.text)
        for s in own[1:]:
            if s in chosen or said_back(s.text):
                continue
            if len(chosen) >= self.max_sentences or s.score < best.score * self.keep_ratio or s.score <= 0:
                break
            if used + len(s.text) > self.max_chars or rival(s):
                continue
            chosen.append(s)
            used += len(s.text)
        return self._whole_sentences(chosen, in_order, snippets, used, continuing)

    def _whole_sentences(
        self,
        chosen: list[ScoredSentence],
        in_order: list[ScoredSentence],
        snippets: Mapping[str, str],
        used: int,
        continuing: Mapping[str, str],
    ) -> list[ScoredSentence]:
        """`chosen` in document order, each quote run on to the end of its sentence: a clause that ends with a
        semicolon, a colon or a comma ("… but WITHOUT ANY WARRANTY;", "猴面包树的叶子可以吃，味道很好；", "… with two
        steps:") is quoted with the clauses after it in its paragraph, up to the one that ends the sentence, on the
        budget a list gets (INTRODUCED_CHARS times max_chars). An item of a list after a semicolon (a list item, or one
        enumerated in the sentence: "(2) …; (3) …", "二是…；") is the next item, not the rest of the sentence: the item
        stands alone ("(c) You must retain … ; and"). A sentence that introduces a list ("…are not reimbursed:") is
        quoted with the whole list, as the best sentence is (`_pick`), or, past the budget, alone."""
        taken = sorted(chosen, key=lambda s: (s.marker, s.start))
        index = {(s.marker, s.start): i for i, s in enumerate(in_order)}
        out = set(taken)
        budget = self.max_chars * INTRODUCED_CHARS
        for s in taken:
            # A clause after a semicolon is quoted with the clauses before it in its sentence ("For flights of 6 hours
            # or longer, premium economy is allowed; business class requires approval from a Vice President."): on its
            # own it drops the condition it rests on. Not an item of a list, nor a clause after one.
            before = self._clauses_before(s, in_order, index, snippets, out)
            if before and used + sum(len(x.text) for x in before) <= budget:
                out.update(before)
                used += sum(len(x.text) for x in before)
            run: list[ScoredSentence] = []
            current, listing = s, False
            while listing or _CLAUSE_END_RE.search(current.text):
                i = index[(current.marker, current.start)] + 1
                if i >= len(in_order):
                    break
                after = in_order[i]
                if after in out:
                    break
                if after.marker != current.marker:
                    if continuing.get(after.marker) != current.marker:
                        break  # the next chunk opens another paragraph (or is not the next chunk)
                elif not listing and paragraph_break(snippets.get(current.marker, ""), current.end, after.start):
                    break
                if not passage_tokens(after.text):
                    break  # a connective left over between items ("or,", "and"): it says nothing
                item = _item(after.text)
                if not run and item and introduces(current.text):
                    listing = True  # the sentence introduces the list that follows it
                if item != listing:
                    break  # an item after a clause, or what follows a list
                run.append(after)
                current = after
            if used + sum(len(x.text) for x in run) > budget:
                continue  # a list that does not fit is not cut short: the sentence that introduces it stays alone
            out.update(run)
            used += sum(len(x.text) for x in run)
        # An FAQ's question is quoted only before its answer: on its own ("Can I fly business class?" for the hotel
        # limit, or after the answer quoted, as the next question) it states nothing. The best sentence's answer is
        # quoted with it (`_pick`), so this leaves a quote of what answers.
        if any(s.asks for s in out):
            answered = set(out)
            for s in reversed(in_order):
                if s.asks and s in answered:
                    i = index[(s.marker, s.start)] + 1
                    if i >= len(in_order) or in_order[i] not in answered:
                        answered.discard(s)
            if answered:  # an FAQ's question alone, its answer in a chunk not kept, is quoted as it stands
                out = answered
        position_of = {m: i for i, m in enumerate(dict.fromkeys(x.marker for x in in_order))}
        return sorted(out, key=lambda s: (position_of[s.marker], s.start))

    @staticmethod
    def _runs_on(
        before: str,
        marker: str,
        chosen: list[ScoredSentence],
        follows: Mapping[str, str],
        continuing: Mapping[str, str],
    ) -> bool:
        """Whether `marker`'s chunk goes on from `before`'s: the paragraph continues across the boundary, or the last
        sentence quoted from `before` introduces what the next chunk lists."""
        if continuing.get(marker) == before:
            return True
        last = max((s for s in chosen if s.marker == before), key=lambda s: s.start, default=None)
        return follows.get(marker) == before and last is not None and introduces(last.text)

    @staticmethod
    def _clauses_before(
        s: ScoredSentence,
        in_order: list[ScoredSentence],
        index: Mapping[tuple[str, int], int],
        snippets: Mapping[str, str],
        out: set[ScoredSentence],
    ) -> list[ScoredSentence]:
        """The clauses of `s`'s sentence before it, back to the one that opens the sentence, when `s` opens after a
        semicolon in the same paragraph of the same chunk; none for an item of a list. A clause that opens an item
        ("2. 飞机一律乘坐经济舱；") is the last one taken: the clause after it goes on with its item
        ("单程飞行时间超过6小时的，经副总裁批准可乘坐公务舱。" is no rule of its own), as the clause after any other
        does."""
        back: list[ScoredSentence] = []
        current = s
        while not _item(current.text):
            i = index[(current.marker, current.start)] - 1
            if i < 0:
                break
            previous = in_order[i]
            if previous.marker != current.marker or previous in out:
                break
            if not _SEMICOLON_END_RE.search(previous.text):
                break
            if paragraph_break(snippets.get(current.marker, ""), previous.end, current.start):
                break
            back.append(previous)
            current = previous
        return back

    def _draft(self, paragraphs: tuple[DraftParagraph, ...], trace: dict[str, object], conflict: bool = False) -> Draft:
        raw = json.dumps(trace, ensure_ascii=False, default=str)
        return Draft(paragraphs=paragraphs, raw_output=raw, model=self.model, quoted=True, conflict=conflict)


def score_sentences(
    question: str,
    sources: tuple[AssembledSource, ...],
    *,
    type_bonus: float = TYPE_BONUS,
    definition_bonus: float = DEFINITION_BONUS,
    crosslingual: bool = True,
    characters: bool = False,
    anchor: str = "",
) -> list[ScoredSentence]:
    """Every sentence of every snippet with its score against the question, in context order.

    A score is 0.7 of the question's weighted words the sentence holds and 0.3 of the question's pairs it
    writes side by side (character bigrams of a Chinese question, adjacent content words of an English one:
    PAIR_SHARE). A sentence that looks like the kind of answer the question asks for (a date for "when", a
    number for "how many", a colour for "what colour") gets `type_bonus` on top, and one defining the asked
    term by its words in order `definition_bonus` instead. With `crosslingual`,
    the question translated word by word (pipeline/crosslingual.py) is scored too and a sentence
    keeps the better of the two term coverages: a Chinese question quotes English sentences. With
    `characters`, a Chinese word of the question is also held by a sentence that writes its characters,
    whatever jieba cut there ("卵" of "卵为黄色" and "产卵"; answerability.in_text, words of one character too):
    for choosing among one document's sentences. A table's record that states a value of the asked kind is read with
    its title and section path even where it writes none of the question's words (the row of opening hours).

    `anchor`: a follow-up as it was asked, when `question` is what it was searched as (naming.retrieval_text, the
    thread's earlier question's words added): a sentence scores only if it, its title or section path, or the FAQ
    question it answers holds one of the follow-up's own words (`_own_words`), in either language. "and in 2024?"
    after "hotel limit per night?" quotes the 2024 policy's hotel limit (its title names 2024), not the line that
    only names 2024; "And for interns?" quotes nothing from a travel rule that names no intern.
    """
    # The words the answerability check weighs (no function words: "under" of "the Source form under the
    # Apache License" must not pick "... made available under the License"); all terms if that is none.
    terms = focus_terms(question) or query_terms(question)
    # The translation is read in sources of the other language only, as search and the answerability check
    # read it (crosslingual.reads_across): "一号" is also "1", and "12月1日" in a Chinese sentence is no
    # rendering of it. A source of unknown language is read both ways.
    asked_in = detect_language(question)
    other_language = {s.marker: s.record.language is None or reads_across(s.record.language, asked_in) for s in sources}
    kind = asked(question)
    # A quantity asked in a unit ("多少公里", "多久") is stated by a number in a unit of that kind, as the
    # answerability check reads it (gives_amount): "全长57.1公里", not the year the line opened.
    colour = kind is Asked.OTHER and _COLOUR_CUE_RE.search(cue_form(question)) is not None
    place = kind is Asked.OTHER and _PLACE_CUE_RE.search(cue_form(question)) is not None
    defines = definition_test(question) if kind in (Asked.OTHER, Asked.DEFINITION) else None
    q_bigrams = _bigrams(question)
    q_pairs = _pairs(asked_text(question))  # not "how many" (mani, copi) of "how many copies"
    names = pinyin.names(question)  # "Beitucheng" is held by a sentence that writes 北土城
    # `characters`: the rule the answerability check reads windows by (answerability.in_text), here taking
    # words of one character too.
    written = [t for t in terms if has_cjk(t)] if characters else []
    # A word jieba cuts into its characters ("年假": 年 + 假) is held by a sentence that writes it whole, as the
    # answerability check reads it (answerability.shattered): no token stands for it.
    whole = [t for t in shattered(question) if t not in written]
    # A name run together with its version ("GPLv3", "v3") is held by a sentence that writes its parts ("version 3",
    # "GPL 3"), as the search reads it (textproc.version_splits): "And v3?" is answered by "Version 3, 29 June 2007".
    versioned = {t: splits for t in terms if (splits := version_splits(t))}
    sentences: list[tuple[AssembledSource, int, int, int, str, bool, set[str]]] = []
    asking: set[tuple[str, int]] = set()  # (marker, start) of each sentence of an FAQ's question
    # An FAQ's answer is about what its question asks: "A single booking can last at most 4 hours." answers "How long
    # can I book a room for?" and names no room. Each sentence of an answer is read with its question's words, as with
    # its locator's; (marker, start) -> those words.
    about: dict[tuple[str, int], frozenset[str]] = {}
    # The words of a source's title and section path are read with each of its sentences (the locator says
    # what the sentence is about), so they no longer favour the sentence that happens to repeat them
    # ("... made available under the License" over "“Source” form shall mean ..." for "What is the Source
    # form under the Apache License?"); a sentence must still share a word with the question itself.
    context = {source.marker: frozenset(_locator_terms(source)) for source in sources}
    for rank, source in enumerate(sources):
        faq = _is_faq(source.snippet)
        asked_words: set[str] = set()  # the words of the FAQ question being read, or last read
        answering = False
        for line_start, line_end, record in _units(source.snippet):
            if _HEADING_RE.match(source.snippet[line_start:line_end]):
                continue  # a heading names the topic; it never answers anything
            # An FAQ's question, its "Q:" label's line up to an "A:" label, is quoted only with its answer
            # (`_whole_sentences`).
            in_question = False
            spans = [(line_start, line_end)] if record else sentence_spans(source.snippet, line_start, line_end)
            for s, e in spans:
                if faq and (label := _QA_LABEL_RE.match(source.snippet, s, e)):
                    s = label.end()  # "A: The hotel limit is 150 USD per night." is quoted without its FAQ label
                    in_question = label.group().strip()[0] in "Q问"
                    answering = not in_question
                    if in_question:
                        asked_words = set()
                text = source.snippet[s:e]
                if is_title(text):
                    continue  # "2. Grant of Copyright License." names the clause, as a heading line does
                if _names_document(source, s, text, kind, question):
                    continue
                tokens = set(passage_tokens(text)) | pinyin.held(names, text)
                if written or whole:
                    folded = fold(text)
                    tokens |= {t for t in written if t not in tokens and in_text(t, folded, single=True)}
                    tokens |= {t for t in whole if in_text(t, folded)}
                if versioned:
                    tokens |= {t for t, splits in versioned.items() if any(set(parts) <= tokens for parts in splits)}
                if dateline(source.record, kind, text):
                    tokens |= issuing()  # "Version 2.0, January 2004" says when the licence was released
                if in_question:
                    asking.add((source.marker, s))
                    asked_words |= tokens
                elif answering and asked_words:
                    about[(source.marker, s)] = frozenset(asked_words)
                sentences.append((source, rank, s, e, text, record, tokens))
    # Each translated word with the renderings the sources in the other language use (crosslingual.narrowed),
    # as the search read it with those the index holds.
    if crosslingual and any(other_language.values()):
        used = set().union(*(toks | context[src.marker] for src, *_, toks in sentences if other_language[src.marker]))
        groups = [g.terms for g in narrowed(translate(question), used.__contains__)]
    else:
        groups = []
    n = max(1, len(sentences))
    df = {t: sum(1 for src, *_, toks in sentences if t in toks or t in context[src.marker]) for t in terms}
    # A word common in the language weighs no more than in ordinary text, as in the answerability check.
    weight = {t: generality.capped(t, math.log(1 + n / (1 + df[t]))) * (1 + 0.25 * min(len(t), 4)) for t in terms}
    total = sum(weight.values())
    group_df = [
        sum(
            1
            for src, *_, toks in sentences
            if other_language[src.marker] and (not toks.isdisjoint(g) or not context[src.marker].isdisjoint(g))
        )
        for g in groups
    ]
    group_weight = [
        math.log(1 + n / (1 + d)) * (1 + 0.25 * min(max(map(len, g)), 4)) for g, d in zip(groups, group_df, strict=True)
    ]
    group_total = sum(group_weight)
    own_words = _own_words(anchor) if anchor else []
    # A follow-up's own words in the other language are read through its own translation, in the sources of the
    # other language than its own ("那国内呢？" after an English question on an English policy: "domestic").
    own_across: dict[str, bool] = {}
    own_groups: list[tuple[str, ...]] = []
    if own_words:
        anchor_in = detect_language(anchor)
        own_across = {
            src.marker: src.record.language is None or reads_across(src.record.language, anchor_in) for src in sources
        }
        held_across = set().union(
            *(toks | context[src.marker] for src, *_, toks in sentences if own_across[src.marker])
        )
        own_groups = [g.terms for g in narrowed(translate(anchor), held_across.__contains__)] if held_across else []
    out: list[ScoredSentence] = []
    for source, rank, s, e, text, record, toks in sentences:
        answered = about.get((source.marker, s), frozenset())
        read = toks | context[source.marker] | answered
        reads = other_language[source.marker]
        if (
            own_words
            and read.isdisjoint(own_words)
            and not (own_across[source.marker] and any(not read.isdisjoint(g) for g in own_groups))
        ):
            out.append(ScoredSentence(source.marker, rank, s, e, text, 0.0, False, (source.marker, s) in asking))
            continue
        held = toks | answered
        own = any(t in held for t in weight) or (reads and any(not held.isdisjoint(g) for g in groups))
        # A table's row writes values under its column headers, seldom the question's words: "Area: Acme 4th floor /
        # Monday–Friday: 07:30–19:30" under "2. Opening Hours". One that states a value of the asked kind is read with
        # its locator as a sentence sharing a word is ("what time does the London office open?"): the rows are quoted
        # first, where the paragraph after the table ("If you need to be in the office outside these hours, …") was.
        # Whether a sentence states one is read once, and only where it counts (a record here, a scored one below).
        stated = _states_asked(kind, question, text) if record and not own else None
        own = own or bool(stated)
        term_cov = sum(w for t, w in weight.items() if t in read) / total if total and own else 0.0
        if group_total and own and reads:
            across = sum(w for g, w in zip(groups, group_weight, strict=True) if not read.isdisjoint(g))
            term_cov = max(term_cov, across / group_total)
        bigram_cov = len(q_bigrams & _bigrams(text)) / len(q_bigrams) if q_bigrams else 0.0
        score = 0.7 * term_cov + 0.3 * bigram_cov if q_bigrams else term_cov
        if q_pairs and not q_bigrams:
            # An English question's words side by side, in its order, are its phrases ("cover texts", "open
            # source"): the sentence that writes them so says more of it than one that scatters them.
            pair_cov = len(q_pairs & _pairs(text)) / len(q_pairs)
            score = (1 - PAIR_SHARE) * term_cov + PAIR_SHARE * pair_cov
        defined = defines(text) if defines is not None and score > 0 else ""
        typed = score > 0 and bool(
            (stated if stated is not None else _states_asked(kind, question, text))
            or (colour and _COLOUR_RE.search(fold(text)))  # read folded: 顏色 is 颜色, 位於 is 位于
            or (place and _LOCATED_RE.search(fold(text)))
            or defined
        )
        if typed:
            # What the question asks to be defined, defined by the sentence: the answer, over a sentence
            # that only uses the term more ('An "Application" is any work that ...' for "What does LGPLv3 mean by
            # an 'Application'?"). Only where the term's words are read in order (English, whatever the question's
            # language); the Chinese test reads one of its words ("观念艺术是艺术的一种" for "观念艺术发生的时期
            # 是什么？").
            score += definition_bonus if defined == "en" else type_bonus
        out.append(ScoredSentence(source.marker, rank, s, e, text, score, typed, (source.marker, s) in asking))
    return out


def _own_words(follow_up: str) -> list[str]:
    """The words a follow-up asks with itself (`score_sentences`' anchor): its focus words, a Chinese word jieba ran
    together from single characters read as its dictionary pieces of two characters or more ("要换" of
    "那多久要换一次？" is none: the follow-up then asks only what its thread asked)."""
    out: list[str] = []
    for term in focus_terms(follow_up) or query_terms(follow_up):
        pieces = glued_pieces(term)
        out.extend((p for p in pieces if len(p) > 1) if pieces else (term,))
    return out


def _states_asked(kind: Asked, question: str, text: str) -> bool:
    """Whether `text` plainly states a value of the asked kind (answerability.states), a quantity in the unit asked
    ("多少公里": a number in a unit of length, as the answerability check reads it, gives_amount)."""
    return states(kind, text, question) and (kind is not Asked.QUANTITY or gives_amount(question, fold(text)))


def thread_reading(question: str, history: Sequence[str] = ()) -> tuple[str, str]:
    """How a question is quoted from and compared: as it was searched and checked (naming.retrieval_text, the one
    rule: a follow-up with its thread's earlier question's words), and, for a follow-up, the follow-up as asked, whose
    own words still say what it asks of the earlier one (`score_sentences`' anchor; "" for a question read as it
    stands). "and in 2024?" after "hotel limit per night?" quotes the 2024 policy's hotel limit, not the sentence that
    only names 2024; "And for interns?" is not answered by a hotel limit that names no intern."""
    searched = retrieval_text(question, history)
    return searched, (question if searched != question else "")


def with_disagreements(
    answer: AlignedAnswer, question: str, assembly: Assembly, history: Sequence[str] = ()
) -> AlignedAnswer:
    """A model's answer, checked like an extractive one for qualified sources that disagree (issue 13:
    over every qualified candidate, not only the ones the answer happened to cite).

    A source the model left out that gives another value for what was asked is added as a paragraph
    quoting the sentence that says it, citing that source (higher level and newer effective date first),
    and the answer is flagged `conflict` naming every side. The model's own paragraphs stay as written.
    """
    cited = tuple(dict.fromkeys(m for p in answer.paragraphs for m in p.citation_ids))
    conflicts, said = ExtractiveGenerator().disagreements(
        question=question, assembly=assembly, cited=cited, history=history
    )
    if not conflicts:
        return answer
    by_marker = assembly.by_marker()
    markers = conflicting_markers(conflicts)
    left_out = sorted((m for m in markers if m not in cited and m in said), key=lambda m: _trust_key(by_marker[m]))
    added = tuple(AlignedParagraph(text=said[m], citation_ids=(m,), status=EvidenceStatus.LINKED) for m in left_out)
    notes = dict(answer.notes)
    earlier = notes.get("conflicts")
    notes["conflicts"] = [
        *(earlier if isinstance(earlier, list) else []),
        *(c.as_dict() for c in conflicts),
    ]
    notes["statements_added"] = list(left_out)
    return dataclasses.replace(
        answer,
        paragraphs=answer.paragraphs + added,
        sources=answer.sources + tuple(by_marker[m] for m in left_out),
        conflict=True,
        conflicting_markers=tuple(dict.fromkeys((*answer.conflicting_markers, *markers))),
        notes=notes,
    )


def _best_sentences(scored: list[ScoredSentence]) -> dict[str, ScoredSentence]:
    """Each source's best-scoring sentence (the first of equals)."""
    best: dict[str, ScoredSentence] = {}
    for s in scored:
        current = best.get(s.marker)
        if current is None or s.score > current.score:
            best[s.marker] = s
    return best


# Relevance share within which two sources tie for the quote (ExtractiveGenerator._primary).
TIE_SHARE = 0.02
# Below this share of a lower level's passage's relevance, a higher level's passage read across languages does not
# outrank it as the source quoted (`_primary`), nor stand beside it (`_also_quoted`); in `_primary`, nor below this
# share of the best sentence score of any other passage whose sentence matches the question better.
OUTWEIGHED_SHARE = 2 / 3
# Other documents quoted beside the quoted one when their best sentence matches the question at least as well
# (ExtractiveGenerator._also_quoted; measured: docs/EVALUATION.md, session 16).
ALSO_QUOTED = 1
# Sentences per source the conflict check reads (measured on the conflict pairs of eval-data/answerability,
# docs/EVALUATION.md).
STATEMENTS_PER_SOURCE = 3
# Topic overlap at which a sentence is another copy of the answer's sentence (conflict.topic_overlap).
SAME_STATEMENT = 0.9


# The kinds of value a copy's changed sentence may disagree on (the asked kind, answerability.asked).
_VALUE_KINDS = frozenset({Asked.QUANTITY, Asked.MEASURE, Asked.DATE, Asked.TIME, Asked.CLOCK})


def _changed_sentences(
    question: str,
    reading: list[ScoredSentence],
    by_marker: Mapping[str, AssembledSource],
    markers: Sequence[str],
    document: Callable[[str], str],
    ratio: float,
) -> list[Statement]:
    """For each two of `markers` of different documents whose passages copy one another but for one stretch
    (conflict.copies), the sentence of each that the other does not hold word for word, when each holds one such, it
    matches the question about as well as its passage's best sentence does (at least `ratio` of its score, as the
    documents compared must match it about as well as the answer's), and the question asks for a value (a quantity, a
    measure, a date, a time) that the changed stretch gives on both sides. A year changed in a sentence on another
    event ("1974年3月…让售于台北客运" for "哪一年海山客运正式并入台北客运？", the merger's year shared by both copies)
    and a clause reworded for a question that asks no value are another matter."""
    kind = asked(question)
    if kind not in _VALUE_KINDS:
        return []
    terms = frozenset(query_terms(question))
    texts: dict[str, list[ScoredSentence]] = {}
    for x in reading:
        texts.setdefault(x.marker, []).append(x)
    said = {m: {x.text for x in own} for m, own in texts.items()}
    best = {m: max(x.score for x in own) for m, own in texts.items()}
    out: list[Statement] = []
    for a, b in itertools.combinations(markers, 2):
        if document(a) == document(b) or not copies(by_marker[a].snippet, by_marker[b].snippet):
            continue
        only_a = [x for x in texts.get(a, []) if x.text not in said.get(b, set())]
        only_b = [y for y in texts.get(b, []) if y.text not in said.get(a, set())]
        if len(only_a) != 1 or len(only_b) != 1 or terms.isdisjoint(passage_tokens(only_a[0].text)):
            continue
        if any(x.score < ratio * best[x.marker] for x in (*only_a, *only_b)):
            continue
        changed = changed_stretch(only_a[0].text, only_b[0].text)
        if changed is not None and all(holds(kind, c) for c in changed):
            kinds = fact_kinds(question)
            out += [
                Statement(x.marker, by_marker[x.marker].record.source_id or "", x.text, kinds)
                for x in (*only_a, *only_b)
            ]
    return out


def _aligned_conflicts(
    statements: list[Statement], question: str, sentences: list[Statement] | None = None
) -> tuple[list[Conflict], dict[str, str]]:
    """Conflicts between sources: each statement of one document compared with the other document's
    sentence most like it (copies of one page line up sentence by sentence, so "常备兵力约9053名" is never
    weighed against "预备兵力约2990名"); with the sentence each conflicting marker states.

    The counterpart is sought among all of the other document's sentences in the assembly (`sentences`;
    by default its statements), in all its chunks, both ways: which of its sentences were picked as
    statements must not decide what a statement is weighed against. A copy whose own "10月析金华县城区设
    金华市，1950年…" ranked below the bar was otherwise represented by "2000年…设立金东区" alone, and the
    two years "disagreed"."""
    by_source: dict[str, list[Statement]] = {}
    for st in statements:
        by_source.setdefault(st.source_id or st.marker, []).append(st)
    pool: dict[str, list[Statement]] = {}
    for st in sentences or statements:
        pool.setdefault(st.source_id or st.marker, []).append(st)
    conflicts: list[Conflict] = []
    said: dict[str, str] = {}
    for (one, mine), (other, theirs) in itertools.combinations(by_source.items(), 2):
        found = _first_disagreement(mine, pool.get(other) or theirs, question) or _first_disagreement(
            theirs, pool.get(one) or mine, question
        )
        if found is not None:
            conflict, a, b = found
            conflicts.append(conflict)
            said.setdefault(a.marker, a.text)
            said.setdefault(b.marker, b.text)
    return conflicts, said


def _first_disagreement(
    mine: list[Statement], theirs: list[Statement], question: str
) -> tuple[Conflict, Statement, Statement] | None:
    """The first of `mine` that disagrees with its likest of `theirs` (every one of them on a tie: which of
    two equally like sentences, "How long is the refund window?" and "The refund window is 14 days.", comes
    first in the source must not decide whether the disagreement is seen)."""
    for a in mine:
        overlaps = [topic_overlap(a.text, t.text) for t in theirs]
        likest = max(overlaps)
        for b, overlap in zip(theirs, overlaps, strict=True):
            if overlap == likest and (found := compare(a, b, question)) is not None:
                return found, a, b
    return None


def _follows(by_marker: dict[str, AssembledSource], group: list[str]) -> dict[str, str]:
    """Of a document's markers in document order (`_same_source`), each that quotes the chunk right after another's
    (same version, next index), with that other: where a quote may run on from one chunk into the next."""
    return {
        b: a
        for a, b in itertools.pairwise(group)
        if by_marker[a].record.version == by_marker[b].record.version
        and by_marker[b].record.index == by_marker[a].record.index + 1
    }


def _continuing(by_marker: dict[str, AssembledSource], group: list[str]) -> dict[str, str]:
    """Of `_follows`' pairs, those whose later chunk goes on with the earlier one's paragraph: it begins at most one
    character after the other ends (a space, a wrapped line's newline; none between Chinese sentences), where a
    paragraph break leaves a blank line."""
    return {
        b: a for b, a in _follows(by_marker, group).items() if by_marker[b].record.start - by_marker[a].record.end <= 1
    }


def _same_source(by_marker: dict[str, AssembledSource], marker: str) -> list[str]:
    """The markers of `marker`'s document, in document order (chunk index)."""
    source_id = by_marker[marker].record.source_id
    same = [m for m, src in by_marker.items() if m == marker or (source_id and src.record.source_id == source_id)]
    return sorted(same, key=lambda m: (by_marker[m].record.version, by_marker[m].record.index))


def _locator_terms(source: AssembledSource) -> frozenset[str]:
    """The tokens of a source's title and section path (textproc.locator_tokens)."""
    return locator_tokens(source.record.title, source.record.section)


def _source_terms(source: AssembledSource) -> set[str]:
    """The tokens a source offers: its snippet's, and its title's and section path's (the locator says what
    the snippet is about: a clause of the Apache License names "Apache" only in its title)."""
    return set(passage_tokens(source.snippet)) | _locator_terms(source)


def _document(source: AssembledSource) -> str:
    """The document a source quotes from (its source_id; the marker when it has none)."""
    return source.record.source_id or source.marker


def _outweighed(record: ChunkRecord, other: ChunkRecord, language: str) -> bool:
    """Whether `record`, a passage read across languages (`language`: the question's), qualified at under
    OUTWEIGHED_SHARE of `other`'s relevance: its level does not put it before `other` (`_primary`), nor beside it
    (`_also_quoted`)."""
    return (
        bool(language)
        and reads_across(record.language, language)
        and (record.relevance < OUTWEIGHED_SHARE * other.relevance)
    )


def _named_alike(a: ChunkRecord, b: ChunkRecord, named: frozenset[str]) -> bool:
    """Whether the question names both documents or neither (`named`: Selection.named, pipeline/naming.py)."""
    return (a.title in named) == (b.title in named)


def _anchor_term(
    question: str, sources: tuple[AssembledSource, ...], answering: Sequence[AssembledSource] = ()
) -> str | None:
    """The question's focus term (answerability.focus_terms: not "have", "under") found in the fewest
    sources (then the longest): what the question is about. With
    `answering` (the answer's own document), only a term it names: "Can MPL 1.1 source code be distributed
    in a compressed form?" is about "compressed", which the quoted definition names, not "distributed",
    which only another clause of the licence does."""
    source_terms = [_source_terms(s) for s in sources]
    own = set().union(*(_source_terms(s) for s in answering)) if answering else None
    asked_terms = focus_terms(question) or query_terms(question)
    # A Chinese question quoted from an English source names none of its words: the rarest of all, then.
    named = [t for t in asked_terms if own is None or t in own] or asked_terms
    present = [(sum(t in terms for terms in source_terms), -len(t), t) for t in named]
    present = [p for p in present if p[0] > 0]
    return min(present)[2] if present else None


_TITLE_ENDS = " \t\r\n.。:："


def _names_document(source: AssembledSource, start: int, text: str, kind: Asked, question: str) -> bool:
    """Whether a sentence (`text`, at `start` of the source's snippet) that opens its document's first chunk is the
    document's title ("差旅报销政策" at the head of a plain text): it names the document, as a heading does, and
    answers nothing ("差旅报销的期限是30天吗？" was answered with it). Unless it states a value of the asked kind: a
    title may be the rule itself ("Refunds are accepted within 30 days"). The cheap tests first: this runs for every
    sentence."""
    record = source.record
    if record.index != 0 or not (title := (record.title or "").strip(_TITLE_ENDS)):
        return False
    return (
        fold(text.strip(_TITLE_ENDS)) == fold(title)
        and not source.snippet[:start].strip()
        and not _states_asked(kind, question, text)
    )


def _is_faq(snippet: str) -> bool:
    """Whether a snippet labels questions and answers ("Q: … A: …", "问：… 答：…"), each at a line or sentence start."""
    return _Q_LABEL_RE.search(snippet) is not None and _A_LABEL_RE.search(snippet) is not None


def _item(text: str) -> bool:
    """An item of a list: a list item's line or one enumerated in the sentence ("(2) …", "二是…")."""
    return is_list_item(text) or _ENUMERATED_RE.match(text) is not None


def _quote(snippet: str, chosen: list[ScoredSentence]) -> str:
    """Adjacent sentences keep the snippet's own text between them; gaps are marked with an ellipsis. A FAQ's answer
    label between a question and its answer (left out of the answer sentence: `score_sentences`) leaves no gap: the
    two read on as one line."""
    parts = [snippet[chosen[0].start : chosen[0].end]]
    for prev, cur in itertools.pairwise(chosen):
        gap = snippet[prev.end : cur.start]
        parts.append(gap if not gap.strip() else " " if _QA_LABEL_RE.fullmatch(gap) else " … ")
        parts.append(snippet[cur.start : cur.end])
    return "".join(parts)


def _trust_key(source: AssembledSource) -> tuple[float, int, str]:
    """Higher level first, then the newer effective date (conflict.trust_order, as the banner orders them), then the
    assembly order."""
    return (*trust_order(source.record.level_weight, source.record.effective_from), f"{int(source.marker[1:]):06d}")


def _lines(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


# A line of a table's record, as the parsers write a row (office.table_text, sheets): "header: value".
_RECORD_LINE_RE = re.compile(r"^(?!(?:Q|A)\s*:)[^\s:][^:\n]{0,79}: \S")  # a FAQ's "Q: …" / "A: …" lines are no record


def _units(text: str) -> list[tuple[int, int, bool]]:
    """What a quote is made of: each line, except that a table's record (a paragraph of two or more "header: value"
    lines, a row as the parsers write it) is one unit, True, quoted whole: its lines alone do not say whose value
    each is ("Minimum version: 2.5" without "OS: Linux")."""
    units: list[tuple[int, int, bool]] = []
    run: list[tuple[int, int]] = []

    def close() -> None:
        if len(run) >= 2 and all(_RECORD_LINE_RE.match(text[s:e]) for s, e in run):
            units.append((run[0][0], run[-1][1], True))
        else:
            units.extend((s, e, False) for s, e in run)
        run.clear()

    for start, end in _lines(text):
        if text[start:end].strip():
            run.append((start, end))
        else:
            close()
            units.append((start, end, False))
    close()
    return units


def _bigrams(text: str) -> set[str]:
    folded = "".join(ch for ch in fold(text) if _CJK_RE.match(ch))
    return {folded[i : i + 2] for i in range(len(folded) - 1)}


_WORD_RE = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")


def _pairs(text: str) -> set[tuple[str, str]]:
    """The English words of `text` two by two as they follow each other, stemmed, function words passed over
    ("cover texts on the covers": (cover, text), (text, cover)): the phrases of a question, which the sentence
    that answers it often writes as they are. Empty for a text of one English word or none."""
    english, _ = function_words()
    # A quote or a possessive is no part of the word: "'open source'", "the licensor's".
    words = [stem(w.lower().removesuffix("'s").removesuffix("’s")) for w in _WORD_RE.findall(text)]
    words = [w for w in words if w not in english]
    return set(itertools.pairwise(words))
