"""The email log, from the games app (games 0026), in Django's state only: its table exists already
under the name it keeps (db_table); nothing is created. Its content type takes the new label."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from common.contenttypes import moved_content_types


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("games", "0026_notifications_app"),  # the table was made by the games app's migrations
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="EmailLog",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("event", models.CharField(max_length=20)),
                        (
                            "key",
                            models.CharField(help_text="what the email is about, e.g. game:12:ply:30", max_length=100),
                        ),
                        ("data", models.JSONField(default=dict)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("sent_at", models.DateTimeField(blank=True, null=True)),
                        ("attempts", models.PositiveSmallIntegerField(default=0)),
                        (
                            "send_after",
                            models.DateTimeField(
                                blank=True,
                                help_text="held back until then: a your-turn email waits a little, in case the player is there already",
                                null=True,
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, to=settings.AUTH_USER_MODEL),
                        ),
                    ],
                    options={
                        "db_table": "games_emaillog",
                        "indexes": [
                            models.Index(
                                condition=models.Q(("attempts__lt", 20), ("sent_at__isnull", True)),
                                fields=["created_at"],
                                name="email_unsent",
                            ),
                            models.Index(
                                condition=models.Q(("sent_at__isnull", True)), fields=["send_after"], name="email_held"
                            ),
                        ],
                        "constraints": [
                            models.UniqueConstraint(fields=("user", "event", "key"), name="one_email_per_event")
                        ],
                    },
                ),
            ],
        ),
        # its content type too
        moved_content_types("games", "notifications", ["emaillog"]),
    ]
