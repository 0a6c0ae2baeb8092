"""Chunks are indexed with their document's title and section path (and re-indexed by a command)."""

from __future__ import annotations

import datetime as dt
import hashlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from rag_app.models import Chunk
from rag_app.pipeline.records import Held
from rag_app.search.hybrid import search
from rag_app.search.indexing import chunk_context, passage_text
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_context_is_the_title_and_the_breadcrumb_without_repeating_the_title() -> None:
    assert chunk_context("Apache License 2.0", "4. Redistribution") == "Apache License 2.0 > 4. Redistribution"
    assert chunk_context("Refund policy", "Refund policy > Exceptions") == "Refund policy > Exceptions"
    assert chunk_context("", "") == "" and passage_text("", "text") == "text"
    assert passage_text("Title", "text") == "Title\ntext"


def test_words_only_in_the_title_find_the_chunk(levels) -> None:
    """ "Zanzibar" is only in the title: the chunk is found by it, and its stored text is unchanged."""
    factories.ingest_text("There is no warranty for the program.", source_id="lic", title="Zanzibar Public Licence")
    chunk = Chunk.objects.get()
    assert chunk.text == "There is no warranty for the program."
    assert "zanzibar" in chunk.search_text.split()
    assert [r.source_id for r in search(user=None, question="zanzibar", limit=5)] == ["lic"]


def test_a_documents_dateline_is_found_by_the_words_that_ask_when_it_was_issued(levels) -> None:
    """ "Version 2.1, February 1999" never says "released": asked when the licence was released, its opening
    holds the word as the answerability check reads it, and is found first; a later chunk that states a date
    in prose, and the same opening asked something else, are not."""
    factories.ingest_text(
        "GNU LESSER GENERAL PUBLIC LICENSE\nVersion 2.1, February 1999\n\nCopyright (C) 1991, 1999 Free Software "
        "Foundation, Inc. Everyone is permitted to copy and distribute verbatim copies of this license document.",
        source_id="lgpl21",
        title="GNU Lesser General Public License 2.1",
    )
    factories.ingest_text(
        "This release of the library was tested in 2001 and released to all customers with the 2.1 notes.",
        source_id="notes",
        title="Release notes",
    )
    by_source = {r.source_id: r for r in search(user=None, question="When was LGPL 2.1 released?", limit=5)}
    assert by_source["lgpl21"].relevance > by_source["notes"].relevance
    assert "releas" in by_source["lgpl21"].terms
    other = {r.source_id: r for r in search(user=None, question="Who may copy LGPL 2.1?", limit=5)}
    assert "releas" not in other["lgpl21"].terms


def test_a_question_asking_when_a_document_was_issued_reads_its_opening(levels) -> None:
    """The dateline chunk ("Version 2.1, February 1999" over the copyright notice) shares no word with "When
    was the Frobozz licence released?": only the clauses name the licence. The openings of the candidates'
    documents are read too, and the dateline holds "released"; a question that does not ask when something
    was issued finds the clauses only."""
    clauses = "\n\n".join(
        f"{n}. The Frobozz licence lets you copy the library, provided the notices of section {n} stay intact "
        "and every recipient gets the same rights to change and share it as you have."
        for n in range(1, 4)
    )
    factories.ingest_text(
        "TERMS OF USE\nVersion 2.1, February 1999\n\n"
        "Copyright (C) 1991, 1999 Free Software Foundation, Inc. Everyone is permitted to copy and distribute "
        "verbatim copies of this document, but changing it is not allowed. Most software terms are designed "
        "to take away your freedom to share and change it; these are intended to guarantee that freedom, to "
        f"make sure the software is free for all its users.\n\n{clauses}",
        source_id="frobozz",
        title="Terms of use",
    )
    opening = Chunk.objects.get(version__document__source_id="frobozz", index=0)
    assert Chunk.objects.filter(version__document__source_id="frobozz").count() > 1
    assert "frobozz" not in opening.search_text.split()
    asked = {r.chunk_id: r for r in search(user=None, question="When was the Frobozz licence released?")}
    assert opening.chunk_id in asked and "releas" in asked[opening.chunk_id].terms
    not_asked = [r.chunk_id for r in search(user=None, question="Frobozz licence released")]
    assert not_asked and opening.chunk_id not in not_asked


