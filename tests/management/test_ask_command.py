"""`manage.py ask`: text with markers and sources, or the API's answer JSON; errors exit non-zero."""

from __future__ import annotations

import json
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rag_app.models import Answer
from tests import factories

REFUND = "Refunds are accepted within 30 days of purchase with the original receipt."
QUESTION = "Within how many days of purchase are refunds accepted?"


def run(*args: str) -> str:
    out = StringIO()
    call_command("ask", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def refund_doc(levels: object) -> None:
    factories.ingest_text(REFUND, source_id="policy/refund.txt")


@pytest.mark.django_db
def test_it_prints_the_answer_with_markers_and_the_source_list(refund_doc: None) -> None:
    """Text output: the quoted paragraph with its footnote [1], then source 1's document, version, locator
    label, level and stable S-id."""
    out = run(QUESTION)
    assert "within 30 days of purchase" in out and "[1]" in out
    assert "Sources:" in out
    assert "[1] policy/refund.txt · v1 · no location provided · level official" in out
    assert "S1 policy/refund.txt:v1:0" in out
    assert Answer.objects.count() == 1


@pytest.mark.django_db
def test_json_output_is_the_api_answer_shape(refund_doc: None) -> None:
    """--json prints the answer JSON of the API: every cited id is in sources and nothing else is."""
    data = json.loads(run(QUESTION, "--json"))
    assert set(data) == {
        "id", "question", "state", "reason", "mode", "created_at", "conflict", "truncated", "message", "scope",
        "parent_id", "withheld_paragraphs", "paragraphs", "sources", "review", "feedback", "related", "unmatched_words",
    }  # fmt: skip
    assert data["state"] == "answered" and data["reason"] is None and data["mode"] == "extractive"
    assert data["message"] is None  # nothing to tell the reader of an answer in full
    cited = [m for p in data["paragraphs"] for m in p["citation_ids"]]
    assert [s["id"] for s in data["sources"]] == list(dict.fromkeys(cited))
    source = data["sources"][0]
    assert source["chunk_id"] == "policy/refund.txt:v1:0"
    assert source["title"] is None and source["display_title"] == "policy/refund.txt"
    assert source["url"] is None and source["locator"] is None
    assert source["source_level"] == "official" and source["snippet"] in REFUND
    assert set(source) == {
        "id", "display_number", "citation_id", "retired", "chunk_id", "source_id", "version", "title",
        "display_title", "url", "locator", "section", "page", "start_offset", "end_offset", "source_level",
        "source_level_label", "source_level_weight", "score", "snippet", "is_current", "current_version",
        "in_force_until",
    }  # fmt: skip
    assert (source["is_current"], source["current_version"]) == (True, 1)


@pytest.mark.django_db
def test_no_evidence_prints_the_reason_and_how_to_proceed(levels: object) -> None:
    """Empty index: state no_evidence, the reason code and the advice are printed; exit status 0."""
    out = run("What is the refund period?")
    assert "no_evidence" in out and "empty_index" in out


@pytest.mark.django_db
def test_invalid_question_is_a_command_error(levels: object) -> None:
    """An empty question fails with its code and stores nothing."""
    with pytest.raises(CommandError, match="empty_question"):
        run("   ")
    assert not Answer.objects.exists()


@pytest.mark.django_db
def test_unknown_user_is_a_command_error() -> None:
    """--user must name an existing user."""
    with pytest.raises(CommandError, match="no user named"):
        run(QUESTION, "--user", "nobody")


@pytest.mark.django_db
def test_user_option_asks_with_that_users_permissions(refund_doc: None, staff_user: Any) -> None:
    """--user NAME stores the answer as that user's."""
    run(QUESTION, "--user", staff_user.username)
    assert Answer.objects.get().user == staff_user


@pytest.mark.django_db
def test_error_state_exits_non_zero_but_is_stored(settings: Any, refund_doc: None) -> None:
    """--mode llm without a model server: the error answer is stored, printed, and the command fails."""
    settings.RAG = settings.RAG | {"OPENAI_BASE_URL": ""}
    with pytest.raises(CommandError, match="llm_not_configured"):
        run(QUESTION, "--mode", "llm")
    assert Answer.objects.get().state == "error"


@pytest.mark.django_db
def test_no_evidence_lists_related_passages_it_could_not_answer_from(refund_doc: None) -> None:
    """Passages that matched below the threshold are printed as related, never as sources."""
    out = run("Do refunds of gift cards bought abroad need the original receipt?")
    assert "no_evidence" in out and "below_threshold" in out
    assert "Related, not enough to answer (not cited):" in out and "policy/refund.txt" in out
    assert "Sources:" not in out
    # and which of the question's words it does not mention, as the page and the API say
    assert "  does not mention: " in out and "abroad" in out.split("does not mention: ")[1].splitlines()[0]
    assert "None of the related passages mentions " in out


def test_an_old_answer_says_a_newer_version_of_its_source_exists(refund_doc: None) -> None:
    """The text output names the current version of a superseded source, as the page and the API do."""
    from rag_app.management.commands.ask import render_text
    from rag_app.presentation import answer_payload

    run(QUESTION)
    answer = Answer.objects.get()
    factories.ingest_text(REFUND.replace("30", "14"), source_id="policy/refund.txt")
    out = render_text(answer_payload(answer, viewer=None))
    assert "· v1 (a newer version exists: v2) ·" in out


@pytest.mark.parametrize("command", [["ask", "When are refunds accepted?"], ["retire", "x"], ["rag_reindex"]])
def test_a_database_missing_migrations_is_one_line_saying_to_migrate(levels: object, command: list[str]) -> None:
    """Before `migrate` (or with code ahead of its database) the app's commands stop with one line naming the
    missing migrations and the command that applies them, not a traceback ending in "no such table". The record
    of the latest migration is removed inside the test's transaction (rolled back after it)."""
    from django.db import connection
    from django.db.migrations.recorder import MigrationRecorder

    latest = MigrationRecorder(connection).migration_qs.filter(app="rag_app").order_by("-name").first()
    assert latest is not None
    latest.delete()
    with pytest.raises(CommandError, match=rf"lacks 1 migration\(s\).*rag_app\.{latest.name}.*manage\.py migrate"):
        call_command(*command, stdout=StringIO(), stderr=StringIO())
    assert not Answer.objects.exists()  # nothing was asked
