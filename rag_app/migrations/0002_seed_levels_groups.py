"""Seed the three source levels and the three role groups (idempotent; reverse leaves data alone)."""

from django.db import migrations

LEVELS = [
    ("official", "Official", 3.0, "Approved, authoritative documents."),
    ("reviewed", "Reviewed", 2.0, "Checked by a reviewer, not formally approved."),
    ("note", "Note", 1.0, "Working notes and drafts: answer narrowly."),
]
GROUPS = ["staff", "reviewer", "admin"]


def seed(apps, schema_editor):
    SourceLevel = apps.get_model("rag_app", "SourceLevel")
    Group = apps.get_model("auth", "Group")
    for slug, label, weight, description in LEVELS:
        SourceLevel.objects.get_or_create(
            slug=slug, defaults={"label": label, "weight": weight, "description": description}
        )
    for name in GROUPS:
        Group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("rag_app", "0001_initial"),
    ]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
