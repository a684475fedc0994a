"""One game for any number of boats (issue 25), step 2 of 3: the data moves.

* Two-player games keep their ids, rows and history; their seats were already the list of their
  players (checked here against ``yellow`` and ``red``, which 0022 drops), and they get the
  columns every game has (when it started, when each seat was taken).
* Every series becomes a game of the boxed rules, numbered as it was (``series_number`` = the
  series' id: /series/<n>/ and /api/series/<n>/ keep working), with its seats (the same players,
  colours, grace banks, points, places and departures) and its history as typed rows: each
  action of the old history is played through the rules engine, with its recorded dice, and
  written as the rows the services write (a placement, a roll, a turn with everything the move
  did, an end), at the same plies, by the same players, at the same times. Its stored columns
  are the old ones, and the position of the race being played comes from that replay.
* What pointed at a series points at its game: idempotency keys, multi-player rating changes,
  "seen live" marks, live events (and who they are for: ``users``, for every event), emails
  (``your_turn``, ``reminder``, ``game_over`` and the digest, about the game).

Then every migrated series is verified before anything is dropped: its new rows replay by the
rules to the same series (the record written from them equals, field for field, the record of
the old history), every roll is its committed seed's, and the stored state is the replay's.
Any difference stops the migration, which changes nothing then (one transaction).

The rules engine is imported as 0005 does: it replays histories of every rules version
(series keep theirs, ``rules_version``).
"""

from django.db import migrations
from django.db.models import F, OuterRef, Subquery

ACTION_EVENTS = {"series_turn": "your_turn", "series_reminder": "reminder", "series_over": "game_over"}
LIVE_KINDS = {"open": "seats", "seats": "seats", "cancel": "seats", "start": "start", "move": "move",
              "finish": "finish"}


