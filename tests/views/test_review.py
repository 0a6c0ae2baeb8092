"""Reviewer pages: the filterable answer list and an answer's provenance."""

from __future__ import annotations

import datetime as dt
import re
from itertools import pairwise

import pytest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from rag_app.models import Answer
from tests import factories
from tests.views.answers import Para, make_answer
from tests.views.conftest import HTMX, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def doc(levels):
    return factories.make_document("Refunds are paid within 30 days.", source_id="refunds", title="Refunds")


@pytest.fixture
def traced(staff_user, doc):
    chunk = factories.chunks_of(doc)[0]
    return make_answer(
        user=staff_user,
        question="Refund deadline?",
        paragraphs=[Para("Refunds are paid within 30 days.", cites=[("S1", chunk)])],
        trace={
            "threshold": 0.42,
            "candidates": [
                {
                    "chunk_id": chunk.chunk_id,
                    "source_id": "refunds",
                    "version": 1,
                    "level": "official",
                    "relevance": 0.91,
                    "standout": 0.137,
                    "kept": True,
                    "reason": "",
                    "marker": "S1",
                    "held": [
                        {"term": "refund", "how": "word", "as": ""},
                        {"term": "deadlin", "how": "synonym", "as": "<i>within</i>"},
                    ],
                    "missing": ["late<script>"],
                    "bar": 0.252,
                },
                {
                    "chunk_id": "gone:v1:0",
                    "source_id": "gone",
                    "version": 1,
                    "level": "note",
                    "relevance": 0.12,
                    "kept": False,
                    "reason": "below_threshold",
                },
            ],
            "context": "[S1] Refunds are paid within 30 days.",
            "prompt": "PROMPT-TEXT <b>bold?</b>",
            "raw_output": '{"paragraphs": [{"text": "x", "citation_ids": ["S1", "S9"]}]}',
            "dropped_markers": ["S9"],
        },
    )


def rows(html: str) -> int:
    body = html[html.index("<tbody>") :] if "<tbody>" in html else ""
    return body.count("<tr>") + body.count("<tr ")


def test_staff_cannot_open_review_pages(staff_user, traced):
    """Plain staff get 403 on the list, the provenance page and the replay."""
    client = client_for(staff_user)
    assert client.get(reverse("review_list")).status_code == 403
    assert client.get(reverse("answer_provenance", args=[traced.pk])).status_code == 403
    assert client.get(reverse("answer_replay", args=[traced.pk]), **HTMX).status_code == 403


@pytest.mark.parametrize("role", ["reviewer_user", "admin_user_role"])
def test_reviewers_and_admins_see_every_answer(request, role, traced, other_staff):
    """Reviewers and admins see everyone's answers in the list."""
    make_answer(user=other_staff, question="Another person's question", state=Answer.State.NO_EVIDENCE)
    html = client_for(request.getfixturevalue(role)).get(reverse("review_list")).content.decode()
    assert "Refund deadline?" in html and "Another person&#x27;s question" in html


def test_it_filters_by_state(reviewer_user, traced):
    """state=no_evidence keeps only answers without evidence."""
    make_answer(user=reviewer_user, question="Moon?", state=Answer.State.NO_EVIDENCE)
    html = client_for(reviewer_user).get(reverse("review_list"), {"state": "no_evidence"}).content.decode()
    assert "Moon?" in html and "Refund deadline?" not in html


