"""retrieve(): search + tiering with settings.RAG, the Selection services.ask consumes (rules 10, 11, 15)."""

from __future__ import annotations

import datetime as dt

import pytest

from rag_app.pipeline.records import RejectReason
from rag_app.search.hybrid import retrieve
from tests.factories import ingest_text

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 6, 1)


def test_an_unrelated_question_has_no_evidence_and_keeps_its_candidates_for_the_trace(settings):
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.4}
    ingest_text("The canteen serves dumplings every Tuesday and noodles on Friday.", source_id="canteen")
    ingest_text("Printer toner is ordered through the facilities desk.", source_id="toner")
    selection = retrieve(user=None, question="Which dumplings recipe won the Tuesday cooking prize in Berlin?")
    assert not selection.has_evidence
    assert selection.threshold == 0.4
    # The canteen passage shares "dumplings" and "Tuesday", enough for an English passage's share of the
    # threshold, and is then rejected by the answerability screen: it says nothing of a prize or Berlin.
    assert [r.reason for r in selection.rejected] == [RejectReason.NOT_ANSWERING]
    assert selection.rejected[0].record.source_id == "canteen"
    assert "focus" in selection.rejected[0].detail


def test_a_matching_question_keeps_the_record_with_its_level():
    ingest_text("Printer toner is ordered through the facilities desk.", source_id="toner", level="reviewed")
    selection = retrieve(user=None, question="Where is printer toner ordered?")
    assert [r.source_id for r in selection.kept] == ["toner"]
    assert selection.kept[0].level == "reviewed"


def test_records_beyond_top_k_are_rejected_as_over_budget(settings):
    settings.RAG = {**settings.RAG, "TOP_K": 2}
    for i in range(4):
        ingest_text(f"Badge office hours, edition {i}: the badge office opens at eight.", source_id=f"badge-{i}")
    selection = retrieve(user=None, question="badge office hours")
    assert len(selection.kept) == 2
    assert [r.reason for r in selection.rejected] == [RejectReason.OVER_BUDGET] * 2


def test_an_expired_version_is_excluded_or_demoted_by_setting(settings):
    ingest_text(
        "Travel expenses are reimbursed within ten days.",
        source_id="travel-old",
        effective_until=TODAY - dt.timedelta(days=1),
    )
    ingest_text("Travel expenses are reimbursed after approval.", source_id="travel-new", level="note")
    excluded = retrieve(user=None, question="travel expenses reimbursed", today=TODAY)
    assert [r.source_id for r in excluded.kept] == ["travel-new"]
    assert {r.record.source_id: r.reason for r in excluded.rejected} == {"travel-old": RejectReason.EXPIRED}
    settings.RAG = {**settings.RAG, "EXPIRED_POLICY": "demote"}
    demoted = retrieve(user=None, question="travel expenses reimbursed", today=TODAY)
    assert [r.source_id for r in demoted.kept] == ["travel-new", "travel-old"]


def test_a_chinese_name_without_translation_keeps_english_passages_from_answering_for_it(settings):
    """ "西土城站原来的站名叫什么" read word by word in English is "original name" (西土城 has no
    translation): a licence clause saying "original" and "name" matched it fully and was quoted. The name
    the index holds in Chinese passages counts against the English reading, so the station's passage
    answers (at the hybrid default threshold)."""
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.5}
    ingest_text(
        "The original name of the work and the name of each author must be kept in the original notice.",
        source_id="licence",
    )
    for i, clause in enumerate(["notice", "copyright", "warranty", "patent"]):
        ingest_text(f"Keep the original {clause} and the name of the licensor with every copy.", source_id=f"c{i}")
    ingest_text("西土城站原来的站名是学院路站，是北京地铁10号线的一座车站，位于海淀区。", source_id="station")
    for name in ("知春路站", "巴沟站", "苏州街站"):
        ingest_text(f"{name}是北京地铁10号线的一座车站，位于海淀区。", source_id=name)
    selection = retrieve(user=None, question="西土城站原来的站名叫什么")
    assert [r.source_id for r in selection.kept] == ["station"]


