"""Calibrated relevance and query tokens: pure, no database."""

from __future__ import annotations

import math

from rag_app.pipeline.textproc import query_terms, tokenize
from rag_app.search.scoring import (
    STANDOUT_CAP,
    CorpusStats,
    bm25,
    bm25_made_up,
    coverage,
    idf,
    lexical_relevance,
    self_score,
    standout,
    term_weights,
    with_standout,
)


def bm25_alternatives(*args):
    """The score alone of scoring.bm25_made_up."""
    return bm25_made_up(*args)[0]


STATS = CorpusStats(chunks=1000, tokens=1000 * 40, df={"refund": 5, "policy": 300, "deadline": 20, "the": 990})


def relevance(terms: list[str], tokens: list[str], stats: CorpusStats = STATS) -> float:
    weights = term_weights(terms, stats)
    return lexical_relevance(bm25(terms, tokens, weights, stats.avgdl), self_score(terms, weights, stats.avgdl))


def test_idf_is_positive_and_largest_for_unseen_terms():
    assert idf(0, 1000) > idf(1, 1000) > idf(500, 1000) > idf(1000, 1000) > 0


def test_a_chunk_holding_the_whole_question_scores_near_one():
    terms = ["refund", "deadline"]
    assert math.isclose(relevance(terms, terms), 1.0)
    long_chunk = ["refund", "deadline"] + [f"w{i}" for i in range(38)]
    assert 0.6 < relevance(terms, long_chunk) < 1.0


def test_relevance_is_on_the_same_scale_for_short_and_long_questions():
    """Full coverage by an average-length chunk gives similar values whatever the question length."""
    filler = [f"w{i}" for i in range(36)]
    short = relevance(["refund", "deadline"], ["refund", "deadline", *filler])
    long = relevance(["refund", "deadline", "policy", "x1"], ["refund", "deadline", "policy", "x1", *filler[:-2]])
    assert abs(short - long) < 0.1


def test_missing_a_rare_term_costs_more_than_missing_a_common_one():
    terms = ["refund", "policy"]
    assert relevance(terms, ["policy"]) < relevance(terms, ["refund"])


def test_relevance_is_clipped_to_the_unit_interval():
    terms = ["refund"]
    assert relevance(terms, ["refund"] * 30) <= 1.0
    assert relevance(terms, []) == 0.0
    assert relevance([], ["refund"]) == 0.0
    assert lexical_relevance(5.0, 0.0) == 0.0


def test_coverage_counts_idf_mass_of_present_terms():
    terms = ["refund", "policy"]
    weights = term_weights(terms, STATS)
    assert coverage(terms, ["refund", "policy"], weights) == 1.0
    expected = weights["refund"] / (weights["refund"] + weights["policy"])
    assert math.isclose(coverage(terms, ["refund"], weights), expected)


def test_an_empty_corpus_does_not_divide_by_zero():
    empty = CorpusStats(chunks=0, tokens=0, df={})
    assert empty.avgdl == 1.0
    assert relevance(["refund"], ["refund"], empty) > 0


def test_query_terms_fold_traditional_fullwidth_and_case():
    assert query_terms("退款政策需要提供發票嗎？") == query_terms("退款政策需要提供发票吗？")
    assert query_terms("ＲＥＦＵＮＤ Policy") == ["refund", "polici"]


def test_query_terms_drop_stop_words_and_repeat_terms():
    assert query_terms("What is the refund policy for the refund?") == ["refund", "polici"]


def test_tokens_never_carry_fts_syntax():
    """Index and query tokens are letters, digits and CJK (plus inner . ' -), so quoting them is enough."""
    tokens = tokenize('"quoted" (paren) star* NEAR/3 a:b ^caret -minus 3.14 covid-19 o\'neil 退款')
    assert all(not set(t) & set('"()*:^/ ') for t in tokens)
    assert "3.14" in tokens and "covid" in tokens and "退款" in tokens


def test_standout_goes_to_the_document_that_leads_and_grows_with_the_lead():
    leader, share = standout({"a": 0.6, "b": 0.5, "c": 0.1})
    _, bigger = standout({"a": 0.6, "b": 0.45, "c": 0.1})
    assert leader == "a"
    assert 0 < share < bigger <= STANDOUT_CAP


