from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("rag_app", "0014_one_vote_per_reader"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="feedback",
            constraint=models.UniqueConstraint(
                condition=models.Q(("kind__in", ["helpful", "not_helpful"]), ("replaced_at__isnull", True)),
                fields=("answer", "user"),
                name="one_vote_per_reader",
            ),
        ),
    ]
