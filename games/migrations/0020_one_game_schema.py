"""One game for any number of boats (issue 25), step 1 of 3: the columns a game of any ruleset
needs are added beside the old ones (a series' number, its ruleset, seats before the start, a
race per history row, who an event is for); nothing is moved or dropped yet (0021 moves the
series in, 0022 drops what is left of the old tables)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0019_idempotent_series_actions'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # a series' rows have no Yellow and Red; the columns go in 0022
        migrations.AlterField(
            model_name='game',
            name='yellow',
            field=models.ForeignKey(null=True, blank=True, on_delete=django.db.models.deletion.PROTECT, related_name='games_as_yellow', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name='game',
            name='red',
            field=models.ForeignKey(null=True, blank=True, on_delete=django.db.models.deletion.PROTECT, related_name='games_as_red', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='game',
            name='course_keys',
            field=models.JSONField(blank=True, default=list, help_text='LakeCourse keys of every race (one lake)'),
        ),
        migrations.AddField(
            model_name='game',
            name='created_by',
            field=models.ForeignKey(blank=True, help_text='who opened it in the lobby (the boxed game)', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='games_made', to=settings.AUTH_USER_MODEL),
        ),
        migrations.AddField(
            model_name='game',
            name='first_start',
            field=models.PositiveSmallIntegerField(blank=True, help_text="the boxed game: race A's start player (R15, by lot)", null=True),
        ),
        migrations.AddField(
            model_name='game',
            name='race',
            field=models.PositiveSmallIntegerField(default=0, help_text='0-based index of the race being played'),
        ),
        migrations.AddField(
            model_name='game',
            name='rules_version',
            field=models.PositiveSmallIntegerField(default=2, help_text="the boxed game: the version of R18/R19's details it is played, scored and replayed by (games.engine.race), fixed when it is created; 1 for series created before versions existed"),
        ),
        migrations.AddField(
            model_name='game',
            name='ruleset',
            field=models.CharField(choices=[('online', 'online rules (two boats)'), ('boxed', 'boxed game (2-6 boats, three races)')], default='online', max_length=8),
        ),
        migrations.AddField(
            model_name='game',
            name='score_variant',
            field=models.BooleanField(default=False, help_text="R19's score variant (the boxed game), fixed"),
        ),
        migrations.AddField(
            model_name='game',
            name='seats_wanted',
            field=models.PositiveSmallIntegerField(default=2, help_text='the boats it is played with'),
        ),
        migrations.AddField(
            model_name='game',
            name='series_number',
            field=models.PositiveIntegerField(blank=True, help_text='a game of the boxed rules: its number as a series (/series/<n>/, /api/series/<n>/; the id a series had before issue 25 moved series into games)', null=True, unique=True),
        ),
        migrations.AddField(
            model_name='game',
            name='started_at',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='liveevent',
            name='users',
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name='move',
            name='race',
            field=models.PositiveSmallIntegerField(default=0, help_text='the race it happened in (0-based)'),
        ),
        migrations.AddField(
            model_name='seat',
            name='carried',
            field=models.PositiveSmallIntegerField(default=0, help_text='damage counters carried into this race (R20)'),
        ),
        migrations.AddField(
            model_name='seat',
            name='joined_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddField(
            model_name='seat',
            name='left',
            field=models.CharField(blank=True, help_text='resign or timeout: left a series (R18)', max_length=12),
        ),
        migrations.AddField(
            model_name='seat',
            name='place',
            field=models.PositiveSmallIntegerField(blank=True, help_text="in a series' table (R19)", null=True),
        ),
        migrations.AddField(
            model_name='seriesratingchange',
            name='game',
            field=models.ForeignKey(null=True, on_delete=django.db.models.deletion.CASCADE, related_name='series_rating_changes', to='games.game'),
        ),
        migrations.AlterField(
            model_name='game',
            name='course',
            field=models.ForeignKey(blank=True, help_text='the course of the race being played (none before the start)', null=True, on_delete=django.db.models.deletion.PROTECT, related_name='games', to='games.lakecourse'),
        ),
        migrations.AlterField(
            model_name='game',
            name='course_letter',
            field=models.CharField(blank=True, max_length=1),
        ),
        migrations.AlterField(
            model_name='game',
            name='dice_seed',
            field=models.CharField(blank=True, help_text='secret until the game ends (docs/fair-dice.md)', max_length=64),
        ),
        migrations.AlterField(
            model_name='game',
            name='dice_seed_sha256',
            field=models.CharField(blank=True, max_length=64),
        ),
        migrations.AlterField(
            model_name='game',
            name='lake_side',
            field=models.CharField(choices=[('standard', 'standard (dark blue)'), ('expert', 'expert (light blue, more islands)')], default='standard', max_length=8),
        ),
        migrations.AlterField(
            model_name='game',
            name='phase',
            field=models.CharField(choices=[('waiting', 'waiting for players'), ('place', 'place'), ('dice', 'dice'), ('direction', 'direction'), ('over', 'over')], default='place', max_length=9),
        ),
        migrations.AlterField(
            model_name='game',
            name='result_code',
            field=models.CharField(blank=True, help_text="the result as data, with result_params (games.engine.rules.Outcome, games.engine.Series.result); pages and emails say it in the reader's language", max_length=24),
        ),
        migrations.AlterField(
            model_name='game',
            name='status',
            field=models.CharField(choices=[('open', 'open'), ('active', 'being played'), ('finished', 'finished'), ('cancelled', 'cancelled')], db_index=True, default='active', max_length=9),
        ),
        migrations.AlterField(
            model_name='game',
            name='to_move',
            field=models.PositiveSmallIntegerField(blank=True, default=0, help_text='the seat (Seat.index) to act; none before the start and once a series is over', null=True),
        ),
        migrations.AlterField(
            model_name='game',
            name='turn_started_at',
            field=models.DateTimeField(blank=True, help_text='when the player to move got the turn', null=True),
        ),
        migrations.AlterField(
            model_name='liveevent',
            name='kind',
            field=models.CharField(choices=[('move', 'Move'), ('start', 'Start'), ('finish', 'Finish'), ('seats', 'Seats'), ('challenge', 'Challenge'), ('chat', 'Chat'), ('series', 'Series')], max_length=10),
        ),
        migrations.AlterField(
            model_name='move',
            name='notation',
            field=models.CharField(max_length=60),
        ),
        migrations.AlterField(
            model_name='seat',
            name='color',
            field=models.CharField(blank=True, max_length=6),
        ),
        migrations.AlterField(
            model_name='seat',
            name='index',
            field=models.PositiveSmallIntegerField(blank=True, help_text='seat order (R15: round the table); none before the start', null=True),
        ),
        migrations.AlterField(
            model_name='seat',
            name='points',
            field=models.PositiveSmallIntegerField(default=0, help_text="R14 in a two-player game; a series' total (R19)"),
        ),
        migrations.AlterModelOptions(
            name='seat',
            options={'ordering': ['game', 'index', 'joined_at']},
        ),
    ]
