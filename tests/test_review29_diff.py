"""Adversarial review of session 29's change (git diff 4fc108b..0a39f68): each test was a defect the change brought
in, or a place where docs/ said something the code did not do (found as a strict xfail), now fixed."""

from __future__ import annotations

import time

from rag_app.generation.extractive import _pairs, score_sentences
from rag_app.pipeline.answerability import _words
from rag_app.pipeline.definition import definition_test
from rag_app.validation import MAX_QUESTION_CHARS, clean_question
from tests.generation.test_extractive import build, rec

# --- _DEFINED_RE: "what does X mean by Y" -----------------------------------------------------------------------


def test_a_long_what_does_mean_by_question_is_read_in_well_under_50_ms() -> None:
    """A question the input rules accept (2,000 characters at most, line breaks allowed) that repeats "mean by" and
    ends in a run of full stops and a line break: `$` cannot match before the break, so the lazy `.+?` before
    "mean by" retries every occurrence and the tail rescans the run of dots each time. At 4fc108b (no `meanby`
    alternative) the same question took under 1 ms; `definition_test` runs in every `score_sentences` call (two or
    three per ask)."""
    question = clean_question("What does " + "a mean by " * 99 + "." * 980 + "\nz")
    assert len(question) <= MAX_QUESTION_CHARS
    definition_test("What is a licence?")  # the tokenizer loaded
    best = min(_timed(definition_test, question) for _ in range(3))
    assert best < 0.05, f"definition_test took {best * 1000:.0f} ms on a {len(question)}-character question"


def _timed(fn: object, arg: str) -> float:
    started = time.perf_counter()
    fn(arg)  # type: ignore[operator]
    return time.perf_counter() - started


def test_what_does_x_mean_by_with_nothing_after_still_asks_what_x_means() -> None:
    """ "What does the GPL mean by ?" names nothing after "by": it is read as "What does the GPL mean", as it was
    before session 29 and as "What does the GPL mean by" (no "?") still is."""
    assert definition_test("What does the GPL mean by") is not None
    assert definition_test("What does the GPL mean by ?") is not None


# --- _pairs: an English question's adjacent words ---------------------------------------------------------------


def test_a_term_in_single_quotes_forms_the_pairs_it_forms_unquoted() -> None:
    """The phrase a question quotes is the one most worth finding side by side ("What does 'open source' mean?",
    lic-012's "What does LGPLv3 mean by an 'Application'?"), but the quote glued to its last word makes a pair no
    sentence holds: the PAIR_SHARE of the score is lost on exactly the phrase asked about."""
    assert _pairs("What does 'open source' mean?") == _pairs("What does open source mean?")
    assert ("open", "sourc") in _pairs("What does 'open source' mean?") & _pairs("Open source means software ...")


# --- DEFINITION_BONUS: "an English sentence defining the asked term" -----------------------------------------------


def test_an_english_sentence_defining_the_term_a_chinese_question_asks_gains_the_definition_bonus() -> None:
    """docs/ARCHITECTURE.md: "0.4 when an English sentence defines the asked term"; the reason given for English only
    is that the English test reads the term's words in order, which it does for "什么是Copyleft？" too (the subject is
    the English word; `definition_test` builds the English pattern for it)."""
    defines = "Copyleft is a general method for making a program free software."
    uses = "Copyleft licenses such as the GPL apply copyleft to software."
    sources = build(rec("fsf", f"{defines} {uses}", 0.9, title="What is Copyleft", language="en")).sources
    question = "什么是Copyleft？"
    low = {s.text: s.score for s in score_sentences(question, sources, definition_bonus=0.0)}
    high = {s.text: s.score for s in score_sentences(question, sources, definition_bonus=5.0)}
    assert high[defines] > low[defines]


# --- answerability._words: a character glued to an auxiliary ----------------------------------------------------


def test_a_name_ending_in_an_auxiliary_character_stays_a_focus_word() -> None:
    """刘能 (a person jieba's dictionary does not hold, cut whole by its HMM) is no "刘 + 能": dropping it where
    another word of the question writes 刘 lets a passage about 刘德华 alone hold every focus word of
    "刘能和刘德华是什么关系？". The same for 张能 beside 张学友, 王有 beside 王菲."""
    assert "刘能" in _words("刘能和刘德华是什么关系？")
