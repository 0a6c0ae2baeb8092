"""Word-by-word query translation with CC-CEDICT (no database)."""

from __future__ import annotations

import pytest

from rag_app.pipeline.crosslingual import (
    MAX_ALTERNATIVES,
    RENDERINGS,
    Group,
    _parse,
    all_terms,
    dictionary,
    gloss_acronym,
    kindred,
    narrowed,
    singular,
    translate,
    verb_base,
)
from rag_app.search.scoring import CorpusStats, group_bm25, group_self_score, group_weights, lexical_relevance


def groups_of(question: str) -> dict[str, tuple[str, ...]]:
    return {g.source: g.terms for g in translate(question)}


@pytest.mark.parametrize(
    ("question", "word", "expected"),
    [
        ("GPL 有没有担保？", "担保", "guarante"),
        ("Apache 许可证授予专利许可吗？", "专利", "patent"),
        ("商标可以使用吗", "商标", "trademark"),
        ("源代码必须公开吗？", "源代码", "sourc"),
    ],
)
def test_chinese_words_become_english_stems(question: str, word: str, expected: str) -> None:
    groups = groups_of(question)
    assert expected in groups[word]


def test_latin_words_in_a_chinese_question_stay_as_they_are() -> None:
    groups = groups_of("GPL 有没有担保？")
    assert groups["gpl"] == ("gpl",)


@pytest.mark.parametrize(
    ("question", "word", "expected"),
    [
        ("Which station of the subway line opened first?", "subway", "地铁"),
        ("What is the boiling point of sulfite?", "boil point", "沸点"),
        ("Is there any warranty for the software?", "warranti", "保修"),
        ("When was the satellite launched?", "satellit", "卫星"),
    ],
)
def test_english_words_become_chinese_words(question: str, word: str, expected: str) -> None:
    groups = groups_of(question)
    assert expected in groups[word]


def test_numbers_and_unknown_names_pass_through() -> None:
    groups = groups_of("When did line 10 of the Beijing subway open?")
    assert groups["10"] == ("10",)
    assert "北京" in groups["beij"]


def test_nothing_to_translate_gives_no_groups() -> None:
    assert translate("GPL 2.0") == []
    assert translate("") == []


def test_all_terms_are_distinct() -> None:
    terms = all_terms(translate("许可证和专利许可证"))
    assert len(terms) == len(set(terms))


def test_a_chunk_holding_one_term_of_each_group_is_fully_relevant() -> None:
    groups = [("guarante", "warranti"), ("gpl",)]
    stats = CorpusStats(chunks=100, tokens=10_000, df={"guarante": 5, "warranti": 2, "gpl": 10})
    weights = group_weights(groups, stats)
    selfs = group_self_score(weights, stats.avgdl)
    full = lexical_relevance(group_bm25(groups, ["warranti", "gpl"], weights, stats.avgdl), selfs)
    half = lexical_relevance(group_bm25(groups, ["gpl", "other"], weights, stats.avgdl), selfs)
    assert full > 0.9 and 0 < half < full


def test_a_group_the_corpus_lacks_weighs_as_an_absent_term() -> None:
    groups = [("mit",), ("licens", "permit")]
    stats = CorpusStats(chunks=1000, tokens=100_000, df={"licens": 300, "permit": 40})
    weights = group_weights(groups, stats)
    assert weights[0] > 5 * weights[1]
    selfs = group_self_score(weights, stats.avgdl)
    assert lexical_relevance(group_bm25(groups, ["licens", "permit"], weights, stats.avgdl), selfs) < 0.3


@pytest.mark.parametrize(
    ("question", "word", "expected", "not_first"),
    [
        # CC-CEDICT glosses a city by its name and kind ("Guangzhou subprovincial city and capital of ...").
        ("What is the top speed on the Guangzhou railway?", "guangzhou", "广州", "光州"),
        ("Which station of the Shanghai metro is the oldest?", "shanghai", "上海", "沪上"),
        # "lining" and "line" share the stem "line": the word as written picks 线路, not 里 (lining).
        ("Which line stops at the station?", "line", "线路", "里"),
        # "students" is written in 师生's "teachers and students"; its stem finds 学生's first sense.
        ("How many students are enrolled?", "student", "学生", "师生"),
    ],
)
def test_a_word_is_rendered_by_its_best_sense(question: str, word: str, expected: str, not_first: str) -> None:
    terms = groups_of(question)[word]
    assert terms[0] == expected and not_first not in terms[:1]


