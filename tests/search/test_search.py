"""search(): complete, permission-filtered, current-only records from the lexical index (rules 1-3, 15)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.utils import timezone

from rag_app.models import Chunk
from rag_app.pipeline.textproc import query_terms
from rag_app.search import hybrid, lexical
from rag_app.search.hybrid import search
from tests.factories import ingest_text, make_admin, make_user

pytestmark = pytest.mark.django_db

REFUND_ZH = "退款政策：顾客可在购买后三十天内申请退款，需要提供发票。"
REFUND_EN = "Refund policy: customers may request a refund within thirty days of purchase with a receipt."
OFFICE = "The Shanghai office opens at nine in the morning and closes at six in the evening."
GARDEN = "园艺指南：番茄需要充足的阳光和每天浇水。"


def ids(records) -> list[str]:
    return [r.chunk_id for r in records]


def sources(records) -> set[str]:
    return {r.source_id for r in records}


def test_a_chinese_question_finds_the_chinese_document():
    ingest_text(REFUND_ZH, source_id="refund-zh")
    ingest_text(GARDEN, source_id="garden")
    hits = search(user=None, question="退款需要在购买后多少天内申请？")
    assert hits[0].source_id == "refund-zh"


def test_an_english_question_finds_the_english_document_despite_plurals():
    ingest_text(REFUND_EN, source_id="refund-en")
    ingest_text(OFFICE, source_id="office")
    hits = search(user=None, question="When do the refunds have to be requested?")
    assert hits[0].source_id == "refund-en"
    assert search(user=None, question="What time does the Shanghai office open?")[0].source_id == "office"


def test_a_traditional_chinese_question_matches_simplified_text():
    ingest_text(REFUND_ZH, source_id="refund-zh")
    ingest_text(GARDEN, source_id="garden")
    hits = search(user=None, question="退款政策需要提供發票嗎？")
    assert hits[0].source_id == "refund-zh"


def test_every_field_of_the_record_comes_from_the_hit():
    """Rule 1/2: identity, locator, level and scores leave search together with the text."""
    ingest_text(REFUND_EN, source_id="refund-en", title="Refunds", url="https://intranet.example/refunds")
    ingest_text(OFFICE, source_id="office", level=None)
    [refund] = [r for r in search(user=None, question="refund receipt") if r.source_id == "refund-en"]
    chunk = Chunk.objects.get(chunk_id=refund.chunk_id)
    assert refund.chunk_id == "refund-en:v1:0"
    assert (refund.version, refund.index, refund.text) == (1, 0, chunk.text)
    assert (refund.start, refund.end) == (chunk.start, chunk.end)
    assert refund.title == "Refunds"
    assert refund.url == "https://intranet.example/refunds"
    assert (refund.level, refund.level_weight) == ("official", 3.0)
    assert 0.0 < refund.relevance <= 1.0
    assert refund.lexical_score is not None and refund.lexical_score > 0
    assert refund.language == "en"
    [office] = search(user=None, question="Shanghai office")
    assert office.title is None and office.url is None
    assert (office.level, office.level_weight) == (None, 0.0)


def test_a_document_that_stands_out_gets_a_recorded_bonus_and_ties_get_none():
    """The standout part of the relevance is on the record, so the trace can show it apart."""
    ingest_text(REFUND_EN, source_id="refund-en")
    ingest_text(OFFICE, source_id="office")
    hits = search(user=None, question="refund receipt purchase")
    assert hits[0].source_id == "refund-en"
    assert hits[0].standout > 0
    assert all(h.standout == 0 for h in hits if h.source_id != "refund-en")
    for name in ("x", "y"):
        ingest_text("The cafeteria serves noodles on Friday.", source_id=f"menu-{name}")
    assert all(h.standout == 0 for h in search(user=None, question="noodles on Friday"))


def test_results_are_ordered_by_relevance_then_chunk_id():
    """Rule 3: equal relevance falls back to chunk_id, so the order is the same every time."""
    for name in ("c", "a", "b"):
        ingest_text("The cafeteria serves noodles on Friday.", source_id=f"menu-{name}")
    hits = search(user=None, question="noodles on Friday")
    assert ids(hits) == ["menu-a:v1:0", "menu-b:v1:0", "menu-c:v1:0"]
    assert len({h.relevance for h in hits}) == 1


def test_restricted_documents_are_never_returned_to_non_members():
    ingest_text("Salary bands for engineers are reviewed every March.", source_id="hr-salaries", groups=["hr"])
    ingest_text("Engineers book meeting rooms through the portal.", source_id="rooms")
    outsider = make_user(groups=["staff"])
    member = make_user(groups=["staff", "hr"])
    question = "When are engineers salary bands reviewed?"
    assert "hr-salaries" not in sources(search(user=outsider, question=question))
    assert "hr-salaries" not in sources(search(user=None, question=question))
    assert search(user=AnonymousUser(), question=question) == []
    assert search(user=member, question=question)[0].source_id == "hr-salaries"
    assert search(user=make_admin(), question=question)[0].source_id == "hr-salaries"


def test_the_permission_filter_applies_before_top_k():
    """Many better-matching restricted chunks must not crowd out the one the user may read."""
    for i in range(6):
        ingest_text(
            f"Project Falcon budget {i}: Falcon budget approved, Falcon budget final.",
            source_id=f"sec-{i}",
            groups=["board"],
        )
    ingest_text("The Falcon budget is summarised in the annual report.", source_id="public")
    hits = search(user=make_user(groups=["staff"]), question="Falcon budget", limit=1)
    assert ids(hits) == ["public:v1:0"]


def test_only_the_current_version_is_searched():
    """Rule 15: after a new version, text only the old version had is not found, and hits carry v2."""
    ingest_text("The parking garage closes at midnight.", source_id="parking")
    ingest_text("The bicycle shed closes at ten.", source_id="parking")
    assert search(user=None, question="parking garage midnight") == []
    [hit] = search(user=None, question="bicycle shed")
    assert hit.chunk_id == "parking:v2:0" and hit.version == 2
    assert Chunk.objects.filter(chunk_id="parking:v1:0").exists()  # old rows stay for old answers


def test_the_index_matches_the_current_chunks_after_reingest():
    """Term statistics and index rows count exactly the current chunks, also after supersede and no-op ingests."""
    ingest_text(REFUND_EN, source_id="refund-en")
    ingest_text(OFFICE, source_id="office")
    ingest_text(OFFICE + " Visitors sign in at reception.", source_id="office")
    ingest_text(OFFICE + " Visitors sign in at reception.", source_id="office")  # unchanged
    current = Chunk.objects.filter(version__is_current=True)
    terms = query_terms("refund office visitors")  # as the index stores them (Snowball stems)
    stats = lexical.corpus_stats(terms)
    assert stats.chunks == current.count()
    assert stats.tokens == sum(len(c.search_text.split()) for c in current)
    assert stats.df == dict.fromkeys(terms, 1) and len(terms) == 3
    with connection.cursor() as cur:
        table = "rag_chunk_tsv" if connection.vendor == "postgresql" else "rag_chunk_fts"
        cur.execute(f"SELECT count(*) FROM {table}")
        assert cur.fetchone()[0] == current.count()


@pytest.mark.parametrize(
    "question",
    [
        "",
        "   ",
        "？！。",
        '"unbalanced quote',
        "refund) OR (receipt",
        "refund*",
        "NEAR(refund receipt, 2)",
        "refund AND NOT receipt",
        "^refund",
        "search_text:refund",
        "-refund +receipt",
        'refund\'s "receipt"',
        "'; DROP TABLE rag_app_chunk; --",
        "\\ \x00 \u200b",
        "退款' OR 1=1 --",
    ],
)
def test_fts_syntax_in_a_question_never_raises(question):
    """Questions are turned into quoted tokens, never passed to MATCH / tsquery as syntax."""
    ingest_text(REFUND_EN, source_id="refund-en")
    hits = search(user=None, question=question)
    assert all(h.source_id == "refund-en" for h in hits)
    assert Chunk.objects.count() == 1


def test_search_operators_are_searched_as_words():
    ingest_text("Use the NEAR operator or the AND operator in the query builder.", source_id="ops")
    assert sources(search(user=None, question="NEAR AND operator")) == {"ops"}


def test_an_empty_question_returns_nothing():
    ingest_text(REFUND_EN, source_id="refund-en")
    assert search(user=None, question="") == []
    assert search(user=None, question="the of and") == []  # only stop words


def test_a_huge_question_is_answered_without_error():
    ingest_text(REFUND_EN, source_id="refund-en")
    ingest_text(OFFICE, source_id="office")
    question = ("refund receipt " + "无关词语 lorem ipsum dolor " * 4000)[:200_000]
    hits = search(user=None, question=question)
    assert hits and hits[0].source_id == "refund-en"


def test_limit_caps_the_number_of_records():
    for i in range(5):
        ingest_text(f"Holiday schedule number {i} lists the holidays.", source_id=f"h{i}")
    assert len(search(user=None, question="holiday schedule", limit=3)) == 3
    assert search(user=None, question="holiday schedule", limit=0) == []


@pytest.mark.django_db(transaction=True)
def test_flush_empties_the_search_tables_too():
    """flush truncates the chunk table; the raw index tables must not keep hits or statistics."""
    from django.core.management import call_command

    ingest_text(REFUND_EN, source_id="refund-en")
    assert lexical.corpus_stats(["refund"]).df == {"refund": 1}
    call_command("flush", interactive=False, verbosity=0)
    assert lexical.corpus_stats(["refund"]).chunks == 0
    assert lexical.corpus_stats(["refund"]).df == {"refund": 0}
    ingest_text(OFFICE, source_id="office")
    assert search(user=None, question="refund receipt") == []
    assert sources(search(user=None, question="Shanghai office")) == {"office"}


def test_the_index_window_gives_exactly_the_full_querys_candidates(monkeypatch):
    """The index's best rows are filtered first; a window too small to prove the top-k falls back to the full query."""
    for i in range(8):
        # two of the three terms: PostgreSQL's score (the weights of the terms a chunk holds) ranks them lower
        ingest_text(f"Harbor pilot {i}: " + "harbor pilot " * (i % 4) + "roster.", source_id=f"open-{i}")
        # restricted and better matching: they fill a small window for a non-member
        ingest_text(
            f"Harbor pilot rota {i}: " + "harbor pilot rota " * (2 + i % 3), source_id=f"sec-{i}", groups=["board"]
        )
    for i in range(8, 20):  # enough restricted rows to fill a whole window for a non-member
        ingest_text("Harbor pilot rota: " + "harbor pilot rota " * 4, source_id=f"sec-{i}", groups=["board"])
    ingest_text("The harbor pilot rota is old.", source_id="moved")
    ingest_text("Canteen menu.", source_id="moved")  # the matching version is superseded
    users = [None, make_user(groups=["staff"]), make_user(groups=["staff", "board"]), make_admin()]
    terms = ["harbor", "pilot", "rota"]
    stats = lexical.corpus_stats(terms)
    weights = dict.fromkeys(terms, 1.0)

    def full(user, limit):
        monkeypatch.setattr(lexical, "_window", lambda *a, **k: None)
        try:
            return lexical.candidates(terms=terms, weights=weights, user=user, limit=limit)
        finally:
            monkeypatch.undo()

    window_answers = []
    real_window = lexical._window

    def spy(*args, **kwargs):
        found = real_window(*args, **kwargs)
        window_answers.append(found is not None)
        return found

    assert stats.chunks == 29
    for user in users:
        for limit in (1, 2, 3, 5, 20):
            expected = full(user, limit)
            assert expected
            monkeypatch.setattr(lexical, "FTS_WINDOW", 1)  # window = 4 x limit: smaller than the matches
            monkeypatch.setattr(lexical, "_window", spy)
            assert lexical.candidates(terms=terms, weights=weights, user=user, limit=limit) == expected
            monkeypatch.undo()
    assert True in window_answers and False in window_answers  # both paths were taken

    # Equal scores across the window's edge: chunk_id decides (rule 3). PostgreSQL's window is cut in that order
    # (its index rows keep the chunk_id), so it proves the top-k; FTS5's bm25 order leaves ties unordered, so
    # SQLite's cannot, and the full query answers. The same chunks either way.
    for name in "jihgfedcba":  # inserted in reverse order of chunk_id
        ingest_text("Ferry timetable.", source_id=f"ferry-{name}")
    monkeypatch.setattr(lexical, "FTS_WINDOW", 1)
    window_answers.clear()
    monkeypatch.setattr(lexical, "_window", spy)
    got = lexical.candidates(terms=query_terms("ferry timetable"), weights={}, user=None, limit=2)
    assert [Chunk.objects.get(pk=pk).chunk_id for pk, _ in got] == ["ferry-a:v1:0", "ferry-b:v1:0"]
    assert window_answers == [connection.vendor == "postgresql"]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the FTS5 window is SQLite's")
