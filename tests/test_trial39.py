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
