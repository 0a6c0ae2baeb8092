"""Why a candidate was retrieved, in words (rag_app/search/explain.py): pure, no database."""

from __future__ import annotations

from rag_app.pipeline.records import Held
from rag_app.pipeline.textproc import query_terms, tokenize, written_as
from rag_app.search.explain import Reading, in_words, own_reading, translated_reading


def test_each_term_is_held_one_way_in_the_questions_order_and_the_rest_are_missing():
    terms = ["wrote", "gnomovis", "beitucheng", "releas", "licens"]
    reading = own_reading(
        terms,
        own={"gnomovis", "copyright", "written"},
        made_up={"wrote": "written"},
        synonyms={"wrote": {"written", "write"}},
        spelled={"beitucheng": "北土城"},
        issued=["releas"],
    )
    assert reading.held == (
        Held("wrote", "synonym", "written"),
        Held("gnomovis", "word"),
        Held("beitucheng", "name", "北土城"),
        Held("releas", "dateline"),
    )
    assert reading.missing == ("licens",)


def test_a_word_the_chunk_writes_is_held_as_written_whatever_else_could_stand_for_it():
    reading = own_reading(
        ["stay"], own={"stay", "remain"}, made_up={}, synonyms={"stay": {"remain"}}, spelled={"stay": "斯泰"}, issued=[]
    )
    assert reading == Reading((Held("stay", "word"),), ())


def test_what_a_chunk_holds_does_not_depend_on_how_the_search_weighed_the_question():
    """Corpus statistics count documents a reader may not see; "does not mention" must not move with them.
    "GPLv3" is held by "gpl" and "3" whether or not the search read it so (it does only when no chunk holds
    "gplv3"); a synonym the chunk holds counts even where the score took none for the term (a word of the
    chunk makes up one term only, chosen by weight)."""
    reading = own_reading(
        ["gplv3", "stay", "last"],
        own={"gpl", "3", "remain", "continu"},
        made_up={},
        synonyms={"stay": {"remain", "continu"}, "last": {"continu"}},
        spelled={},
        issued=[],
    )
    assert reading.held == (
        Held("gplv3", "word"),
        Held("stay", "synonym", "continu"),
        Held("last", "synonym", "continu"),
    )
    assert reading.missing == ()
    assert own_reading(["gplv3"], own={"gpl"}, made_up={}, synonyms={}, spelled={}, issued=[]).missing == ("gplv3",)
    # the score's own choice is the one named when it made one
    named = own_reading(
        ["stay"], own={"remain", "continu"}, made_up={"stay": "remain"}, synonyms={"stay": {"continu"}}, spelled={},
        issued=[],
    )  # fmt: skip
    assert named.held == (Held("stay", "synonym", "remain"),)


def test_the_translated_reading_takes_the_rendering_the_chunk_holds_most_often():
    """As the score counts a group (scoring.group_bm25: its most frequent rendering); a tie goes to the
    dictionary's order. An untranslatable word is a group of its own."""
    groups = [
        ("专利", ("patent", "monopoli")),
        ("gpl", ("gpl",)),
        ("保修", ("warranti", "guarante")),
        ("西土城", ("西土城",)),
    ]
    tokens = ["monopoli", "patent", "monopoli", "gpl"]
    reading = translated_reading(groups, [], tokens, own=set(tokens), spelled={}, issued=())
    assert reading.held == (Held("专利", "translation", "monopoli"), Held("gpl", "word"))
    assert reading.missing == ("保修", "西土城")
    tie = translated_reading(groups[:1], [], ["monopoli", "patent"], own={"monopoli", "patent"}, spelled={}, issued=())
    assert tie.held == (Held("专利", "translation", "patent"),)
    # a name spelled in characters and a dateline's issuing word, as in the question's own reading
    reading = translated_reading(
        [("beitucheng", ("beitucheng",)), ("发布", ("releas", "publish"))],
        [],
        ["站", "beitucheng", "releas"],
        own={"站"},
        spelled={"beitucheng": "北土城"},
        issued=["releas"],
    )
    assert reading.held == (Held("beitucheng", "name", "北土城"), Held("发布", "dateline"))