def test_standout_is_capped_even_for_a_lone_document():
    assert standout({"only": 0.9}) == ("only", STANDOUT_CAP)


def test_documents_that_tie_get_no_standout():
    """Sibling articles matching equally well: neither stands out, so neither is pushed over the threshold."""
    assert standout({"station-a": 0.55, "station-b": 0.55}) == (None, 0.0)
    assert standout({}) == (None, 0.0)


def test_with_standout_stays_in_the_unit_interval_and_keeps_the_order():
    values = [0.0, 0.2, 0.5, 0.99, 1.0]
    moved = [with_standout(v, STANDOUT_CAP) for v in values]
    assert moved == sorted(moved)
    assert all(0.0 <= m <= 1.0 for m in moved)
    assert with_standout(0.5, 0.0) == 0.5


def test_an_alternative_makes_up_a_missing_term_at_no_more_than_its_weight():
    terms = ["refund", "deadline"]
    weights = term_weights(terms, STATS)
    with_word = ["refund", "deadline", "receipt"]
    with_synonym = ["refund", "cutoff", "receipt"]
    rare = {"deadline": [("cutoff", weights["deadline"] * 10)]}  # rarer than the word: capped at its weight
    common = {"deadline": [("cutoff", weights["deadline"] / 4)]}
    plain = bm25(terms, with_synonym, weights, STATS.avgdl)
    assert bm25_alternatives(terms, with_synonym, weights, STATS.avgdl, {}) == plain
    assert plain < bm25_alternatives(terms, with_synonym, weights, STATS.avgdl, common)
    assert bm25_alternatives(terms, with_synonym, weights, STATS.avgdl, common) < bm25(
        terms, with_word, weights, STATS.avgdl
    )
    assert math.isclose(
        bm25_alternatives(terms, with_synonym, weights, STATS.avgdl, rare), bm25(terms, with_word, weights, STATS.avgdl)
    )
    # where the word itself is there, its alternatives add nothing
    both = ["refund", "deadline", "cutoff"]
    assert bm25_alternatives(terms, both, weights, STATS.avgdl, rare) == bm25(terms, both, weights, STATS.avgdl)


def test_the_alternative_that_adds_most_is_taken_and_a_word_makes_up_one_term_only():
    terms = ["refund", "deadline"]
    weights = {"refund": 5.0, "deadline": 5.0}
    # "cutoff" once at 5.0 adds less than "limit" ten times at 4.9
    alternatives = {"deadline": [("cutoff", 5.0), ("limit", 4.9)]}
    tokens = ["refund", "cutoff", *["limit"] * 10]
    expected = bm25(["refund", "limit"], ["refund", "cutoff", *["limit"] * 10], {"refund": 5.0, "limit": 4.9}, 40.0)
    assert math.isclose(bm25_alternatives(terms, tokens, weights, 40.0, alternatives), expected)
    # one word of the chunk ("expiry") cannot stand for two missing terms
    shared = {"refund": [("expiry", 5.0)], "deadline": [("expiry", 5.0)]}
    once = bm25(["expiry"], ["expiry", "other"], {"expiry": 5.0}, 40.0)
    assert math.isclose(bm25_alternatives(terms, ["expiry", "other"], weights, 40.0, shared), once)


def test_the_alternative_that_made_up_each_term_is_reported_with_the_score():
    """The trace shows which word of the chunk stood for a missing term: the one the score counted."""
    terms = ["refund", "deadline", "expiry"]
    weights = {"refund": 5.0, "deadline": 5.0, "expiry": 5.0}
    alternatives = {"deadline": [("cutoff", 5.0), ("limit", 4.9)], "expiry": [("limit", 5.0)]}
    tokens = ["refund", "cutoff", *["limit"] * 10]
    _, made_up = bm25_made_up(terms, tokens, weights, 40.0, alternatives)
    # "limit" adds most for "deadline", so "expiry" cannot have it too and stays missing
    assert made_up == {"deadline": "limit"}
    assert bm25_made_up(terms, ["refund", "deadline"], weights, 40.0, alternatives) == (
        bm25(terms, ["refund", "deadline"], weights, 40.0),
        {},
    )
    assert bm25_made_up(terms, [], weights, 40.0, alternatives) == (0.0, {})
