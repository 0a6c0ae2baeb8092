# A document's level, access and title changes outlive the document: the row keeps its source_id and its
# document becomes NULL on deletion (it was deleted with it, and the change log forgot who changed what).
# Existing rows get their document's source_id. old_value / new_value hold a title's 500 characters.

import django.db.models.deletion
import rag_app.models
from django.db import migrations, models


def fill_source_ids(apps, schema_editor):
    LevelChange = apps.get_model("rag_app", "LevelChange")
    Document = apps.get_model("rag_app", "Document")
    for document_id, source_id in Document.objects.filter(level_changes__isnull=False).distinct().values_list(
        "pk", "source_id"
    ):
        LevelChange.objects.filter(document_id=document_id).update(source_id=source_id)


class Migration(migrations.Migration):

    dependencies = [
        ('rag_app', '0018_source_ids_one_unicode_form'),
    ]

    operations = [
        migrations.AddField(
            model_name='levelchange',
            name='source_id',
            field=rag_app.models.SourceIdField(blank=True, max_length=500),
        ),
        migrations.RunPython(fill_source_ids, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='levelchange',
            name='document',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='level_changes', to='rag_app.document'),
        ),
        migrations.AlterField(
            model_name='levelchange',
            name='new_value',
            field=models.CharField(blank=True, max_length=500),
        ),
        migrations.AlterField(
            model_name='levelchange',
            name='old_value',
            field=models.CharField(blank=True, max_length=500),
        ),
    ]
