"""The director's tie-break order; and the initial colour of tournaments already started, read
back from their round 1 as played (the pairing engine used to draw its own colour, so the stored
one, which the TRF export writes as XXC, could contradict round 1)."""

from django.db import migrations, models


def initial_colour_from_round_1(apps, schema_editor):
    Tournament = apps.get_model("tournaments", "Tournament")
    Entry = apps.get_model("tournaments", "Entry")
    for t in Tournament.objects.exclude(status__in=["registration", "cancelled"]):
        # the pairing numbers of round 1: the initial ranking, rating then name
        registrations = sorted(t.registrations.select_related("user"),
                               key=lambda r: (-r.rating, r.user.username.lower()))
        entries = {e.registration_id: e for e in Entry.objects.filter(round__tournament=t, round__number=1)}
        place = 0  # among the players paired in round 1 (C.04.3 E.5: odd pairing numbers get the colour)
        for r in registrations:
            e = entries.get(r.pk)
            if e is None or not (e.opponent_id or e.code in ("U", "+")):
                continue
            if e.opponent_id and e.color in ("w", "b"):
                colour = e.color if place % 2 == 0 else {"w": "b", "b": "w"}[e.color]
                if colour != t.first_color:
                    t.first_color = colour
                    t.save(update_fields=["first_color"])
                break
            place += 1


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0002_swiss'),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='tiebreaks',
            field=models.CharField(blank=True, default='BH/C1 BH SB BUOYS DMG DE', help_text='tie-breaks after the score, in order: FIDE C.07 codes (docs/tournaments.md)', max_length=60),
        ),
        migrations.AlterField(
            model_name='tournament',
            name='first_color',
            field=models.CharField(default='w', help_text='the initial colour, drawn by lot at the start (C.04.3): Red (w) or Yellow (b) for the higher-ranked player of each round-1 board with an odd pairing number; given to the pairing engine and written to the TRF (XXC, 152)', max_length=1),
        ),
        migrations.RunPython(initial_colour_from_round_1, migrations.RunPython.noop),
    ]
