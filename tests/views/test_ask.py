"""The ask page and an answer's page: footnotes, hover cards, badges, panels, history, roles."""

from __future__ import annotations

import re
from itertools import pairwise

import pytest
from django.urls import reverse

from rag_app.models import Answer
from tests import factories
from tests.views.answers import Para, make_answer
from tests.views.conftest import HTMX, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def refund_doc(levels):
    return factories.make_document(
        "Refunds are paid within 30 days of purchase. Receipts are required for every refund.",
        source_id="policies/refunds",
        title="Refund policy",
    )


@pytest.fixture
def answered(staff_user, refund_doc):
    chunk = factories.chunks_of(refund_doc)[0]
    return make_answer(
        user=staff_user,
        paragraphs=[
            Para("Refunds are paid within 30 days of purchase.", cites=[("S1", chunk)]),
            Para("Gift cards are never refunded.", insufficient=True),
        ],
    )


def numbers(html: str, css_class: str) -> list[str]:
    return re.findall(rf'class="{css_class}"[^>]*data-number="(\d+)"', html)


def test_it_shows_the_ask_form_to_staff(staff_user):
    """Staff get the question box, posting to the ask view, with htmx attributes and a real action."""
    html = client_for(staff_user).get(reverse("ask")).content.decode()
    assert 'hx-post="/"' in html and 'action="/"' in html
    assert 'id="ask-progress"' in html
    assert "You have not asked anything yet." in html