def test_it_filters_by_flag(reviewer_user, traced, doc):
    """flag=insufficient / weak / conflict select answers with those marks."""
    chunk = factories.chunks_of(doc)[0]
    make_answer(user=reviewer_user, question="Insufficient one", paragraphs=[Para("x", insufficient=True)])
    make_answer(user=reviewer_user, question="Weak one", paragraphs=[Para("y", cites=[("S1", chunk)], weak=True)])
    other = factories.chunks_of(factories.make_document("Refunds are paid within 60 days.", source_id="old"))[0]
    sides = [Para("Within 30 days.", cites=[("S1", chunk)]), Para("Within 60 days.", cites=[("S2", other)])]
    make_answer(user=reviewer_user, question="Conflict one", conflict=True, paragraphs=sides)
    # a conflict flag with one document cited names no two sides: no banner, not listed as a conflict
    make_answer(user=reviewer_user, question="One side", conflict=True, paragraphs=sides[:1])
    client = client_for(reviewer_user)
    for flag, expected in [("insufficient", "Insufficient one"), ("weak", "Weak one"), ("conflict", "Conflict one")]:
        html = client.get(reverse("review_list"), {"flag": flag}).content.decode()
        assert expected in html
        assert rows(html) == 1, flag


def test_it_filters_by_user_document_and_date(reviewer_user, traced, other_staff):
    """user=, document= (a cited source_id) and a date range narrow the list."""
    old = make_answer(user=other_staff, question="Old question")
    Answer.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=10))
    client = client_for(reviewer_user)
    assert "Old question" not in client.get(reverse("review_list"), {"user": "staff1"}).content.decode()
    by_doc = client.get(reverse("review_list"), {"document": "refunds"}).content.decode()
    assert "Refund deadline?" in by_doc and "Old question" not in by_doc
    since = (timezone.now() - dt.timedelta(days=2)).date().isoformat()
    recent = client.get(reverse("review_list"), {"date_from": since}).content.decode()
    assert "Refund deadline?" in recent and "Old question" not in recent


def test_the_list_is_a_partial_for_htmx(reviewer_user, traced):
    """htmx filtering swaps only the results."""
    html = client_for(reviewer_user).get(reverse("review_list"), {"state": "answered"}, **HTMX).content.decode()
    assert html.lstrip().startswith('<div id="review-results">') and "<html" not in html


def test_provenance_shows_the_whole_trace(traced):
    """Question, cited paragraphs, every candidate with decision, threshold, context, prompt, raw output,
    dropped markers and timings are on the page, escaped (for a superuser, who reads every document)."""
    html = client_for(factories.make_admin()).get(reverse("answer_provenance", args=[traced.pk])).content.decode()
    assert "Refund deadline?" in html
    assert 'class="fn-marker"' in html
    assert "refunds:v1:0" in html and "0.910" in html and "kept" in html
    assert "Standout" in html and "0.137" in html  # the part of the relevance from leading other documents
    candidates = html[html.index('class="table candidates"') :]
    assert 'level-official" title="source level (trust), set by admins"><span lang="en">Official<' in candidates
    assert "gone:v1:0" in html and "below_threshold" in html
    # why each candidate was retrieved: the question's words it holds and how, those it lacks (escaped);
    # a trace written before they were kept says so rather than showing nothing
    row = candidates[candidates.index("refunds:v1:0") : candidates.index("gone:v1:0")]
    assert (
        'Refund</span></span>, <span class="held"><span lang="en">deadline</span> → '
        '<span lang="en">&lt;i&gt;within&lt;/i&gt;</span><span class="muted"> (synonym)'
    ) in row
    assert 'not held: <span lang="en">late&lt;script&gt;</span>' in row
    assert "not recorded" in candidates[candidates.index("gone:v1:0") :]
    # the bar each candidate had to reach (its language's share of the threshold), where the trace kept it
    assert '0.910 <span class="muted bar">/ 0.252</span>' in row
    assert 'class="muted bar"' not in candidates[candidates.index("gone:v1:0") :]
    assert "English passages need a share of it" in html
    assert "0.420" in html
    assert "[S1] Refunds are paid within 30 days." in html
    assert "PROMPT-TEXT &lt;b&gt;bold?&lt;/b&gt;" in html
    assert "citation_ids" in html
    assert "<code>S9</code>" in html
    # the stages named and the unit said, in the page's language (the stored keys stay the API's)
    assert '<span class="timing">retrieval: 12.5 ms</span> <span class="timing">generation: 3.1 ms</span>' in html
    assert "quotation (extractive)" in html


