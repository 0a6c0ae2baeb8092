"""rag_app/pipeline/textproc.py: normalisation, folding, tokenizing, sentence and cut positions (pure)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_app.pipeline.textproc import (
    asks_yes_or_no,
    clause_cut_points,
    detect_language,
    fold,
    for_embedding,
    glued_pieces,
    initialisms,
    is_title,
    locator_tokens,
    normalize,
    passage_tokens,
    query_terms,
    safe_cut,
    sentence_spans,
    split_sentences,
    to_mainland,
    to_simplified,
    tokenize,
    version_splits,
)


def test_normalize_unifies_newlines_and_removes_noise() -> None:
    """CRLF/CR -> LF, NUL/BOM/C0 controls dropped, trailing spaces and 3+ newlines collapsed, NFC."""
    raw = "\ufeffTitle  \r\n\r\n\r\n\r\nBody\x00 text\x0c\rcafe\u0301\t \n"
    assert normalize(raw) == "Title\n\nBody text\ncafé"


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_normalize_is_idempotent(text: str) -> None:
    """Normalising twice changes nothing: stored text is already in canonical form."""
    once = normalize(text)
    assert normalize(once) == once


def test_fold_matches_traditional_fullwidth_and_case() -> None:
    """Traditional folds to simplified and fullwidth to ASCII for matching only."""
    assert fold("退款期限為三十天") == fold("退款期限为三十天")
    assert fold("ＡＢＣ１２３") == "abc123"


def _zh_keys(locale: str) -> list[str]:
    from zhconv import zhconv as impl

    return sorted(impl.getdict(locale))


_CONVERTERS = (("zh-hans", to_simplified), ("zh-cn", to_mainland))


@pytest.mark.parametrize(("locale", "convert"), _CONVERTERS)
def test_the_conversions_are_zhconv_on_the_demo_articles_in_both_scripts(locale: str, convert: Any) -> None:
    """The faster walk gives zhconv's own result, character for character, on real text: the demo corpus's
    Chinese articles as written and converted to traditional (every phrase of zhconv's table that they hold)."""
    import zhconv

    from rag_app.pipeline.textproc import _conversion_table

    assert _conversion_table(locale) is not None  # the walk itself is tested, not the fallback
    folder = Path(__file__).resolve().parents[2] / "demo" / "zh"
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.iterdir()) if p.suffix in {".md", ".txt", ".html"}]
    assert texts
    for text in texts:
        for written in (text, *(zhconv.convert(text, variant) for variant in ("zh-hant", "zh-tw", "zh-hk"))):
            assert convert(written) == zhconv.convert(written, locale)


@pytest.mark.parametrize(("locale", "convert"), _CONVERTERS)
def test_the_conversions_fall_back_to_zhconv_when_its_table_cannot_be_read(
    monkeypatch: pytest.MonkeyPatch, locale: str, convert: Any
) -> None:
    """A zhconv that keeps its table elsewhere: zhconv.convert itself converts, so folding never breaks."""
    import zhconv

    from rag_app.pipeline import textproc

    monkeypatch.setattr(textproc, "_conversion_table", lambda locale, **kw: None)
    text = "乾隆年間，於後來的臺灣發現了這種乾燥的植物，數位相機"
    assert convert(text) == zhconv.convert(text, locale) != text


_PIECES = {
    locale: st.deferred(lambda locale=locale: st.sampled_from(_zh_keys(locale)))  # read when the test runs
    for locale, _ in _CONVERTERS
}