def test_it_sends_anonymous_users_to_log_in(client):
    """Anonymous users are redirected to the login page, not shown an error."""
    response = client.get(reverse("ask"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_it_forbids_users_without_a_role(outsider):
    """A logged-in user outside the staff/reviewer/admin groups gets 403."""
    assert client_for(outsider).get(reverse("ask")).status_code == 403


def test_it_numbers_the_marker_card_and_panel_the_same(staff_user, answered):
    """S1 is [1] on the paragraph, in the hover card and in the source panel."""
    html = client_for(staff_user).get(answered.get_absolute_url()).content.decode()
    assert numbers(html, "fn-marker") == ["1"]
    assert numbers(html, "hc-number") == ["1"]
    assert "1" in numbers(html, "src-number")
    assert 'id="src-1"' in html


def test_it_fills_the_hover_card(staff_user, answered):
    """The card holds title, level badge, similarity apart from level, locator, version, snippet and link."""
    html = client_for(staff_user).get(answered.get_absolute_url()).content.decode()
    card = html[html.index('class="hovercard"') : html.index('class="hc-link"') + 200]
    assert "Refund policy" in card
    assert "badge level level-official" in card and ">Official<" in card
    assert "similarity 0.81" in card
    assert "no location provided" in card
    assert "version 1" in card
    assert "<mark>Refunds are paid within 30 days of purchase.</mark>" in card
    assert 'href="/documents/policies/refunds/v1/?chunk=0#chunk-0"' in card


def test_it_badges_a_paragraph_without_citations(staff_user, answered):
    """A paragraph with no valid citation carries the insufficient-evidence badge and no marker."""
    html = client_for(staff_user).get(answered.get_absolute_url()).content.decode()
    para = html[html.index('id="para-1"') :]
    para = para[: para.index("</div>")]
    assert "insufficient evidence" in para
    assert "fn-marker" not in para


def test_it_marks_weak_support_quietly(staff_user, refund_doc):
    """Weak support gets its own mark, not the insufficient badge."""
    chunk = factories.chunks_of(refund_doc)[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Receipts help.", cites=[("S1", chunk)], weak=True)])
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert 'class="weak-mark"' in html
    assert 'class="badge insufficient"' not in html


def test_it_labels_extractive_answers_as_quotations(staff_user, answered):
    """Extractive answers say they are verbatim quotations and render as blockquotes."""
    html = client_for(staff_user).get(answered.get_absolute_url()).content.decode()
    assert "verbatim quotations" in html
    assert '<blockquote class="para-text" lang="en">' in html


def test_it_does_not_call_llm_answers_quotations(staff_user, refund_doc):
    """A model-written answer is not labelled as a quotation."""
    chunk = factories.chunks_of(refund_doc)[0]
    answer = make_answer(
        user=staff_user, mode=Answer.Mode.LLM, paragraphs=[Para("Thirty days.", cites=[("S1", chunk)])]
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "verbatim quotations" not in html


def test_it_lists_each_document_once_in_first_citation_order(staff_user, levels):
    """Two chunks of one document appear under one source entry; documents follow first citation."""
    long_text = "\n\n".join(f"Section {i}. " + ("Refund rules apply to purchases. " * 12) for i in range(3))
    a = factories.make_document(long_text, source_id="a-doc", title="Alpha")
    b = factories.make_document("Beta says the deadline is 14 days.", source_id="b-doc", title="Beta")
    a_chunks, b_chunk = factories.chunks_of(a), factories.chunks_of(b)[0]
    assert len(a_chunks) >= 2
    answer = make_answer(
        user=staff_user,
        paragraphs=[
            Para("Beta first.", cites=[("S2", b_chunk)]),
            Para("Alpha twice.", cites=[("S1", a_chunks[0]), ("S3", a_chunks[1])]),
        ],
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    panel = html[html.index('class="source-list"') :]
    assert panel.count('class="source"') == 2
    assert panel.index('data-source="b-doc"') < panel.index('data-source="a-doc"')
    assert 'id="src-1"' in panel and 'id="src-3"' in panel and 'id="src-2"' in panel


def test_it_shows_the_source_id_when_the_title_is_missing(staff_user, levels):
    """Rule 7: no title means the source_id is shown, never an invented title."""
    doc = factories.make_document("Plain text with no heading at all.", source_id="untitled-7", title="")
    answer = make_answer(user=staff_user, paragraphs=[Para("Plain text.", cites=[("S1", factories.chunks_of(doc)[0])])])
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert '<span class="hc-title" lang="en">untitled-7</span>' in html


def test_it_shows_the_no_evidence_panel(staff_user):
    """No evidence is its own panel: what was searched, nothing qualified, what to do next."""
    answer = make_answer(
        user=staff_user, question="What is the moon made of?", state=Answer.State.NO_EVIDENCE, reason="no_match"
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert 'class="panel no-evidence nothing-related"' in html and "Nothing related was found" in html
    assert "What is the moon made of?" in html
    assert "Rephrase the question" in html and "Try other terms" in html and "Ask a reviewer" in html
    assert "no_match" in html


def test_the_no_evidence_panel_explains_the_reason_and_the_search_terms(staff_user):
    """A known reason code is explained in words, next to the terms that were searched for."""
    answer = make_answer(
        user=staff_user,
        question="What is the moon made of?",
        state=Answer.State.NO_EVIDENCE,
        reason="below_threshold",
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "none was relevant enough to answer from" in html
    assert "<code>moon</code>" in html


def test_it_shows_the_error_state(staff_user):
    """An answer in the error state says so instead of showing an empty answer."""
    answer = make_answer(user=staff_user, state=Answer.State.ERROR, reason="generator_timeout")
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "The answer could not be produced" in html and "generator_timeout" in html
    assert "Something went wrong while answering this question." in html  # a reason the table does not know


def test_the_error_state_says_what_went_wrong_in_the_readers_language(staff_user):
    """A known reason is explained (what happened, what to do), in the reader's language, the code kept."""
    answer = make_answer(user=staff_user, state=Answer.State.ERROR, reason="sources_changed")
    client = client_for(staff_user)
    html = client.get(answer.get_absolute_url()).content.decode()
    assert "was deleted while the question was being answered. Ask it again." in html
    assert "Something went wrong" not in html and "<code>sources_changed</code>" in html
    client.cookies["django_language"] = "zh-hans"
    html = client.get(answer.get_absolute_url()).content.decode()
    assert "删除" in html and "<code>sources_changed</code>" in html
    # every stored error reason of the ask service has its sentence (a new one must add it)
    from rag_app.presentation import ERROR_REASONS
    from rag_app.services.ask import EMBEDDER_MESSAGES, EMPTY_ANSWER, INTERNAL_ERROR, SOURCES_CHANGED

    stored = {INTERNAL_ERROR, SOURCES_CHANGED, EMPTY_ANSWER, *EMBEDDER_MESSAGES}
    assert stored <= set(ERROR_REASONS)


def test_it_names_the_disagreeing_sources_in_a_banner(staff_user, levels):
    """A conflicting answer names each disagreeing source with its marker."""
    a = factories.make_document("The deadline is 30 days.", source_id="old-policy", title="Old policy")
    b = factories.make_document("The deadline is 14 days.", source_id="new-policy", title="New policy")
    answer = make_answer(
        user=staff_user,
        conflict=True,
        paragraphs=[
            Para("The deadline is 30 days.", cites=[("S1", factories.chunks_of(a)[0])]),
            Para("The deadline is 14 days.", cites=[("S2", factories.chunks_of(b)[0])]),
        ],
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    banner = html[html.index('class="banner conflict"') :]
    banner = banner[: banner.index("</div>")]
    assert "Old policy" in banner and 'href="#src-1"' in banner
    assert "New policy" in banner and 'href="#src-2"' in banner


def test_it_escapes_document_and_model_text(staff_user, levels):
    """Payloads in titles, snippets, paragraphs and questions come out as text, never markup."""
    doc = factories.make_document(
        "<script>alert(1)</script> <img src=x onerror=alert(2)> refunds",
        source_id="xss",
        title="<b onmouseover=x>T</b>",
    )
    answer = make_answer(
        user=staff_user,
        question="<script>alert(3)</script>?",
        mode=Answer.Mode.LLM,
        paragraphs=[Para("<img src=y onerror=alert(4)>", cites=[("S1", factories.chunks_of(doc)[0])])],
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "<script>alert" not in html
    assert "<img src=" not in html
    assert "<b onmouseover" not in html
    assert "&lt;script&gt;alert(3)&lt;/script&gt;" in html


def test_it_hides_citations_of_documents_outside_the_users_groups(staff_user, levels):
    """A restricted document never shows, not even in a hover card or the source panel."""
    secret = factories.make_document(
        "Board salaries are secret.", source_id="board/pay", title="Board pay", groups=["board"]
    )
    answer = make_answer(
        user=staff_user, paragraphs=[Para("Salaries.", cites=[("S1", factories.chunks_of(secret)[0])])]
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "Board pay" not in html and "board/pay" not in html and "Salaries" not in html
    assert "rests on a document you cannot access" in html


def test_it_keeps_answers_private_to_their_asker(staff_user, other_staff, answered):
    """Another staff user gets 404 for someone else's answer."""
    assert client_for(other_staff).get(answered.get_absolute_url()).status_code == 404


def test_reviewers_may_open_anyones_answer(reviewer_user, answered):
    """Reviewers can open any answer's page."""
    assert client_for(reviewer_user).get(answered.get_absolute_url()).status_code == 200


def test_it_renders_only_the_answer_partial_for_htmx(staff_user, answered):
    """An htmx request for an answer gets the swap target alone, not the whole page."""
    html = client_for(staff_user).get(answered.get_absolute_url(), **HTMX).content.decode()
    assert "<html" not in html and 'class="answer"' in html


def test_it_lists_the_users_own_questions(staff_user, other_staff, answered):
    """History shows the user's questions only."""
    make_answer(user=other_staff, question="Someone else's question")
    for url in (reverse("ask"), reverse("history")):
        html = client_for(staff_user).get(url).content.decode()
        assert "How long is the refund deadline?" in html
        assert "Someone else" not in html


def test_history_paginates_as_a_partial_for_htmx(staff_user, answered):
    """The history list is its own swap target."""
    html = client_for(staff_user).get(reverse("history"), **HTMX).content.decode()
    assert html.lstrip().startswith('<div id="history-list">')


def test_it_rejects_an_empty_question(staff_user):
    """An empty question is a form error (400), not an answer."""
    response = client_for(staff_user).post(reverse("ask"), {"question": "  "})
    assert response.status_code == 400
    assert Answer.objects.count() == 0


def test_it_returns_the_form_error_as_a_partial_for_htmx(staff_user):
    """htmx gets the error inside the answer target, with a 200 so htmx swaps it in."""
    response = client_for(staff_user).post(reverse("ask"), {"question": ""}, **HTMX)
    assert response.status_code == 200
    assert 'class="panel error"' in response.content.decode()


def test_asking_without_js_redirects_to_the_stored_answer(staff_user, refund_doc):
    """A plain form post runs the real pipeline, then redirects (post/redirect/get) to the answer page."""
    response = client_for(staff_user).post(reverse("ask"), {"question": "How many days until refunds are paid?"})
    answer = Answer.objects.get()
    assert response.status_code == 302 and response["Location"] == answer.get_absolute_url()
    assert answer.user == staff_user


def test_asking_with_htmx_returns_the_answer_partial(staff_user, refund_doc):
    """htmx gets the answer partial, the refreshed history out of band, and the answer's URL to push."""
    response = client_for(staff_user).post(
        reverse("ask"), {"question": "How many days until refunds are paid?"}, **HTMX
    )
    html = response.content.decode()
    answer = Answer.objects.get()
    assert response.status_code == 200 and "<html" not in html
    assert f'data-answer="{answer.pk}"' in html
    assert 'id="history" class="history" hx-swap-oob="true"' in html
    assert response["HX-Push-Url"] == answer.get_absolute_url()


def test_an_answer_is_titled_by_its_question_on_its_page_and_after_an_htmx_ask(staff_user, refund_doc):
    """The tab and the history entry name the question: the answer's page by its <title>, an htmx ask by a <title>
    at the top level of the swapped response (htmx sets document.title from it). Cut to 60 characters, escaped."""
    question = "How many days until refunds are paid <b>in full</b> to a customer who paid by card?"
    response = client_for(staff_user).post(reverse("ask"), {"question": question}, **HTMX)
    html = response.content.decode()
    assert html.startswith("<title>How many days until refunds are paid &lt;b&gt;in full&lt;/b&gt; to a cu…")
    assert html.count("<title>") == 1 and html.index("</title>") < html.index('class="answer"')
    page = client_for(staff_user).get(Answer.objects.get().get_absolute_url()).content.decode()
    assert (
        "<title>How many days until refunds are paid &lt;b&gt;in full&lt;/b&gt; to a cu… · Document assistant</title>"
        in page
    )
    assert "<title>Ask · Document assistant</title>" in client_for(staff_user).get(reverse("ask")).content.decode()


def headings(html: str) -> list[int]:
    return [int(n) for n in re.findall(r"<h([1-6])[\s>]", html[html.index("<main") :])]


def test_the_ask_page_and_an_answers_page_open_with_one_h1_and_skip_no_level(staff_user, answered, refund_doc):
    """The ask page's h1 says what it is for (for a screen reader; the form's label says it to the eye); an answer's
    page has its question as its h1 and its parts one level below, whatever the answer's state. An htmx swap
    leaves the page the pushed URL gives: the answer's h1, and the ask page's h1 emptied out of band (a form error
    swapped in brings the ask page's h1 back)."""
    client = client_for(staff_user)
    ask_page = client.get(reverse("ask")).content.decode()
    assert headings(ask_page)[0] == 1 and headings(ask_page).count(1) == 1
    assert '<div id="ask-heading"><h1 class="sr-only">Ask a question</h1></div>' in ask_page
    nothing = make_answer(user=staff_user, question="Gluons?", state=Answer.State.NO_EVIDENCE, reason="no_match")
    failed = make_answer(user=staff_user, question="Broken?", state=Answer.State.ERROR, reason="llm_timeout")
    for answer in (answered, nothing, failed):
        page = client.get(answer.get_absolute_url()).content.decode()
        levels = headings(page)
        assert levels[0] == 1 and levels.count(1) == 1, (answer.question, levels)
        assert all(b - a <= 1 for a, b in pairwise(levels)), (answer.question, levels)
        assert f'<h1 class="question" lang="en">{answer.question}</h1>' in page
        assert '<div id="ask-heading"></div>' in page
        swapped = client.get(answer.get_absolute_url(), **HTMX).content.decode()
        assert '<div id="ask-heading" hx-swap-oob="true"></div>' in swapped
        shown = page[page.index('<div id="answer"') : page.index('<aside id="history"')]
        assert re.findall(r"<h[1-6][\s>]", swapped) == re.findall(r"<h[1-6][\s>]", shown), answer.question
    error = client.post(reverse("ask"), {"question": " "}, **HTMX).content.decode()
    assert '<div id="ask-heading" hx-swap-oob="true"><h1 class="sr-only">Ask a question</h1></div>' in error
    assert "<title>Ask · Document assistant</title>" in error


def test_the_question_snippets_and_related_excerpts_carry_their_own_language(staff_user, levels):
    """On the English interface a Chinese question, card title and snippet, source and related excerpt say zh; an
    English excerpt on the Chinese interface says en (the page's lang is the interface's)."""
    zh = factories.make_document(
        "退款须在购买之日起三十天内申请，逾期不予受理。", source_id="zh/refunds", title="退款政策"
    )
    chunk = factories.chunks_of(zh)[0]
    answer = make_answer(
        user=staff_user, question="退款多久到账？", paragraphs=[Para(chunk.text, cites=[("S1", chunk)])]
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert '<h1 class="question" lang="zh">' in html and '<span class="hc-title" lang="zh">退款政策</span>' in html
    assert (
        '<span class="hc-snippet" lang="zh" role="group"' in html and '<blockquote class="snippet" lang="zh">' in html
    )
    assert '<span class="source-title" lang="zh">退款政策</span>' in html
    factories.make_document("Parking permits are issued by the facilities desk.", source_id="parking")
    candidates = [{"chunk_id": "parking:v1:0", "source_id": "parking", "kept": False, "reason": "below_threshold",
                   "relevance": 0.31}]  # fmt: skip
    related = make_answer(
        user=staff_user,
        question="Who issues parking permits?",
        state=Answer.State.NO_EVIDENCE,
        reason="below_threshold",
        trace={"candidates": candidates},
    )
    client = client_for(staff_user)
    client.cookies["django_language"] = "zh-hans"
    html = client.get(related.get_absolute_url()).content.decode()
    assert '<html lang="zh-hans">' in html and '<h1 class="question" lang="en">' in html
    assert '<span class="related-excerpt" lang="en">Parking permits' in html


def test_every_page_offers_a_skip_link_to_the_main_content_first(staff_user, answered):
    """A keyboard user's first Tab stop on every page is the skip link to <main>, which takes focus."""
    for url in (reverse("ask"), answered.get_absolute_url(), reverse("document_list"), reverse("history")):
        html = client_for(staff_user).get(url).content.decode()
        body = html[html.index("<body") :]
        assert body[body.index(">") + 1 :].lstrip().startswith('<a class="skip-link" href="#main">Skip to main'), url
        assert '<main id="main" tabindex="-1">' in html


def test_a_question_nothing_supports_gets_the_no_evidence_panel(staff_user, refund_doc):
    """Through the real pipeline, an unrelated question lands on the no-evidence panel."""
    response = client_for(staff_user).post(reverse("ask"), {"question": "Quantum chromodynamics gluon?"}, **HTMX)
    assert Answer.objects.get().state == Answer.State.NO_EVIDENCE
    assert 'class="panel no-evidence' in response.content.decode()


def test_an_htmx_history_restore_gets_the_whole_page(staff_user, answered):
    """The back button after a pushed URL (htmx history restore) needs the full page, not the partial."""
    html = (
        client_for(staff_user)
        .get(answered.get_absolute_url(), HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true")
        .content.decode()
    )
    assert "<html" in html and 'class="answer"' in html


def test_an_expired_session_during_an_htmx_ask_goes_to_the_login_page_and_back(client):
    """htmx gets HX-Redirect (the window goes to log in), never the login form inside the answer panel;
    after login the ask page comes back with the question filled in."""
    response = client.post(
        reverse("ask"),
        {"question": "How long is the refund window?"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/",
    )
    assert response.status_code == 204 and not response.content
    target = response["HX-Redirect"]
    assert target.startswith("/accounts/login/?next=")
    from urllib.parse import parse_qs, urlsplit

    back = parse_qs(urlsplit(target).query)["next"][0]
    assert back == "/?q=How+long+is+the+refund+window%3F"


def test_the_ask_form_is_prefilled_from_q(staff_user):
    """?q= puts the interrupted question back in the form."""
    html = client_for(staff_user).get(reverse("ask"), {"q": "Refund window?"}).content.decode()
    assert "Refund window?</textarea>" in html


def test_a_plain_request_without_a_session_still_redirects_to_login(client):
    """Without htmx: the usual 302 to the login page with next."""
    response = client.get(reverse("history"))
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/history/"


def test_related_passages_that_were_not_enough_are_listed_not_cited(staff_user, levels):
    """Below the threshold: up to three closest readable passages, linked to the viewer, no footnotes;
    a hidden document's passage is never among them."""
    factories.make_document("Parking permits are issued by the facilities desk.", source_id="parking")
    factories.make_document("Parking fines are paid at reception.", source_id="hr/fines", groups=["hr"])
    candidates = [
        {"chunk_id": "parking:v1:0", "source_id": "parking", "kept": False, "reason": "below_threshold",
         "relevance": 0.31},
        {"chunk_id": "hr/fines:v1:0", "source_id": "hr/fines", "kept": False, "reason": "below_threshold",
         "relevance": 0.4},
    ]  # fmt: skip
    answer = make_answer(
        user=staff_user,
        question="How much is a parking permit?",
        state=Answer.State.NO_EVIDENCE,
        reason="below_threshold",
        trace={"candidates": candidates},
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "Related passages, but none answers the question" in html and "Related, not enough to answer" in html
    assert "Parking permits are issued" in html and "/documents/parking/v1/?passage=0#chunk-0" in html
    assert "?chunk=" not in html  # the viewer must not call a related passage cited
    assert "Parking fines" not in html and 'class="fn-marker"' not in html


def test_a_no_evidence_answer_says_which_question_words_no_related_passage_holds(staff_user, levels):
    """Rule 11, telling the user how to proceed: each related passage says which of the question's words it
    does not mention (as the question writes them), and the words none of them mentions are named. A hidden
    document's candidate counts for nothing: what it holds or lacks is not shown, nor used."""
    factories.make_document("Parking permits are issued by the facilities desk.", source_id="parking")
    factories.make_document("Bicycle parking is free.", source_id="bikes")
    factories.make_document("Scooter permits cost 10 euros.", source_id="hr/x", groups=["hr"])
    candidates = [
        {"chunk_id": "parking:v1:0", "source_id": "parking", "kept": False, "reason": "below_threshold",
         "relevance": 0.31, "held": [{"term": "park", "how": "word", "as": ""}],
         "missing": ["scooter", "their", "cost"]},
        {"chunk_id": "bikes:v1:0", "source_id": "bikes", "kept": False, "reason": "not_answering",
         "relevance": 0.3, "held": [], "missing": ["scooter", "permit", "cost"]},
        {"chunk_id": "hr/x:v1:0", "source_id": "hr/x", "kept": False, "reason": "below_threshold",
         "relevance": 0.4, "held": [{"term": "scooter", "how": "word", "as": ""}], "missing": ["park"]},
    ]  # fmt: skip
    answer = make_answer(
        user=staff_user,
        question="What do parking permits for Scooters cost their owners?",
        state=Answer.State.NO_EVIDENCE,
        reason="below_threshold",
        trace={"candidates": candidates, "threshold": 0.5},
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert 'Does not mention: <span lang="en">Scooters, cost<' in html
    assert 'Does not mention: <span lang="en">Scooters, permits, cost<' in html
    assert "None of the related passages mentions Scooters, cost." in html
    assert "10 euros" not in html and 'Does not mention: <span lang="en">parking' not in html
    related = html.split("Related, not enough to answer")[1].split("Ask a reviewer")[0]
    assert "their" not in related  # a function word tells the asker nothing to rephrase
    body = client_for(staff_user).get(f"/api/v1/answers/{answer.pk}").json()  # the API says the same
    assert [r["lacks"] for r in body["related"]] == [["Scooters", "cost"], ["Scooters", "permits", "cost"]]
    assert body["unmatched_words"] == ["Scooters", "cost"]
    # an answer asked before the trace kept the words: nothing claimed
    old = make_answer(
        user=staff_user,
        question="What do parking permits cost?",
        state=Answer.State.NO_EVIDENCE,
        reason="below_threshold",
        trace={"candidates": [{k: v for k, v in candidates[0].items() if k not in ("held", "missing")}]},
    )
    html = client_for(staff_user).get(old.get_absolute_url()).content.decode()
    assert "Parking permits are issued" in html and "Does not mention" not in html and "None of the related" not in html


def test_candidates_far_below_the_threshold_are_not_offered_as_related(staff_user, levels):
    """A passage under half the threshold is noise, not a related passage: nothing is listed."""
    factories.make_document("Parking permits are issued by the facilities desk.", source_id="parking")
    candidates = [{"chunk_id": "parking:v1:0", "source_id": "parking", "kept": False, "reason": "below_threshold",
                   "relevance": 0.05}]  # fmt: skip
    answer = make_answer(
        user=staff_user,
        question="What is the moon made of?",
        state=Answer.State.NO_EVIDENCE,
        reason="no_match",
        trace={"candidates": candidates, "threshold": 0.5},
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "Parking permits are issued" not in html and "Related, not enough to answer" not in html


def test_the_scope_is_asked_within_remembered_and_shown(staff_user, levels):
    """Checking a level narrows the question; the next visit offers it again; the answer says so."""
    factories.ingest_text("Travel is reimbursed within 30 days.", source_id="policy/t", level="official")
    factories.ingest_text("Travel is reimbursed within 10 days, an old note says.", source_id="notes/t", level="note")
    client = client_for(staff_user)
    client.post(reverse("ask"), {"question": "Within how many days is travel reimbursed?", "scope_levels": ["note"]})
    answer = Answer.objects.get()
    assert answer.scope == {"levels": ["note"]}
    html = client.get(answer.get_absolute_url()).content.decode()
    assert "Asked within" in html and "<code>Note</code>" in html  # the level's label, as the form offers it
    again = client.get(reverse("ask")).content.decode()
    assert re.search(r'<input type="checkbox" name="scope_levels" value="note"[^>]*checked', again)


def test_a_no_evidence_answer_within_a_scope_says_it_searched_within_it(staff_user, levels):
    """Nothing in the chosen scope answers: the panel says the search was within that scope, not "the documents you
    can access" (which would read as: nothing anywhere)."""
    factories.ingest_text("Travel is reimbursed within 30 days.", source_id="policy/t", level="official")
    client = client_for(staff_user)
    client.post(reverse("ask"), {"question": "Within how many days is travel reimbursed?", "scope_levels": ["note"]})
    html = client.get(Answer.objects.get().get_absolute_url()).content.decode()
    assert "within the scope chosen above" in html
    client.post(reverse("ask"), {"question": "What is the capital of Mongolia?"})
    html = client.get(Answer.objects.order_by("-pk").first().get_absolute_url()).content.decode()
    assert "within the scope chosen above" not in html and "We searched the documents you can access for" in html


def test_a_scope_naming_a_hidden_document_is_refused(staff_user, levels):
    """The scope rule runs on the form: nothing is asked, the error names the problem."""
    factories.make_document("Secret.", source_id="hr/x", groups=["hr"])
    response = client_for(staff_user).post(reverse("ask"), {"question": "Secret?", "scope_documents": ["hr/x"]})
    assert response.status_code == 400 and "Unknown documents in the scope" in response.content.decode()
    assert not Answer.objects.exists()


def test_the_document_picker_finds_readable_documents_only(staff_user, levels):
    """?doc_q= (htmx) lists matching readable documents as scope checkboxes."""
    factories.make_document("Open.", source_id="handbook/open", title="Staff handbook")
    factories.make_document("Hidden.", source_id="handbook/hr", title="HR handbook", groups=["hr"])
    html = client_for(staff_user).get(reverse("ask"), {"doc_q": "handbook"}, **HTMX).content.decode()
    assert 'name="scope_documents" value="handbook/open"' in html and "handbook/hr" not in html
    assert "<html" not in html


def test_a_follow_up_is_asked_from_the_answer_page(staff_user, levels):
    """The answer offers "Ask a follow-up"; the form carries the parent; the new answer links back."""
    factories.ingest_text("Travel is reimbursed within 30 days.", source_id="policy/t")
    client = client_for(staff_user)
    client.post(reverse("ask"), {"question": "Within how many days is travel reimbursed?"})
    first = Answer.objects.get()
    page = client.get(first.get_absolute_url()).content.decode()
    assert f"/?parent={first.pk}" in page
    form = client.get(reverse("ask"), {"parent": first.pk}).content.decode()
    assert "Follow-up to" in form and f'name="parent" value="{first.pk}"' in form
    client.post(reverse("ask"), {"question": "And is that counted in working days?", "parent": first.pk})
    follow = Answer.objects.exclude(pk=first.pk).get()
    assert follow.parent == first
    assert "Follow-up to" in client.get(follow.get_absolute_url()).content.decode()


def test_an_htmx_follow_up_leaves_the_box_as_the_answers_own_page_has_it(staff_user, levels):
    """After a follow-up's answer swaps in, the box above is no longer a follow-up to the question before it (the
    page a reload of the pushed URL gives has a plain box); a refused follow-up keeps the box as it was."""
    factories.ingest_text("Travel is reimbursed within 30 days.", source_id="policy/t")
    client = client_for(staff_user)
    client.post(reverse("ask"), {"question": "Within how many days is travel reimbursed?"})
    first = Answer.objects.get()
    html = client.post(
        reverse("ask"), {"question": "And in working days?", "parent": first.pk}, **HTMX
    ).content.decode()
    oob = re.search(r'<div id="follow-up" hx-swap-oob="true">(.*?)</div>', html, re.S)
    assert oob is not None
    assert "Follow-up to" not in oob.group(1) and 'name="parent"' in oob.group(1)
    assert f'value="{first.pk}"' not in oob.group(1)
    reloaded = client.get(Answer.objects.exclude(pk=first.pk).get().get_absolute_url()).content.decode()
    assert re.search(r'<div id="follow-up">(.*?)</div>', reloaded, re.S).group(1).strip() == oob.group(1).strip()
    refused = client.post(reverse("ask"), {"question": "And\x07then?", "parent": first.pk}, **HTMX).content.decode()
    assert "control or non-text characters" in refused and 'id="follow-up"' not in refused


def test_a_follow_up_to_someone_elses_answer_is_refused(staff_user, other_staff, levels):
    """The parent must be an answer the asker may read."""
    theirs = make_answer(user=other_staff)
    response = client_for(staff_user).post(reverse("ask"), {"question": "And then?", "parent": theirs.pk})
    assert response.status_code == 400 and not Answer.objects.filter(parent=theirs).exists()


def test_the_empty_ask_page_orients(staff_user, levels):
    """What is indexed (per level, last update) and example questions drawn from the corpus."""
    factories.ingest_text("# Leave\n\n## Parental leave\n\nSixteen weeks are paid.", source_id="hr/leave.md",
                          file_name="leave.md", title="Leave policy")  # fmt: skip
    html = client_for(staff_user).get(reverse("ask")).content.decode()
    assert "1 document is open to you" in html and "last updated" in html
    assert "What does “Leave policy” say about Parental leave?" in html
    assert "/?q=What%20does" in html


def test_an_old_answer_links_the_current_version_of_its_source(staff_user, levels):
    """The hover card and the source panel say the cited version was replaced and link the current one."""
    factories.ingest_text("Refunds within 30 days.", source_id="refunds", title="Refunds")
    chunk = factories.chunks_of("refunds")[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Refunds within 30 days.", cites=[("S1", chunk)])])
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "a newer version exists" not in html
    factories.ingest_text("Refunds within 14 days.", source_id="refunds")
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    card = html[html.index('class="hovercard"') : html.index('class="source-list"')]
    panel = html[html.index('class="source-list"') :]
    for part in (card, panel):
        assert "a newer version exists" in part and 'href="/documents/refunds/v2/">read version 2</a>' in part
    assert 'href="/documents/refunds/v1/?chunk=0#chunk-0"' in panel  # the cited text stays where it was


def test_a_related_passage_of_an_old_version_links_the_current_one(staff_user, levels):
    factories.ingest_text(
        "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt.", source_id="refunds"
    )
    from rag_app.services import ask

    answer = ask(user=staff_user, question="退款可以退到信用卡吗？")  # related; the policy does not say
    factories.ingest_text(
        "Refund policy. Refunds are accepted within 14 days of purchase with the original receipt.", source_id="refunds"
    )
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    related = html[html.index('class="related"') :]
    related = related[: related.index("</ul>")]
    assert "a newer version exists" in related and 'href="/documents/refunds/v2/">read version 2</a>' in related


def test_the_document_picker_says_when_more_documents_match_than_it_lists(staff_user, levels, settings):
    """Past PICKER_RESULTS matches the list says so (it announced "20 documents found" when 30 matched), and hidden
    documents are not counted: exactly PICKER_RESULTS readable ones plus hidden ones is no "more"."""
    from rag_app.views.ask import PICKER_RESULTS

    for i in range(PICKER_RESULTS):
        factories.make_document(f"Open {i}.", source_id=f"handbook/open-{i:02}", title=f"Handbook {i}")
    factories.make_document("Hidden.", source_id="handbook/hr", title="HR handbook", groups=["hr"])
    client = client_for(staff_user)
    html = client.get(reverse("ask"), {"doc_q": "handbook"}, **HTMX).content.decode()
    assert f"{PICKER_RESULTS} documents found" in html and "More than" not in html
    factories.make_document("Open extra.", source_id="handbook/open-99", title="Handbook extra")
    html = client.get(reverse("ask"), {"doc_q": "handbook"}, **HTMX).content.decode()
    assert html.count('name="scope_documents"') == PICKER_RESULTS
    assert f"More than {PICKER_RESULTS} documents match" in html and "documents found" not in html
