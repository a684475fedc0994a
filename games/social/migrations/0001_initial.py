"""The chat models, from the games app (games 0024), in Django's state only: their tables exist
already under the names they keep (db_table); nothing is created. Their content types take the
new label."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from common.contenttypes import moved_content_types


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0024_social_app"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="ChatMessage",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("text", models.CharField(max_length=500)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="chat", to="games.game"
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="chat_messages",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_chatmessage",
                        "ordering": ["game", "created_at", "id"],
                    },
                ),
                migrations.CreateModel(
                    name="ChatMute",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE, related_name="chat_mutes", to="games.game"
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                help_text="the player who muted",
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_chatmute",
                    },
                ),
                migrations.CreateModel(
                    name="ChatReport",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("reason", models.CharField(blank=True, max_length=200)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("resolved", models.BooleanField(default=False, help_text="a staff member has dealt with it")),
                        (
                            "message",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="reports",
                                to="social.chatmessage",
                            ),
                        ),
                        (
                            "reporter",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_chatreport",
                        "ordering": ["resolved", "-created_at"],
                    },
                ),
                migrations.AddIndex(
                    model_name="chatmessage",
                    index=models.Index(fields=["game", "-created_at"], name="chat_by_game"),
                ),
                migrations.AddConstraint(
                    model_name="chatmute",
                    constraint=models.UniqueConstraint(fields=("game", "user"), name="one_mute_per_game_and_player"),
                ),
                migrations.AddConstraint(
                    model_name="chatreport",
                    constraint=models.UniqueConstraint(fields=("message", "reporter"), name="one_report_per_message"),
                ),
            ],
        ),
        # their content types too: the staff's permissions and the admin's log stay with them
        moved_content_types("games", "social", ["chatmessage", "chatmute", "chatreport"]),
    ]