@pytest.mark.parametrize("on", [True, False])
def test_an_answer_written_in_other_words_is_kept_only_with_synonyms(settings, on):
    """ "Who wrote Gnomovision?" of "... written by James Hacker": the search and the answerability check both
    read the irregular form (pipeline/synonyms.py), or neither does."""
    settings.RAG = {**settings.RAG, "SYNONYMS": on}
    ingest_text("Yoyodyne disclaims all interest in the program Gnomovision, written by James Hacker.", source_id="a")
    ingest_text("Gnomovision makes passes at compilers.", source_id="passes")
    ingest_text("Gnomovision comes with ABSOLUTELY NO WARRANTY.", source_id="warranty")
    selection = retrieve(user=None, question="Who wrote Gnomovision?")
    assert [r.source_id for r in selection.kept] == (["a"] if on else [])


def test_an_english_passage_needs_less_for_an_english_question_than_for_one_read_across(settings):
    """retrieve() gives the tiering the question's language: an English passage asked about in English meets
    its own-language bar (tiering.OWN_LANGUAGE_SHARE), lower than the bar for a question read across through
    a translation; the selection keeps the language, and a rejection names the bar it missed."""
    from rag_app.pipeline.tiering import LANGUAGE_THRESHOLD_SHARE, OWN_LANGUAGE_SHARE

    ingest_text("The badge office opens at 8:00 and closes at 17:00 on weekdays.", source_id="badge")
    ingest_text("Printer toner is ordered through the facilities desk.", source_id="toner")
    question = "When does the badge office open on weekdays?"
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.01}
    relevance = next(r.relevance for r in retrieve(user=None, question=question).kept if r.source_id == "badge")
    between = (OWN_LANGUAGE_SHARE["en"] + LANGUAGE_THRESHOLD_SHARE["en"]) / 2
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": relevance / between}
    selection = retrieve(user=None, question=question)
    assert selection.asked_in == "en"
    assert [r.source_id for r in selection.kept] == ["badge"]
    # Just above the own-language bar's reach: rejected, with that bar in the detail.
    threshold = relevance / OWN_LANGUAGE_SHARE["en"] * 1.05
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": threshold}
    rejected = {r.record.source_id: r for r in retrieve(user=None, question=question).rejected}
    assert rejected["badge"].reason == RejectReason.BELOW_THRESHOLD
    assert rejected["badge"].detail == f"relevance {relevance:.3f} < {threshold * OWN_LANGUAGE_SHARE['en']:.3f}"


def test_a_chinese_passage_asked_in_english_for_a_value_needs_less_of_the_threshold(settings):
    """retrieve() tells the tiering whether the question asks for a value (answerability.asks_value): a Chinese
    passage read through an English question's translation then meets VALUE_ACROSS_SHARE of the threshold; asked
    for anything else ("What does …?") it needs the whole threshold."""
    from rag_app.pipeline.tiering import VALUE_ACROSS_SHARE

    ingest_text("图书馆每天早上8点开门，晚上10点关门。读者凭借书证入馆。", source_id="library", title="图书馆")
    question, other = "When does the library open?", "Why does the library open?"
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.01}
    relevance = {q: retrieve(user=None, question=q).kept[0].relevance for q in (question, other)}
    assert relevance[question] == relevance[other]  # the same words searched: "when" and "why" are not
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": relevance[question] / ((VALUE_ACROSS_SHARE + 1) / 2)}
    selection = retrieve(user=None, question=question)
    assert selection.value and selection.asked_in == "en"
    assert [r.source_id for r in selection.kept] == ["library"]
    rejected = retrieve(user=None, question=other)
    assert not rejected.value and not rejected.kept
    assert rejected.rejected[0].reason == RejectReason.BELOW_THRESHOLD


