"""The document a question names by its title (pipeline/naming.py), through the real ask: retrieval ranks it
first among the qualified, whatever its level, and a passage of another document that does not speak of it
does not answer. The licences are the real texts of the natural-question corpus and the demo corpus."""

from __future__ import annotations

from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from rag_app import services
from rag_app.models import Answer
from tests.factories import cited_sources, ingest_text

LICENSES = Path(__file__).resolve().parents[2] / "eval-data" / "natural" / "corpora" / "licenses"


@pytest.fixture
def licences(levels: object, tmp_path: Path) -> None:
    """The demo corpus (its GPL versions 2 and 3 are `reviewed`) and, as `official`, the GPL version 1, the
    Library GPL version 2 and the Artistic License."""
    call_command("loaddemo", "--credentials", str(tmp_path / "creds.json"), stdout=StringIO(), stderr=StringIO())
    for name, title in (
        ("GPL-1", "GNU General Public License, version 1"),
        ("LGPL-2", "GNU Library General Public License, version 2"),
        ("Artistic", 'The "Artistic License" (Perl)'),
    ):
        text = (LICENSES / f"{name}.txt").read_text(encoding="utf-8")
        ingest_text(text, source_id=f"official/{name}", title=title, level="official")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "question",
    [
        "Under GPL v2, may I charge a fee for the physical act of transferring a copy?",
        "GPL第二版是什么时候发布的？",
        # typed without capitals, as chat is: "gpl" (no English word) names the GPL as "GPL" does
        "under gpl v2 may i charge a fee for the physical act of transferring a copy",
        "gpl第二版是什么时候发布的",
        # and with caps lock on: "GPL" (no English word) and "V2" (a digit) still name version 2
        "UNDER GPL V2, CAN I CHARGE MONEY FOR THE PHYSICAL ACT OF TRANSFERRING A COPY?",
    ],
)
def test_the_version_the_question_names_is_quoted_before_an_official_sibling(
    licences: None, staff_user: object, question: str
) -> None:
    answer = services.ask(user=staff_user, question=question)
    assert answer.state == Answer.State.ANSWERED, (answer.reason, answer.trace.candidates)
    assert cited_sources(answer) == {"licenses/gpl-2.0"}
    first = answer.trace.candidates[0]
    assert first["source_id"] == "licenses/gpl-2.0" and first["kept"]


@pytest.mark.django_db
def test_another_licence_does_not_answer_for_the_one_named(licences: None, staff_user: object, settings: Any) -> None:
    # Room below the Artistic License's own passages: they are ranked first, and when they fill RAG_TOP_K (8 of
    # them qualify, depending on how its clauses are chunked) the other licences' passages are cut `over_budget`
    # unjudged, and the rule this test is about is never asked.
    settings.RAG = {**settings.RAG, "TOP_K": 16}
    answer = services.ask(user=staff_user, question="Does the Artistic License come with any warranty?")
    assert cited_sources(answer) <= {"official/Artistic"}
    screened = [c for c in answer.trace.candidates if c.get("reason") == "not_answering"]
    other = [c for c in screened if c["source_id"] != "official/Artistic"]
    # The rule fired: the GPL's warranty passages qualified on their words and were turned away for it.
    assert any(c["source_id"].startswith(("licenses/gpl", "official/GPL")) for c in other), screened
    assert all("of another document than the one the question names" in c["detail"] for c in other)


ZLIB_QUESTION = "What does the zlib license say about altered source versions?"
ZLIB = (
    "This software is provided 'as-is', without any express or implied warranty.\n\n"
    "Altered source versions must be plainly marked as such, and must not be misrepresented as being the original "
    "software.\n"
)


@pytest.mark.django_db
def test_a_licence_the_corpus_lacks_is_not_answered_from_another_and_a_hidden_one_changes_nothing(
    levels: object, staff_user: object
) -> None:
    """Asked of the MPL 2.0 alone, the question on the zlib license was answered from MPL's clause on altering the
    recipients' rights. It is now no evidence, with the MPL's passages related, not cited; and a zlib text restricted
    to a group the asker is not in changes nothing of what they get (it would tell them the text exists)."""
    from tests import factories

    ingest_text((LICENSES / "MPL-2.0.txt").read_text(encoding="utf-8"), source_id="official/MPL-2.0", title="MPL 2.0")
    alone = services.ask(user=staff_user, question=ZLIB_QUESTION)
    assert (alone.state, alone.reason) == (Answer.State.NO_EVIDENCE, "no_answering_passage"), alone.trace.candidates

    ingest_text(ZLIB, source_id="secret/zlib", title="zlib License", groups=["legal"])
    hidden = services.ask(user=staff_user, question=ZLIB_QUESTION)
    assert (hidden.state, hidden.reason) == (alone.state, alone.reason)
    for answer in (alone, hidden):  # every passage judged is turned away for the licence it does not name
        judged = [c for c in answer.trace.candidates if c.get("reason") == "not_answering"]
        assert judged and all(c["detail"] == "does not mention zlib, which the question names" for c in judged)
        assert all(not c["source_id"].startswith("secret/") for c in answer.trace.candidates)

    member = factories.make_user("lee", groups=("staff", "legal"))
    theirs = services.ask(user=member, question=ZLIB_QUESTION)
    assert theirs.state == Answer.State.ANSWERED and cited_sources(theirs) == {"secret/zlib"}


