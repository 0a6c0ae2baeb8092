"""Each citation keeps its document's level as it was when the answer was made: label and weight beside the slug
(services.answers stores them from the search's record). Citations stored before: the weight their trace's
candidate row recorded (the one they were ranked with), else the level's weight now; the label the level has now
(nothing older was kept), or the slug where no level has it any more."""

from django.db import migrations, models


def levels_as_answered(apps, schema_editor):
    SourceLevel = apps.get_model("rag_app", "SourceLevel")
    Citation = apps.get_model("rag_app", "Citation")
    Trace = apps.get_model("rag_app", "Trace")
    levels = {
        slug: (label, weight) for slug, label, weight in SourceLevel.objects.values_list("slug", "label", "weight")
    }
    rows = (
        Citation.objects.exclude(level_slug="")
        .order_by("paragraph__answer_id", "pk")
        .values_list("pk", "level_slug", "chunk__chunk_id", "paragraph__answer_id")
    )
    answer, ranked = None, {}
    batch = []
    for pk, slug, chunk_id, answer_id in rows.iterator():
        if answer_id != answer:
            answer = answer_id
            candidates = Trace.objects.filter(answer_id=answer_id).values_list("candidates", flat=True).first()
            ranked = {
                c.get("chunk_id"): c.get("level_weight")
                for c in (candidates if isinstance(candidates, list) else [])
                if isinstance(c, dict) and isinstance(c.get("level_weight"), (int, float))
            }
        label, weight_now = levels.get(slug, (slug, None))
        weight = ranked.get(chunk_id, weight_now)
        batch.append(Citation(pk=pk, level_label=label[:100], level_weight=None if weight is None else float(weight)))
        if len(batch) >= 500:
            Citation.objects.bulk_update(batch, ["level_label", "level_weight"])
            batch = []
    if batch:
        Citation.objects.bulk_update(batch, ["level_label", "level_weight"])


class Migration(migrations.Migration):

    dependencies = [
        ("rag_app", "0015_one_vote_per_reader_constraint"),
    ]

    operations = [
        migrations.AddField(
            model_name="citation",
            name="level_label",
            field=models.CharField(blank=True, max_length=100),
        ),
        migrations.AddField(
            model_name="citation",
            name="level_weight",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(levels_as_answered, migrations.RunPython.noop),
    ]