@pytest.mark.parametrize(
    "text",
    [
        "图书馆对全校师生开放，读者入馆前须出示借书证，之后方可借阅。",  # "之后" holds a time, states none
        "图书馆开放期间，读者须保持安静，不得大声喧哗。",
    ],
)
def test_a_passage_on_the_lower_bar_must_state_the_value_not_merely_hold_one(settings, text):
    """The lower bar across languages rests on the value asked: a passage that reached only that bar must state one (a
    date, a clock time), where "when" is otherwise held by "之后" or "期间" (review, session 33). At the full bar the
    check reads it as before."""
    from rag_app.pipeline.tiering import VALUE_ACROSS_SHARE

    ingest_text(text, source_id="library", title="图书馆")
    question = "When does the library open?"
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.01}
    relevance = retrieve(user=None, question=question).kept[0].relevance
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": relevance / ((VALUE_ACROSS_SHARE + 1) / 2)}
    selection = retrieve(user=None, question=question)
    assert not selection.kept
    assert selection.rejected[0].reason == RejectReason.NOT_ANSWERING
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": relevance * 0.99}  # at the full bar: held as before
    assert [r.source_id for r in retrieve(user=None, question=question).kept] == ["library"]


def test_without_the_answerability_check_an_english_passage_keeps_its_languages_bar(settings):
    """The lower bar for an English question rests on the answerability check, which turns away a passage on
    the topic that does not answer: with RAG_ANSWERABILITY off every passage keeps its language's share."""
    from rag_app.pipeline.tiering import LANGUAGE_THRESHOLD_SHARE, OWN_LANGUAGE_SHARE

    ingest_text("The badge office opens at 8:00 and closes at 17:00 on weekdays.", source_id="badge")
    question = "When does the badge office open on weekdays?"
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.01, "ANSWERABILITY": False}
    relevance = retrieve(user=None, question=question).kept[0].relevance
    between = (OWN_LANGUAGE_SHARE["en"] + LANGUAGE_THRESHOLD_SHARE["en"]) / 2
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": relevance / between}
    selection = retrieve(user=None, question=question)
    assert not selection.kept and selection.asked_in == ""
    assert selection.rejected[0].reason == RejectReason.BELOW_THRESHOLD


def test_a_chinese_word_is_not_read_in_its_later_senses_by_the_few_english_passages_of_a_chinese_corpus():
    """jieba cuts 作出 from "梦野久作出生"; its first senses are "put, out, come, up", its later ones "make, choice,
    issue...". A Chinese corpus with one English track list must not answer a question on a writer's birthplace
    because the list writes "making" (the later senses of a Chinese word are other meanings: only an English
    word's renderings are widened, crosslingual.RENDERINGS)."""
    ingest_text("杨呈伟是音乐剧铺轨的主演员，后来发行了CD。", source_id="cast")
    ingest_text("福冈市是日本福冈县的县厅所在地，位于九州北部。", source_id="fukuoka")
    ingest_text(
        "Track list: 1. Making Tracks 2. Many Rivers 3. This Is Our Day 4. Picture Perfect 5. Must Be the Music",
        source_id="tracks",
    )
    selection = retrieve(user=None, question="梦野久作出生在什么地方？")
    assert not selection.kept


def test_a_sum_the_question_offers_that_no_passage_writes_does_not_sink_the_policy_stating_ranges():
    """A user trial: "Who needs to sign off on a 20k USD purchase?" weighed "20k" in the question's yardstick, a term
    no chunk holds, which lowers every candidate's relevance; the policy states ranges ("from 5,000 USD up to 50,000
    USD") and never the asker's sum. Unwritten, the sum does not count; written by a chunk, it does."""
    from rag_app.search.hybrid import search

    policy = (
        "Purchases under 5,000 USD may be approved by the requester's department head. Purchases from 5,000 USD"
        " up to 50,000 USD require approval by the Finance Controller."
    )
    ingest_text(policy, source_id="procurement", title="Procurement Approval Policy")
    ingest_text("The canteen accepts badge payments for purchases of snacks.", source_id="canteen")

    def relevance(question: str) -> float:
        return next(r.relevance for r in search(user=None, question=question) if r.source_id == "procurement")

    plain = relevance("Who approves a USD purchase?")
    assert relevance("Who approves a 20k USD purchase?") == pytest.approx(plain)  # 0.59 when 20k weighed
    assert relevance("Who approves a 7,000 USD purchase?") >= plain  # the policy writes "000" of 5,000 too
    ingest_text("A purchase of 7,000 USD was approved last week.", source_id="log")
    assert relevance("Who approves a 7,000 USD purchase?") < 0.8 * plain
