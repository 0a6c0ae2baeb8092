"""Trial 39: a company moving its wiki into the assistant (Markdown and HTML exports, Word files). Each test is a
defect seen on such documents, asserting what a user expects; each failed on the code before its fix."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer, DocumentVersion
from tests import factories

HANDBOOK = (
    "# HR Handbook\n\n"
    "## Leave\n\n"
    "**Annual leave:** every employee gets **25 days** of paid annual leave per year, see the\n"
    '[leave calculator](https://intranet.example/hr/leave-calculator "Calculator").\n\n'
    "1. Ask your manager *by email*\n"
    "   at least `5` working days ahead.\n"
    "2. Record it in the <b>HR portal</b>.\n"
)


@pytest.mark.django_db
def test_a_markdown_quote_shows_the_text_not_its_markup(levels, staff_user):
    """A wiki's Markdown was quoted as written: "**Annual leave:** every employee gets **25 days** … see the
    [leave calculator](https://intranet.example/…)". The quote, the stored chunk and the viewer's text read as the
    page shows it."""
    result = factories.ingest_text(HANDBOOK, source_id="hr/handbook", file_name="handbook.md", level="official")
    answer = services.ask(user=staff_user, question="How many days of annual leave do I get?")
    assert answer.state == Answer.State.ANSWERED, answer.reason
    quoted = " ".join(p.text for p in answer.paragraphs.all())
    assert "every employee gets 25 days of paid annual leave per year" in quoted, quoted
    version = DocumentVersion.objects.get(pk=result.version_id)
    for text in [version.text, *(c.text for c in version.chunks.all())]:
        for markup in ("**", "](", "intranet.example", "<b>", "`"):
            assert markup not in text, (markup, text)
    assert "1. Ask your manager by email at least 5 working days ahead." in version.text


@pytest.mark.parametrize(
    "url",
    [
        "https://intranet/policies/remote",
        "http://wiki:8090/pages/123",
        "https://hr.acme.example/leave",
        "http://10.0.0.5/wiki",
    ],
)
def test_an_intranet_url_with_a_one_word_host_is_a_documents_url(url):
    """ "https://intranet/policies/remote" was refused as "not an http(s) URL" (the page: "Enter a valid URL."), while
    "http://localhost/x" passed: Django's rule takes only localhost without a dot. The upload service, the API, the
    upload page and the admin take it alike (one rule: validation.url_problem)."""
    from rag_app.forms import DocumentURLField
    from rag_app.validation import url_problem

    assert url_problem(url) is None
    assert DocumentURLField().clean(url) == url


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "ftp://intranet/x", "https://", "http://in valid/", "https://-bad-/x", "data:text/html,x"],
)
def test_what_is_no_web_address_is_still_refused(url):
    from django.core.exceptions import ValidationError

    from rag_app.forms import DocumentURLField
    from rag_app.validation import url_problem

    assert url_problem(url) is not None
    with pytest.raises(ValidationError):
        DocumentURLField().clean(url)


@pytest.mark.django_db
def test_the_api_and_the_admin_take_an_intranet_url(admin_client, admin_user, levels):
    """The API's upload and the admin's change form, end to end."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from rag_app.models import Document

    response = admin_client.post(
        "/api/v1/documents/?wait=1",
        {
            "file": SimpleUploadedFile("remote.txt", b"Remote work is allowed two days a week."),
            "url": "https://intranet/policies/remote",
            "source_id": "policies/remote",
            "level": "official",
        },
    )
    assert response.status_code in (200, 201), response.content
    document = Document.objects.get(source_id="policies/remote")
    assert document.url == "https://intranet/policies/remote"
    from django.contrib import admin
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/")
    request.user = admin_user
    form_class = admin.site._registry[Document].get_form(request, document, change=True)
    data = {"title": "Remote work", "url": "http://wiki:8090/pages/123"}
    form = form_class(data={**data, "level": "", "groups": []}, instance=document)
    assert form.is_valid(), form.errors
    assert form.save().url == "http://wiki:8090/pages/123"
    refused = form_class(data={**data, "url": "javascript:alert(1)", "level": "", "groups": []}, instance=document)
    assert not refused.is_valid() and "url" in refused.errors


@pytest.mark.django_db
def test_an_unknown_access_group_is_refused_by_the_api_as_the_cli_refuses_it(admin_client, levels):
    """A typo in a group on the API read "groups: Object with name=HR-Comp does not exist." (zh: "属性 name 为
    HR-Comp 的对象不存在。"); the CLI said "no access group named 'hrcomp' (an administrator creates groups first)".
    The upload and the PATCH say what the CLI says, in the reader's language."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    factories.make_group("hr-comp")
    upload = admin_client.post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("bands.txt", b"Band A is 50k."), "source_id": "hr/bands", "groups": "HR-Comp"},
    )
    assert upload.status_code == 400
    assert upload.json()["fields"]["groups"] == [
        "no access group named 'HR-Comp' (an administrator creates groups first)"
    ], upload.json()
    factories.ingest_text("Band A is 50k.", source_id="hr/bands")
    patch = admin_client.patch(
        "/api/v1/documents/hr/bands",
        {"groups": ["hr-comp", "HR-Comp"]},
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    )
    assert patch.status_code == 400
    assert (
        "HR-Comp" in str(patch.json())
        and "Object with" not in str(patch.json())
        and "对象不存在" not in str(patch.json())
    ), patch.json()


INFOSEC = (
    "ACME INFORMATION SECURITY POLICY\nVersion 2.0, effective 1 March 2026\n\n"
    "3. Devices\n3.1 Company laptops must have full-disk encryption enabled.\n"
    "3.2 Screens must lock automatically after 5 minutes of inactivity.\n\n"
    "4. Passwords\n4.1 Passwords must be at least 14 characters long.\n"
    "4.2 Passwords must be changed every 180 days, or immediately when a compromise is suspected.\n"
    "4.3 Passwords must never be shared, including with IT staff.\n\n"
    "5. Incidents\n5.1 Suspected security incidents must be reported to security@acme.example within 4 hours.\n"
)


def test_the_bound_or_measure_asked_and_a_modal_are_not_what_the_passage_must_write():
    """ "What's the minimum password length?" was "no answering passage": the policy's "at least 14 characters long"
    writes neither "minimum" nor "length". "How often do I have to change it?" wanted "have". The bound and the measure
    ask for a value (a quantity), as "how long" does; "have to" / "need to" is a modal, as "must" is."""
    from rag_app.pipeline.answerability import Asked, asked
    from rag_app.pipeline.textproc import query_terms

    assert query_terms("What's the minimum password length?") == ["password"]
    assert asked("What's the minimum password length?") is Asked.QUANTITY
    assert asked("What is the length of the probation period?") is Asked.QUANTITY
    assert "have" not in query_terms("How often do I have to change it?")
    assert query_terms("Do we need to register laptops?") == ["regist", "laptop"]
    # "length" naming a thing of its own stays a word the passage must write
    assert "length" in query_terms("What does the length field in the header mean?")


@pytest.mark.django_db
def test_a_password_question_and_its_follow_up_are_answered_from_the_policy(levels, staff_user):
    factories.ingest_text(INFOSEC, source_id="policies/infosec", file_name="infosec.txt", level="official")
    first = services.ask(user=staff_user, question="What's the minimum password length?")
    assert first.state == Answer.State.ANSWERED, first.reason
    text = " ".join(p.text for p in first.paragraphs.all())
    assert "at least 14 characters long" in text and "security incidents" not in text, text
    follow = services.ask(user=staff_user, question="how often do I have to change it?", parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert "every 180 days" in " ".join(p.text for p in follow.paragraphs.all())
    citation = first.paragraphs.first().citations.first()
    assert citation is not None and citation.chunk.section.endswith("4. Passwords"), citation.chunk.section


@pytest.mark.django_db
def test_a_follow_ups_related_passages_lack_the_earlier_questions_words_as_written(levels, staff_user):
    """ "and during probation?" after "How much notice must I give when I resign?" listed its related passage as
    "Does not mention: notic, resign": the earlier question's words as the search stems them. They read as that
    question writes them."""
    from rag_app.presentation import present_answer

    factories.ingest_text(
        "# Probation\n\nDuring probation, new employees meet their mentor every week and take the security course.\n",
        source_id="hr/probation",
        file_name="probation.md",
    )
    first = services.ask(user=staff_user, question="How much notice must I give when I resign?")
    follow = services.ask(user=staff_user, question="and during probation?", parent=first)
    assert follow.state == Answer.State.NO_EVIDENCE, follow.reason
    related = present_answer(follow, viewer=staff_user).related
    assert related, follow.reason
    lacks = [word for r in related for word in (r.lacks or ())]
    assert "notice" in lacks and "notic" not in lacks, lacks


@pytest.mark.parametrize(
    ("row", "decision"),
    [
        ({"kept": True, "uncited": True, "detail": "goes on with the list that a:v1:2 introduces"},
         "kept: given to the generator, not cited in the answer; goes on with the list that a:v1:2 introduces"),
        ({"kept": True, "uncited": False, "detail": "goes on with the list that a:v1:2 introduces"},
         "kept: goes on with the list that a:v1:2 introduces"),
        ({"kept": True, "uncited": True, "detail": ""}, "kept: given to the generator, not cited in the answer"),
        ({"kept": True, "uncited": False, "detail": ""}, "kept"),
        ({"kept": False, "reason": "below_threshold", "reason_label": "below threshold", "detail": "0.2 < 0.5"},
         "rejected: below threshold: 0.2 < 0.5"),
    ],
)  # fmt: skip
def test_a_candidates_decision_reads_as_a_sentence(row, decision):
    """The reviewer read "kept: given to the generator, not cited in the answer goes on with the list that
    licenses/apache-2.0:v1:27 introduces": the two notes ran together."""
    import html as html_lib
    import re

    from django.template.loader import render_to_string

    html = render_to_string("rag_app/_candidate_table.html", {"rows": [{"chunk_id": "a:v1:3", **row}]})
    cell = re.search(r'<td class="decision"[^>]*>(.*?)</td>', html, re.S)
    assert cell is not None
    assert html_lib.unescape(" ".join(re.sub(r"<[^>]+>", "", cell.group(1)).split())) == decision


@pytest.mark.parametrize(
    "url",
    [
        "https://intranet\u3000/",
        "https://intra\u200bnet/",
        "https://intra\u202enet/",
        "https://intra\ufeffnet/",
        "https://．/",
        "http://999.999.999.999/",
        "http://2130706433/",
        "http://1.2.3/",
    ],
)
def test_a_one_word_host_is_plain_ascii_and_no_number(url):
    """A review of the intranet rule: a one-word host of wide spaces, zero-width or bidi characters, or digits (an
    address written as an integer) was taken; it is one ASCII label with a letter in it."""
    from rag_app.validation import url_problem

    assert url_problem(url) is not None
