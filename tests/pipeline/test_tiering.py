"""Tiering: threshold first, then level, then relevance, every rejection with a reason (rules 3, 10, 11, 15)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from rag_app.pipeline.records import ChunkRecord, RejectReason
from rag_app.pipeline.tiering import beside, outranking, select, without_orphan_copies

TODAY = dt.date(2026, 6, 1)


def rec(chunk_id: str, relevance: float, *, level: str | None = "official", weight: float = 3.0, **kw) -> ChunkRecord:
    source_id = kw.pop("source_id", chunk_id.split(":")[0])
    text = kw.pop("text", "t")
    return ChunkRecord(
        chunk_id=chunk_id,
        source_id=source_id,
        version=1,
        index=0,
        text=text,
        level=level,
        level_weight=weight if level else 0.0,
        relevance=relevance,
        **kw,
    )


def reasons(selection) -> dict[str, RejectReason]:
    return {r.record.chunk_id: r.reason for r in selection.rejected}


def test_it_drops_records_under_the_threshold_before_looking_at_level():
    """A high-level record under the threshold is rejected; a low-level one above it is kept."""
    high_level_weak = rec("a:v1:0", 0.2, level="official", weight=3.0)
    low_level_strong = rec("b:v1:0", 0.8, level="note", weight=1.0)
    selection = select([high_level_weak, low_level_strong], threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["b:v1:0"]
    assert reasons(selection) == {"a:v1:0": RejectReason.BELOW_THRESHOLD}
    assert selection.threshold == 0.5


def test_it_orders_by_level_weight_then_relevance_then_chunk_id():
    """Level outranks relevance among qualified records; equal scores fall back to chunk_id."""
    records = [
        rec("n:v1:0", 0.99, level="note", weight=1.0),
        rec("o2:v1:0", 0.6, level="official", weight=3.0),
        rec("o1:v1:0", 0.6, level="official", weight=3.0),
        rec("o3:v1:0", 0.9, level="official", weight=3.0),
        rec("r:v1:0", 0.7, level="reviewed", weight=2.0),
    ]
    selection = select(records, threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["o3:v1:0", "o1:v1:0", "o2:v1:0", "r:v1:0", "n:v1:0"]


def test_a_document_the_question_names_ranks_before_the_others_of_any_level():
    """ "Under GPL v2 …" asks about the GPL version 2 (reviewed), not the official version 1 that ranks above
    it; among the named documents level and relevance still order."""
    records = [
        rec("gpl1:v1:0", 0.323, level="official", weight=3.0, title="GNU General Public License, version 1"),
        rec("gpl2:v1:0", 0.318, level="reviewed", weight=2.0, title="GNU General Public License, version 2"),
        rec("gpl2:v1:5", 0.6, level="reviewed", weight=2.0, title="GNU General Public License, version 2"),
        rec("note:v1:0", 0.9, level="note", weight=1.0, title="GNU General Public License, version 2"),
    ]
    named = {"GNU General Public License, version 2"}
    selection = select(records, threshold=0.3, today=TODAY, named=named)
    assert [r.chunk_id for r in selection.kept] == ["gpl2:v1:5", "gpl2:v1:0", "note:v1:0", "gpl1:v1:0"]
    unnamed = select(records, threshold=0.3, today=TODAY)
    assert [r.chunk_id for r in unnamed.kept] == ["gpl1:v1:0", "gpl2:v1:5", "gpl2:v1:0", "note:v1:0"]


def test_order_does_not_depend_on_input_order():
    """Rule 3: the same candidates in any order give the same ranking."""
    records = [rec(f"d{i}:v1:0", 0.7) for i in range(5)] + [rec("x:v1:0", 0.9, level=None)]
    first = select(records, threshold=0.5, today=TODAY)
    second = select(list(reversed(records)), threshold=0.5, today=TODAY)
    assert first.kept == second.kept


def test_a_record_without_level_ranks_below_every_known_level():
    """Rule 9: unknown level = lowest priority, even below a level with weight 0."""
    records = [rec("none:v1:0", 0.99, level=None), rec("zero:v1:0", 0.51, level="draft", weight=0.0)]
    selection = select(records, threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["zero:v1:0", "none:v1:0"]


def test_a_record_without_source_id_is_rejected_with_a_reason():
    """Rule 7: no source_id means no citation; it goes to the trace only."""
    selection = select([rec("x:v1:0", 0.9, source_id=None)], threshold=0.5, today=TODAY)
    assert not selection.has_evidence
    assert reasons(selection) == {"x:v1:0": RejectReason.NO_SOURCE_ID}


def test_excluded_levels_are_rejected():
    selection = select(
        [rec("a:v1:0", 0.9, level="note", weight=1.0), rec("b:v1:0", 0.9)],
        threshold=0.5,
        today=TODAY,
        excluded_levels={"note"},
    )
    assert [r.chunk_id for r in selection.kept] == ["b:v1:0"]
    assert reasons(selection) == {"a:v1:0": RejectReason.LEVEL_EXCLUDED}


def test_expired_and_not_yet_effective_versions_are_excluded_by_default():
    """Rule 15: a version outside its effective period is excluded with its reason."""
    records = [
        rec("old:v1:0", 0.9, effective_until=TODAY - dt.timedelta(days=1)),
        rec("future:v1:0", 0.9, effective_from=TODAY + dt.timedelta(days=1)),
        rec("edge:v1:0", 0.6, effective_from=TODAY, effective_until=TODAY),
    ]
    selection = select(records, threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["edge:v1:0"]
    assert reasons(selection) == {"old:v1:0": RejectReason.EXPIRED, "future:v1:0": RejectReason.NOT_YET_EFFECTIVE}


@pytest.mark.parametrize(
    ("superseded_on", "kept"),
    [(TODAY + dt.timedelta(days=1), True), (TODAY, False), (TODAY - dt.timedelta(days=1), False)],
    ids=["tomorrow", "today", "yesterday"],
)
def test_a_version_is_in_force_until_the_day_its_successor_takes_effect(superseded_on: dt.date, kept: bool):
    """Rule 15: the version in force answers while its next version is scheduled; from the successor's date on it
    is out of its period, with its own reason and the date, and the successor (not yet effective before) answers."""
    old = rec("p:v1:0", 0.9, effective_from=dt.date(2024, 1, 1), superseded_on=superseded_on)
    new = dataclasses.replace(rec("p:v2:0", 0.9, effective_from=superseded_on), version=2)
    selection = select([old, new], threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == (["p:v1:0"] if kept else ["p:v2:0"])
    if kept:
        assert reasons(selection) == {"p:v2:0": RejectReason.NOT_YET_EFFECTIVE}
    else:
        (rejected,) = selection.rejected
        assert rejected.reason == RejectReason.SUPERSEDED
        assert rejected.detail == f"superseded by a newer version from {superseded_on.isoformat()}"
        assert dict(rejected.facts) == {"code": "superseded", "date": superseded_on.isoformat()}


def test_a_superseded_version_is_demoted_with_the_other_out_of_period_ones():
    old = rec("p:v1:0", 0.99, superseded_on=TODAY)
    note = rec("note:v1:0", 0.55, level="note", weight=1.0)
    selection = select([old, note], threshold=0.5, today=TODAY, expired_policy="demote")
    assert [r.chunk_id for r in selection.kept] == ["note:v1:0", "p:v1:0"]


def test_demote_policy_keeps_out_of_period_records_after_all_in_period_ones():
    records = [
        rec("old:v1:0", 0.99, effective_until=TODAY - dt.timedelta(days=1)),
        rec("note:v1:0", 0.55, level="note", weight=1.0),
        rec("cur:v1:0", 0.6),
    ]
    selection = select(records, threshold=0.5, today=TODAY, expired_policy="demote")
    assert [r.chunk_id for r in selection.kept] == ["cur:v1:0", "note:v1:0", "old:v1:0"]
    assert selection.rejected == ()


def test_threshold_comes_before_the_period_check():
    """A weak expired record is reported as below_threshold: the first failing check names it."""
    weak_old = rec("old:v1:0", 0.1, effective_until=TODAY - dt.timedelta(days=1))
    assert reasons(select([weak_old], threshold=0.5, today=TODAY)) == {"old:v1:0": RejectReason.BELOW_THRESHOLD}


def test_nothing_qualifies_means_no_evidence_with_every_candidate_rejected():
    """Rule 11: zero qualified records, and each candidate is kept for the trace with its reason."""
    records = [rec(f"d{i}:v1:0", 0.1 * i) for i in range(4)]
    selection = select(records, threshold=0.5, today=TODAY)
    assert not selection.has_evidence
    assert len(selection.rejected) == 4
    assert all(r.reason == RejectReason.BELOW_THRESHOLD and r.detail for r in selection.rejected)


def test_relevance_equal_to_the_threshold_qualifies():
    assert select([rec("a:v1:0", 0.5)], threshold=0.5, today=TODAY).has_evidence


def test_unknown_policy_is_an_error():
    with pytest.raises(ValueError):
        select([], threshold=0.5, today=TODAY, expired_policy="ignore")  # type: ignore[arg-type]


def test_a_candidate_counts_as_related_from_a_share_of_its_threshold() -> None:
    """Below the threshold but at least RELATED_SHARE of it (of the passage language's share of it): related
    (listed, reason below_threshold); further down it is noise, and only such candidates make `no_match`."""
    from rag_app.pipeline.tiering import LANGUAGE_THRESHOLD_SHARE, OWN_LANGUAGE_SHARE, RELATED_SHARE, is_related

    floor = 0.5 * RELATED_SHARE
    assert is_related(floor, 0.5) and is_related(0.49, 0.5)
    assert not is_related(floor - 0.01, 0.5) and not is_related(0.0, 0.5) and not is_related(None, 0.5)
    english = floor * LANGUAGE_THRESHOLD_SHARE["en"]
    assert is_related(english, 0.5, "en") and not is_related(english, 0.5, "zh")
    # The floor does not fall with the lower bar of a question asked in English: off-topic questions' best
    # passages score where they did.
    assert not is_related(english - 0.01, 0.5, "en")
    assert floor * OWN_LANGUAGE_SHARE["en"] < english - 0.01
    assert is_related(0.01, None)  # no threshold recorded: every candidate is as close as it gets


def test_english_passages_qualify_at_their_own_share_of_the_threshold() -> None:
    """The bar is scaled by the passage's language (measured: English relevance runs lower), and lower still
    for a question asked in that language than for one read across through its translation."""
    from rag_app.pipeline.tiering import LANGUAGE_THRESHOLD_SHARE, OWN_LANGUAGE_SHARE, threshold_for

    assert OWN_LANGUAGE_SHARE["en"] < LANGUAGE_THRESHOLD_SHARE["en"] < 1.0
    en = rec("en/a", 0.35, language="en")
    zh = rec("zh/a", 0.35, language="zh")
    assert threshold_for(en, 0.5) == pytest.approx(0.5 * LANGUAGE_THRESHOLD_SHARE["en"])
    assert threshold_for(en, 0.5, "zh") == pytest.approx(0.5 * LANGUAGE_THRESHOLD_SHARE["en"])
    assert threshold_for(en, 0.5, "en") == pytest.approx(0.5 * OWN_LANGUAGE_SHARE["en"])
    assert threshold_for(zh, 0.5) == 0.5 and threshold_for(zh, 0.5, "zh") == 0.5 and threshold_for(zh, 0.5, "en") == 0.5
    assert threshold_for(rec("x", 0.35), 0.5, "en") == 0.5
    selection = select([en, zh], threshold=0.5, today=TODAY)
    assert [r.source_id for r in selection.kept] == ["en/a"]
    assert selection.rejected[0].detail == "relevance 0.350 < 0.500"


def test_an_english_passage_between_the_two_bars_qualifies_for_an_english_question_only() -> None:
    """A passage whose relevance lies between its own-language bar and the bar across languages qualifies
    when the question is asked in its language, not when it is read through a translation; the rejection
    names the bar it missed, and the selection keeps the question's language for what comes after."""
    from rag_app.pipeline.tiering import LANGUAGE_THRESHOLD_SHARE, OWN_LANGUAGE_SHARE

    between = 0.5 * (OWN_LANGUAGE_SHARE["en"] + LANGUAGE_THRESHOLD_SHARE["en"]) / 2
    en = rec("en/a", between, language="en")
    asked_in_english = select([en], threshold=0.5, today=TODAY, asked_in="en")
    assert [r.source_id for r in asked_in_english.kept] == ["en/a"] and asked_in_english.asked_in == "en"
    asked_in_chinese = select([en], threshold=0.5, today=TODAY, asked_in="zh")
    assert not asked_in_chinese.kept
    bar = 0.5 * LANGUAGE_THRESHOLD_SHARE["en"]
    assert asked_in_chinese.rejected[0].detail == f"relevance {between:.3f} < {bar:.3f}"


def test_a_passage_read_across_languages_needs_less_of_the_threshold_for_a_question_asking_a_value() -> None:
    """A Chinese passage asked about in English qualifies at VALUE_ACROSS_SHARE of the threshold when the question
    asks for a value (the answerability check then wants the value in the passage), at the whole threshold
    otherwise; asked in Chinese it needs the whole threshold either way, and so does it without the question's
    language (the screen off). The rejection names the bar it missed; the selection keeps `value`."""
    from rag_app.pipeline.tiering import OWN_LANGUAGE_SHARE, VALUE_ACROSS_SHARE, threshold_for

    zh = rec("zh/a", 0.5 * (VALUE_ACROSS_SHARE + 1) / 2, language="zh")
    assert threshold_for(zh, 0.5, "en", value=True) == pytest.approx(0.5 * VALUE_ACROSS_SHARE)
    assert threshold_for(zh, 0.5, "en") == threshold_for(zh, 0.5, "zh", value=True) == 0.5
    assert threshold_for(zh, 0.5, "", value=True) == 0.5
    # An English passage keeps the lower of its shares: its own language's, or the value's across.
    en = rec("en/a", 0.2, language="en")
    assert threshold_for(en, 0.5, "en", value=True) == pytest.approx(0.5 * OWN_LANGUAGE_SHARE["en"])
    assert threshold_for(en, 0.5, "zh", value=True) == pytest.approx(0.5 * VALUE_ACROSS_SHARE)
    asking_a_value = select([zh], threshold=0.5, today=TODAY, asked_in="en", value=True)
    assert [r.source_id for r in asking_a_value.kept] == ["zh/a"] and asking_a_value.value
    asking_anything_else = select([zh], threshold=0.5, today=TODAY, asked_in="en")
    assert not asking_anything_else.kept
    assert asking_anything_else.rejected[0].detail == f"relevance {zh.relevance:.3f} < 0.500"
    back = without_orphan_copies(dataclasses.replace(asking_a_value, copies={"zh/a": "gone"}))
    assert back.rejected[0].detail == f"relevance {zh.relevance:.3f} < {0.5 * VALUE_ACROSS_SHARE:.3f}"


def test_an_orphaned_copy_goes_back_under_the_bar_it_missed_for_the_question_asked() -> None:
    """A copy kept only with its original goes back to below_threshold when the original is left out, and its
    detail names the bar of the question's language (the selection keeps it)."""
    from rag_app.pipeline.tiering import OWN_LANGUAGE_SHARE

    text = "Customers may return purchased goods for a full refund within 30 days of delivery to any store."
    original = rec("p2024:v1:0", 0.3, language="en", text=text)
    copy = rec("p2023:v1:0", 0.16, language="en", text=text.replace("30 days", "14 days"))
    selection = select([original, copy], threshold=0.5, today=TODAY, asked_in="en")
    assert {r.source_id for r in selection.kept} == {"p2024", "p2023"}
    screened = dataclasses.replace(selection, kept=tuple(r for r in selection.kept if r.source_id == "p2023"))
    back = without_orphan_copies(screened)
    assert not back.kept
    assert back.rejected[0].detail == f"relevance 0.160 < {0.5 * OWN_LANGUAGE_SHARE['en']:.3f}"


POLICY_2024 = (
    "Customers may return purchased goods for a full refund within 30 days of delivery. Refunds are paid "
    "to the original payment method, and opened software is exchanged, not refunded."
)
POLICY_2023 = POLICY_2024.replace("within 30 days", "within 14 days")


def test_a_copy_of_a_qualified_passage_qualifies_with_it_and_the_trace_says_why():
    """Last year's policy beside this year's, one value changed: the changed value moves the relevance
    a little, and a threshold between the two copies would hide that they disagree. The copy qualifies
    with the passage it copies; a passage that is no copy, a copy far weaker than its original and a
    copy in the same document do not."""
    records = [
        rec("p2024:v1:0", 0.55, text=POLICY_2024),
        rec("p2023:v1:0", 0.45, text=POLICY_2023),
        rec("other:v1:0", 0.45, text="Shipping takes three to five working days within the country, by post."),
        rec("p2024:v1:1", 0.45, text=POLICY_2023),  # the same document: its own chunks are no copies
    ]
    selection = select(records, threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["p2024:v1:0", "p2023:v1:0"]
    assert reasons(selection) == {
        "other:v1:0": RejectReason.BELOW_THRESHOLD,
        "p2024:v1:1": RejectReason.BELOW_THRESHOLD,
    }
    assert selection.notes["p2023:v1:0"] == (
        "relevance 0.450 < 0.500, qualified with p2024:v1:0 (0.550), which it copies but for one stretch"
    )
    far_weaker = select([records[0], rec("p2023:v1:0", 0.25, text=POLICY_2023)], threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in far_weaker.kept] == ["p2024:v1:0"] and not far_weaker.notes


def test_a_copy_that_qualifies_still_meets_the_other_rules():
    """Qualifying with its original lifts only the relevance bar: an expired copy is still out of date."""
    expired = rec("p2023:v1:0", 0.45, text=POLICY_2023, effective_until=dt.date(2025, 12, 31))
    selection = select([rec("p2024:v1:0", 0.55, text=POLICY_2024), expired], threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["p2024:v1:0"]
    assert reasons(selection) == {"p2023:v1:0": RejectReason.EXPIRED} and not selection.notes


def test_a_copy_never_qualifies_with_an_original_that_did_not():
    """The original must qualify on every count: an expired original keeps its copy out too, and a copy
    whose original the answerability screen or the budget then left out goes back (it qualified only with
    it, and alone it would be one side of a disagreement)."""
    expired_original = rec("p2024:v1:0", 0.55, text=POLICY_2024, effective_until=dt.date(2025, 12, 31))
    selection = select([expired_original, rec("p2023:v1:0", 0.45, text=POLICY_2023)], threshold=0.5, today=TODAY)
    assert selection.kept == () and reasons(selection)["p2023:v1:0"] == RejectReason.BELOW_THRESHOLD

    both = select([rec("p2024:v1:0", 0.55, text=POLICY_2024), rec("p2023:v1:0", 0.45, text=POLICY_2023)],
                  threshold=0.5, today=TODAY)  # fmt: skip
    assert both.copies == {"p2023:v1:0": "p2024:v1:0"}
    screened = dataclasses.replace(both, kept=both.kept[1:])  # the original left out after tiering
    back = without_orphan_copies(screened)
    assert back.kept == () and reasons(back) == {"p2023:v1:0": RejectReason.BELOW_THRESHOLD}
    assert back.rejected[0].detail == "relevance 0.450 < 0.500" and not back.notes and not back.copies
    assert without_orphan_copies(both) is both


def test_each_rejection_keeps_its_numbers_and_dates_as_data():
    """The trace shows a rejection's detail in English and, from `facts`, in the reader's language: the same
    numbers and dates."""
    weak = rec("a:v1:0", 0.2)
    old = rec("b:v1:0", 0.9, effective_until=dt.date(2025, 1, 31))
    selection = select([weak, old], threshold=0.5, today=TODAY)
    facts = {r.record.chunk_id: dict(r.facts) for r in selection.rejected}
    assert facts["a:v1:0"] == {"code": "below_bar", "relevance": 0.2, "bar": 0.5}
    assert facts["b:v1:0"] == {"code": "expired", "date": "2025-01-31"}


def test_related_reason_reads_the_fates_of_the_rejected_passages_in_order_of_what_they_say() -> None:
    """The no-evidence reason the rejected passages give (services.ask stores it; presentation reads it again from the
    passages a viewer may read): out of its period over on the topic without answering over only close to it."""
    from rag_app.pipeline.tiering import related_reason

    close, far = ("below_threshold", 0.3, "zh"), ("below_threshold", 0.01, "zh")
    assert related_reason([far, close, ("not_answering", 0.7, "en"), ("expired", 0.8, "en")], 0.5) == "out_of_period"
    assert related_reason([("not_yet_effective", 0.6, "en")], 0.5) == "out_of_period"
    assert related_reason([far, ("not_answering", 0.6, "en"), close], 0.5) == "no_answering_passage"
    assert related_reason([far, close], 0.5) == "below_threshold"
    assert related_reason([far], 0.5) is None
    assert related_reason([], 0.5) is None


def _at(chunk_id: str, index: int, relevance: float, text: str) -> ChunkRecord:
    return dataclasses.replace(rec(chunk_id, relevance, text=text), index=index)


OPENS = "Redistribute only if You meet the following conditions:\n\n(a) You must give a copy of this License; and"


def test_a_kept_chunk_that_leaves_its_list_unfinished_brings_the_chunks_that_go_on_with_it():
    """The chunks after an opener, in order, while each opens with an item: right after it, the ones that were no
    candidate or were rejected among them; one already kept moves up to its place in the list."""
    from rag_app.pipeline.tiering import with_list_continuations

    opener = _at("lic:v1:15", 15, 0.8, OPENS)
    other = _at("lic:v1:21", 21, 0.66, "You may add Your own copyright statement.")
    c = _at("lic:v1:17", 17, 0.63, "(c) You must retain all notices; and")
    b = _at("lic:v1:16", 16, 0.4, "(b) You must mark modified files; and")
    d = _at("lic:v1:18", 18, 0.0, "(d) Include the NOTICE file.")
    after = _at("lic:v1:19", 19, 0.0, "Section 5. Submission of Contributions.")
    selection = select([opener, other, c, b], threshold=0.5, today=TODAY)
    assert [r.chunk_id for r in selection.kept] == ["lic:v1:15", "lic:v1:21", "lic:v1:17"]
    asked: list[list[str]] = []

    def following(parents):
        asked.append([p.chunk_id for p in parents])
        return {"lic:v1:15": [dataclasses.replace(b, relevance=0.0), c, d, after]}

    out = with_list_continuations(selection, following)
    assert asked == [["lic:v1:15"]]  # only a chunk whose list runs on asks for what follows
    assert [r.chunk_id for r in out.kept] == ["lic:v1:15", "lic:v1:16", "lic:v1:17", "lic:v1:18", "lic:v1:21"]
    assert next(r for r in out.kept if r.chunk_id == "lic:v1:16").relevance == 0.4  # as it was scored
    assert dict(out.continued) == {"lic:v1:16": "lic:v1:15", "lic:v1:18": "lic:v1:15"}  # 17 qualified on its own
    assert "lic:v1:16" not in reasons(out) and "lic:v1:19" not in {r.chunk_id for r in out.kept}


def test_nothing_changes_where_no_kept_list_runs_on_or_nothing_goes_on_with_it():
    from rag_app.pipeline.tiering import with_list_continuations

    plain = select([_at("a:v1:0", 0, 0.8, "A sentence.\n\n(a) item")], threshold=0.5, today=TODAY)
    assert with_list_continuations(plain, lambda parents: pytest.fail("not asked")) is plain
    opener = select([_at("a:v1:0", 0, 0.8, OPENS)], threshold=0.5, today=TODAY)
    prose = _at("a:v1:1", 1, 0.0, "Section 5. Submission of Contributions.")
    assert with_list_continuations(opener, lambda parents: {"a:v1:0": [prose]}) is opener
    assert with_list_continuations(opener, lambda parents: {}) is opener


def test_a_list_ends_with_its_section():
    """The next section's own list is no continuation (found by the review of session 35: a handbook's leave steps
    ran on into the expense rules' numbered list)."""
    from rag_app.pipeline.tiering import with_list_continuations

    opener = dataclasses.replace(_at("hb:v1:0", 0, 0.8, OPENS), section="Handbook > Leave")
    same = dataclasses.replace(_at("hb:v1:1", 1, 0.0, "(b) Ask your manager."), section="Handbook > Leave")
    other = dataclasses.replace(_at("hb:v1:2", 2, 0.0, "1. Keep every receipt."), section="Handbook > Expenses")
    selection = select([opener], threshold=0.5, today=TODAY)
    out = with_list_continuations(selection, lambda parents: {"hb:v1:0": [same, other]})
    assert [r.chunk_id for r in out.kept] == ["hb:v1:0", "hb:v1:1"]


def test_a_kept_chunk_cut_inside_a_sentence_brings_the_chunk_that_goes_on_with_it():
    """The chunker cuts an over-long sentence at a clause mark: "… or any and all other commercial damages or
    losses)," ends one chunk, "even if such Contributor has been advised of the possibility of such damages." opens
    the next. That chunk comes with it, when it begins where the cut one ends and is of its section; a chunk that
    ends a sentence brings nothing."""
    from rag_app.pipeline.tiering import with_list_continuations

    head = "In no event shall any Contributor be liable to You for damages, including any direct or indirect damages,"
    tail = "even if such Contributor has been advised of the possibility of such damages."
    cut = dataclasses.replace(_at("apache:v1:27", 27, 0.7, head), start=100, end=100 + len(head))
    rest = dataclasses.replace(_at("apache:v1:28", 28, 0.0, tail), start=101 + len(head), end=101 + len(head) + 60)
    selection = select([cut], threshold=0.5, today=TODAY)
    out = with_list_continuations(selection, lambda parents: {"apache:v1:27": [rest]})
    assert [r.chunk_id for r in out.kept] == ["apache:v1:27", "apache:v1:28"]
    assert dict(out.continued) == {"apache:v1:28": "apache:v1:27"}
    apart = dataclasses.replace(rest, start=rest.start + 2)  # a blank line between: another paragraph
    assert with_list_continuations(selection, lambda parents: {"apache:v1:27": [apart]}) is selection
    whole = select([_at("apache:v1:26", 26, 0.7, "A sentence that ends.")], threshold=0.5, today=TODAY)
    assert with_list_continuations(whole, lambda parents: pytest.fail("not asked")) is whole


# --- a lower level answering alone is judged beside a higher one the embedder puts as near (tiering.outranking) ------
def _note_answers(*others: ChunkRecord):
    """A note kept alone (relevance .53, cosine .898) and `others` under the bar."""
    note = rec("faq:v1:0", 0.53, level="note", weight=1.0, dense_score=0.898)
    return note, select([note, *others], threshold=0.5, today=TODAY)


def test_a_higher_level_passage_the_embedder_puts_as_near_is_judged_beside_a_note():
    rule = rec("attendance:v1:4", 0.29, dense_score=0.899)
    farther = rec("attendance:v1:2", 0.17, dense_score=0.885)
    reviewed = rec("wiki:v1:0", 0.30, level="reviewed", weight=2.0, dense_score=0.95)
    _, selection = _note_answers(rule, farther, reviewed)
    assert [r.chunk_id for r in outranking(selection, TODAY)] == ["attendance:v1:4", "wiki:v1:0"]
    widened = beside(selection, [rule], TODAY)
    assert [r.chunk_id for r in widened.kept] == ["attendance:v1:4", "faq:v1:0"]
    assert "attendance:v1:4" not in reasons(widened)
    assert widened.notes["attendance:v1:4"].startswith("relevance 0.290 < 0.500, judged beside faq:v1:0 (level note)")
    assert "cosine 0.8990 against 0.8980" in widened.notes["attendance:v1:4"]


def test_nothing_outranks_without_cosines_a_level_out_of_period_or_an_equal_level():
    expired = rec("old-rule:v1:0", 0.29, dense_score=0.95, effective_until=dt.date(2025, 12, 31))
    another_note = rec("faq2:v1:0", 0.29, level="note", weight=1.0, dense_score=0.95)
    no_cosine = rec("rule:v1:0", 0.29)
    _, selection = _note_answers(expired, another_note, no_cosine)
    assert outranking(selection, TODAY) == ()
    unleveled = rec("memo:v1:0", 0.6, level=None, dense_score=0.5)
    kept_unleveled = select([unleveled, rec("rule:v1:1", 0.29, dense_score=0.95)], threshold=0.5, today=TODAY)
    assert outranking(kept_unleveled, TODAY) == ()
    lexical_only = select(
        [rec("faq:v1:0", 0.53, level="note", weight=1.0), rec("r:v1:1", 0.29, dense_score=0.9)],
        threshold=0.5,
        today=TODAY,
    )
    assert outranking(lexical_only, TODAY) == ()
