"""The chat models leave the games app for their own (games.social, label ``social``): in Django's
state only. Their tables stay as they are, under the names they had (db_table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0023_ratings_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name="chatreport",
                    name="message",
                ),
                migrations.RemoveField(
                    model_name="chatmute",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="chatmute",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="chatreport",
                    name="reporter",
                ),
                migrations.DeleteModel(
                    name="ChatMessage",
                ),
                migrations.DeleteModel(
                    name="ChatMute",
                ),
                migrations.DeleteModel(
                    name="ChatReport",
                ),
            ],
        ),
    ]
