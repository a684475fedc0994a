"""Series keep the version of R18/R19's details they were created with (games.engine.race,
"Rules versions"; docs/game-record.md). Every series that exists when this runs was played and
scored under version 1 (R19's n counting every boat of the race; a race closed early ranking
boats not yet placed), so the column is added with 1 for them; new rows then default to 2."""

from django.db import migrations, models

HELP = ("the version of R18/R19's details it is played, scored and replayed by (games.engine.race), "
        "fixed when it is created; 1 for series created before versions existed")


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0015_course_drawings'),
    ]

    operations = [
        # existing rows take the default of the added column: version 1, as they were scored
        migrations.AddField(
            model_name='seriesgame',
            name='rules_version',
            field=models.PositiveSmallIntegerField(default=1, help_text=HELP),
        ),
        # new series: version 2 (literal here: a later RULES_VERSION gets a migration of its own)
        migrations.AlterField(
            model_name='seriesgame',
            name='rules_version',
            field=models.PositiveSmallIntegerField(default=2, help_text=HELP),
        ),
    ]
