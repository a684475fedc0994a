"""The email log leaves the games app for its own (games.notifications, label ``notifications``): in
Django's state only. Its table stays as it is, under the name it had (db_table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0025_live_app"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.DeleteModel(
                    name="EmailLog",
                ),
            ],
        ),
    ]
