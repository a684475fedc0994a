"""The compact form of every stored course (games.engine.compact), which is what a process reads."""

from django.db import migrations, models


def fill(apps, schema_editor):
    from games.engine.compact import course_compact
    from games.engine.record import course_from_json, grid_json

    LakeCourse = apps.get_model("games", "LakeCourse")
    for row in LakeCourse.objects.iterator(chunk_size=200):
        row.compact = course_compact(course_from_json({"grid": grid_json(), **row.data}))
        LakeCourse.objects.filter(pk=row.pk).update(compact=row.compact)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0007_ratings_from_tournaments"),
    ]

    operations = [
        migrations.AddField(
            model_name="lakecourse",
            name="compact",
            field=models.TextField(default="", help_text="the same, as games.engine.compact writes it: what a process reads to play"),
            preserve_default=False,
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