def _runs(keys: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return st.lists(
        st.one_of(keys, keys.flatmap(lambda k: st.integers(1, len(k)).map(lambda n: k[:n])), st.text(max_size=3)),
        max_size=40,
    )


@given(_runs(_PIECES["zh-hans"]))
@settings(max_examples=300, deadline=None)
def test_to_simplified_is_zhconv_on_runs_of_its_keys(pieces: list[str]) -> None:
    """Keys of zhconv's table run together (overlapping phrases, a phrase cut short, a key's prefix before
    other text) and arbitrary text between them convert exactly as zhconv converts them."""
    import zhconv

    text = "".join(pieces)
    assert to_simplified(text) == zhconv.convert(text, "zh-hans")


@given(_runs(_PIECES["zh-cn"]))
@settings(max_examples=300, deadline=None)
def test_to_mainland_is_zhconv_on_runs_of_its_keys(pieces: list[str]) -> None:
    import zhconv

    text = "".join(pieces)
    assert to_mainland(text) == zhconv.convert(text, "zh-cn")


def test_fold_reads_taiwan_and_hong_kong_wording_as_mainland_wording() -> None:
    """A question written in Taiwan finds a mainland document's words, and the other way round; the stored
    and shown text is never converted (fold is for matching only)."""
    assert fold("伊莉莎白港機場有幾條跑道") == fold("伊丽莎白港机场有几条跑道")
    assert fold("在辛巴威") == fold("在津巴布韦")
    assert fold("數位相機的解析度") == fold("数码相机的分辨率")
    assert fold("但新行人路") == "但新人行道"
    assert fold("软件信息网络打印机") == "软件信息网络打印机"  # mainland wording as it is


def test_the_embedder_reads_chinese_in_one_form_and_other_text_as_written() -> None:
    assert for_embedding("龍膽又被稱之為什麼？") == for_embedding("龙胆又被称之为什么？") == "龙胆又被称之为什么？"
    assert for_embedding("Is there any warranty for the GPL?") == "Is there any warranty for the GPL?"
    assert for_embedding("GPL 第三版是什麼時候發布的？") == "GPL 第三版是什么时候发布的？"
    # Punctuation as written: 「」 would become “” in simplified passages too, moving their vectors for nothing.
    assert for_embedding("他說：「軟體」") == "他说：「软件」"
    assert for_embedding("他说：「软件」") == "他说：「软件」"
    assert fold("他說：「軟體」") == "他说:“软件”"  # matching folds punctuation too (tokens leave it out)


def test_for_embedding_keeps_punctuation_when_zhconv_converts_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    from rag_app.pipeline import textproc

    monkeypatch.setattr(textproc, "_conversion_table", lambda locale, **kw: None)
    assert for_embedding("他說：「軟體」") == "他说：「软件」"


def test_tokenize_chinese_uses_words_and_drops_stopwords() -> None:
    """Chinese text is cut into words (jieba search mode); stopwords like 的/是 are dropped."""
    tokens = tokenize("退款的期限是三十天")
    assert "退款" in tokens and "期限" in tokens
    assert "的" not in tokens and "是" not in tokens


def test_tokenize_english_keeps_word_runs_whole() -> None:
    """Latin words and decimal numbers stay whole (3.14), lower-cased and Snowball-stemmed."""
    tokens = tokenize("The Refunds policy: 3.14")
    assert tokens == ["refund", "polici", "3.14"]
    assert "the" not in tokens


def test_tokenize_is_cached_but_every_caller_gets_its_own_list() -> None:
    """Tokens are memoized (one ask tokenizes the same sentences several times); a caller's edits stay its own."""
    first = tokenize("退款期限为三十天")
    first.append("edited")
    again = tokenize("退款期限为三十天")
    assert "edited" not in again and again == first[:-1]
    assert tokenize("退款的期限", keep_stopwords=True) != tokenize("退款的期限")


# Sentence ends, their fullwidth and traditional forms, characters NFKC turns into jieba run
# characters (…, ．, ｆ), Greek final sigma, Extension A, whitespace of several kinds.
_TRICKY = st.sampled_from(
    list("退款期限为三十天發票醫院中国人民银行的是")
    + list("abcXYZ019.-_%#&+'’")
    + list('。！？；…．!?;,.，、：“”」）)]】"')
    + list("ＡＢｆ１Σσς㐀\u00a0\u3000\u2028 \t\n")
    + ["Refunds", "3.14", "U.S.", "Dr.", "σοφίαΣ"]
)


@given(st.lists(_TRICKY, max_size=60).map("".join))
@settings(max_examples=400, deadline=None)
def test_tokenize_by_sentences_equals_tokenizing_the_whole_text(text: str) -> None:
    """Reading a text's tokens from its sentences' tokens never changes them (textproc._sentence_pieces)."""
    from rag_app.pipeline.textproc import _jieba_tokens

    for keep in (False, True):
        assert tokenize(text, keep_stopwords=keep) == list(_jieba_tokens(text, keep))


def test_tokenize_reads_a_snippet_from_its_sentences_only_where_jieba_would_cut() -> None:
    from rag_app.pipeline.textproc import _sentence_pieces

    assert _sentence_pieces("退款期限为三十天。请尽快申请！\n## 第1节 发票") == [(0, 9), (9, 15), (16, 25)]
    assert _sentence_pieces("只有一句话。") is None
    assert _sentence_pieces("等待…然后") is None  # … folds to "...", which joins the words around it


def test_sentence_spans_cover_chinese_and_english_ends() -> None:
    """Sentences end at 。！？； and at . ! ? before a space; closing quotes stay attached."""
    text = "退款期限为三十天。“请尽快申请！”Refunds take 5 days. Version 3.14 is out? Yes"
    spans = list(sentence_spans(text))
    assert [text[s:e] for s, e in spans] == [
        "退款期限为三十天。",
        "“请尽快申请！”",
        "Refunds take 5 days.",
        "Version 3.14 is out?",
        "Yes",
    ]


def test_a_full_stop_after_an_abbreviation_does_not_end_a_sentence() -> None:
    """sentencex's abbreviation lists decide a full stop before Latin text; a quote is never cut at "Dr."."""
    text = (
        "The score was devised by Dr. Virginia Apgar in 1952. It reads five signs, e.g. the heart rate. "
        "Register with the U.S. Copyright Office. Done."
    )
    assert split_sentences(text) == [
        "The score was devised by Dr. Virginia Apgar in 1952.",
        "It reads five signs, e.g. the heart rate.",
        "Register with the U.S. Copyright Office.",
        "Done.",
    ]
    # After a CJK sentence end, "Dr." is still read as the abbreviation; before CJK text a full stop ends.
    assert split_sentences("他来了。Dr. Smith 也来了。He left. 然后呢？") == [
        "他来了。",
        "Dr. Smith 也来了。",
        "He left.",
        "然后呢？",
    ]


def test_a_clause_number_opens_the_sentence_after_it() -> None:
    """sentencex ends a sentence after "6." before a capital; the number belongs to the clause it opens (in Chinese
    text too, where a full stop before a CJK character ends as written). Only a number with nothing after it
    stays alone, and it is a title: it names a clause and states nothing."""
    assert split_sentences("5. The licensor is not liable. 6. This agreement ends. 6.1. (a) It ends now.") == [
        "5. The licensor is not liable.",
        "6. This agreement ends.",
        "6.1. (a) It ends now.",
    ]
    assert split_sentences("1. 中文内容。2. 下一项。") == ["1. 中文内容。", "2. 下一项。"]
    assert split_sentences("In Section 6. The end.") == ["In Section 6.", "The end."]  # a sentence, not a number
    assert split_sentences("The licensor is not liable. 6.") == ["The licensor is not liable.", "6."]
    assert is_title("6.") and is_title(" (a) ") and not is_title("6. This agreement ends.")


def test_ascii_semicolon_inside_markup_is_not_a_sentence_end() -> None:
    """'zh-hk:工匠;zh-tw' is one run of markup, not two sentences."""
    assert split_sentences("又名-{zh-hk:工匠;zh-tw:职人}-。下一句。") == ["又名-{zh-hk:工匠;zh-tw:职人}-。", "下一句。"]


def test_clause_cuts_skip_numbers() -> None:
    """An ASCII comma or colon is a clause mark only before a space: 1,000 and 10:30 stay whole."""
    text = "At 10:30, pay 1,000 dollars，然后：完成"
    cuts = clause_cut_points(text, 0, len(text))
    assert [text[:c][-3:] for c in cuts] == ["30,", "rs，", "然后："]


def test_safe_cut_moves_out_of_word_runs_and_combining_marks() -> None:
    """A hard cut inside a word moves to the word's start; a cut before a combining mark moves left."""
    text = "alpha international beta"
    assert safe_cut(text, 10, 0) == 6
    assert safe_cut("abc e\u0301x", 5, 0) == 4
    assert safe_cut("verylongword", 5, 0) == 5  # the run starts at lo: nothing better exists


def test_detect_language() -> None:
    """Chinese when CJK characters are a noticeable share of the letters, else English."""
    assert detect_language("退款期限为三十天 refund") == "zh"
    assert detect_language("The refund deadline is thirty days") == "en"


def test_english_stems_come_from_snowball_and_stop_words_go_first() -> None:
    """licensed/licenses/license meet in one stem; "does" is a stop word, never the stem "doe"."""
    assert tokenize("licensed licenses license") == ["licens", "licens", "licens"]
    assert tokenize("What does PEP 20 say about readability?") == ["pep", "20", "readabl"]
    assert tokenize("GPL 2.0 3.14 退款") == ["gpl", "2.0", "3.14", "退款"]  # numbers and CJK unstemmed


def test_question_template_words_are_not_content_terms() -> None:
    """ "what does … say about", "是否", "多少", "哪些", "规定" pick no topic."""
    assert tokenize("Does the Apache License say anything about patents?") == ["apach", "licens", "patent"]
    assert "规定" not in tokenize("公司对退款有什么规定？") and "退款" in tokenize("公司对退款有什么规定？")
    for word in ("是否", "多少", "哪些"):
        assert word not in tokenize(f"退款{word}需要发票")
    # "how quickly / promptly / frequently" ask as "how soon" and "how often" do; the adverb stays a term elsewhere
    assert query_terms("how quickly must a reviewer respond to a PR?") == ["review", "respond", "pr"]
    assert query_terms("How promptly must a reviewer respond?") == query_terms("How soon must a reviewer respond?")
    assert query_terms("how frequently are passwords rotated") == query_terms("how often are passwords rotated")
    assert "quick" in query_terms("Is there a quickly reachable fire exit?")


def test_is_there_asks_and_is_no_term() -> None:
    """ "有没有" and "有无" ask "is there" as 是否有 does; read as a word, 有没有 was translated "have", and
    "公司有没有无息购房贷款" was answered by "London does not have a meal allowance". Only where jieba cuts them
    as the words: "有无线网络吗" asks of 无线网络."""
    from rag_app.pipeline.crosslingual import translate

    terms = ["公司", "无息", "购房", "贷款"]
    assert query_terms("公司有没有无息购房贷款") == query_terms("公司是否有无息购房贷款") == terms
    assert "有无" not in query_terms("宿舍有无热水供应") and "热水" in query_terms("宿舍有无热水供应")
    assert "无线网络" in query_terms("有无线网络吗")
    assert "have" not in {t for g in translate("公司有没有无息购房贷款") for t in g.terms}


def test_a_clause_title_reads_as_a_title() -> None:
    from rag_app.pipeline.textproc import is_title

    for title in ("2. Grant of Copyright License.", "Disclaimer of Warranty.", "11. Patents.", "6.1. New Versions."):
        assert is_title(title), title
    for sentence in ("Errors should never pass silently.", "The Free Software Foundation may publish new versions.",
                     "Beautiful is better than ugly.", "Preamble", "退款期限为三十天。"):  # fmt: skip
        assert not is_title(sentence), sentence


def test_asking_for_a_definition_is_not_a_term() -> None:
    """ "How does MPL 1.1 define 'Commercial Use'?" asks what it means: the passage says "means"."""
    assert query_terms("How does MPL 1.1 define 'Commercial Use'?") == ["mpl", "1.1", "commerci", "use"]
    assert query_terms("What is the definition of a Contributor?") == ["contributor"]
    assert "defin" in query_terms("Is the threshold defined by law?")  # what is asked about the law


def test_british_and_american_spellings_are_one_term() -> None:
    """Staff in Hong Kong write "licence" and "colour"; the licences say "license" (breame's list)."""
    assert tokenize("Which licences? What colour? labelled, 100 metres") == tokenize(
        "Which licenses? What color? labeled, 100 meters"
    )


def test_names_spelled_out_give_the_initialisms_staff_ask_with() -> None:
    """Staff write "GPL", "FSF", "DoD"; documents write the names out."""
    assert "gpl" in initialisms("GNU General Public License, version 3")
    assert "lgpl" in initialisms("GNU LESSER GENERAL PUBLIC LICENSE")
    assert initialisms("Copyright (C) 2007 Free Software Foundation, Inc.") == ("fsf",)
    assert {"dod", "eu"} <= set(initialisms("the European Union and the Department of Defense"))
    assert "usa" in initialisms("United States of America")
    assert "fda" in initialisms("Food and Drug Administration")
    # Only leading "GNU" / "The" words may be left off: the Lesser GPL is no "GPL".
    assert "lgpl" in initialisms("GNU Lesser General Public License")
    assert "gpl" not in initialisms("GNU LIBRARY GENERAL PUBLIC LICENSE")
    assert "fsf" in initialisms("The Free Software Foundation")


def test_no_initialism_keeps_the_a_of_and() -> None:
    # "Confidential and Restricted" gave "car", and "is there a company car scheme?" found a clause on printing
    # documents at home; "Terms and Conditions" gave "tac". The letter of "of" is still kept (DoD).
    assert initialisms("8.2 Confidential and Restricted documents must not be printed at home.") == ("cr",)
    assert initialisms("Terms and Conditions apply") == ("tc",)
    assert initialisms("Confidential And Restricted") == ("cr",)  # a Title-Case "And" is a connector too
    assert set(initialisms("Food and Drug Administration")) == {"fda"}
    assert "dod" in initialisms("the Department of Defense")


def test_text_that_is_not_a_name_gives_no_initialisms() -> None:
    assert initialisms("How To Apply These Terms To Your New Programs And Libraries") == ()  # a heading
    assert initialisms("Can I use GPL code? I Think so.") == ()  # one name word, "I" breaks a run
    assert initialisms("Apache License") == ("al",)  # two letters only for a whole two-word name
    assert "pl" not in initialisms("Mozilla Public License")
    assert initialisms("本许可证由自由软件基金会发布。") == ()
    # The title of a numbered clause is no name: "3. Grant of Patent License." gave "gpl".
    assert initialisms("3. Grant of Patent License. Subject to the terms of this License") == ()
    assert initialisms("3. Grant of Patent License") == ()
    # ... also where it is a heading of a section path, after " > " (the Apache chunks offered "gpl").
    assert initialisms("Apache License, Version 2.0 > 3. Grant of Patent License") == ("al",)
    path = "TERMS AND CONDITIONS > 5. Conveying Modified Source Versions"
    assert initialisms(path) == initialisms("TERMS AND CONDITIONS")
    assert "fsf" in initialisms("Appendix > (a) Free Software Foundation rules apply")
    # A name that starts a numbered item is still one.
    assert initialisms("(a) Free Software Foundation rules apply") == ("fsf",)
    assert "gpl" in initialisms("5. GNU General Public License text")


def test_passage_tokens_are_the_words_then_the_initialisms_and_questions_keep_their_words() -> None:
    text = "The Free Software Foundation publishes it."
    assert passage_tokens(text) == [*tokenize(text), *initialisms(text)]
    assert "fsf" in passage_tokens(text) and "fsf" not in tokenize(text)
    assert tokenize("What did the FSF publish?") == ["fsf", "publish"]


def test_a_name_run_together_with_its_version_reads_as_both() -> None:
    assert version_splits("gplv3") == [("gplv", "3"), ("gpl", "3")]
    assert version_splits("lgpl-2.1") == [("lgpl", "2.1")]
    assert version_splits("v2") == [("2",)]
    assert version_splits("3") == version_splits("2.0") == version_splits("gpl") == []


def test_a_word_jiebas_hmm_glued_reads_as_its_dictionary_pieces() -> None:
    assert "分算" in query_terms("7分算正常吗") and glued_pieces("分算") == ("分", "算")
    assert glued_pieces("水会") == ("水", "会")
    assert glued_pieces("之禅") == ("禅",)  # 之 is a stop word
    # a dictionary word, a Latin term, one character: no pieces
    assert glued_pieces("主教练") == glued_pieces("gplv3") == glued_pieces("分") == ()


@pytest.mark.parametrize(
    ("question", "kept", "dropped"),
    [
        ("北京有多大？", ["北京"], ["多", "大"]),
        ("这座桥多高", ["这座", "桥"], ["多", "高"]),
        ("坐车需要多长时间", ["坐车"], ["需要", "时间", "长时间", "多长时间"]),  # a modal asks too
        ("一共有几个", ["一共"], ["几个"]),
        ("哪一年建成", ["建成"], ["一年"]),
        ("什么时候开通", ["开通"], ["时候"]),
        # the "when" of a clause, as English "when" is a stop word
        ("离职的时候电脑交给谁", ["离职", "电脑", "交给"], ["时候"]),
        ("借款离职时怎么处理", ["借款", "离职", "处理"], ["时"]),
        ("19岁时凭借哪部作品获奖", ["19", "岁", "凭借", "作品", "获奖"], ["时"]),
        ("How long is the transfer passage?", ["transfer", "passag"], ["long"]),
        ("What's the full fare at Shandong Women's University?", ["full", "fare", "women", "universiti"], ["s"]),
        ("In what year was it built?", ["built"], ["year"]),
        ("What happens if the waiver is judged invalid?", ["waiver", "judg", "invalid"], ["happen"]),
        ("What kinds of patent claims count in MPL 2.0's definition?", ["patent", "claim", "2.0"], ["kind", "s"]),
        ("What type of licence is it?", ["licens"], ["type"]),
        # a negated auxiliary written short is a function word, as "cannot" and "does not" are
        ("Which names can't appear in it?", ["name", "appear"], ["t", "can"]),
        ("Why couldn’t SinoSat-2 provide any service?", ["sinosat", "provid"], ["couldn", "t"]),
        # the other short forms, and all of them as chat writes them, without the apostrophe
        ("I've fixed it, I'm told they're fine: we'd be ok?", ["fix", "told", "fine", "ok"], ["ve", "m", "re", "d"]),
        ("whats the home office allowance for wfh", ["home", "offic", "allow", "wfh"], ["what", "whats"]),
        ("hows the wifi? theres no signal", ["wifi", "signal"], ["how", "there"]),
        ("dont i need approval? doesnt the policy say", ["need", "approv", "polici"], ["dont", "doesnt"]),
        ("cant i claim a taxi, isnt it covered", ["claim", "taxi", "cover"], ["cant", "isnt"]),
        ("ive lost my badge, youre the admin", ["lost", "badg", "admin"], ["ive", "youre"]),
    ],
)
def test_the_words_that_ask_are_not_query_terms(question: str, kept: list[str], dropped: list[str]) -> None:
    terms = query_terms(question)
    assert all(t in terms for t in kept), terms
    assert not any(t in terms for t in dropped), terms


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("许多高楼有多高", "许多"),  # "多高" asks only where jieba cuts it as a word
        ("解析几何的创始人是谁", "几何"),
        ("几内亚的首都是哪里", "几内亚"),
        ("小时候住在哪里", "小时候"),  # 时 and 时候 only where jieba cuts them as words of their own
        ("当时的总统是谁", "当时"),
        ("同时还要交什么", "同时"),
        ("每天工作几小时", "小时"),
        ("晚上9时以后空调还开吗", "时"),  # o'clock
        ("How long was the Long March?", "long"),  # the second "long" is a name
        ("What is the happening of the type of kinds?", "type"),  # no "what … of" frame here
        ("What happened at Hujialou station in July 2012?", "happen"),  # the event is what is asked
        # short forms without the apostrophe that are words of their own stay
        ("Can I use IM to talk to clients?", "im"),
        ("Is the bike shed open at night?", "shed"),
        ("Which shell does the build server run?", "shell"),
        ("Who pays if I fall ill abroad?", "ill"),
    ],
)
def test_a_word_that_only_looks_like_asking_stays(question: str, word: str) -> None:
    assert word in query_terms(question)


