"""The answerability bench's pure parts: the bed, its corpora, scoring, figures, the table.

The Django side (ingest, delete, ask) runs in the bench itself; here every answer is a dict of the
facts `answer_facts` reads off a stored answer.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import answerability_bench as ab
import pytest

from rag_app.evaluation_answers import contains_any


def tiny_bed() -> dict[str, Any]:
    return {
        "format": ab.FORMAT,
        "lang": "en",
        "siblings": {
            "passages": [
                {"id": "p1", "title": "Policy", "text": "Refunds are paid within 30 days.", "origin": "x"},
                {"id": "p2", "title": "Policy", "text": "Refunds go to the original card.", "origin": "x"},
                {"id": "p3", "title": "Policy", "text": "Travel is booked through the portal.", "origin": "x"},
            ],
            "sets": [
                {
                    "id": "s1",
                    "question": "how long do refunds take",
                    "slot": "duration",
                    "gold": "p1",
                    "siblings": ["p2", "p3"],
                    "key_phrases": ["30 days"],
                    "origin": "x",
                }
            ],
        },
        "conflicts": {
            "documents": [
                {"id": "c1-2023", "title": "P (2023)", "text": "Pay within\n30 days.", "edit": None},
                {
                    "id": "c1-2024",
                    "title": "P (2024)",
                    "text": "Pay within\n30 days.",
                    "edit": {"from": "within 30 days", "to": "within 45 days"},
                    "effective_from": "2024-01-01",
                },
            ],
            "pairs": [
                {
                    "id": "c1",
                    "question": "how long to pay",
                    "slot": "duration",
                    "kind": "changed",
                    "expect_conflict": True,
                    "documents": ["c1-2023", "c1-2024"],
                }
            ],
        },
    }


def write(tmp_path: Path, bed: dict[str, Any]) -> Path:
    path = tmp_path / "bed.json"
    path.write_text(json.dumps(bed), encoding="utf-8")
    return path


def facts(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "state": "answered",
        "reason": "",
        "conflict": False,
        "paragraphs": [{"status": "linked", "weak": False, "text": "Refunds are paid within 30 days."}],
        "cited": ["p1"],
        "snippets": ["Refunds are paid within 30 days."],
        "kept": ["p1", "p2"],
        "top_relevance": 0.8,
        "conflicting": [],
    }
    return base | overrides


# --- the bed and its corpora ----------------------------------------------------------------


def test_the_withheld_corpus_is_the_present_one_less_every_gold(tmp_path: Path) -> None:
    bed = ab.load_bed(write(tmp_path, tiny_bed()))
    present = [d.source_id for d in ab.corpus_docs(bed, "siblings-present")]
    withheld = [d.source_id for d in ab.corpus_docs(bed, "siblings-withheld")]
    assert present == ["p1", "p2", "p3"]
    assert withheld == ["p2", "p3"]
    assert ab.withheld_ids(bed) == {"p1"}


def test_a_conflict_copy_gets_its_edit_across_a_line_break(tmp_path: Path) -> None:
    """The bed stores the verbatim text; the copy's value is changed when the corpus is built."""
    bed = ab.load_bed(write(tmp_path, tiny_bed()))
    docs = {d.source_id: d for d in ab.corpus_docs(bed, "conflicts")}
    assert docs["c1-2023"].text == "Pay within\n30 days."
    assert docs["c1-2024"].text == "Pay within 45 days."
    assert docs["c1-2024"].effective_from == "2024-01-01"


def test_apply_edit_replaces_every_occurrence_and_leaves_other_text() -> None:
    text = "七日内退款。七日后不退。"
    assert ab.apply_edit(text, {"from": "七日", "to": "7天"}) == "7天内退款。7天后不退。"
    assert ab.apply_edit(text, None) == text
    assert ab.apply_edit("a.b", {"from": ".", "to": "!"}) == "a!b"  # literal, not a regex


@pytest.mark.parametrize(
    "breakage",
    [
        lambda b: b["siblings"]["sets"][0].update(gold="nope"),
        lambda b: b["siblings"]["sets"][0].update(siblings=["p2", "nope"]),
        lambda b: b["conflicts"]["pairs"][0].update(documents=["c1-2023"]),
        lambda b: b.update(format="something/2"),
    ],
)
def test_a_bed_naming_what_it_lacks_is_refused(tmp_path: Path, breakage: Any) -> None:
    bed = tiny_bed()
    breakage(bed)
    with pytest.raises(ValueError):
        ab.load_bed(write(tmp_path, bed))