def test_the_fts5_windows_permission_join_starts_from_the_chunk_ids():
    """Left to itself (no ANALYZE statistics), SQLite starts the window's join from every document that is not
    retired (the retired_at index) and walks their chunks: 300 ms instead of 2 ms at 100k chunks
    (docs/PERFORMANCE.md). The plan, not a timing, is what is checked."""
    from django.test.utils import CaptureQueriesContext

    for i in range(40):
        ingest_text(f"Harbor pilot rota {i}.", source_id=f"open-{i}")
    ingest_text("Harbor pilot rota, restricted.", source_id="sec", groups=["board"])
    with CaptureQueriesContext(connection) as ctx:
        found = lexical.candidates(terms=["harbor"], weights={"harbor": 1.0}, user=make_user(groups=["staff"]), limit=5)
    assert len(found) == 5
    join = next(q["sql"] for q in ctx.captured_queries if q["sql"].startswith("SELECT c.id, c.chunk_id"))
    with connection.cursor() as cur:
        cur.execute("EXPLAIN QUERY PLAN " + join)
        plan = [row[3] for row in cur.fetchall()]
    assert plan[0].startswith("SEARCH c USING INTEGER PRIMARY KEY"), plan


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL planner settings")
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("outer", [False, True], ids=["autocommit", "inside-a-transaction"])
def test_planner_settings_hold_inside_the_block_and_are_restored_after(outer):
    """lexical's window query turns sequential scans off and dense search turns pgvector's iterative scan on,
    for their own statement: in autocommit (where a bare SET LOCAL does nothing) and inside a caller's
    transaction (where it would outlive the block)."""
    from contextlib import nullcontext

    from django.db import transaction

    from rag_app.search.planner import local_settings

    def show(cur, name):
        cur.execute("SELECT current_setting(%s, true)", [name])
        return cur.fetchone()[0]

    assert connection.get_autocommit()
    with transaction.atomic() if outer else nullcontext(), connection.cursor() as cur:
        assert connection.in_atomic_block == outer
        cur.execute("SELECT '[1,2]'::vector")  # pgvector's settings exist once its library is loaded
        with local_settings(cur, {"enable_seqscan": "off", "hnsw.iterative_scan": "relaxed_order"}):
            assert show(cur, "enable_seqscan") == "off"
            assert show(cur, "hnsw.iterative_scan") == "relaxed_order"
        assert show(cur, "enable_seqscan") == "on"
        assert show(cur, "hnsw.iterative_scan") == "off"


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL planner settings")
@pytest.mark.django_db(transaction=True)
def test_a_block_inside_one_that_holds_its_settings_runs_no_statement():
    """hybrid.search sets the index-read settings once; the lexical window and the vector search inside it ask
    for theirs again and must not pay a round trip (or a savepoint) for them."""
    from rag_app.search.planner import HNSW_FILTERED, INDEX_READS, SEQSCAN_OFF, local_settings

    sent: list[str] = []

    def record(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record), connection.cursor() as cur:  # the wrapper does see a raw cursor
        cur.execute("SELECT 1")
    assert sent == ["SELECT 1"]
    sent.clear()

    with connection.cursor() as cur, local_settings(cur, INDEX_READS):
        with (
            connection.execute_wrapper(record),
            local_settings(cur, SEQSCAN_OFF),
            local_settings(cur, HNSW_FILTERED),
        ):
            cur.execute("SELECT current_setting('enable_seqscan')")
            assert cur.fetchone()[0] == "off"
        assert sent == ["SELECT current_setting('enable_seqscan')"]
        with local_settings(cur, {"enable_seqscan": "on"}):  # another value is set, and put back after
            cur.execute("SELECT current_setting('enable_seqscan')")
            assert cur.fetchone()[0] == "on"
        cur.execute("SELECT current_setting('enable_seqscan')")
        assert cur.fetchone()[0] == "off"


