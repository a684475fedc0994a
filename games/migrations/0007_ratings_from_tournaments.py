"""Ratings move from the tournaments app to the games app (issue 10: finishing a game rates it
in the same place). Only Django's state changes: the tables keep their names."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0006_bot_to_move_and_sweep_indexes"),
        ("tournaments", "0002_swiss"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Rating",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("rating", models.FloatField(default=1500.0)),
                        ("deviation", models.FloatField(default=350.0)),
                        ("volatility", models.FloatField(default=0.06)),
                        ("games", models.PositiveIntegerField(default=0)),
                        ("wins", models.PositiveIntegerField(default=0)),
                        ("draws", models.PositiveIntegerField(default=0)),
                        ("losses", models.PositiveIntegerField(default=0)),
                        ("points", models.PositiveIntegerField(default=0, help_text="sum of game points (R14) in rated games")),
                        ("points_per_game", models.FloatField(default=0.0)),
                        ("last_rated_at", models.DateTimeField(blank=True, null=True)),
                        ("user", models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name="rating", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "tournaments_rating",
                        "indexes": [models.Index(fields=["-rating"], name="rating_desc"), models.Index(fields=["last_rated_at"], name="rating_last_rated"), models.Index(fields=["-points_per_game", "-games"], name="rating_ppg")],
                    },
                ),
                migrations.CreateModel(
                    name="RatingChange",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
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
                        ("game", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="rating_changes", to="games.game")),
                        ("opponent", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="rating_changes", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "tournaments_ratingchange",
                        "ordering": ["user", "created_at", "id"],
                        "indexes": [models.Index(fields=["user", "-created_at"], name="rating_history")],
                        "constraints": [models.UniqueConstraint(fields=("game", "user"), name="one_change_per_game_and_player")],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