def test_provenance_names_the_model_not_the_mode_twice(reviewer_user):
    """A model's answer names its model beside the mode; an extractive one (whose model field is its mode) does
    not say "extractive" twice."""
    quoted = make_answer(user=reviewer_user)
    modelled = make_answer(user=reviewer_user, mode=Answer.Mode.LLM)
    Answer.objects.filter(pk=quoted.pk).update(model="extractive")
    Answer.objects.filter(pk=modelled.pk).update(model="smollm2-135m")
    client = client_for(reviewer_user)
    html = client.get(reverse("answer_provenance", args=[quoted.pk])).content.decode()
    assert "quotation (extractive)</dd>" in html
    html = client.get(reverse("answer_provenance", args=[modelled.pk])).content.decode()
    assert "language model · <code>smollm2-135m</code></dd>" in html


def test_provenance_marks_superseded_versions(reviewer_user, traced):
    """A candidate whose version has since been replaced is marked superseded."""
    factories.ingest_text("Refunds are paid within 14 days now.", source_id="refunds")
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[traced.pk])).content.decode()
    row = html[html.index("refunds:v1:0") :]
    assert "superseded version" in row[: row.index("</tr>")]


def test_provenance_withholds_restricted_material(reviewer_user, staff_user, levels):
    """A reviewer outside a cited document's groups sees neither the candidate nor the context quoting it."""
    secret = factories.make_document("Secret pay scale.", source_id="pay", title="Pay", groups=["board"])
    chunk = factories.chunks_of(secret)[0]
    answer = make_answer(
        user=staff_user,
        paragraphs=[Para("Secret pay scale.", cites=[("S1", chunk)])],
        trace={"candidates": [{"chunk_id": chunk.chunk_id, "kept": True}], "context": "[S1] Secret pay scale."},
    )
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert "Secret pay scale" not in html and "pay:v1:0" not in html
    assert "withheld" in html


def test_provenance_without_a_trace_says_so(reviewer_user, staff_user):
    """An answer with no trace row still opens, and says nothing was recorded."""
    answer = make_answer(user=staff_user, state=Answer.State.ERROR)
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert "No trace was recorded" in html