def test_a_window_over_the_rarer_terms_gives_exactly_the_full_querys_candidates(monkeypatch):
    """PostgreSQL first scores only the rows holding a rarer term, bounded by what the commonest terms can add;
    whatever path answers, the candidates are the full query's (both engines, several users, limits and windows)."""
    docs = [("common usual", 30, None), ("alpha common", 8, None), ("beta usual", 8, None), ("alpha beta", 3, None)]
    docs += [("beta", 8, None)]  # a rarer term alone scores below "common usual": the bound must see that
    docs += [("alpha beta common", 6, ["board"]), ("common usual", 10, ["board"])]
    n = 0
    for text, count, groups in docs:
        for _ in range(count):
            ingest_text(f"{text} note {n}.", source_id=f"d-{n:03d}", groups=groups)
            n += 1
    terms = query_terms("alpha beta common usual")
    weights = dict(zip(terms, (5.0, 1.5, 1.0, 0.9), strict=True))
    users = [None, make_user(groups=["staff"]), make_user(groups=["staff", "board"])]
    answered_by_rare = []
    real_rare = lexical._pg_rare_window

    def spy(*args, **kwargs):
        found = real_rare(*args, **kwargs)
        answered_by_rare.append(found is not None)
        return found

    for window in (200, 1):
        monkeypatch.setattr(lexical, "FTS_WINDOW", window)
        for user in users:
            for limit in (1, 5, 20, 40):
                with monkeypatch.context() as m:
                    m.setattr(lexical, "_window", lambda *a, **k: None)
                    expected = lexical.candidates(terms=terms, weights=weights, user=user, limit=limit)
                with monkeypatch.context() as m:
                    m.setattr(lexical, "_pg_rare_window", spy)
                    assert lexical.candidates(terms=terms, weights=weights, user=user, limit=limit) == expected
    if connection.vendor == "postgresql":
        assert True in answered_by_rare and False in answered_by_rare  # both outcomes were exercised