def test_the_translated_reading_reads_what_the_translation_leaves_as_the_question_writes_it():
    """A name run together with its version is held where the passage writes its parts, as in the question's
    own reading; a word the question already writes in the passage's script ("退款" in an English question,
    which the translation leaves out) is read after the groups."""
    groups = [("gplv3", ("gplv3",)), ("receipt", ("收据", "发票"))]
    own = {"gpl", "3", "退款", "发票"}
    reading = translated_reading(groups, ["退款", "政策"], ["gpl", "3", "退款", "发票"], own, spelled={}, issued=())
    assert reading.held == (Held("gplv3", "word"), Held("receipt", "translation", "发票"), Held("退款", "word"))
    assert reading.missing == ("政策",)
    # a question word a group renders is not read twice
    again = translated_reading(groups, ["receipt"], ["发票"], {"发票"}, spelled={}, issued=())
    assert again.held == (Held("receipt", "translation", "发票"),) and again.missing == ("gplv3",)


def test_terms_are_written_as_the_question_and_the_passage_write_them():
    question = "Who wrote the warranty terms of GPLv3 programs?"
    passage = "This program is Written by the Free Software Foundation. NO WARRANTIES are given."
    terms = query_terms(question)
    held = [
        Held(terms[0], "synonym", "written").as_dict(),
        Held("warranti", "word").as_dict(),
        Held("gpl", "word").as_dict(),  # a part of "GPLv3" as the search reads it: no word of the question gives it
    ]
    missing = [*tokenize("programs"), *tokenize("program")]
    words, lacking = in_words(held, missing, written_as(question), passage)
    assert words == [
        {"word": "wrote", "term": terms[0], "how": "synonym", "as": "Written"},
        {"word": "warranty", "term": "warranti", "how": "word", "as": ""},
        {"word": "gpl", "term": "gpl", "how": "word", "as": ""},
    ]
    assert lacking == ["programs"]  # one word, however many terms give it
    # a Chinese question's words are its terms; a rendering the passage does not write stays a term
    zh = [Held("专利", "translation", "patent").as_dict(), Held("保修", "translation", "guarante").as_dict()]
    assert [(w["word"], w["as"]) for w in in_words(zh, [], {}, passage)[0]] == [
        ("专利", "patent"),
        ("保修", "guarante"),
    ]
    # an English question's pair of words the dictionary renders as one ("fire engine" -> 消防车)
    question = "Where do the Fire Engines park?"
    pair = [Held("fire engin", "translation", "消防车").as_dict()]
    words, lacking = in_words(pair, ["park"], written_as(question), "")
    assert words[0]["word"] == "Fire Engines" and lacking == ["park"]


def test_a_stored_reading_is_read_as_untrusted():
    """The trace is data from the database: rows that are not rows of strings, or have no term, are left out,
    and nothing raises."""
    stored = [{"term": "refund", "how": "word", "as": ""}, "junk", {"term": 3, "how": "word"}, {"how": "name"}]
    words, lacking = in_words(stored, ["late", 7, None, ""], {}, "")
    assert words == [{"word": "refund", "term": "refund", "how": "word", "as": ""}]
    assert lacking == ["late"]
    assert in_words(None, None, {}, "") == ([], [])
    assert in_words({"term": "x"}, "missing", {}, "") == ([], [])


def test_written_as_finds_the_first_word_that_gives_each_token():
    text = "Licensed works, the LICENSE and licensing: 许可证 GPLv3."
    assert written_as(text, ["licens", "gplv3", "许可证", "absent"]) == {
        "licens": "Licensed",
        "gplv3": "GPLv3",
        "许可证": "许可证",
    }
    every = written_as(text)
    assert every["licens"] == "Licensed" and every["work"] == "works" and every["the"] == "the"


def test_written_as_reads_a_plain_word_as_tokenize_does():
    """The shortcut for plain words (the lower-case stem, without jieba) gives exactly tokenize's token."""
    text = "Licences, COLOURS and warranties; the GPLv3 and LGPL-2.1 texts, 许可证 and re-use. Does it?"
    words = written_as(text)
    assert len(words) > 8
    for token, word in words.items():
        if word.isascii() and word.isalpha():
            assert tokenize(word, keep_stopwords=True) == [token]
        else:
            assert token in tokenize(word, keep_stopwords=True) and word in text
    assert words["licens"] == "Licences" and words["color"] == "COLOURS" and words["warranti"] == "warranties"
