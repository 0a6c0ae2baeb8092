"""Review probes, session 27: versions, the provenance page, reviewers' verdicts and trust levels.

Each test demonstrates one defect a user sees (xfail strict: the file passes while the defect stands).
Run: DEBUG=1 .venv/bin/python -m pytest -q tests/test_review_probes27.py -p no:cacheprovider
"""

from __future__ import annotations

import importlib
import json
import re

import pytest

from rag_app.models import Answer, AnswerReview, Document, SourceLevel
from rag_app.services.ask import ask
from rag_app.services.levels import document_set_groups, level_update
from tests import factories
from tests.test_review26 import QUESTION, V1, V2, _client  # the same refund documents and logged-in client
from tests.views.answers import Para, make_answer, refund_answer

pytestmark = pytest.mark.django_db

V3 = "Refund policy. Refunds are accepted within 7 days of purchase with the original receipt."
NOTE = "Refund notes. Refunds are accepted within 60 days of purchase with the original receipt."


def _words(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _candidate_rows(html: str) -> list[str]:
    table = html[html.index('class="table candidates"') :]
    table = table[: table.index("</table>")]
    return re.findall(r"<tr class=\"(?:kept|rejected)\">(.*?)</tr>", table, re.S)


def _cells(row: str) -> list[str]:
    return [_words(cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


@pytest.fixture
def old_answer(levels, staff_user):
    """An answer citing refunds v1, then two newer versions of the document with changed text."""
    factories.ingest_text(V1, source_id="refunds", title="Refund policy")
    answer = ask(user=staff_user, question=QUESTION)
    assert answer.state == Answer.State.ANSWERED
    factories.ingest_text(V2, source_id="refunds")
    factories.ingest_text(V3, source_id="refunds")
    return answer


# --- 1. Document versions ---------------------------------------------------------------------------------------


def test_api_source_of_an_old_answer_says_a_newer_version_exists(old_answer, staff_user):
    source = _client(staff_user).get(f"/api/v1/answers/{old_answer.pk}").json()["sources"][0]
    assert (source["version"], source["snippet"]) == (1, V1)  # the exact old text: right
    assert source.get("is_current") is False or source.get("current_version") == 3


def test_an_old_answer_labels_its_superseded_source_and_links_the_current_version(old_answer, staff_user):
    html = _client(staff_user).get(old_answer.get_absolute_url()).content.decode()
    panel = html[html.index('class="source-list"') :]
    assert "a newer version exists" in panel  # the source panel, not only the hover card
    assert 'href="/documents/refunds/v3/' in html or 'href="/documents/refunds/"' in html


# --- 2. The provenance page -------------------------------------------------------------------------------------


@pytest.mark.parametrize("zh", [False, True], ids=["en", "zh"])
def test_provenance_says_why_a_candidate_was_dropped_in_words(levels, staff_user, reviewer_user, zh):
    factories.ingest_text(V1, source_id="refunds", title="Refund policy")
    answer = ask(user=staff_user, question="退款可以退到信用卡吗？")
    assert (answer.state, answer.reason) == (Answer.State.NO_EVIDENCE, "below_threshold")
    html = _client(reviewer_user, zh=zh).get(f"/review/answers/{answer.pk}/").content.decode()
    decision = _cells(_candidate_rows(html)[0])[-1]
    assert "below_threshold" not in decision, decision
    assert not zh or "relevance" not in decision, decision  # the pipeline's English detail


def test_provenance_not_answering_detail_is_chinese(levels, staff_user, reviewer_user):
    factories.ingest_text(
        "The Harbour Hawks play their home games at Riverside Stadium every Saturday in spring.",
        source_id="team",
        title="Team",
    )
    factories.ingest_text(V1, source_id="refunds", title="Refunds")
    factories.ingest_text(
        "Staff parking is available in lot B. Parking permits are issued by facilities.", source_id="parking"
    )
    answer = ask(user=staff_user, question="Who is the head coach of the Harbour Hawks?")
    assert answer.reason == "no_answering_passage"
    html = _client(reviewer_user, zh=True).get(f"/review/answers/{answer.pk}/").content.decode()
    decision = _cells(_candidate_rows(html)[0])[-1]
    assert "on topic, but" not in decision, decision


def test_provenance_message_of_an_internal_error_is_chinese(levels, staff_user, reviewer_user, monkeypatch):
    factories.ingest_text(V1, source_id="refunds")
    ask_module = importlib.import_module("rag_app.services.ask")

    def broken(selection):
        raise RuntimeError("boom")

    monkeypatch.setattr(ask_module, "assemble_selection", broken)
    answer = ask(user=staff_user, question=QUESTION)
    assert (answer.state, answer.reason) == (Answer.State.ERROR, "internal_error")
    html = _client(reviewer_user, zh=True).get(f"/review/answers/{answer.pk}/").content.decode()
    assert "Something went wrong while answering" not in html


def test_provenance_does_not_say_no_candidates_were_recorded_when_they_are_hidden(
    levels, staff_user, reviewer_user, admin_user_role
):
    factories.ingest_text(V1, source_id="refunds")
    answer = ask(user=staff_user, question=QUESTION)
    document_set_groups(
        user=admin_user_role, document=Document.objects.get(source_id="refunds"), groups=[factories.make_group("fin")]
    )
    html = _client(reviewer_user).get(f"/review/answers/{answer.pk}/").content.decode()
    assert "1 candidate from a document you cannot access is not shown." in html
    assert "No candidates were recorded." not in html


def test_provenance_shows_the_support_score_and_threshold_of_a_weak_paragraph(levels, reviewer_user):
    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    chunk = factories.chunks_of("refunds")[0]
    answer = make_answer(
        user=reviewer_user,
        paragraphs=[Para("Refunds are paid within 45 days.", cites=[("S1", chunk)], weak=True, support=0.21)],
        trace={"threshold": 0.55, "settings_snapshot": {"min_support": 0.35}},
    )
    html = _client(reviewer_user).get(f"/review/answers/{answer.pk}/").content.decode()
    assert "weak support" in html
    assert "0.21" in html and "0.35" in html


def test_provenance_shows_a_missing_dense_score_as_a_dash(levels, staff_user, reviewer_user):
    factories.ingest_text(V1, source_id="refunds")
    answer = ask(user=staff_user, question=QUESTION)
    html = _client(reviewer_user).get(f"/review/answers/{answer.pk}/").content.decode()
    dense = _cells(_candidate_rows(html)[0])[4]
    assert dense != "", "the Dense cell is empty"


# --- 3. Readers' feedback and reviewers' verdicts ----------------------------------------------------------------


def test_a_reviewer_who_sees_nothing_of_an_answer_cannot_clear_its_flag(
    levels, staff_user, reviewer_user, admin_user_role
):
    factories.ingest_text(V1, source_id="refunds")
    answer = ask(user=staff_user, question=QUESTION)
    _client(staff_user).post(f"/answers/{answer.pk}/feedback/", {"kind": "not_helpful", "comment": "30 is wrong"})
    document_set_groups(
        user=admin_user_role, document=Document.objects.get(source_id="refunds"), groups=[factories.make_group("fin")]
    )
    reviewer = _client(reviewer_user)
    page = reviewer.get(f"/review/answers/{answer.pk}/").content.decode()
    assert "This paragraph rests on a document you cannot access." in page
    reviewer.post(f"/review/answers/{answer.pk}/verdict/", {"verdict": "ok", "note": "fine"})
    api = reviewer.post(
        f"/api/v1/answers/{answer.pk}/review", data=json.dumps({"verdict": "ok"}), content_type="application/json"
    )
    assert api.status_code in (400, 403, 404)
    assert not AnswerReview.objects.filter(answer=answer).exists()


def test_a_too_long_comment_is_refused_in_chinese(levels, staff_user, reviewer_user):
    answer = refund_answer(user=staff_user)
    too_long = "长" * 2001
    feedback = _client(staff_user, zh=True).post(
        f"/answers/{answer.pk}/feedback/", {"kind": "not_helpful", "comment": too_long}, HTTP_HX_REQUEST="true"
    )
    verdict = _client(reviewer_user, zh=True).post(
        f"/review/answers/{answer.pk}/verdict/", {"verdict": "ok", "note": too_long}
    )
    assert feedback.status_code == verdict.status_code == 400
    assert "characters long" not in feedback.content.decode()
    assert "characters long" not in verdict.content.decode()


def test_one_reader_counts_once_and_can_change_their_mind(levels, staff_user):
    answer = refund_answer(user=staff_user)
    client = _client(staff_user)
    for kind in ("helpful", "helpful", "not_helpful"):
        client.post(f"/answers/{answer.pk}/feedback/", {"kind": kind})
    assert client.get(f"/api/v1/answers/{answer.pk}").json()["feedback"] == {
        "helpful": 0,
        "not_helpful": 1,
        "flags": 1,
    }


def test_an_earlier_verdict_stays_visible_to_reviewers(levels, staff_user, reviewer_user):
    answer = refund_answer(user=staff_user)
    other = factories.make_user("reviewer2", groups=("staff", "reviewer"))
    _client(reviewer_user).post(f"/review/answers/{answer.pk}/verdict/", {"verdict": "wrong", "note": "30 is stale"})
    _client(other).post(f"/review/answers/{answer.pk}/verdict/", {"verdict": "ok", "note": "fine by me"})
    assert AnswerReview.objects.filter(answer=answer).count() == 2
    html = _client(reviewer_user).get(f"/review/answers/{answer.pk}/").content.decode()
    assert "30 is stale" in html


# --- 4. Trust levels changed after the answer --------------------------------------------------------------------


@pytest.fixture
def conflict_answer(levels, staff_user):
    factories.ingest_text(V1, source_id="refunds", level="official", title="Refund policy")
    factories.ingest_text(NOTE, source_id="notes", level="note", title="Refund notes")
    answer = ask(user=staff_user, question=QUESTION)
    assert answer.conflict
    return answer


def test_a_reweighted_level_does_not_reorder_an_old_answers_conflict_banner(
    conflict_answer, staff_user, admin_user_role
):
    note = SourceLevel.objects.get(slug="note")
    level_update(user=admin_user_role, level=note, weight=5.0)
    html = _client(staff_user).get(conflict_answer.get_absolute_url()).content.decode()
    banner = html[html.index('class="banner conflict"') :]
    banner = banner[: banner.index("</div>")]
    assert banner.index("Refund policy") < banner.index("Refund notes")


def test_provenance_shows_the_level_weight_a_candidate_was_ranked_with(conflict_answer, reviewer_user, admin_user_role):
    note = SourceLevel.objects.get(slug="note")
    level_update(user=admin_user_role, level=note, label="Team memo", weight=5.0)
    html = _client(reviewer_user).get(f"/review/answers/{conflict_answer.pk}/").content.decode()
    rows = {_cells(row)[0].split()[0]: _cells(row) for row in _candidate_rows(html)}
    level_cell = rows["notes:v1:0"][6]
    assert re.search(r"\b1(\.0+)?\b", level_cell), level_cell  # weight 1 when answered (5 now)


def test_a_level_slug_change_does_not_turn_old_answers_levels_into_raw_codes(levels, staff_user, admin_user_role):
    answer = refund_answer(user=staff_user)
    level_update(user=admin_user_role, level=SourceLevel.objects.get(slug="official"), slug="policy")
    html = _client(staff_user).get(answer.get_absolute_url()).content.decode()
    badges = re.findall(r'class="badge level [^"]*"[^>]*>([^<]*)<', html)
    assert badges and "official" not in badges, badges
