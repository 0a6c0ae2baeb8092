"""`manage.py check --database default`: a document with a role group among its access groups is named (W002)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import Group
from django.core import checks
from django.core.management import call_command

from rag_app.checks import no_role_group_as_access_group
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_document_with_a_role_group_is_named_for_an_administrator(levels):
    """A review finding: a document given a role group before the rule (the demo's `reviewer`) kept it silently. The
    check names up to 10 such documents and says to replace the role group with an access group."""
    research = factories.make_group("research")
    reviewer, _ = Group.objects.get_or_create(name="reviewer")
    factories.make_document(source_id="open/doc").groups.set([research])
    assert no_role_group_as_access_group(databases=["default"]) == []
    for n in range(12):
        factories.make_document(source_id=f"old/doc-{n:02}").groups.set([reviewer, research])
    [warning] = no_role_group_as_access_group(databases=["default"])
    assert warning.level == checks.WARNING and warning.id == "rag_app.W002"
    assert warning.msg.startswith("12 document(s) have a role group")
    assert "'old/doc-00'" in warning.msg and "'old/doc-09'" in warning.msg and "'old/doc-10'" not in warning.msg
    assert "and 2 more" in warning.msg and "open/doc" not in warning.msg
    assert "replace it with an access group" in (warning.hint or "")
    assert no_role_group_as_access_group() == []  # database checks run only when asked for
    out = StringIO()
    call_command("check", "--database", "default", stdout=out, stderr=out)
    assert "rag_app.W002" in out.getvalue()
