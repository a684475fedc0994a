"""The rating models leave the games app for their own (games.ratings, label ``ratings``): in Django's
state only. Their tables stay as they are, under the names they had (db_table)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0022_one_game_cleanup"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name="ratingchange",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="ratingchange",
                    name="opponent",
                ),
                migrations.RemoveField(
                    model_name="ratingchange",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="seriesrating",
                    name="user",
                ),
                migrations.RemoveField(
                    model_name="seriesratingchange",
                    name="game",
                ),
                migrations.RemoveField(
                    model_name="seriesratingchange",
                    name="user",
                ),
                migrations.DeleteModel(
                    name="Rating",
                ),
                migrations.DeleteModel(
                    name="RatingChange",
                ),
                migrations.DeleteModel(
                    name="SeriesRating",
                ),
                migrations.DeleteModel(
                    name="SeriesRatingChange",
                ),
            ],
        ),
    ]