def forward(apps, schema_editor):
    from games.engine import FixedDice, SeededDice, Series, Termination
    from games.engine.compact import course_from_compact
    from games.engine.game import SeriesGame as EngineSeries
    from games.engine.notation import format_end, format_move, format_placement, format_roll
    from games.engine.record import choice_from_json, choice_json
    from games.engine.rules import Placement

    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    Move = apps.get_model("games", "Move")
    LakeCourse = apps.get_model("games", "LakeCourse")
    SeriesGame = apps.get_model("games", "SeriesGame")
    SeriesSeat = apps.get_model("games", "SeriesSeat")
    SeriesAction = apps.get_model("games", "SeriesAction")
    IdempotentRequest = apps.get_model("games", "IdempotentRequest")
    SeriesRatingChange = apps.get_model("games", "SeriesRatingChange")
    LiveEvent = apps.get_model("games", "LiveEvent")
    LiveSeen = apps.get_model("games", "LiveSeen")
    EmailLog = apps.get_model("games", "EmailLog")

    # --- two-player games ------------------------------------------------------------------------
    for index, column in ((0, "yellow_id"), (1, "red_id")):
        wrong = Seat.objects.filter(index=index).exclude(user_id=F(f"game__{column}")).values_list("game_id", flat=True)
        if wrong.exists():
            raise RuntimeError(f"games {sorted(wrong)[:10]}: seat {index}'s player is not the game's {column[:-3]}")
    Game.objects.update(started_at=F("created_at"))
    Seat.objects.update(joined_at=Subquery(Game.objects.filter(pk=OuterRef("game_id")).values("created_at")[:1]))

    # --- series ----------------------------------------------------------------------------------
    courses = {}

    def course(key):
        if key not in courses:
            courses[key] = course_from_compact(LakeCourse.objects.values_list("compact", flat=True).get(pk=key))
        return courses[key]

    def engine_of(series, colors, players):
        start = Series.start([course(k) for k in series.course_keys], colors, series.first_start,
                             series.score_variant, rules_version=series.rules_version)
        return EngineSeries(start, players=players)

    def move_fields(move):
        return dict(number=move.number, choice=choice_json(move.choice), dice_before=list(move.dice_before),
                    rolled=list(move.rolled), dice=list(move.dice), direction=move.direction, auto=move.auto,
                    start=list(move.start), reach=move.reach, path=[list(c) for c in move.path],
                    final=list(move.final), heading=move.heading, damage=move.damage,
                    damage_total=move.damage_total, crash=move.crash, rounded=list(move.rounded),
                    finished=move.finished, sunk=move.sunk, notation=format_move(move))

    def typed_rows(game_id, owner, actions, colors):
        """The old actions played through the engine (``owner``), as the rows the services write."""
        rows = []
        for action in actions:
            before = owner.series
            if action.ply != before.ply:
                raise RuntimeError(f"series {game_id}: an action at ply {action.ply}, the series is at {before.ply}")
            race, color, data = len(before.races) - 1, colors[action.seat], action.data
            common = dict(game_id=game_id, ply=action.ply, race=race, seat=action.seat, user_id=action.user_id,
                          created_at=action.created_at)
            if action.kind == "place":
                cell, heading = (int(data["cell"][0]), int(data["cell"][1])), int(data["heading"])
                race_seat = before.race.seat_of(color)
                owner.place(cell, heading)
                rows.append(Move(kind="place", final=list(cell), heading=heading,
                                 notation=format_placement(Placement(race_seat, color, cell, heading)), **common))
            elif action.kind == "roll":
                choice = choice_from_json(data["choice"])
                move = owner.choose_dice(choice, FixedDice(data["rolled"]))
                if move is not None:
                    rows.append(Move(kind="roll", number=move.number, rolled_at=action.created_at,
                                     choice=choice_json(move.choice), dice_before=list(move.dice_before),
                                     rolled=list(move.rolled), dice=list(move.dice),
                                     notation=format_roll(move.number, color, move.choice, tuple(move.dice)),
                                     **common))
                    rows.append(Move(kind="turn", **{**common, "ply": action.ply + 1}, **move_fields(move)))
                else:
                    race_now = owner.series.race
                    pending, number = race_now.pending, race_now.boat.moves + 1
                    rows.append(Move(kind="roll", number=number, rolled_at=action.created_at,
                                     choice=choice_json(pending.choice), dice_before=list(pending.dice_before),
                                     rolled=list(pending.rolled), dice=list(pending.dice),
                                     notation=format_roll(number, color, pending.choice, tuple(pending.dice)),
                                     **common))
            elif action.kind == "direction":
                move = owner.choose_direction(int(data["direction"]))
                rows.append(Move(kind="turn", **common, **move_fields(move)))
            else:
                termination = data["termination"]
                if termination == Termination.RESIGN.value:
                    owner.resign(action.seat)
                else:
                    owner.time_out(action.seat)
                rows.append(Move(kind="end", termination=termination, notation=format_end(termination, color),
                                 **common))
        return rows

    def pending_json(pending):
        if pending is None:
            return None
        return {"choice": choice_json(pending.choice), "dice_before": list(pending.dice_before),
                "rolled": list(pending.rolled), "dice": list(pending.dice)}

    number_to_game = {}
    started = []
    for series in SeriesGame.objects.order_by("pk"):
        seats = list(SeriesSeat.objects.filter(series=series).order_by("index", "joined_at", "pk"))
        playing = sorted((s for s in seats if s.index is not None), key=lambda s: s.index)
        colors = [s.color for s in playing]
        winner_color = next((s.color for s in playing if s.user_id == series.winner_id), "") \
            if series.winner_id else ""
        game = Game.objects.create(
            ruleset="boxed", seats_wanted=series.seats_wanted, score_variant=series.score_variant,
            rules_version=series.rules_version, series_number=series.pk, created_by_id=series.created_by_id,
            course_keys=list(series.course_keys), lake_side=series.lake_side, rated=series.rated,
            status=series.status, phase=series.phase, race=series.race, first_start=series.first_start,
            to_move=series.to_move, ply=series.ply, winner_id=series.winner_id, winner_color=winner_color,
            termination="", result_reason=series.result_reason, result_code=series.result_code,
            result_params=series.result_params, started_at=series.started_at, finished_at=series.finished_at,
            dice_seed=series.dice_seed, dice_seed_sha256=series.dice_seed_sha256,
            days_per_move=series.days_per_move, grace_days=series.grace_days,
            vacation_allowed=series.vacation_allowed, turn_started_at=series.turn_started_at,
            move_deadline=series.move_deadline, deadline=series.deadline, reminder_at=series.reminder_at,
            reminder_sent_at=series.reminder_sent_at, bot_to_move=series.bot_to_move, created_at=series.created_at,
        )
        number_to_game[series.pk] = game.pk
        boats = {}
        if series.status in ("active", "finished"):
            actions = list(SeriesAction.objects.filter(series=series).order_by("ply"))
            owner = engine_of(series, colors, {})
            Move.objects.bulk_create(typed_rows(game.pk, owner, actions, colors), batch_size=500)
            race = owner.series.race
            boats = {b.color: b for b in race.boats}
            Game.objects.filter(pk=game.pk).update(
                course_id=series.course_keys[series.race], course_letter="ABC"[series.race],
                pending=pending_json(race.pending))
            started.append((series, game.pk, actions, colors))
        for seat in seats:
            boat = boats.get(seat.color)
            position = {}
            if boat is not None:
                position = dict(q=boat.cell[0] if boat.cell else None, r=boat.cell[1] if boat.cell else None,
                                heading=boat.heading, dice=list(boat.dice), damage=boat.damage, carried=boat.carried,
                                next_buoy=boat.next_buoy, count=boat.count, entries=list(boat.entries),
                                finished=boat.finished, sunk=boat.sunk, moves=boat.moves)
            Seat.objects.create(game_id=game.pk, index=seat.index, color=seat.color, user_id=seat.user_id,
                                joined_at=seat.joined_at, grace_seconds=seat.grace_seconds, left=seat.left,
                                points=seat.points, place=seat.place, **position)
        Game.objects.filter(pk=game.pk).update(updated_at=series.updated_at)

    # --- what pointed at a series --------------------------------------------------------------
    for number, game_id in number_to_game.items():
        IdempotentRequest.objects.filter(series_id=number).update(game_id=game_id, series_id=None)
        SeriesRatingChange.objects.filter(series_game_id=number).update(game_id=game_id)
        for seen in LiveSeen.objects.filter(series_id=number):
            if LiveSeen.objects.filter(user_id=seen.user_id, game_id=game_id).exists():
                seen.delete()
            else:
                LiveSeen.objects.filter(pk=seen.pk).update(game_id=game_id, series_id=None)
    LiveSeen.objects.filter(series_id__isnull=False).delete()  # of a series that no longer exists
    for event in LiveEvent.objects.all().iterator(chunk_size=2000):
        data = dict(event.data or {})
        users = [u for u in (event.user_a, event.user_b) if u is not None]
        kind, game_id = event.kind, event.game_id
        if event.kind == "challenge":
            data.update(created_by=event.user_a, opponent=event.user_b)
        if event.kind == "series":
            users = [u for u in data.pop("users", []) if isinstance(u, int)]
            kind = LIVE_KINDS.get(data.get("action"), "seats")
            game_id = number_to_game.get(event.series_id)
            data["series"] = event.series_id
            if kind != "seats":
                data.pop("action", None)
        LiveEvent.objects.filter(pk=event.pk).update(kind=kind, game_id=game_id, users=users, data=data)
    for entry in EmailLog.objects.all().iterator(chunk_size=2000):
        data = dict(entry.data or {})
        event, key = entry.event, entry.key
        if "series" in data:
            number = data.pop("series")
            game_id = number_to_game.get(number)
            if game_id is None:
                continue
            data["game"] = game_id
            event = ACTION_EVENTS.get(event, event)
            key = key.replace(f"series:{number}", f"game:{game_id}", 1)
        elif event == "digest" and "series_list" in data:
            data["games"] = [*data.get("games", []),
                             *(number_to_game[n] for n in data.pop("series_list") if n in number_to_game)]
        else:
            continue
        EmailLog.objects.filter(pk=entry.pk).update(event=event, key=key, data=data)

    # --- verified before anything is dropped ---------------------------------------------------
    for series, game_id, actions, colors in started:
        players = {}
        old = engine_of(series, colors, players)
        for action in actions:  # the old history, as the code before this migration replayed it
            data = action.data
            if action.kind == "place":
                old.place((int(data["cell"][0]), int(data["cell"][1])), int(data["heading"]))
            elif action.kind == "roll":
                old.choose_dice(choice_from_json(data["choice"]), FixedDice(data["rolled"]))
            elif action.kind == "direction":
                old.choose_direction(int(data["direction"]))
            elif data["termination"] == Termination.RESIGN.value:
                old.resign(action.seat)
            else:
                old.time_out(action.seat)
        new = engine_of(series, colors, players)
        rows = list(Move.objects.filter(game_id=game_id).order_by("ply"))
        i = 0
        while i < len(rows):  # the new rows, as the code after it replays them
            row = rows[i]
            if row.ply != new.series.ply:
                raise RuntimeError(f"series {series.pk}: a row at ply {row.ply}, the replay is at {new.series.ply}")
            if row.kind == "roll" and list(SeededDice(bytes.fromhex(series.dice_seed), row.ply)
                                           .roll(len(row.rolled))) != list(row.rolled):
                raise RuntimeError(f"series {series.pk}: the roll at ply {row.ply} is not the seed's")
            if row.kind == "place":
                new.place((row.final[0], row.final[1]), row.heading)
            elif row.kind == "roll":
                if new.choose_dice(choice_from_json(row.choice), FixedDice(row.rolled)) is not None:
                    i += 1  # its turn, taken at once
            elif row.kind == "turn":
                new.choose_direction(row.direction)
            elif row.termination == Termination.RESIGN.value:
                new.resign(row.seat)
            else:
                new.time_out(row.seat)
            i += 1
        if new.record() != old.record():
            raise RuntimeError(f"series {series.pk}: the record of its new history differs from the old one's")
        stored = Game.objects.get(pk=game_id)
        replayed = new.series
        expected_status = "finished" if replayed.over else "active"
        if (stored.ply, stored.race, stored.status) != (replayed.ply, len(replayed.races) - 1, expected_status):
            raise RuntimeError(f"series {series.pk}: stored ply, race, status "
                               f"{(stored.ply, stored.race, stored.status)}, the replay gives "
                               f"{(replayed.ply, len(replayed.races) - 1, expected_status)}")
        table = {line.seat: line for line in replayed.standings()}
        for seat in Seat.objects.filter(game_id=game_id, index__isnull=False):
            line = table[seat.index]
            if (seat.points, seat.place) != (line.points, line.place):
                raise RuntimeError(f"series {series.pk}: seat {seat.index} stored {(seat.points, seat.place)}, "
                                   f"the replay gives {(line.points, line.place)}")


def backward(apps, schema_editor):
    """Back to two tables only for two-player games (their Yellow and Red from their seats): a
    series moved into the games has no way back."""
    Game = apps.get_model("games", "Game")
    Seat = apps.get_model("games", "Seat")
    if Game.objects.filter(ruleset="boxed").exists():
        raise RuntimeError("series have become games: migrating back past 0021 would lose them")
    for index, column in ((0, "yellow_id"), (1, "red_id")):
        Game.objects.update(**{column: Subquery(Seat.objects.filter(game_id=OuterRef("pk"), index=index)
                                                .values("user_id")[:1])})


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0020_one_game_schema'),
    ]

    operations = [
        migrations.RunPython(forward, backward, elidable=False),
    ]