def test_rag_reindex_brings_an_old_index_up_to_date(levels) -> None:
    """A chunk indexed without its title (as before this change) is found by the title after the command."""
    _out_of_date_chunk()
    assert search(user=None, question="zanzibar", limit=5) == []
    out = StringIO()
    call_command("rag_reindex", stdout=out, stderr=StringIO())
    assert "re-indexed 1 chunks" in out.getvalue()
    assert [r.source_id for r in search(user=None, question="zanzibar", limit=5)] == ["lic"]
    call_command("rag_reindex", stdout=(again := StringIO()), stderr=StringIO())
    assert "re-indexed 0 chunks" in again.getvalue()  # idempotent


def test_an_index_left_in_an_older_form_is_named_until_rag_reindex_runs(levels) -> None:
    """After an upgrade that changes how chunks are indexed, `check --database default` names the chunks (W003) and
    `rag_reindex --check` counts them, writing nothing and exiting 1; after `rag_reindex` both are quiet."""
    from django.core import checks

    from rag_app import checks as rag_checks

    factories.ingest_text("Staff may work from home two days a week.", source_id="policy", title="Remote work")
    assert rag_checks.index_in_current_form(databases=["default"]) == []
    call_command("rag_reindex", "--check", stdout=(out := StringIO()), stderr=StringIO())
    assert out.getvalue().strip() == "all 1 searched chunks are indexed in this release's form"

    stale = _out_of_date_chunk()
    stored = Chunk.objects.get(pk=stale.pk).search_text
    [warning] = rag_checks.index_in_current_form(databases=["default"])
    assert warning.level == checks.WARNING and warning.id == "rag_app.W003"
    assert warning.msg.startswith("1 of the 2 searched chunks read are indexed in another form")
    assert "lic:v1:0" in warning.msg and "policy" not in warning.msg
    assert "rag_reindex" in (warning.hint or "")
    assert rag_checks.index_in_current_form() == []  # database checks run only when asked for
    call_command("check", "--database", "default", stdout=(out := StringIO()), stderr=out)
    assert "rag_app.W003" in out.getvalue()

    with pytest.raises(SystemExit) as exit_:
        call_command("rag_reindex", "--check", stdout=(out := StringIO()), stderr=StringIO())
    assert exit_.value.code == 1
    assert out.getvalue().startswith("1 of 2 searched chunks are indexed in an older form (e.g. lic:v1:0)")
    assert Chunk.objects.get(pk=stale.pk).search_text == stored  # --check writes nothing
    with pytest.raises(CommandError, match="writes nothing"):
        call_command("rag_reindex", "--check", "--reparse", stdout=StringIO(), stderr=StringIO())

    call_command("rag_reindex", stdout=StringIO(), stderr=StringIO())
    assert rag_checks.index_in_current_form(databases=["default"]) == []
    call_command("rag_reindex", "--check", stdout=(out := StringIO()), stderr=StringIO())
    assert out.getvalue().startswith("all 2 searched chunks")