def test_cases_carry_what_scoring_needs(tmp_path: Path) -> None:
    bed = ab.load_bed(write(tmp_path, tiny_bed()))
    (present,) = ab.cases_for(bed, "siblings-present")
    (withheld,) = ab.cases_for(bed, "siblings-withheld")
    (pair,) = ab.cases_for(bed, "conflicts")
    assert present.gold == "p1" and present.key_phrases == ("30 days",)
    assert withheld.gold is None and withheld.siblings == ("p2", "p3")
    assert pair.pair == ("c1-2023", "c1-2024") and pair.expect_conflict is True and pair.kind == "changed"


def test_a_sample_is_seeded_and_keeps_the_order() -> None:
    cases = [ab.Case(str(i), "conflicts", "q", "date") for i in range(50)]
    a = ab.sample(cases, 10)
    assert [c.id for c in a] == [c.id for c in ab.sample(cases, 10)]
    assert [int(c.id) for c in a] == sorted(int(c.id) for c in a)
    assert ab.sample(cases, None) == cases and ab.sample(cases, 99) == cases


def test_the_cache_key_follows_the_documents_not_their_questions(tmp_path: Path) -> None:
    bed = tiny_bed()
    docs = ab.corpus_docs(ab.load_bed(write(tmp_path, bed)), "siblings-present")
    reworded = copy.deepcopy(bed)
    reworded["siblings"]["sets"][0]["question"] = "refund time?"
    assert ab.docs_sha256(docs) == ab.docs_sha256(
        ab.corpus_docs(ab.load_bed(write(tmp_path, reworded)), "siblings-present")
    )
    edited = copy.deepcopy(bed)
    edited["siblings"]["passages"][1]["text"] += " "
    assert ab.docs_sha256(docs) != ab.docs_sha256(
        ab.corpus_docs(ab.load_bed(write(tmp_path, edited)), "siblings-present")
    )
    assert ab.docs_sha256(docs) != ab.docs_sha256(list(reversed(docs)))


# --- scoring ---------------------------------------------------------------------------------


def test_a_present_answer_citing_the_gold_scores_answered_and_gold_cited(tmp_path: Path) -> None:
    (case,) = ab.cases_for(ab.load_bed(write(tmp_path, tiny_bed())), "siblings-present")
    o = ab.outcome(case, facts(), 12.34)
    assert o.answered and not o.abstained and o.gold_cited and o.key_in_evidence
    assert o.latency_ms == 12.3 and o.cites_sibling is False


def test_a_withheld_answer_citing_a_sibling_is_not_an_abstention(tmp_path: Path) -> None:
    (case,) = ab.cases_for(ab.load_bed(write(tmp_path, tiny_bed())), "siblings-withheld")
    o = ab.outcome(case, facts(cited=["p2"], snippets=["Refunds go to the original card."]), 5.0)
    assert o.answered and not o.abstained and o.cites_sibling and o.gold_cited is None


@pytest.mark.parametrize(
    ("state", "paragraphs", "abstained"),
    [
        ("no_evidence", [], True),
        ("answered", [{"status": "insufficient", "weak": False, "text": "..."}], True),  # nothing linked
        ("answered", [{"status": "linked", "weak": True, "text": "x"}], False),  # weak still answers
        ("error", [], False),
    ],
)
def test_abstention_is_no_evidence_or_only_insufficient_paragraphs(
    tmp_path: Path, state: str, paragraphs: list[dict[str, Any]], abstained: bool
) -> None:
    (case,) = ab.cases_for(ab.load_bed(write(tmp_path, tiny_bed())), "siblings-withheld")
    o = ab.outcome(case, facts(state=state, paragraphs=paragraphs, cited=[], snippets=[]), 1.0)
    assert o.abstained is abstained
    assert o.answered is (state == "answered" and not abstained)


def test_a_conflict_flag_is_told_apart_by_whose_documents_it_names(tmp_path: Path) -> None:
    (case,) = ab.cases_for(ab.load_bed(write(tmp_path, tiny_bed())), "conflicts")
    both = ab.outcome(
        case,
        facts(
            conflict=True, cited=["c1-2023", "c1-2024"], kept=["c1-2023", "c1-2024"], conflicting=["c1-2024", "c1-2023"]
        ),
        1.0,
    )
    assert both.pair_cited == 2 and both.pair_kept == 2
    assert both.conflict_in_pair and not both.conflict_outside_pair
    other = ab.outcome(
        case, facts(conflict=True, cited=["c1-2023", "c9-2024"], conflicting=["c1-2023", "c9-2024"]), 1.0
    )
    assert other.pair_cited == 1 and not other.conflict_in_pair and other.conflict_outside_pair
    quiet = ab.outcome(case, facts(cited=["c1-2024"]), 1.0)
    assert quiet.conflict is False and quiet.conflict_in_pair is False and quiet.pair_cited == 1