def test_a_two_letter_word_is_kept_as_written() -> None:
    """ "de" of "Bois de Boulogne" would render as a surname (朱德) and "can" be dropped as a word that asks."""
    assert groups_of("Where is the Bois de Boulogne forest?")["de"] == ("de",)


def test_the_words_that_ask_are_not_translated() -> None:
    assert "long" not in groups_of("How long is the transfer passage?")
    assert "多大" not in groups_of("北京的公园有多大？") and "大" not in groups_of("北京的公园有多大？")


def test_chinese_words_without_any_translation_are_listed_apart() -> None:
    """A name the dictionary does not know ("土城" of 西土城站) drops out of the groups and is listed as
    untranslated (the search counts it against English passages when its index holds it); an English
    question has none."""
    from rag_app.pipeline.crosslingual import untranslated

    assert untranslated("西土城站原来的站名叫什么") == ("土城",)
    assert "土城" not in {g.source for g in translate("西土城站原来的站名叫什么")}
    assert untranslated("When was the station renamed?") == ()


@pytest.mark.parametrize(
    ("question", "word", "expected"),
    [
        # A plural is also looked up in the singular: "trees" glosses only 绿树 and 棵, "tree" is 树.
        ("What animals pollinate baobab trees?", "tree", "树"),
        ("What animals pollinate baobab trees?", "anim", "动物"),
        ("How many books does the Shandong Women's University library hold?", "women", "女人"),
        # ... and keeps its own senses: the finals of a contest are 决赛, not "last" (最后).
        ("Who was MVP of the 2008 NBA Finals?", "final", "决赛"),
    ],
)
def test_a_plural_is_rendered_as_itself_and_as_its_singular(question: str, word: str, expected: str) -> None:
    assert expected in groups_of(question)[word][:4]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("trees", "tree"),
        ("women", "woman"),
        ("criteria", "criterion"),
        ("does", "does"),
        ("means", "means"),
        ("musashi", "musashi"),
        ("released", "released"),
    ],
)
def test_singular(word: str, expected: str) -> None:
    assert singular(word) == expected


@pytest.mark.parametrize(
    ("question", "word", "digits"),
    [
        ("GPL第二版是什么时候发布的？", "第二", "2"),
        ("GPL第三版要求什么？", "第三版", "3"),
        ("鑫诺七号什么时候发射？", "七号", "7"),
        ("这个队有十五个人吗？", "十五", "15"),
    ],
)
def test_a_chinese_numeral_is_also_its_digits(question: str, word: str, digits: str) -> None:
    """ "GPL第二版" asks about "Version 2": the dictionary glosses 第二 as "second; number two" only."""
    groups = {g.source: g.terms for g in translate(question)}
    assert groups[word][0] == digits and len(set(groups[word])) == len(groups[word])


@pytest.mark.parametrize(
    "question",
    [
        "一般来说统一的标准是什么？",  # words that hold a numeral character
        "这是一条什么规定？",  # a measure phrase: a rule, not rule 1
        "许可证中有一条关于专利的条款吗？",
        "大家一一签名了吗？",  # a numeral read digit by digit would be 11
        "他一出生就在北京吗？",  # one character alone
    ],
)
def test_a_word_that_only_holds_a_numeral_character_is_no_number(question: str) -> None:
    groups = {g.source: g.terms for g in translate(question)}
    assert not any(t.isdigit() for terms in groups.values() for t in terms), groups


def test_a_word_offers_the_senses_after_its_first_ones() -> None:
    # CC-CEDICT glosses 开展, 起, 展开 and 发动 first as "launch"; 发射 ("to launch (a rocket)") only later.
    terms = groups_of("When was the cargo ship launched?")["launch"]
    assert terms[:MAX_ALTERNATIVES] == ("开展", "起", "展开", "发动")
    assert "发射" in terms


def test_a_chinese_word_offers_its_first_senses_only() -> None:
    # Later senses are other meanings: 作出 (cut from "梦野久作出生") would also be "make", "issue", "permit".
    assert groups_of("梦野久作出生在什么地方？")["作出"] == ("put", "out", "come", "up")
    assert groups_of("魔岩唱片中的魔是什么意思？")["唱片"] == ("gramophon", "record", "lp", "music")