def test_a_long_title_or_section_path_is_indexed_as_it_is_stored(levels) -> None:
    """A review finding: ingest indexed a chunk with the whole section path and parsed title, but stored them cut to
    their columns, so the index check named every such chunk stale right after ingest and `rag_reindex` rewrote it.
    Both are now indexed as stored: a fresh ingest is never stale."""
    from rag_app.models import Document
    from rag_app.search.indexing import stale_index

    heading = " ".join(f"word{i}" for i in range(250))  # about 1,900 characters: the column holds 1,000
    guide = f"# Guide\n\n## {heading}\n\nThe deposit is refunded within five days.\n"
    factories.ingest_text(guide, source_id="long-section", file_name="g.md", title="Guide")
    chunk = Chunk.objects.get(version__document__source_id="long-section", text__contains="deposit")
    assert len(chunk.section) == 1000 and "word249" not in chunk.search_text.split()
    title = " ".join(f"title{i}" for i in range(90))  # over the title column's 500 characters
    page = f"<html><head><title>{title}</title></head><body><p>The deposit is refunded in five days.</p></body></html>"
    factories.ingest_text(page, source_id="long-title", file_name="p.html", title=None)
    assert len(Document.objects.get(source_id="long-title").title) == 500
    assert stale_index().stale == 0
    call_command("rag_reindex", stdout=(out := StringIO()), stderr=StringIO())
    assert "re-indexed 0 chunks" in out.getvalue()


def test_the_index_check_reads_an_even_sample_of_a_large_corpus(levels) -> None:
    """Past the sample size the check reads chunks spread over the whole table, not the first ones: a stale chunk
    near the end is found, and the message says it read a sample."""
    from rag_app.search.indexing import stale_index

    for n in range(12):
        factories.ingest_text(f"Clause {n}: the deposit is refunded within {n + 3} days.", source_id=f"doc-{n:02}")
    last = Chunk.objects.order_by("pk").last()
    Chunk.objects.filter(pk=last.pk).update(search_text="stale")
    found = stale_index(sample=4)
    assert (found.read, found.total, found.stale, found.examples) == (4, 12, 1, (last.chunk_id,))
    assert stale_index().stale == 1 and stale_index().read == 12


def test_a_question_with_the_short_name_finds_the_passage_that_writes_it_out(levels) -> None:
    """ "FSF" and "GPL" are only spelled out in the documents ("Free Software Foundation", the title's
    "General Public License"); the initialisms indexed beside the words let the short forms match."""
    factories.ingest_text(
        "Version 3 was published by the Free Software Foundation on 29 June 2007.",
        source_id="gpl3",
        title="GNU General Public License, version 3",
    )
    factories.ingest_text("The committee published its annual report in June.", source_id="report", title="Minutes")
    chunk = Chunk.objects.get(version__document__source_id="gpl3")
    assert {"fsf", "gpl"} <= set(chunk.search_text.split())
    [top, *rest] = search(user=None, question="When did the FSF publish the GPL?", limit=5)
    assert top.source_id == "gpl3"
    assert all(top.relevance > r.relevance for r in rest)


def test_a_name_run_together_with_its_version_is_searched_as_its_parts(levels) -> None:
    """No document writes "GPLv3": the question is read as "gpl" "3", which the GPL's chunks hold."""
    from rag_app.search import lexical

    factories.ingest_text(
        "There is no warranty for the program.", source_id="gpl3", title="GNU General Public License, version 3"
    )
    factories.ingest_text(
        "There is no warranty for the program.", source_id="gpl2", title="GNU General Public License, version 2"
    )
    terms, stats = lexical.read_unheld(["gplv3", "warranti"], lexical.corpus_stats(["gplv3", "warranti"]))
    assert terms == ["gpl", "3", "warranti"] and stats.df["gpl"] == 2 and stats.df["3"] == 1
    assert lexical.read_unheld(["gpl", "mp3"], lexical.corpus_stats(["gpl", "mp3"]))[0] == ["gpl", "mp3"]
    [top, second] = search(user=None, question="Is there any warranty under GPLv3?", limit=2)
    assert top.source_id == "gpl3" and top.relevance > second.relevance


