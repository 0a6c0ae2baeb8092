"""rag_app/pipeline/pinyin.py: Chinese names an English question writes in pinyin (pure)."""

from __future__ import annotations

from rag_app.pipeline.pinyin import held, names, spelled


def test_an_untranslated_word_that_reads_as_pinyin_is_a_name_matched_in_characters() -> None:
    found = names("Why is Beitucheng station called that?")
    assert [token for token, _ in found] == ["beitucheng"]
    assert held(found, "北土城站位于北京市朝阳区") == {"beitucheng"}
    assert held(found, "西土城站位于北京市海淀区") == set()  # xi-tu-cheng: another station
    assert held(found, "Beitucheng station is in Chaoyang") == set()  # only characters spell it
    # the trace shows the characters that spell it
    assert spelled(found, "位于北土城站与安贞门站之间") == {"beitucheng": "北土城"}
    assert spelled(found, "西土城站") == {}


def test_two_names_and_every_reading_of_a_character() -> None:
    found = names("Which subway lines can you change between at Haidian Huangzhuang?")
    assert {token for token, _ in found} == {"haidian", "huangzhuang"}  # "change" is an English word
    assert held(found, "海淀黄庄站地下一层设有两个站厅") == {"haidian", "huangzhuang"}
    # 长 reads chang or zhang: every reading of a character counts
    assert held(names("Where is Changshoulu station?"), "长寿路站") == {"changshoulu"}


def test_words_that_are_not_pinyin_names_are_left_alone() -> None:
    assert names("Is there any warranty under GPLv3?") == ()  # gplv3 is no pinyin
    assert names("How many passengers use the Apgar score?") == ()
    assert names("北土城站为什么叫这个名字？") == ()  # a Chinese question writes the name in characters
    assert names("When did the unfollow button appear?") == ()  # un-fol-low: "fol" is no syllable
