"""pipeline/places.py: the places a text names, as Chinese words, in both languages."""

from __future__ import annotations

import pytest

from rag_app.pipeline.places import mentions, other_place, place_core, places


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("上海办公室指南", {"上海"}),
        ("新员工入职清单（上海办公室）", {"上海"}),
        ("Acme上海公司员工手册", {"上海"}),
        ("London Office Guide", {"伦敦"}),
        ("is there parking at the shanghai office", {"上海"}),  # questions are often written in lower case
        ("伦敦员工年假多少天？比上海多吗", {"伦敦", "上海"}),
        ("上海市的办公室", {"上海"}),  # without the administrative suffix
        ("苏州办公室指南", {"苏州"}),  # but never one character: 苏州 is not 苏
        ("Suzhou Office Guide", {"苏州"}),
        ("Flights from Hong Kong", {"香港"}),  # two words first
        ("会议室预订指南", set()),
        ("Acme Group Travel Policy", set()),
        ("GNU General Public License, version 3", set()),
        ("Information Security Policy", set()),
        ("a nice bath while reading", set()),  # words whose first sense is no place
    ],
)
def test_places_are_read_as_chinese_words_in_both_languages(text: str, expected: set[str]) -> None:
    assert places(text) == expected


def test_a_passage_mentions_a_place_in_either_language() -> None:
    assert mentions("Colleagues visiting from Shanghai may use the showers.", "上海")
    assert mentions("上海市浦东新区世纪大道100号", "上海")
    assert not mentions("Showers are on the lower ground floor.", "上海")
    assert not mentions("London Office Guide > Facilities", "上海")


def test_the_places_a_passage_must_speak_of() -> None:
    asked = frozenset({"上海"})
    titled = frozenset({"上海", "伦敦"})
    assert other_place(asked, "London Office Guide", titled) == {"上海"}
    assert other_place(asked, "上海办公室指南", titled) == frozenset()  # its own place
    assert other_place(asked, "会议室预订指南", titled) == frozenset()  # a title without a place
    assert other_place(asked, "London Office Guide", frozenset({"伦敦"})) == frozenset()  # no title names 上海
    assert other_place(frozenset(), "London Office Guide", titled) == frozenset()
    both = frozenset({"上海", "伦敦"})
    assert other_place(both, "London Office Guide", titled) == frozenset()  # it names one of the places asked


def test_place_core_drops_administrative_divisions() -> None:
    assert place_core("北京市") == "北京"
    assert place_core("省吉安市") == "吉安"
    assert place_core("new york city") == "newyork"  # as conflict.py compares values: folded, spaces dropped
