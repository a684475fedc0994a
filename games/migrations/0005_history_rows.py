"""The history records every action (issue 10): a roll is a row of its own at its ply, the
turn that follows it is at the next ply, and a game that ends other than by a move (resigned,
lost on time, adjudicated) ends with an ``end`` row. Existing histories are converted; a roll
lost by the old layout (a game that ended between a roll and its direction) is recovered from
the game's committed dice seed."""

from django.conf import settings
from django.db import migrations, models
import django.db.models.deletion

COLORS = ("yellow", "red")
ENDINGS = {"resign": "resigns", "timeout": "loses on time", "adjudication": "adjudicated"}


def _choice_text(choice):
    text = {"keep": "=", "add": "+"}.get(choice["change"]) or f"-{choice['remove'] + 1}"
    if choice.get("reroll"):
        text += "/" + "".join(str(i + 1) for i in choice["reroll"])
    return text


def _roll_notation(number, seat, choice, dice):
    return f"{number}{COLORS[seat][0].upper()} {_choice_text(choice)} {''.join(str(v) for v in dice) or '0'} …"


def _lost_roll(game, seat_row, dice_before, ply, number):
    """The roll a game ended on, which the old layout did not keep: the choice whose seeded
    roll gives the dice the boat was left holding."""
    from games.engine.dice import SeededDice, all_choices
    from games.engine.record import choice_json

    for choice in all_choices(tuple(dice_before), first_move=number == 1):
        dice, rolled = choice.apply(tuple(dice_before), SeededDice(bytes.fromhex(game.dice_seed), ply), checked=True)
        if list(dice) == list(seat_row.dice):
            return choice_json(choice), list(rolled), list(dice)
    return None


def convert(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    Move = apps.get_model("games", "Move")
    Seat = apps.get_model("games", "Seat")
    for game in Game.objects.order_by("pk").iterator(chunk_size=200):
        rows = list(Move.objects.filter(game=game).order_by("-ply"))
        new = []
        held = {0: [], 1: []}
        for row in sorted(rows, key=lambda r: r.ply):
            if row.kind != "turn":
                continue
            new.append(Move(
                game=game, ply=row.ply, seat=row.seat, user_id=row.user_id, kind="roll", number=row.number,
                rolled_at=row.rolled_at or row.created_at, created_at=row.rolled_at or row.created_at,
                choice=row.choice, dice_before=row.dice_before, rolled=row.rolled, dice=row.dice,
                notation=_roll_notation(row.number, row.seat, row.choice, row.dice),
            ))
            held[row.seat] = [] if row.crash else list(row.dice)
        for row in rows:  # highest ply first: ply + 1 is always free in the old layout
            if row.kind == "turn":
                Move.objects.filter(pk=row.pk).update(ply=row.ply + 1, rolled_at=None)
        last = max((r.ply + (1 if r.kind == "turn" else 0) for r in rows), default=-1)
        seats = {s.index: s for s in Seat.objects.filter(game=game)}
        if game.pending and game.status == "active":
            p = game.pending
            seat = game.to_move
            number = seats[seat].moves + 1
            new.append(Move(
                game=game, ply=game.ply - 1, seat=seat, user_id=game.yellow_id if seat == 0 else game.red_id,
                kind="roll", number=number, rolled_at=game.updated_at, created_at=game.updated_at, choice=p["choice"],
                dice_before=p["dice_before"], rolled=p["rolled"], dice=p["dice"],
                notation=_roll_notation(number, seat, p["choice"], p["dice"]),
            ))
        if game.status == "finished" and game.termination in ENDINGS:
            end_ply = game.ply - 1
            if game.termination == "adjudication":
                seat, user_id = game.to_move, None
            else:
                seat = 1 - COLORS.index(game.winner_color) if game.winner_color else game.to_move
                user_id = game.yellow_id if seat == 0 else game.red_id
            if end_ply == last + 2:  # a roll whose direction never came: recover it from the seed
                roller = game.to_move
                number = seats[roller].moves + 1
                found = _lost_roll(game, seats[roller], held[roller], last + 1, number)
                if found is not None:
                    choice, rolled, dice = found
                    new.append(Move(
                        game=game, ply=last + 1, seat=roller,
                        user_id=game.yellow_id if roller == 0 else game.red_id, kind="roll", number=number,
                        rolled_at=game.finished_at or game.updated_at, created_at=game.finished_at or game.updated_at,
                        choice=choice, dice_before=held[roller], rolled=rolled, dice=dice,
                        notation=_roll_notation(number, roller, choice, dice),
                    ))
            color = COLORS[seat]
            notation = ENDINGS[game.termination]
            if game.termination != "adjudication":
                notation = f"{color[0].upper()} {notation}"
            new.append(Move(
                game=game, ply=end_ply, seat=seat, user_id=user_id, kind="end", termination=game.termination,
                created_at=game.finished_at or game.updated_at, notation=notation,
            ))
        Move.objects.bulk_create(new)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0004_lakecourse"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="move",
            name="termination",
            field=models.CharField(blank=True, help_text="end rows: resign, timeout, adjudication", max_length=12),
        ),
        migrations.AlterField(
            model_name="move",
            name="kind",
            field=models.CharField(choices=[("place", "Place"), ("roll", "Roll"), ("turn", "Turn"), ("end", "End")],
                                   max_length=5),
        ),
        migrations.AlterField(model_name="move", name="final", field=models.JSONField(blank=True, null=True)),
        migrations.AlterField(model_name="move", name="heading",
                              field=models.PositiveSmallIntegerField(blank=True, null=True)),
        migrations.AlterField(
            model_name="move",
            name="user",
            field=models.ForeignKey(blank=True, help_text="who acted (none for an adjudication)", null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="moves",
                                    to=settings.AUTH_USER_MODEL),
        ),
        migrations.AlterField(
            model_name="move",
            name="ply",
            field=models.PositiveIntegerField(help_text="the game's ply before this action"),
        ),
        migrations.RunPython(convert, migrations.RunPython.noop),
    ]
