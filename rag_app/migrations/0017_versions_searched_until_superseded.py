"""Which versions retrieval reads is its own field (`searched`): the current version, and the version in force while
its successor is scheduled for later (`superseded_on`, the successor's effective date). Until now only the current
version was indexed, so `searched` starts as `is_current`."""

from django.db import migrations, models


def searched_as_current(apps, schema_editor):
    DocumentVersion = apps.get_model("rag_app", "DocumentVersion")
    DocumentVersion.objects.filter(is_current=False).update(searched=False)


class Migration(migrations.Migration):

    dependencies = [
        ("rag_app", "0016_citation_level_as_answered"),
    ]

    operations = [
        migrations.AddField(
            model_name="documentversion",
            name="searched",
            field=models.BooleanField(default=True),
        ),
        migrations.AddField(
            model_name="documentversion",
            name="superseded_on",
            field=models.DateField(blank=True, null=True),
        ),
        migrations.RunPython(searched_as_current, migrations.RunPython.noop),
    ]
