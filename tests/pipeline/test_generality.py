"""How common a search token is in the language (no database): the cap on a focus word's weight."""

from __future__ import annotations

import math

from rag_app.pipeline import generality
from rag_app.pipeline.textproc import query_terms, stem


def test_common_english_words_have_a_low_idf_and_rare_ones_a_high_one() -> None:
    common = [generality.idf(stem(w)) for w in ("get", "good", "back", "gone")]
    rare = [generality.idf(stem(w)) for w in ("reinstated", "proprietary", "warranty")]
    assert max(common) < 3.0 < min(rare)


def test_the_words_of_one_stem_count_together() -> None:
    # "licens" is "license", "licensed", "licenses" and "licensing" at once: more common than "license" alone.
    from wordfreq import word_frequency

    chance_alone = 1.0 - (1.0 - word_frequency("license", "en")) ** generality.TEXT_TOKENS
    assert generality.idf("licens") < math.log(1.0 + 1.0 / chance_alone)


def test_a_token_no_table_knows_is_not_capped() -> None:
    for token in ("gplv3", "gnomovis", "1999", "迟泽凤"):
        assert generality.idf(token) == math.inf


def test_chinese_words_are_read_from_jiebas_dictionary() -> None:
    assert generality.idf("时候") < generality.idf("主教练") < math.inf
    # The question's tokens are jieba's words, so each is looked up as cut.
    assert all(generality.idf(t) < math.inf for t in query_terms("教练什么时候上任"))


def test_stop_words_do_not_lend_their_frequency_to_a_stem() -> None:
    # The tokenizer drops "does" before stemming, so a question's "doe" is the animal, a rare word.
    assert generality.idf("doe") > generality.idf("deer") - 1.0 > 3.0


def test_the_cap_keeps_the_smaller_of_the_two() -> None:
    assert generality.capped("get", 4.0) == generality.idf("get") < 4.0
    assert generality.capped("reinstat", 2.0) == 2.0
    assert generality.capped("gplv3", 7.5) == 7.5
