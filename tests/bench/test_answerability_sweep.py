"""The sweep's grid parsing and scoring (no database; bench/answerability_sweep.py)."""

from __future__ import annotations

from types import SimpleNamespace

import answerability_sweep as sweep
import pytest


def test_the_grid_reads_names_and_values() -> None:
    grid = sweep.parse_grid(["MIN_FOCUS=0.3,0.4", "THRESHOLD=0.5"])
    assert grid == {"MIN_FOCUS": [0.3, 0.4], "THRESHOLD": [0.5]}


@pytest.mark.parametrize("item", ["MAX_FOCUS=0.3", "MIN_FOCUS=", "MIN_FOCUS=a,b"])
def test_a_bad_grid_item_is_refused_with_its_reason(item: str) -> None:
    with pytest.raises(SystemExit, match="--grid"):
        sweep.parse_grid([item])


def test_scores_count_answered_gold_cross_lingual_and_abstained() -> None:
    def case(gold: str | None, cross: bool = False) -> SimpleNamespace:
        return SimpleNamespace(gold_source_id=gold, cross_lingual=cross)

    outcomes = [
        (case("a"), True, True),
        (case("b", cross=True), True, False),
        (case("c", cross=True), False, False),
        (case(None), False, False),
        (case(None), True, False),
    ]
    assert sweep.score(outcomes) == {
        "answerable": 3,
        "answered": 0.6667,
        "gold_kept": 0.3333,
        "cross_lingual_answered": 0.5,
        "no_evidence": 2,
        "abstained": 0.5,
    }
