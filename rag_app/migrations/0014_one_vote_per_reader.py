"""One helpful / not-helpful vote per reader and answer (services.feedback): each reader's latest vote stays their
vote; an earlier one is kept, marked replaced, where it carries a comment (readers' words stay), and deleted where
it does not. The constraint follows in 0015, in a transaction of its own (PostgreSQL)."""

from django.db import migrations, models

VOTES = ("helpful", "not_helpful")


def keep_latest_votes(apps, schema_editor):
    Feedback = apps.get_model("rag_app", "Feedback")
    rows = (
        Feedback.objects.filter(kind__in=VOTES, user__isnull=False, replaced_at__isnull=True)
        .order_by("answer_id", "user_id", "-created_at", "-id")
        .values_list("pk", "answer_id", "user_id", "comment", "created_at")
    )
    latest = {}  # (answer, reader) -> when their latest vote was cast
    drop, replaced = [], {}
    for pk, answer_id, user_id, comment, created_at in rows.iterator():
        key = (answer_id, user_id)
        if key not in latest:
            latest[key] = created_at
        elif comment:
            replaced.setdefault(latest[key], []).append(pk)
        else:
            drop.append(pk)
    for start in range(0, len(drop), 500):
        Feedback.objects.filter(pk__in=drop[start : start + 500]).delete()
    for when, pks in replaced.items():
        Feedback.objects.filter(pk__in=pks).update(replaced_at=when)


class Migration(migrations.Migration):

    dependencies = [
        ("rag_app", "0013_answer_state_labels"),
    ]

    operations = [
        migrations.AddField(
            model_name="feedback",
            name="replaced_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(keep_latest_votes, migrations.RunPython.noop),
    ]
