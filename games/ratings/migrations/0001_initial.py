"""The rating models, from the games app (games 0023), in Django's state only: their tables exist
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
        ("games", "0023_ratings_app"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Rating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("rating", models.FloatField(default=1500.0)),
                        ("deviation", models.FloatField(default=350.0)),
                        ("volatility", models.FloatField(default=0.06)),
                        ("last_rated_at", models.DateTimeField(blank=True, null=True)),
                        ("games", models.PositiveIntegerField(default=0)),
                        ("wins", models.PositiveIntegerField(default=0)),
                        ("draws", models.PositiveIntegerField(default=0)),
                        ("losses", models.PositiveIntegerField(default=0)),
                        (
                            "points",
                            models.PositiveIntegerField(default=0, help_text="sum of game points (R14) in rated games"),
                        ),
                        ("points_per_game", models.FloatField(default=0.0)),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tournaments_rating",
                        "indexes": [
                            models.Index(fields=["-rating"], name="rating_desc"),
                            models.Index(fields=["last_rated_at"], name="rating_last_rated"),
                            models.Index(fields=["-points_per_game", "-games"], name="rating_ppg"),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="RatingChange",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("score", models.FloatField(help_text="1 win, 0.5 draw, 0 loss")),
                        ("rating_before", models.FloatField()),
                        ("deviation_before", models.FloatField()),
                        ("volatility_before", models.FloatField()),
                        ("rating_after", models.FloatField()),
                        ("deviation_after", models.FloatField()),
                        ("volatility_after", models.FloatField()),
                        ("opponent_rating", models.FloatField()),
                        ("opponent_deviation", models.FloatField()),
                        ("points", models.PositiveSmallIntegerField(default=0)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating_changes",
                                to="games.game",
                            ),
                        ),
                        (
                            "opponent",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="rating_changes",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "tournaments_ratingchange",
                        "ordering": ["user", "created_at", "id"],
                        "indexes": [models.Index(fields=["user", "-created_at"], name="rating_history")],
                        "constraints": [
                            models.UniqueConstraint(fields=("game", "user"), name="one_change_per_game_and_player")
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="SeriesRating",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("rating", models.FloatField(default=1500.0)),
                        ("deviation", models.FloatField(default=350.0)),
                        ("volatility", models.FloatField(default=0.06)),
                        ("last_rated_at", models.DateTimeField(blank=True, null=True)),
                        ("series", models.PositiveIntegerField(default=0)),
                        ("wins", models.PositiveIntegerField(default=0, help_text="series won outright")),
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="series_rating",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_seriesrating",
                        "indexes": [models.Index(fields=["-rating"], name="series_rating_desc")],
                    },
                ),
                migrations.CreateModel(
                    name="SeriesRatingChange",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("place", models.PositiveSmallIntegerField()),
                        ("score", models.FloatField(help_text="pairwise wins + half draws, out of the other players")),
                        ("rating_before", models.FloatField()),
                        ("rating_after", models.FloatField()),
                        ("deviation_after", models.FloatField()),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        (
                            "game",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="series_rating_changes",
                                to="games.game",
                            ),
                        ),
                        (
                            "user",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="series_rating_changes",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "db_table": "games_seriesratingchange",
                        "constraints": [
                            models.UniqueConstraint(fields=("game", "user"), name="one_change_per_series_and_player")
                        ],
                    },
                ),
            ],
        ),
        # their content types too: the staff's permissions and the admin's log stay with them
        moved_content_types("games", "ratings", ["rating", "ratingchange", "seriesrating", "seriesratingchange"]),
    ]
