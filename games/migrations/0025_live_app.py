"""The live event log's models leave the games app for their own (games.live, label ``live``): in
Django's state only. Their tables stay as they are, under the names they had (db_table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0024_social_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(
                    name="LiveEvent",
                ),
                migrations.DeleteModel(
                    name="LiveSeen",
                ),
            ],
        ),
    ]