def test_a_chinese_word_jieba_glued_out_of_single_characters_is_searched_as_its_pieces(levels) -> None:
    """ "7分算正常吗": jieba's HMM glues 分算, a word no chunk holds, which weighed as the rarest term and sank the
    Apgar passage (7, 分, 正常) under an English licence passage holding only "normal". Read as its pieces the
    index holds (分; 算 is held by no chunk and is one character, so left out), the passage ranks first; a
    dictionary word no chunk holds (主教练) stays whole, as does a glued word none of whose pieces is held."""
    from rag_app.search import lexical

    factories.ingest_text(
        "阿普伽新生儿评分在出生后1分钟和5分钟时各评一次。5分钟时评分7分以上为正常，4到6分为轻度窒息。",
        source_id="apgar",
        title="阿普伽新生儿评分",
    )
    factories.ingest_text(
        "If the program normally reads commands interactively when run, you must cause it to print an "
        "announcement; the program does not normally print such an announcement.",
        source_id="gpl2",
        title="GNU General Public License, version 2",
    )
    asked = ["7", "分算", "正常", "主教练", "禅算"]
    terms, stats = lexical.read_unheld(asked, lexical.corpus_stats(asked))
    assert terms == ["7", "分", "正常", "主教练", "禅算"]
    assert stats.df["分"] == 1 and stats.df["主教练"] == 0
    [top, *rest] = search(user=None, question="7分算正常吗", limit=3)
    assert top.source_id == "apgar" and all(top.relevance > r.relevance for r in rest)
    assert [h.term for h in top.held] == ["7", "分算", "正常"] and not top.missing


def test_an_english_question_finds_a_chinese_passage_by_the_pinyin_of_a_name(levels) -> None:
    """The station is 北土城站 in the text; an English speaker writes Beitucheng. No index token holds it:
    the question's name is matched in the candidates' characters (pipeline/pinyin.py), so the passage that
    names the station ranks above its neighbours, and the answerability check sees the name too."""
    from rag_app.search.hybrid import retrieve

    factories.ingest_text(
        "北土城站位于北京市朝阳区，是8号线与10号线的换乘站，因地处元大都北城垣遗址而得名。",
        source_id="station-a",
        title="车站资料（一）",
    )
    factories.ingest_text(
        "安贞门站位于北京市朝阳区，是10号线的车站，因地处元大都安贞门旧址附近而得名。",
        source_id="station-b",
        title="车站资料（二）",
    )
    [top, *rest] = search(user=None, question="Why is Beitucheng station called that?", limit=5)
    assert top.source_id == "station-a"
    assert "beitucheng" in top.terms
    assert "beitucheng" not in Chunk.objects.get(chunk_id=top.chunk_id).search_text.split()  # not indexed
    assert all(top.relevance > r.relevance for r in rest)
    # The name is matched among the candidates (found here by "station" -> 站; by meaning with an embedder).
    selection = retrieve(user=None, question="Which lines meet at Beitucheng station?")
    assert [r.source_id for r in selection.kept] == ["station-a"]


WRAPPED = (
    "  1. Source Code.\n\n"
    '  The "source code" for a work means the preferred form of the work for\n'
    'making modifications to it.  "Object code" means any non-source form of\n'
    "a work.\n"
)


def test_rag_reindex_reparse_gives_an_old_plain_text_version_its_reflowed_successor(levels) -> None:
    """A plain-text version stored by an older parser, hard lines and all, becomes the next version as
    the current parser reads it; the old version keeps its chunks (answers cite them), and a second run
    changes nothing."""
    from rag_app.models import DocumentVersion

    factories.ingest_text(WRAPPED, source_id="lic/gpl", effective_from=dt.date(2024, 1, 1))
    v1 = DocumentVersion.objects.get()
    assert "for making" in v1.text  # reflowed at ingest
    old_text = WRAPPED.strip()  # as a parser without reflow stored it
    sha = hashlib.sha256(old_text.encode()).hexdigest()  # as ingest stores it: the parsed text's hash
    DocumentVersion.objects.filter(pk=v1.pk).update(text=old_text, sha256=sha)
    old_chunks = list(Chunk.objects.filter(version=v1).values_list("chunk_id", "text"))

    out = StringIO()
    call_command("rag_reindex", "--reparse", stdout=out, stderr=StringIO())
    assert "lic/gpl v2" in out.getvalue() and "re-parsed 1 plain-text documents" in out.getvalue()
    v2 = DocumentVersion.objects.get(is_current=True)
    assert v2.version == 2 and v2.effective_from == dt.date(2024, 1, 1)
    assert "for\nmaking" not in v2.text and "for making" in v2.text
    assert list(Chunk.objects.filter(version=v1).values_list("chunk_id", "text")) == old_chunks
    assert all(c.chunk_id.startswith("lic/gpl:v2:") for c in Chunk.objects.filter(version=v2))

    call_command("rag_reindex", "--reparse", stdout=(again := StringIO()), stderr=StringIO())
    assert "re-parsed 0 plain-text documents" in again.getvalue()
    assert DocumentVersion.objects.count() == 2