def test_the_word_after_how_is_what_is_asked() -> None:
    """ "刘七是怎么死的？": 怎么 asks, 死 is what the question is about."""
    assert "死" in query_terms("刘七是怎么死的？")
    assert "几率" in query_terms("出现的几率是多少？") and "几个" not in query_terms("一共有几个站？")
    assert "几类" not in query_terms("在此监禁者主要分为几类？")


@pytest.mark.parametrize(
    ("title", "section"),
    [
        ("Apache License, Version 2.0", "Apache License, Version 2.0 > 3. Grant of Patent License"),
        ("GNU General Public License, version 3", "TERMS AND CONDITIONS > 5. Conveying Modified Source Versions"),
        ("瓦勒普斯岛（合集 0）", "瓦勒普斯岛（合集 0） > 第1节"),
        ("北京地铁车站", None),
        (None, "第三条 > 一、适用范围"),
    ],
)
def test_locator_tokens_are_the_tokens_of_the_whole_title_and_section_path(
    title: str | None, section: str | None
) -> None:
    """The section path's words are read step by step (its steps are shared by many chunks), with the same
    result as reading it whole: the words of each step, the initialisms of the whole path (read whole, a
    clause number after " > " is known as one)."""
    whole = frozenset(tok for part in (title, section) if part for tok in passage_tokens(part))
    assert locator_tokens(title, section) == whole


@pytest.mark.parametrize(
    ("question", "yes_no"),
    [
        ("Are passwords required to be 12 characters?", True),
        ("do i get 25 days of leave", True),
        ("差旅报销的期限是30天吗？", True),
        ("出差住宿能否报销600元？", True),
        ("600元是住宿上限吗，还是更高？", True),
        ("How many characters must a password have?", False),
        ("Is there a rule on who approves it?", False),  # asks who
        ("有没有规定出差300天以上怎么报销？", False),  # asks how
        ("密码至少几位？", False),
        ("Passwords need 14 characters.", False),
    ],
)
def test_a_question_asked_yes_or_no(question: str, yes_no: bool) -> None:
    assert asks_yes_or_no(question) is yes_no