def test_narrowed_keeps_the_renderings_the_documents_use() -> None:
    group = Group("launch", ("开展", "起", "展开", "发动", "射", "发射", "推出"))
    assert narrowed([group], {"起", "发射", "推出"}.__contains__) == [Group("launch", ("起", "发射", "推出"))]
    # At most MAX_ALTERNATIVES of them, best first.
    many = narrowed([group], lambda term: True)[0]
    assert many.terms == group.terms[:MAX_ALTERNATIVES]


def test_narrowed_keeps_the_first_renderings_when_the_documents_use_none() -> None:
    # The word then counts as missing, as an absent term does.
    group = Group("borax", ("硼砂",))
    wide = Group("flame", ("火光", "炎", "焰", "火苗", "明火"))
    assert narrowed([group, wide], lambda term: False) == [group, Group("flame", wide.terms[:MAX_ALTERNATIVES])]


def test_a_plurals_later_renderings_alternate_with_its_singulars() -> None:
    # The first four half each (as before); then by turns, so that the singular's 树木 and 乔木, which documents
    # write, come before the plural's rarer 植树 and 花木 among the renderings `narrowed` chooses from.
    terms = groups_of("Which animals live in the trees?")["tree"]
    assert terms[:8] == ("绿树", "肃立", "木", "树", "棵", "树木", "槎", "乔木")


def test_a_noun_is_widened_by_the_words_that_share_one_of_its_two_word_senses() -> None:
    """kindred: 食堂 is only "dining hall" in CC-CEDICT; 饭堂 is "dining hall" and "canteen" too. A one-word sense
    ("gym", "state") is shared by words of other meanings and widens nothing."""
    assert {"canteen", "cafeteria"} <= set(kindred("食堂"))
    assert kindred("健身房") == () and kindred("声明") == ()
    assert kindred("不是一个词") == ()


def test_a_word_asked_as_a_verb_is_rendered_by_its_verb_senses_too() -> None:
    # CC-CEDICT's four commonest renderings of "book" are nouns (书, 册, 簿, 书本); 定舱 ("(of freight) to book"),
    # 预约 ("booking / reservation / to book") and 预售 ("to book") gloss it as a verb, and so, read as its verb,
    # does 预订 ("to book ahead"). A question about booking a room means them.
    terms = groups_of("how do I book a meeting room in Shanghai")["book"]
    assert terms[:6] == ("书", "册", "定舱", "预约", "预售", "预订")
    assert len(terms) == RENDERINGS
    # narrowed reads a group through its first MAX_ALTERNATIVES renderings the documents use: a corpus that writes
    # 书, 册 and 簿 reads "book" through 预订 too.
    used = {"书", "册", "簿", "书本", "预订"}
    assert narrowed([Group("book", terms)], used.__contains__)[0].terms == ("书", "册", "预订", "簿")


def test_a_verb_sense_of_two_words_is_read_as_its_verb_unless_a_light_one() -> None:
    d = _parse(
        "預訂 预订 [yu4 ding4] /to place an order/to book ahead/\n"
        "預約 预约 [yu4 yue1] /booking/reservation/to book/to make an appointment/\n"
        "書 书 [shu1] /book/letter/\n"
        "會 会 [hui4] /can/to be likely to/to meet/\n"
        "不折不扣 不折不扣 [bu4 zhe2 bu4 kou4] /to the letter/\n"
    )
    assert d.en_zh_verbs[("book",)] == (1, ("预约", "预订"))  # "to book" is 预约's third sense; "to book ahead"
    assert ("make",) not in d.en_zh_verbs and ("place",) not in d.en_zh_verbs
    # The word after "to" must be the verb: "to be likely to" is no verb sense of "likely", nor "to the letter" of
    # "letter" ("be" and "the" are stop words, left out of the gloss's words).
    assert ("likely",) not in d.en_zh_verbs and ("letter",) not in d.en_zh_verbs
    assert d.en_zh_verbs[("meet",)] == (1, ("会",))
    assert d.en_zh_words[("book",)] == (0, ("书",))  # the nouns' table is unchanged