def test_rag_reindex_reparse_cuts_again_a_text_an_older_chunker_cut_otherwise(levels) -> None:
    """The same text, chunked by an older chunker that ended a chunk with "…the following conditions:", becomes the
    next version cut by the current one (its list opens with the words that say what it is); the old version keeps its
    chunks, and a second run changes nothing."""
    from rag_app.models import DocumentVersion

    intro = "You may redistribute the Work provided that You meet the following conditions:"
    text = (
        "Redistribution of the Work is allowed in any medium, with or without modifications, in Source or Object "
        "form, for any purpose and without asking anyone first, and for no fee unless you choose to charge one. "
        "Copies may be made by anyone who receives the Work from You. "
        f"{intro}\n(a) You must give any other recipients a copy of this License; and\n"
        "(b) You must cause any modified files to carry prominent notices stating that You changed the files."
    )
    factories.ingest_text(text, source_id="apache", file_name="apache.txt")
    v1 = DocumentVersion.objects.get()
    assert any(c.text.startswith(intro) for c in Chunk.objects.filter(version=v1))
    # As an older chunker stored it: the introducing sentence at the end of the chunk before its list.
    chunks = list(Chunk.objects.filter(version=v1).order_by("index"))
    first, second = chunks[0], chunks[1]
    cut = v1.text.index(intro) + len(intro)
    Chunk.objects.filter(pk=first.pk).update(end=cut, text=v1.text[first.start : cut])
    Chunk.objects.filter(pk=second.pk).update(start=cut + 1, text=v1.text[cut + 1 : second.end])
    old_chunks = list(Chunk.objects.filter(version=v1).values_list("chunk_id", "text"))

    call_command("rag_reindex", "--reparse", stdout=(out := StringIO()), stderr=StringIO())
    assert "apache v2" in out.getvalue() and "re-parsed 1 plain-text documents" in out.getvalue()
    v2 = DocumentVersion.objects.get(is_current=True)
    assert v2.version == 2 and v2.text == v1.text
    assert any(c.text.startswith(intro) and "(a) You must give" in c.text for c in Chunk.objects.filter(version=v2))
    assert list(Chunk.objects.filter(version=v1).values_list("chunk_id", "text")) == old_chunks

    call_command("rag_reindex", "--reparse", stdout=(again := StringIO()), stderr=StringIO())
    assert "re-parsed 0 plain-text documents" in again.getvalue()


def test_rag_reindex_reparse_gives_a_heading_an_older_parser_missed_to_the_next_version(levels) -> None:
    """The same text whose chunks were stored without the section the current parser reads (an underlined title an
    older one missed) becomes the next version, its chunks under that section."""
    from rag_app.models import DocumentVersion

    factories.ingest_text("Refund Policy\n=============\n\nRefunds are accepted within 30 days.", source_id="refunds")
    v1 = DocumentVersion.objects.get()
    assert set(Chunk.objects.filter(version=v1).values_list("section", flat=True)) == {"Refund Policy"}
    Chunk.objects.filter(version=v1).update(section="")
    call_command("rag_reindex", "--reparse", stdout=(out := StringIO()), stderr=StringIO())
    assert "refunds v2" in out.getvalue()
    v2 = DocumentVersion.objects.get(is_current=True)
    assert set(Chunk.objects.filter(version=v2).values_list("section", flat=True)) == {"Refund Policy"}