def test_replay_without_js_goes_back_to_the_page(reviewer_user, traced):
    """Without htmx the replay link lands on the provenance page with ?replay=1."""
    response = client_for(reviewer_user).get(reverse("answer_replay", args=[traced.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("answer_provenance", args=[traced.pk]) + "?replay=1#replay"


def test_replay_runs_retrieval_again_and_marks_what_was_used(reviewer_user, traced):
    """The htmx replay lists what the index returns now, marking the chunk used then and superseded ones."""
    factories.ingest_text("Refunds are paid within 14 days, says the new policy.", source_id="refunds")
    html = client_for(reviewer_user).get(reverse("answer_replay", args=[traced.pk]), **HTMX).content.decode()
    assert html.lstrip().startswith('<div id="replay-body">')
    assert "refunds:v2:0" in html
    assert "<html" not in html


def test_replay_lists_the_chunk_the_answer_used_that_is_no_candidate_now(reviewer_user, admin_user_role, traced, doc):
    """A chunk kept then and absent from today's candidates gets its row, with why: its version was replaced, or its
    document was retired (or the search no longer finds it); relevance "—": nothing was scored today."""
    from rag_app.services.documents import document_retire

    client = client_for(reviewer_user)

    def row() -> str:
        html = client.get(reverse("answer_replay", args=[traced.pk]), **HTMX).content.decode()
        assert "0 chunks changed their fate." not in html
        return html[html.index(">refunds:v1:0<") :].split("</tr>")[0]

    factories.ingest_text("Parking permits are issued by facilities.", source_id="refunds")  # v2, off the topic
    assert 'data-reason="version_replaced"' in row() and "<td>—</td>" in row()
    document_retire(user=admin_user_role, document=doc)
    assert 'data-reason="document_retired"' in row()


def test_replay_without_js_renders_inline(reviewer_user, traced):
    """?replay=1 shows the replay table on the provenance page itself."""
    url = reverse("answer_provenance", args=[traced.pk]) + "?replay=1"
    html = client_for(reviewer_user).get(url).content.decode()
    replay = html[html.index('class="table replay-table"') :]
    assert '<tr class="was-used' in replay and "refunds:v1:0" in replay


def test_candidate_and_replay_links_open_the_passage_without_calling_it_cited(reviewer_user, traced):
    """A candidate's or a replay row's link opens the viewer on that chunk as a passage (?passage=); only the
    answer's own citations (the card, the source panel) link with ?chunk=, which the viewer labels cited."""
    url = reverse("answer_provenance", args=[traced.pk]) + "?replay=1"
    html = client_for(reviewer_user).get(url).content.decode()
    candidates = html[html.index('class="table candidates"') : html.index('class="table replay-table"')]
    replay = html[html.index('class="table replay-table"') :]
    assert 'href="/documents/refunds/v1/?passage=0#chunk-0">refunds:v1:0' in candidates
    assert 'href="/documents/refunds/v1/?passage=0#chunk-0">refunds:v1:0' in replay
    assert "?chunk=" not in candidates + replay
    assert 'class="hc-link" href="/documents/refunds/v1/?chunk=0#chunk-0"' in html


def test_a_candidate_of_a_vanished_document_is_withheld_from_reviewers(reviewer_user, traced):
    """Nobody can show that a reviewer may read a deleted document: its candidate and the raw context go."""
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[traced.pk])).content.decode()
    assert "gone:v1:0" not in html and "1 candidate from a document you cannot access is not shown" in html
    assert "PROMPT-TEXT" not in html and "refunds:v1:0" in html


def test_long_candidate_lists_fold_into_details(reviewer_user, staff_user):
    """Past the first rows, the rest of the candidates sit in a <details> element, none lost."""
    factories.make_document("Candidate text.", source_id="c")
    candidates = [
        {"chunk_id": f"c:v1:{i}", "source_id": "c", "kept": False, "reason": "below_threshold"} for i in range(20)
    ]
    answer = make_answer(user=staff_user, state=Answer.State.NO_EVIDENCE, trace={"candidates": candidates})
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    folded = html[html.index('<details class="more">') :]
    assert "8 more rows" in folded
    assert all(f"c:v1:{i}<" in html for i in range(20))
    assert "c:v1:19<" in folded and "c:v1:0<" not in folded


def test_the_replay_compares_like_with_like(reviewer_user, levels, settings):
    """A chunk the original run dropped as a duplicate is rejected as one ("enough of this document already",
    code duplicate_source) now and then, not a change; only a real difference is marked."""
    from rag_app import services

    settings.RAG = {**settings.RAG, "CHUNKS_PER_SOURCE": 1}  # a second kept chunk of a document is a duplicate
    text = "\n\n".join(f"Refund rule {i}: refunds for order type {i} are paid within 30 days." for i in range(12))
    factories.ingest_text(text, source_id="refund-rules")
    answer = services.ask(user=reviewer_user, question="Within how many days are refunds paid?")
    trace = answer.trace.candidates
    assert any(c.get("reason") == "duplicate_source" for c in trace), "the setup needs an assembly duplicate"
    html = client_for(reviewer_user).get(reverse("answer_replay", args=[answer.pk]), **HTMX).content.decode()
    assert (
        'rejected: <span class="reason" data-reason="duplicate_source" title="duplicate_source">enough of this '
        "document already</span>" in html
    )
    assert 'class="badge changed"' not in html and "0 chunks changed their fate." in html
    factories.ingest_text(text.replace("30 days", "45 days"), source_id="refund-rules")
    html = client_for(reviewer_user).get(reverse("answer_replay", args=[answer.pk]), **HTMX).content.decode()
    assert 'class="badge changed"' in html and "not a candidate" in html


def test_a_decision_stored_before_its_facts_shows_the_stored_words(reviewer_user, doc):
    """A trace written before decisions kept their data shows its stored detail (English) beside the reason's
    words in the reader's language; the code stays in the row's attributes."""
    detail = "on topic, but no two sentences hold the question's focus (best 0.31 < 0.50)"
    candidates = [{"chunk_id": "refunds:v1:0", "source_id": "refunds", "kept": False, "reason": "not_answering"}]
    candidates[0]["detail"] = detail
    answer = make_answer(user=reviewer_user, state=Answer.State.NO_EVIDENCE, trace={"candidates": candidates})
    client = client_for(reviewer_user)
    client.cookies["django_language"] = "zh-hans"
    html = client.get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert '<span class="reason" data-reason="not_answering" title="not_answering">未说明所问内容</span>' in html
    assert escape(detail) in html


def test_a_weak_paragraph_shows_its_support_beside_the_threshold(reviewer_user, doc):
    """The provenance page shows each paragraph's support score and the support threshold it was held to; the
    reader's page does not."""
    chunk = factories.chunks_of(doc)[0]
    answer = make_answer(
        user=reviewer_user,
        paragraphs=[Para("Refunds are paid within 45 days.", cites=[("S1", chunk)], weak=True, support=0.21)],
        trace={"settings_snapshot": {"min_support": 0.35}},
    )
    client = client_for(reviewer_user)
    html = client.get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert '<span class="support muted">support 0.21</span>' in html
    assert "<dt>Support threshold</dt><dd>0.35 " in html
    assert 'class="support muted"' not in client.get(answer.get_absolute_url()).content.decode()


def test_provenance_shows_each_candidates_level_as_ranked_and_what_changed_since(reviewer_user, levels):
    """The stored label and weight; today's where an admin changed them; a slug no level has now is said so; a
    trace row written before traces kept the label shows today's label."""
    from rag_app.services.levels import level_update

    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    chunk = factories.chunks_of("refunds")[0]
    row = {"source_id": "refunds", "version": 1, "relevance": 0.9, "kept": False, "reason": "below_threshold"}
    answer = make_answer(
        user=reviewer_user,
        paragraphs=[Para("Refunds are paid within 30 days.", cites=[("S1", chunk)])],
        trace={
            "candidates": [
                row | {"chunk_id": chunk.chunk_id, "level": "official", "level_label": "Official", "level_weight": 3.0},
                row | {"chunk_id": "refunds:v1:1", "level": "note", "level_label": "Note", "level_weight": 1.0},
                row | {"chunk_id": "refunds:v1:2", "level": "reviewed", "level_weight": 2.0},  # before labels
            ]
        },
    )
    admin = factories.make_admin("root")
    level_update(user=admin, level=levels["official"], slug="policy")
    level_update(user=admin, level=levels["note"], label="Team memo", weight=5.0)
    level_update(user=admin, level=levels["reviewed"], label="Checked")
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    cells = re.findall(r'<td class="level"[^>]*>(.*?)</td>', html, re.S)
    words = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip() for cell in cells]
    assert words == [
        "Official weight 3 no level has this code now",
        "Note weight 1 now Team memo, weight 5",
        "Checked weight 2",
    ]


def test_the_provenance_page_has_one_h1_and_the_answer_below_it(reviewer_user, traced):
    """The provenance page's h1 names it; the answer it shows sits under its h2 ("Answer as shown"): its question at
    h3 and its parts below, and no heading skips a level."""
    html = client_for(factories.make_admin()).get(reverse("answer_provenance", args=[traced.pk])).content.decode()
    levels = [int(n) for n in re.findall(r"<h([1-6])[\s>]", html[html.index("<main") :])]
    assert levels[0] == 1 and levels.count(1) == 1, levels
    assert all(b - a <= 1 for a, b in pairwise(levels)), levels
    assert '<h3 class="question" lang="en">Refund deadline?</h3>' in html