def test_a_word_whose_renderings_hold_a_verb_sense_is_left_as_it_is() -> None:
    # "cancel" is glossed "to cancel" first (取消): nothing to add, nothing reordered.
    terms = groups_of("Can I cancel a meeting room booking?")["cancel"]
    assert terms[0] == "取消"
    assert terms == dictionary().en_zh_words[("cancel",)][1]


@pytest.mark.parametrize(
    ("gloss", "expected"),
    [
        ("gross domestic product (GDP)", "gdp"),  # the initials of the words before it
        ("World Trade Organization (WTO)", "wto"),
        ("Employee Assistance Program (EAP)", "eap"),
        ("Department of Defense (DOD)", "dod"),  # with its minor words
        ("Renminbi (RMB)", "rmb"),  # the one word it shortens, its letters in order
        ("chief financial officer (CFO), finance director", "cfo"),
        ("Chinese Yuan (CNY)", None),  # spells no initials
        ("tuberculosis (TCM)", None),  # a domain label: T, then no C, M in order
        ("Pau Gasol (1980-), Spanish professional basketball player (NBA)", None),  # a context, not a name
        ("renminbi yuan (RMB), PRC currency unit", None),
        ("World Health Organization (WHO)", None),  # "who" asks; it is no rendering
        ("human resources (HR)", None),  # two letters: "pm", "am", "er" are tokens of times and words
        ("light-emitting diode (LED)", None),  # an English word: "led" would render the verb's past
        ("human resources", None),
        ("(loanword) (ABC)", None),
    ],
)
def test_gloss_acronym(gloss: str, expected: str | None) -> None:
    assert gloss_acronym(gloss) == expected


def test_an_acronym_a_gloss_gives_renders_both_ways_and_stays_as_written() -> None:
    d = _parse(
        "人民幣 人民币 [ren2 min2 bi4] /Renminbi (RMB)/Chinese Yuan (CNY)/\n"
        "微星 微星 [Wei1 xing1] /Micro-Star International (MSI), Taiwanese computer hardware company/\n"
        "嚴重急性呼吸系統綜合症 严重急性呼吸系统综合症 [yan2 zhong4] /severe acute respiratory syndrome (SARS)/\n"
        "世界衛生組織 世界卫生组织 [Shi4 jie4 Wei4 sheng1 Zu3 zhi1] /World Health Organization (WHO)/\n"
    )
    # After the entry's senses, as a sense of its own: a Chinese question's 人民币 is read as "rmb" too.
    assert d.zh_en["人民币"] == (("renminbi",), ("chines", "yuan"), ("rmb",))
    assert d.zh_en["微星"] == (("micro-star", "internat"), ("msi",))
    # As the index holds it: tokenize("SARS") is "sar".
    assert d.zh_en["严重急性呼吸系统综合症"] == (("sar",),)
    # An English question's "RMB" is rendered as itself first (a Chinese passage may write it in Latin letters).
    assert d.en_zh_words[("rmb",)] == (0, ("rmb", "人民币"))
    assert d.en_zh_words[("sars",)] == (0, ("sar", "严重急性呼吸系统综合症"))
    assert d.en_zh[("sar",)] == (0, ("sar", "严重急性呼吸系统综合症"))
    assert ("who",) not in d.en_zh and "世界卫生组织" not in d.zh_en


def test_an_acronym_in_a_question_is_rendered_by_the_word_it_shortens() -> None:
    assert groups_of("who approves a purchase over 50k RMB")["rmb"][:2] == ("rmb", "人民币")
    assert "rmb" in groups_of("人民币汇率是多少")["人民币"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [("forgot", "forget"), ("brought", "bring"), ("wrote", "write"), ("paid", "pay"), ("password", "password")],
)
def test_verb_base(word: str, expected: str) -> None:
    assert verb_base(word) == expected


def test_an_irregular_verb_form_the_dictionary_lacks_is_read_as_its_base_form() -> None:
    # CC-CEDICT glosses 忘记 "to forget"; "forgot" it glosses nowhere, and the stemmer leaves it as it is.
    assert groups_of("I forgot my password, how do I reset it?")["forgot"][:2] == ("忘", "忘记")
    # A form the dictionary renders as written is left as it is: "made" is 机制's "machine-made", not "make".
    assert groups_of("Where was it made?")["made"] == dictionary().en_zh_words[("made",)][1]


