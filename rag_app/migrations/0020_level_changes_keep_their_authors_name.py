# A level, access or title change keeps its author's name: the account's row became NULL when the account was deleted,
# and the change log then said "—", as for the operator. Existing rows get their author's current name.

from django.conf import settings
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_usernames(apps, schema_editor):
    LevelChange = apps.get_model("rag_app", "LevelChange")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    name = User.objects.filter(pk=OuterRef("user_id")).values("username")[:1]
    LevelChange.objects.filter(user__isnull=False).update(username=Subquery(name))


class Migration(migrations.Migration):

    dependencies = [
        ('rag_app', '0019_level_changes_outlive_documents'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='levelchange',
            name='username',
            field=models.CharField(blank=True, max_length=150),
        ),
        migrations.RunPython(fill_usernames, migrations.RunPython.noop),
    ]
