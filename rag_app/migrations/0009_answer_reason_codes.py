"""No-evidence reasons renamed (issue 12, item 6): `no_matches` is now `no_match` (nothing related
was found) and `no_qualified_sources` is now `below_threshold` (related passages, none strong
enough to answer). Stored answers are renamed so old and new answers read, filter and count alike;
the reverse migration restores the old codes.
"""

from django.db import migrations

RENAMED = {"no_matches": "no_match", "no_qualified_sources": "below_threshold"}


def _rename(apps, mapping):
    Answer = apps.get_model("rag_app", "Answer")
    for old, new in mapping.items():
        Answer.objects.filter(reason=old).update(reason=new)


def forward(apps, schema_editor):
    _rename(apps, RENAMED)


def backward(apps, schema_editor):
    _rename(apps, {new: old for old, new in RENAMED.items()})


class Migration(migrations.Migration):
    dependencies = [("rag_app", "0008_vector_embedder")]

    operations = [migrations.RunPython(forward, backward)]
