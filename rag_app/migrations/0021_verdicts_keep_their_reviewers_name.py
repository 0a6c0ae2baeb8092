# A verdict keeps its reviewer's name: the account's row became NULL when the account was deleted, and the answer's
# review history and the API then named no reviewer. Existing verdicts get their reviewer's current name.

from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_reviewer_names(apps, schema_editor):
    AnswerReview = apps.get_model("rag_app", "AnswerReview")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    name = User.objects.filter(pk=OuterRef("reviewer_id")).values("username")[:1]
    AnswerReview.objects.filter(reviewer__isnull=False).update(reviewer_name=Subquery(name))


class Migration(migrations.Migration):

    dependencies = [
        ('rag_app', '0020_level_changes_keep_their_authors_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='answerreview',
            name='reviewer_name',
            field=models.CharField(blank=True, max_length=150),
        ),
        migrations.RunPython(fill_reviewer_names, migrations.RunPython.noop),
    ]
