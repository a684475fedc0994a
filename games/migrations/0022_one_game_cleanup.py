"""One game for any number of boats (issue 25), step 3 of 3: what 0021 moved out of the old
places is dropped — the series tables, a game's Yellow and Red (its seats are its players), the
series columns of live events, "seen live" marks and idempotency keys, and who an event was for
as two columns (``users`` now)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0021_one_game_data'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name='seriesratingchange',
            name='one_change_per_series_and_player',
        ),
        migrations.RemoveField(
            model_name='seriesratingchange',
            name='series_game',
        ),
        migrations.AlterField(
            model_name='seriesratingchange',
            name='game',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='series_rating_changes', to='games.game'),
        ),
        migrations.AddConstraint(
            model_name='seriesratingchange',
            constraint=models.UniqueConstraint(fields=('game', 'user'), name='one_change_per_series_and_player'),
        ),
        migrations.RemoveField(
            model_name='idempotentrequest',
            name='series',
        ),
        migrations.RemoveConstraint(
            model_name='liveseen',
            name='live_seen_series_once',
        ),
        migrations.RemoveConstraint(
            model_name='liveseen',
            name='live_seen_stream_once',
        ),
        migrations.RemoveField(
            model_name='liveseen',
            name='series_id',
        ),
        migrations.AlterField(
            model_name='liveseen',
            name='game_id',
            field=models.BigIntegerField(blank=True, help_text="empty: the user's event stream", null=True),
        ),
        migrations.AddConstraint(
            model_name='liveseen',
            constraint=models.UniqueConstraint(condition=models.Q(('game_id__isnull', True)), fields=('user',), name='live_seen_stream_once'),
        ),
        migrations.RemoveField(
            model_name='liveevent',
            name='series_id',
        ),
        migrations.RemoveField(
            model_name='liveevent',
            name='user_a',
        ),
        migrations.RemoveField(
            model_name='liveevent',
            name='user_b',
        ),
        migrations.AlterField(
            model_name='liveevent',
            name='kind',
            field=models.CharField(choices=[('move', 'Move'), ('start', 'Start'), ('finish', 'Finish'), ('seats', 'Seats'), ('challenge', 'Challenge'), ('chat', 'Chat')], max_length=10),
        ),
        migrations.RemoveField(
            model_name='game',
            name='red',
        ),
        migrations.RemoveField(
            model_name='game',
            name='yellow',
        ),
        migrations.AddConstraint(
            model_name='seat',
            constraint=models.UniqueConstraint(fields=('game', 'user'), name='one_seat_per_player'),
        ),
        migrations.DeleteModel(
            name='SeriesAction',
        ),
        migrations.DeleteModel(
            name='SeriesSeat',
        ),
        migrations.DeleteModel(
            name='SeriesGame',
        ),
    ]