def test_a_synonym_of_a_question_word_counts_where_the_word_is_missing(settings):
    ingest_text("The source code must remain available for twelve months after release.", source_id="source")
    ingest_text("The Shanghai office opens at nine in the morning.", source_id="office")
    question, admin = "How long must the source code stay available?", make_admin()
    settings.RAG = settings.RAG | {"SYNONYMS": False}
    without = search(user=admin, question=question)[0]
    settings.RAG = settings.RAG | {"SYNONYMS": True}
    found = search(user=admin, question=question)[0]
    assert without.source_id == found.source_id == "source"
    assert found.lexical_score > without.lexical_score
    assert found.relevance > without.relevance
    # the record says which words it holds, and how: the trace shows it
    source, code, stay, available = query_terms(question)
    assert [(h.term, h.how, h.written) for h in found.held] == [
        (source, "word", ""),
        (code, "word", ""),
        (stay, "synonym", "remain"),
        (available, "word", ""),
    ]
    assert without.missing == (stay,) and found.missing == ()


def test_a_record_says_which_question_words_it_holds_and_which_it_lacks(settings):
    """Rule 1: why a chunk was retrieved, in the question's and the passage's words, for every reading."""
    settings.RAG = settings.RAG | {"CROSSLINGUAL": True}
    ingest_text(REFUND_EN, source_id="refund-en")
    ingest_text(REFUND_ZH, source_id="refund-zh")
    ingest_text("北土城站位于北京市朝阳区，是地铁8号线与10号线的换乘站。", source_id="station")
    admin = make_admin()
    question = "Can Refunds be requested without receipts?"
    [en] = [r for r in search(user=admin, question=question) if r.source_id == "refund-en"]
    refund, request, without, receipt = query_terms(question)
    assert [(h.term, h.how) for h in en.held] == [(refund, "word"), (request, "word"), (receipt, "word")]
    assert en.missing == (without,)
    # a Chinese question on the English passage: the question's words and the passage's renderings
    [across] = [r for r in search(user=admin, question="退款需要发票吗？") if r.source_id == "refund-en"]
    assert ("退款", "translation", refund) in [(h.term, h.how, h.written) for h in across.held]
    # a name written in pinyin, held by the characters that spell it; the words the chunk lacks
    question = "Which lines meet at Beitucheng station?"  # found by "station" -> 站, then read for the name
    [station] = [r for r in search(user=admin, question=question) if r.source_id == "station"]
    assert ("beitucheng", "name", "北土城") in [(h.term, h.how, h.written) for h in station.held]