def test_rag_reindex_reparse_leaves_other_formats_and_retired_documents(levels) -> None:
    from django.utils import timezone

    from rag_app.models import Document, DocumentVersion

    factories.ingest_text("# Title\n\nSome text\nwrapped here.", source_id="md", file_name="md.md")
    factories.ingest_text(WRAPPED, source_id="retired")
    sha = hashlib.sha256(WRAPPED.strip().encode()).hexdigest()
    DocumentVersion.objects.filter(document__source_id="retired").update(text=WRAPPED.strip(), sha256=sha)
    Document.objects.filter(source_id="retired").update(retired_at=timezone.now())
    call_command("rag_reindex", "--reparse", stdout=(out := StringIO()), stderr=StringIO())
    assert "re-parsed 0 plain-text documents" in out.getvalue()
    assert DocumentVersion.objects.count() == 2


def test_rag_reindex_reparse_reports_a_text_it_cannot_parse_and_goes_on(levels) -> None:
    """A stored text the parser refuses now (here: only blank lines) is reported by name and left as it is;
    the other documents are still re-parsed."""
    from rag_app.models import DocumentVersion

    factories.ingest_text("Some text.", source_id="blank")
    factories.ingest_text(WRAPPED, source_id="wrapped")
    DocumentVersion.objects.filter(document__source_id="blank").update(text="\n\n", sha256="0" * 64)
    sha = hashlib.sha256(WRAPPED.strip().encode()).hexdigest()
    DocumentVersion.objects.filter(document__source_id="wrapped").update(text=WRAPPED.strip(), sha256=sha)
    out, err = StringIO(), StringIO()
    call_command("rag_reindex", "--reparse", stdout=out, stderr=err)
    assert "blank: not re-parsed: the file is empty" in err.getvalue()
    assert "wrapped v2" in out.getvalue() and "re-parsed 1 plain-text documents" in out.getvalue()
    assert DocumentVersion.objects.filter(document__source_id="blank").count() == 1


def test_an_english_word_is_read_in_the_rendering_the_documents_write(levels) -> None:
    """CC-CEDICT's first renderings of "launch" are 开展, 起, 展开 and 发动 ("to launch (a campaign)"); the article
    writes 发射. The translation offers later senses too and reads the ones the index holds
    (crosslingual.narrowed), so the passage holds "launch" and ranks above one that only names the ship."""
    factories.ingest_text(
        "进步号货运飞船于1978年1月20日首次发射升空，为礼炮6号空间站运送补给。",
        source_id="launch",
        title="进步号货运飞船",
    )
    factories.ingest_text(
        "进步号货运飞船由能源火箭航天集团设计，每艘可运载约两吨货物。", source_id="design", title="进步号货运飞船"
    )
    [top, second] = search(user=None, question="When was the first Progress cargo ship launched?", limit=2)
    assert top.source_id == "launch" and top.relevance > second.relevance
    assert Held("launch", "translation", "发射") in top.held
    assert "launch" in second.missing


def test_what_a_passage_holds_of_a_translated_word_does_not_depend_on_other_documents(levels) -> None:
    """The score reads "launch" as the first four of its renderings the index holds; other documents hold 开展,
    起, 展开 and 发动, so it reads no 发射. What the trace says the passage holds is read from every rendering
    offered, never from the index (which counts documents the reader may not see): it holds "launch"."""
    factories.ingest_text("进步号货运飞船于1978年1月20日发射升空。", source_id="launch", title="进步号货运飞船")
    factories.ingest_text("学校开展了读书活动，从早上起一直持续到晚上。", source_id="school", groups=["staff-only"])
    factories.ingest_text("会议展开讨论后，工会发动了会员。", source_id="union", groups=["staff-only"])
    [top] = [
        r for r in search(user=None, question="When was the Progress cargo ship launched?") if r.source_id == "launch"
    ]
    assert Held("launch", "translation", "发射") in top.held and "launch" not in top.missing


