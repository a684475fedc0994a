"""Ratings now live in the games app (games.0007); the tables stay as they are."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("tournaments", "0003_tiebreak_order_and_initial_colour"),
        ("games", "0007_ratings_from_tournaments"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name="RatingChange"),
                migrations.DeleteModel(name="Rating"),
            ],
            database_operations=[],
        ),
    ]