# --- figures and table ---------------------------------------------------------------------------


def _o(corpus: str, **kw: Any) -> ab.Outcome:
    base: dict[str, Any] = {
        "id": "x",
        "corpus": corpus,
        "question": "q",
        "slot": "date",
        "state": "answered",
        "reason": "",
        "latency_ms": 10.0,
    }
    return ab.Outcome(**(base | kw))


def test_summarise_reports_every_target_and_whether_it_is_met() -> None:
    outcomes = {
        "siblings-withheld": [_o("siblings-withheld", abstained=True, state="no_evidence", reason="no_qualified")]
        + [_o("siblings-withheld", answered=True, cites_sibling=True)] * 3,
        "siblings-present": [_o("siblings-present", answered=True, gold_cited=True)] * 9
        + [_o("siblings-present", answered=True, gold_cited=False, slot="place")],
        "conflicts": [_o("conflicts", expect_conflict=True, conflict=True, pair_cited=2, conflict_in_pair=True)] * 4
        + [_o("conflicts", expect_conflict=True, pair_cited=1)]
        + [_o("conflicts", expect_conflict=False, kind="identical")] * 19
        + [_o("conflicts", expect_conflict=False, kind="format", conflict=True, conflict_outside_pair=True)],
    }
    report = ab.summarise(outcomes)
    assert report["siblings_withheld"]["abstained"] == 0.25
    assert report["siblings_withheld"]["answered_citing_a_sibling"] == 1.0
    assert report["siblings_withheld"]["reasons"] == {"-": 3, "no_qualified": 1}
    assert report["siblings_present"]["gold_cited"] == 0.9
    assert report["siblings_present"]["by_slot"]["place"] == {"n": 1, "answered": 1.0, "gold_cited": 0.0}
    assert report["conflicts"]["differing"]["flagged"] == 0.8
    assert report["conflicts"]["differing"]["flagged_when_both_cited"] == 1.0
    assert report["conflicts"]["equivalent"]["false_conflict"] == 0.05
    assert report["conflicts"]["equivalent"]["by_kind"]["format"] == {"n": 1, "conflict": 1.0}
    targets = report["targets"]
    assert targets["siblings_withheld.abstained"]["met"] is False
    assert targets["siblings_present.gold_cited"]["met"] is True  # >= 0.90
    assert targets["conflicts.differing.flagged"]["met"] is True  # >= 0.80
    assert targets["conflicts.equivalent.false_conflict"]["met"] is True  # <= 0.05

    table = ab.markdown({"languages": {"en": report}})
    assert "| siblings_withheld.abstained | >= 0.60 | 0.250 ✗ |" in table
    assert "| conflicts.equivalent.false_conflict | <= 0.05 | 0.050 ✓ |" in table
    assert "| place |" in table


def test_a_missing_corpus_leaves_its_targets_open() -> None:
    report = ab.summarise({"conflicts": [_o("conflicts", expect_conflict=True, conflict=True)]})
    assert report["targets"]["siblings_present.answered"] == {"target": ">= 0.90", "value": None, "met": None}
    assert "| siblings_present.answered | >= 0.90 | - |" in ab.markdown({"languages": {"zh": report}})


# --- the committed bed ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ab.LANGS)
def test_the_committed_bed_holds_what_its_readme_promises(lang: str) -> None:
    """At least 300 cases per language; every key phrase in its gold and in none of its siblings;
    2 to 5 siblings; every edit changes its copy; both expectations present for conflicts."""
    bed = ab.load_bed(ab.BED_DIR / f"{lang}.json")
    sets, pairs = bed["siblings"]["sets"], bed["conflicts"]["pairs"]
    assert len(sets) + len(pairs) >= 300
    text = {p["id"]: p["text"] for p in bed["siblings"]["passages"]}
    for s in sets:
        assert contains_any(text[s["gold"]], s["key_phrases"]), s["id"]
        assert 2 <= len(s["siblings"]) <= 5, s["id"]
        assert s["gold"] not in s["siblings"]
        for sib in s["siblings"]:
            assert not contains_any(text[sib], s["key_phrases"]), (s["id"], sib)
    docs = {d.source_id: d.text for d in ab.corpus_docs(bed, "conflicts")}
    for p in pairs:
        a, b = (docs[i] for i in p["documents"])
        assert (a != b) is (p["kind"] != "identical"), p["id"]
        assert p["expect_conflict"] is (p["kind"] == "changed"), p["id"]
    assert {p["slot"] for p in pairs if p["expect_conflict"]} >= {
        "number",
        "date",
        "duration",
        "place",
        "person",
        "org",
        "yes_no",
    }
    assert len({p["documents"][0].rsplit("-", 1)[0] for p in pairs}) == len(pairs)