def test_a_word_with_only_long_senses_is_read_by_the_head_of_its_first_action_sense() -> None:
    d = _parse(
        "出差 出差 [chu1 chai1] /to go on an official or business trip/\n"
        "刷卡 刷卡 [shua1 ka3] /to use a credit card (or swipe card, smart card etc)/\n"
        # a short sense is read as it is, and the long one after it adds nothing
        "報銷 报销 [bao4 xiao1] /to submit an expense account/to apply for reimbursement/to write off/\n"
        # a name's gloss, a particle's and a classifier's are no action
        "湖北 湖北 [Hu2 bei3] /Hubei province (Hubei) in central China, abbr. 鄂, capital Wuhan 武漢|武汉/\n"
        "罷了 罢了 [ba4 le5] /a modal particle indicating (that's all, only, nothing much)/\n"
    )
    assert d.zh_en["出差"] == (("trip",),)
    assert d.zh_en["刷卡"] == (("card",),)  # its brackets left out
    assert d.zh_en["报销"] == (("appli", "reimburs"), ("write", "off"))
    assert "湖北" not in d.zh_en and "罢了" not in d.zh_en
    # It reads the Chinese word only: "trip" is not rendered 出差.
    assert ("trip",) not in d.en_zh_words and ("trip",) not in d.en_zh


def test_a_word_whose_long_sense_says_how_the_act_is_done_is_not_read_by_a_head() -> None:
    """A user trial: 调休 (time off in lieu) was read as "workday", the last word of "to compensate for working on a
    holiday by resting on a workday", and "调休最少可以请多长时间？" was answered from a parental-leave policy's
    "Submit the leave request in Workday". A sense that says by what means the act is done describes it."""
    d = _parse(
        "調休 调休 [tiao2 xiu1] /to compensate for working on a holiday by resting on a workday/to compensate for"
        " resting on a workday by working on a holiday/\n"
        "出差 出差 [chu1 chai1] /to go on an official or business trip/\n"
    )
    assert "调休" not in d.zh_en
    assert d.zh_en["出差"] == (("trip",),)


def test_a_word_with_a_short_sense_of_stop_words_only_is_not_read_by_a_head() -> None:
    # 至于's "as for" and "as to" are short senses that say nothing: it is not "far" of "to go so far as to".
    d = _parse("至於 至于 [zhi4 yu2] /as for/as to/to go so far as to/\n")
    assert "至于" not in d.zh_en
    assert "至于" not in groups_of("至于出差补贴怎么算")


def test_a_head_word_that_a_great_many_senses_write_is_not_read() -> None:
    from rag_app.pipeline.crosslingual import HEAD_USES

    many = "".join(f"字{i} 字{i} [zi4] /to stand up/\n" for i in range(HEAD_USES))
    d = _parse(many + "北上 北上 [bei3 shang4] /to go up north/\n摇头 摇头 [yao2 tou2] /to shake one's head up/\n")
    assert "摇头" not in d.zh_en  # "up" is written by HEAD_USES + 2 senses
    assert d.zh_en["北上"] == (("north",),)


def test_a_word_glossed_only_as_a_short_form_is_read_as_the_word_it_shortens() -> None:
    d = _parse(
        "體格檢查 体格检查 [ti3 ge2 jian3 cha2] /physical examination/clinical examination/health checkup/\n"
        "體檢 体检 [ti3 jian3] /abbr. for 體格檢查|体格检查[ti3 ge2 jian3 cha2]/\n"
        # a word with a sense of its own keeps it
        "醫保 医保 [yi1 bao3] /medical insurance/abbr. for 醫療保險|医疗保险[yi1 liao2 bao3 xian3]/\n"
        "醫療保險 医疗保险 [yi1 liao2 bao3 xian3] /medical insurance/health cover/\n"
    )
    assert d.zh_en["体检"] == d.zh_en["体格检查"] == (("physic", "examin"), ("clinic", "examin"), ("health", "checkup"))
    assert d.zh_en["医保"] == (("medic", "insur"),)
    assert groups_of("公司每年有体检吗")["体检"][:2] == ("physic", "examin")
