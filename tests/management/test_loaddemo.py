"""`manage.py loaddemo`: the bundled corpus and demo users, idempotent, admin edits survive re-runs."""

from __future__ import annotations

import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from rag_app.models import Chunk, Document, SourceLevel
from rag_app.services.levels import document_set_level

MANIFEST = Path(__file__).resolve().parents[2] / "demo" / "manifest.json"


def _load(credentials: Path) -> str:
    out = StringIO()
    call_command("loaddemo", "--credentials", str(credentials), stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.mark.django_db
def test_loaddemo_is_idempotent_and_prints_working_credentials(tmp_path: Path, levels: dict[str, SourceLevel]) -> None:
    """First run ingests every manifest file and creates admin/staff/reviewer; a re-run changes nothing,
    prints the same credentials, and keeps a level an admin changed meanwhile."""
    entries = json.loads(MANIFEST.read_text("utf-8"))["documents"]
    credentials = tmp_path / "creds.json"
    first = _load(credentials)
    assert first.count(" new\n") == len(entries)
    assert Document.objects.count() == len(entries)
    for entry in entries:
        doc = Document.objects.get(source_id=entry["source_id"])
        assert doc.level is not None and doc.level.slug == entry["level"]
        assert doc.title == entry["title"]
        assert sorted(doc.groups.values_list("name", flat=True)) == sorted(entry["groups"])
    assert {e["level"] for e in entries} == {"official", "reviewed", "note"}
    assert any(e["file"].endswith(".pdf") for e in entries) and any(e["file"].endswith(".md") for e in entries)
    assert Document.objects.filter(groups__name="research").exists()  # an access group, never a role group
    assert not Document.objects.filter(groups__name__in=("staff", "reviewer", "admin")).exists()

    passwords = dict(re.findall(r"user (\w+) / password (\S+)", first))
    assert set(passwords) == {"admin", "staff", "reviewer"}
    admin = authenticate(username="admin", password=passwords["admin"])
    assert admin is not None and admin.is_superuser and admin.groups.filter(name="admin").exists()
    reviewer = authenticate(username="reviewer", password=passwords["reviewer"])
    assert reviewer is not None and set(reviewer.groups.values_list("name", flat=True)) >= {"reviewer", "research"}
    assert oct(credentials.stat().st_mode & 0o777) == "0o600"

    gpl2 = Document.objects.get(source_id="licenses/gpl-2.0")
    document_set_level(user=admin, document=gpl2, level=levels["note"])
    chunk_count = Chunk.objects.count()

    second = _load(credentials)
    assert second.count(" unchanged\n") == len(entries) and " new\n" not in second
    assert dict(re.findall(r"user (\w+) / password (\S+)", second)) == passwords
    assert Chunk.objects.count() == chunk_count
    gpl2.refresh_from_db()
    assert gpl2.level == levels["note"]


@pytest.mark.django_db
def test_changed_password_is_not_printed_again(tmp_path: Path, levels: dict[str, SourceLevel]) -> None:
    """Once a demo user changes their password, loaddemo stops printing the stale one."""
    credentials = tmp_path / "creds.json"
    out = StringIO()
    call_command("loaddemo", "--credentials", str(credentials), "--manifest", str(_tiny_manifest(tmp_path)), stdout=out)
    from django.contrib.auth.models import User

    staff = User.objects.get(username="staff")
    staff.set_password("a-new-password-1")
    staff.save()
    out = StringIO()
    call_command("loaddemo", "--credentials", str(credentials), "--manifest", str(_tiny_manifest(tmp_path)), stdout=out)
    assert "user staff: password was changed since the demo set it; not shown" in out.getvalue()
    assert "user admin / password " in out.getvalue()


def _tiny_manifest(tmp_path: Path) -> Path:
    entry = next(e for e in json.loads(MANIFEST.read_text("utf-8"))["documents"] if e["file"].endswith(".txt"))
    manifest = tmp_path / "manifest.json"
    (tmp_path / Path(entry["file"]).name).write_bytes((MANIFEST.parent / entry["file"]).read_bytes())
    manifest.write_text(json.dumps({"documents": [{**entry, "file": Path(entry["file"]).name}]}), "utf-8")
    return manifest


@pytest.mark.django_db
def test_a_re_run_brings_back_no_document_an_admin_deleted_nor_a_role_an_admin_took(
    tmp_path: Path, levels: dict[str, SourceLevel]
) -> None:
    """`make run` runs loaddemo on every start: a demo document an admin deleted stays deleted (the README: deleting
    is for good), and a role an admin took from a demo user is not given back (a user trial saw both come back)."""
    from django.contrib.auth.models import User

    from rag_app.services.documents import document_delete

    credentials = tmp_path / "creds.json"
    _load(credentials)
    gone = Document.objects.order_by("source_id").first()
    assert gone is not None
    document_delete(user=None, document=gone, force=True)
    reviewer = User.objects.get(username="reviewer")
    reviewer.groups.remove(reviewer.groups.get(name="reviewer"))
    again = _load(credentials)
    assert f"{gone.source_id} skipped: deleted since it was loaded" in again
    assert not Document.objects.filter(source_id=gone.source_id).exists()
    assert not User.objects.get(username="reviewer").groups.filter(name="reviewer").exists()


@pytest.mark.django_db
def test_a_re_run_moves_a_demo_database_of_the_old_state_to_the_research_access_group(
    tmp_path: Path, levels: dict[str, SourceLevel]
) -> None:
    """A review finding: the demo's restricted document moved from the role group `reviewer` to the access group
    `research`, but a database loaded before kept it restricted to `reviewer` on every `make run`, and the demo's
    `reviewer` user never got `research`. A re-run gives the document the manifest's access groups and the users the
    group this run created; nothing else of theirs is taken, and a later re-run changes nothing."""
    from django.contrib.auth.models import Group, User

    entry = next(e for e in json.loads(MANIFEST.read_text("utf-8"))["documents"] if e["groups"])
    manifest = tmp_path / "manifest.json"
    (tmp_path / Path(entry["file"]).name).write_bytes((MANIFEST.parent / entry["file"]).read_bytes())
    manifest.write_text(json.dumps({"documents": [{**entry, "file": Path(entry["file"]).name}]}), "utf-8")
    credentials = tmp_path / "creds.json"

    def load() -> None:
        call_command("loaddemo", "--credentials", str(credentials), "--manifest", str(manifest), stdout=StringIO())

    load()
    # The old state: the document restricted to the role group, no `research` group, the reviewer without it.
    document = Document.objects.get(source_id=entry["source_id"])
    document.groups.set([Group.objects.get(name="reviewer")])
    Group.objects.filter(name="research").delete()
    reviewer = User.objects.get(username="reviewer")
    reviewer.groups.add(Group.objects.create(name="hr"))  # an admin's own change, kept
    staff = User.objects.get(username="staff")

    for _ in range(2):
        load()
        assert list(document.groups.values_list("name", flat=True)) == ["research"]
        assert set(reviewer.groups.values_list("name", flat=True)) == {"staff", "reviewer", "research", "hr"}
        assert set(staff.groups.values_list("name", flat=True)) == {"staff"}

    # Once the database is in the new state, an admin's edits win again.
    reviewer.groups.remove(Group.objects.get(name="research"))
    load()
    assert not reviewer.groups.filter(name="research").exists()