def test_the_candidates_rows_are_read_as_the_chunk_model_holds_them():
    """hybrid._chunk_rows reads its fields in one raw statement: the same values, in the same order, as the
    ORM gives for the same chunks (dates as dates, no level as None); a superseded version drops out, and one in
    force until its scheduled successor takes effect stays, with that date."""
    ingest_text(
        "Refunds within 30 days.\n\nReceipts are required.",
        source_id="policy",
        url="https://x.test/p",
        effective_from=dt.date(2024, 1, 2),
        effective_until=dt.date(2030, 12, 31),
    )
    ingest_text("Canteen menu, week 1.", source_id="menu", level=None)
    ingest_text("Canteen menu, week 2.", source_id="menu", level=None)  # version 2 supersedes version 1
    later = timezone.localdate() + dt.timedelta(days=7)
    ingest_text("Canteen menu, week 3.", source_id="menu", level=None, effective_from=later)  # from next week
    fields = (
        "pk",
        "chunk_id",
        "index",
        "text",
        "section",
        "page",
        "start",
        "end",
        "search_text",
        "version__version",
        "version__effective_from",
        "version__effective_until",
        "version__superseded_on",
        "version__language",
        "version__document__source_id",
        "version__document__title",
        "version__document__url",
        "version__document__level__slug",
        "version__document__level__weight",
        "version__document__level__label",
    )
    pks = list(Chunk.objects.values_list("pk", flat=True))
    expected = [
        hybrid._ChunkRow(*row) for row in Chunk.objects.filter(pk__in=pks, version__searched=True).values_list(*fields)
    ]
    got = hybrid._chunk_rows(pks)
    assert got == expected
    assert {r.source_id for r in got} == {"policy", "menu"}
    assert [(r.version, r.superseded_on) for r in got if r.source_id == "menu"] == [(2, later), (3, None)]
    policy = next(r for r in got if r.source_id == "policy")
    assert (policy.effective_from, policy.effective_until) == (dt.date(2024, 1, 2), dt.date(2030, 12, 31))
    assert policy.level_slug == "official" and next(r for r in got if r.source_id == "menu").level_slug is None
    assert hybrid._chunk_rows([]) == []
