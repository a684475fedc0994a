"""Lakes and courses stored once, keyed by the SHA-256 of their canonical JSON (issue 10):
every game's course JSON moves into ``LakeCourse`` and the game keeps the key."""

import hashlib
import json

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


def key_of(data):
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def store_courses(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    LakeCourse = apps.get_model("games", "LakeCourse")
    for game in Game.objects.only("pk", "course_json").iterator(chunk_size=500):
        data = game.course_json
        key = key_of(data)
        LakeCourse.objects.get_or_create(
            key=key, defaults={"data": data, "letter": data["course"]["letter"], "side": data["lake"]["side"]}
        )
        Game.objects.filter(pk=game.pk).update(course_id=key)


def courses_back(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    LakeCourse = apps.get_model("games", "LakeCourse")
    for row in LakeCourse.objects.iterator():
        Game.objects.filter(course_id=row.key).update(course_json=row.data)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0003_termination_length"),
    ]

    operations = [
        migrations.CreateModel(
            name="LakeCourse",
            fields=[
                ("key", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("data", models.JSONField(help_text='{"lake": ..., "course": ...} as in the game record')),
                ("letter", models.CharField(max_length=1)),
                ("side", models.CharField(choices=[("standard", "standard (dark blue)"), ("expert", "expert (light blue, more islands)")], max_length=8)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
        ),
        migrations.RenameField(model_name="game", old_name="course", new_name="course_json"),
        migrations.AddField(
            model_name="game",
            name="course",
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name="games",
                                    to="games.lakecourse"),
        ),
        migrations.RunPython(store_courses, courses_back),
        migrations.AlterField(model_name="game", name="course_json", field=models.JSONField(null=True)),
        migrations.RemoveField(model_name="game", name="course_json"),
        migrations.AlterField(
            model_name="game",
            name="course",
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="games",
                                    to="games.lakecourse"),
        ),
    ]
