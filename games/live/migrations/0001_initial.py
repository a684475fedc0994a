"""The live event log's models, from the games app (games 0025), in Django's state only: their
tables exist already under the names they keep (db_table); nothing is created. Their content
types take the new label."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from common.contenttypes import moved_content_types


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0025_live_app"),  # the tables were made by the games app's migrations
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="LiveEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("move", "Move"),
                                    ("start", "Start"),
                                    ("finish", "Finish"),
                                    ("seats", "Seats"),
                                    ("challenge", "Challenge"),
                                    ("chat", "Chat"),
                                ],
                                max_length=10,
                            ),
                        ),
                        ("game_id", models.BigIntegerField(blank=True, null=True)),
                        ("challenge_id", models.BigIntegerField(blank=True, null=True)),
                        ("users", models.JSONField(blank=True, default=list)),
                        ("data", models.JSONField(default=dict)),
                    ],
                    options={
                        "db_table": "games_liveevent",
                        "indexes": [models.Index(fields=["created_at"], name="live_event_created")],
                    },
                ),
                migrations.CreateModel(
                    name="LiveSeen",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "game_id",
                            models.BigIntegerField(blank=True, help_text="empty: the user's event stream", null=True),
                        ),
                        ("at", models.DateTimeField()),
                        (
                            "user",
                            models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
                        ),
                    ],
                    options={
                        "db_table": "games_liveseen",
                        "constraints": [
                            models.UniqueConstraint(fields=("user", "game_id"), name="live_seen_once"),
                            models.UniqueConstraint(
                                condition=models.Q(("game_id__isnull", True)),
                                fields=("user",),
                                name="live_seen_stream_once",
                            ),
                        ],
                    },
                ),
            ],
        ),
        # their content types too
        moved_content_types("games", "live", ["liveevent", "liveseen"]),
    ]