def test_a_dateline_answers_a_translated_release_word_the_index_does_not_hold(levels) -> None:
    """ "released" is rendered 发布 first, which no passage writes; the index holds 释放, 松开, 放走 and 释怀. A Chinese
    document that opens with its date says when it was released (its dateline holds the issuing words as it is
    read, answerability.issue_words), so 发布 is among the renderings the search reads."""
    factories.ingest_text(
        "桑给巴尔许可证\n2007年6月29日\n本许可证允许任何人复制本软件。", source_id="zanzibar", title="桑给巴尔许可证"
    )
    factories.ingest_text("警方释放了嫌疑人，随后松开了绳子，放走了小鸟，他终于释怀。", source_id="police")
    [top, *_] = search(user=None, question="When was the Zanzibar licence released?")
    assert top.source_id == "zanzibar"
    assert Held("releas", "dateline") in top.held, top.held


def _out_of_date_chunk() -> Chunk:
    """A chunk indexed without its title, as before the context joined the index."""
    from rag_app.search import lexical

    factories.ingest_text("There is no warranty for the program.", source_id="lic", title="Zanzibar Public Licence")
    chunk = Chunk.objects.get(version__document__source_id="lic")
    old = " ".join(t for t in chunk.search_text.split() if t not in {"zanzibar", "public", "licence"})
    lexical.unindex_rows([(chunk.pk, chunk.search_text)])
    lexical.index_rows([(chunk.pk, old)])
    Chunk.objects.filter(pk=chunk.pk).update(search_text=old)
    return chunk


def _vacuums(table: str) -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = %s", [table])
        return int(cur.fetchone()[0])


@pytest.mark.django_db(transaction=True)
def test_rag_reindex_vacuums_what_it_rewrote_on_postgresql() -> None:
    """Every row the command rewrites leaves its old version behind on PostgreSQL, read by every lexical scan
    until VACUUM frees it: the command vacuums the tables it rewrote. SQLite keeps no dead rows and is left as it
    is (no planner statistics written). A run that rewrote nothing touches nothing."""
    from django.db import connection

    factories.make_levels()
    _out_of_date_chunk()
    postgres = connection.vendor == "postgresql"
    before = {t: _vacuums(t) for t in ("rag_chunk_tsv", "rag_search_term", "rag_app_chunk")} if postgres else {}
    call_command("rag_reindex", stdout=(out := StringIO()), stderr=StringIO())
    assert "re-indexed 1 chunks" in out.getvalue()
    if postgres:
        assert "vacuumed and analyzed rag_chunk_tsv, rag_search_term, rag_app_chunk" in out.getvalue()
        assert all(_vacuums(t) == n + 1 for t, n in before.items()), before
    else:
        assert "vacuum" not in out.getvalue() and "analyze" not in out.getvalue()
        with connection.cursor() as cur:
            cur.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
            assert cur.fetchone()[0] == 0
    call_command("rag_reindex", stdout=(again := StringIO()), stderr=StringIO())
    assert "re-indexed 0 chunks" in again.getvalue() and "vacuum" not in again.getvalue()


def test_rag_reindex_inside_a_transaction_analyzes_and_leaves_the_dead_rows_to_autovacuum(levels) -> None:
    """VACUUM cannot run inside a transaction: a caller holding one (as this test does) gets ANALYZE and is told."""
    from django.db import connection

    _out_of_date_chunk()
    call_command("rag_reindex", stdout=(out := StringIO()), stderr=StringIO())
    if connection.vendor == "postgresql":
        assert (
            "analyzed rag_chunk_tsv, rag_search_term, rag_app_chunk; inside a transaction, so their dead rows are"
            " left to autovacuum" in out.getvalue()
        )
    else:
        assert "analyze" not in out.getvalue()