CLAUSE_QUESTION = "What is the Commons Clause and can it be added to the Apache license?"
CLAUSE = (
    "Commons Clause License Condition v1.0\n\n"
    "The Software is provided to you by the Licensor under the License, as defined below, subject to the following "
    "condition. The Commons Clause may be added to the Apache License 2.0 or to another open source license; it takes "
    "away the right to Sell the Software.\n"
)


@pytest.mark.django_db
def test_a_name_in_capitals_no_readable_passage_holds_is_not_answered_and_a_hidden_one_changes_nothing(
    levels: object, staff_user: object
) -> None:
    """Asked of the Apache License alone, the question on the Commons Clause was answered from Apache 2.0's "You may
    add Your own attribution notices". It is now no evidence; a Commons Clause text restricted to a group the asker is
    not in changes nothing of what they get, and a member of that group is answered from it."""
    from tests import factories

    apache = (Path(__file__).resolve().parents[2] / "demo" / "licenses" / "apache-2.0.md").read_text(encoding="utf-8")
    ingest_text(apache, source_id="official/Apache-2.0", file_name="apache-2.0.md", title="Apache License 2.0")
    alone = services.ask(user=staff_user, question=CLAUSE_QUESTION)
    assert (alone.state, alone.reason) == (Answer.State.NO_EVIDENCE, "no_answering_passage"), alone.trace.candidates

    ingest_text(CLAUSE, source_id="secret/commons-clause", title="Commons Clause", groups=["legal"])
    hidden = services.ask(user=staff_user, question=CLAUSE_QUESTION)
    assert (hidden.state, hidden.reason) == (alone.state, alone.reason)
    for answer in (alone, hidden):
        judged = [c for c in answer.trace.candidates if c.get("reason") == "not_answering"]
        assert judged and all(
            c["detail"] == "does not mention Commons Clause, which the question names" for c in judged
        )
        assert all(not c["source_id"].startswith("secret/") for c in answer.trace.candidates)

    member = factories.make_user("lee", groups=("staff", "legal"))
    theirs = services.ask(user=member, question=CLAUSE_QUESTION)
    assert theirs.state == Answer.State.ANSWERED and "secret/commons-clause" in cited_sources(theirs)


WORKPLACE = Path(__file__).resolve().parents[2] / "eval-data" / "workplace" / "corpora" / "workplace"


@pytest.fixture
def office_guides(levels: object) -> None:
    """The workplace set's two office guides, as written: the London one in English, the Shanghai one in Chinese."""
    for name, title in (
        ("london-office-guide.md", "London Office Guide"),
        ("shanghai-office-guide-zh.html", "上海办公室指南"),
    ):
        text = (WORKPLACE / name).read_text(encoding="utf-8")
        ingest_text(text, source_id=f"facilities/{name.split('.')[0]}", file_name=name, title=title, level="official")


@pytest.mark.django_db
def test_an_office_named_without_the_word_guide_names_its_guide(office_guides: None, staff_user: object) -> None:
    """ "上海办公室有淋浴间吗" names the 上海办公室指南 by 上海办公室 (its title less 指南): the London guide's showers,
    which the translation reads as 淋浴间 and 办公室, do not answer for the Shanghai office, which has none."""
    answer = services.ask(user=staff_user, question="上海办公室有淋浴间吗")
    assert "facilities/london-office-guide" not in cited_sources(answer)
    london = [c for c in answer.trace.candidates if c["source_id"] == "facilities/london-office-guide"]
    screened = [c for c in london if c.get("reason") == "not_answering"]
    # The rule fired: a London passage qualified on the translated words and was turned away for it.
    assert screened, london
    assert all("of another document than the one the question names" in c["detail"] for c in screened)
