"""Between the database and the rules engine: courses, the stored state, history rows, replays
and records, for every game (a two-player game of the online rules and a series of the boxed
game alike).

The stored state of a game (the ``Game`` row and its ``Seat`` rows) is a cache of the replay of
its history (``Move`` rows, one per ply): :func:`store_state` writes the columns from the
engine's match (a :class:`~games.engine.GameState` or a :class:`~games.engine.Series`, which
act and read alike: games.engine.match), :func:`replay` plays the rows through the engine, and
``manage.py verify_games`` checks that the two agree (:func:`verify`). :func:`record_of` is a
game's record (docs/game-record.md: version 1 for the online game, version 2 for a series).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from common.db.writing import column_field
from common.lru import LRU
from games.engine import (
    Boat,
    Course,
    DiceChoice,
    EngineError,
    FixedDice,
    GameState,
    Outcome,
    Pending,
    Phase,
    SeededDice,
    Series,
    Termination,
)
from games.engine.compact import course_compact, course_from_compact
from games.engine.game import Game as EngineGame
from games.engine.game import SeriesGame as EngineSeries
from games.engine.match import Match
from games.engine.notation import format_end, format_move, format_placement, format_roll
from games.engine.record import (
    choice_from_json,
    choice_json,
    course_from_json,
    course_json,
    game_record,
    grid_json,
    lake_json,
)
from games.engine.rules import Move as EngineMove
from games.engine.rules import Placement

from .models import Game, LakeCourse, Move, Seat, seat_order

# Parsed courses kept per process. A course is built lazily (games.engine.course) from its compact
# form (games.engine.compact) in ~0.1 ms and takes ~35 KB before play; the cache spares the
# database read for the games a process serves again and again (a game being played live).
COURSE_CACHE_SIZE = 2048
LETTERS = ("A", "B", "C")


def course_data(course: Course) -> dict[str, Any]:
    """A course as stored: the lake and the course in the game record format."""
    return {"lake": lake_json(course.lake), "course": course_json(course)}


def stored_course(data: dict[str, Any]) -> LakeCourse:
    """The stored row of a lake and course (record format, checked by building it), created
    the first time it is seen."""
    key = LakeCourse.key_of(data)
    row = LakeCourse.objects.filter(key=key).first()
    if row is None:
        course = course_from_json({"grid": grid_json(), **data})
        row, _ = LakeCourse.objects.get_or_create(key=key, defaults={
            "data": data, "compact": course_compact(course), "letter": course.letter, "side": course.lake.side,
        })
    return row


_COURSES: LRU[str, Course] = LRU(COURSE_CACHE_SIZE)  # parsed courses by key, the last ones used


def course_by_key(key: str) -> Course:
    """The parsed course of a stored key (immutable, so it is never read twice per process while
    it is kept). Reads the compact form: ~0.7 KB and ~0.1 ms to build, against ~14 KB and ~0.5 ms
    for the record's form, since in correspondence play most requests find their game's course
    gone from the cache. The read of a game (games.loading) brings its course's compact form with
    it (:func:`keep_course`): an action or a view of a game finds the course here without a
    query of its own."""
    course = _COURSES.get(key)
    if course is None:
        course = keep_course(key, LakeCourse.objects.values_list("compact", flat=True).get(pk=key))
    return course


def keep_course(key: str, compact: str) -> Course:
    """The course ``key`` from its ``compact`` form, kept; parsed only when it is not kept already."""
    course = _COURSES.get(key)
    if course is None:
        course = course_from_compact(compact)
        _COURSES.put(key, course)
    return course


def course_of(game: Game) -> Course:
    """The course of the race being played."""
    assert game.course_id is not None, f"{game} has not started"
    return course_by_key(game.course_id)


def courses_of(game: Game) -> tuple[Course, ...]:
    """Every race's course (one lake)."""
    return tuple(course_by_key(key) for key in (game.course_keys or [game.course_id]))


def playing(seats: Iterable[Seat]) -> list[Seat]:
    """The seats of a started game in seat order (R5, R15); before the start none has an index."""
    return sorted((s for s in seats if s.index is not None), key=seat_order)


# --- stored state ---------------------------------------------------------------------------

GAME_STATE_FIELDS = ("phase", "to_move", "ply", "race", "pending", "status", "termination", "result_reason",
                     "result_code", "result_params", "winner_color", "winner_id", "course_id", "course_letter")
BOAT_FIELDS = ("q", "r", "heading", "dice", "damage", "carried", "next_buoy", "count", "entries", "finished", "sunk",
               "moves")
SEAT_STATE_FIELDS = (*BOAT_FIELDS, "points", "place", "left")


def boat_of(seat: Seat) -> Boat:
    cell = (seat.q, seat.r) if seat.q is not None and seat.r is not None else None
    entries = tuple(seat.entries) if seat.entries else (0, 0, 0)
    return Boat(
        seat.color, cell, seat.heading, tuple(seat.dice), seat.damage, seat.next_buoy, seat.count,
        (entries[0], entries[1], entries[2]), seat.finished, seat.sunk, seat.moves, None, seat.carried,
    )


def store_boat(seat: Seat, boat: Boat | None) -> None:
    """A seat's boat in the race being played; none (the columns' defaults) for a player who is
    not in it (who left a series in an earlier race)."""
    if boat is None:
        for name in BOAT_FIELDS:
            setattr(seat, name, column_field(Seat, name).get_default())
        return
    seat.q, seat.r = boat.cell if boat.cell is not None else (None, None)
    seat.heading = boat.heading
    seat.dice = list(boat.dice)
    seat.damage = boat.damage
    seat.carried = boat.carried
    seat.next_buoy = boat.next_buoy
    seat.count = boat.count
    seat.entries = list(boat.entries)
    seat.finished = boat.finished
    seat.sunk = boat.sunk
    seat.moves = boat.moves


def outcome_of(game: Game, colors: Sequence[str]) -> Outcome | None:
    if not game.termination:
        return None
    winner = list(colors).index(game.winner_color) if game.winner_color else None
    return Outcome(winner, Termination(game.termination), game.result_reason, game.result_code,
                   dict(game.result_params or {}))


def pending_json(pending: Pending | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {"choice": choice_json(pending.choice), "dice_before": list(pending.dice_before),
            "rolled": list(pending.rolled), "dice": list(pending.dice)}


def pending_of(game: Game) -> tuple[DiceChoice, tuple[int, ...], tuple[int, ...], tuple[int, ...]] | None:
    if not game.pending:
        return None
    p = game.pending
    return choice_from_json(p["choice"]), tuple(p["dice_before"]), tuple(p["rolled"]), tuple(p["dice"])


def state_of(game: Game, seats: Sequence[Seat] | None = None) -> GameState:
    """The engine state of a two-player game (the online rules) from its stored columns: the
    whole position is in them, so nothing is replayed (games.rulesets)."""
    seats = playing(seats if seats is not None else game.seat_list())
    assert game.to_move is not None, f"{game} has no player to move stored"
    return GameState.resume(
        course_of(game),
        [boat_of(s) for s in seats],
        Phase(game.phase),
        game.to_move,
        game.ply,
        pending_of(game),
        outcome_of(game, [s.color for s in seats]),
    )


def store_state(game: Game, seats: Sequence[Seat], match: Match) -> None:
    """Copy the engine's match into the game row and its seats (not saved): the race being played
    (its course, phase, whose turn, the pending roll, each boat), each player's points, place and
    departure, and the result once over. ``seats`` are the game's playing seats."""
    seats = playing(seats)
    race = match.race
    game.ply = match.ply
    game.race = len(match.races) - 1
    if isinstance(match, Series):  # the course of the race being played
        game.course_id = game.course_keys[game.race]
        game.course_letter = LETTERS[game.race]
    game.pending = pending_json(race.pending)
    boats = {b.color: b for b in race.boats}
    for seat in seats:
        store_boat(seat, boats.get(seat.color))
    if isinstance(match, Series):
        _store_series(game, seats, match)
    else:
        _store_race(game, seats, match)


def _store_race(game: Game, seats: Sequence[Seat], state: GameState) -> None:
    """The online rules: one race, its points (R14) and its outcome."""
    for seat, boat in zip(seats, state.boats, strict=True):
        seat.points = boat.points
    game.phase = state.phase.value
    game.to_move = state.to_move
    outcome = state.outcome
    if outcome is not None:
        game.status = Game.Status.FINISHED
        game.termination = outcome.termination.value
        game.result_reason = outcome.reason
        game.result_code, game.result_params = outcome.code, dict(outcome.params)
        game.winner_color = seats[outcome.winner].color if outcome.winner is not None else ""
        game.winner_id = seats[outcome.winner].user_id if outcome.winner is not None else None


def _store_series(game: Game, seats: Sequence[Seat], series: Series) -> None:
    """The boxed game: the series table (R19), who left (R18), whose turn; its result once over."""
    table = {t.seat: t for t in series.standings()}
    left = {d.seat: d.termination.value for d in series.departures}
    for seat in seats:
        assert seat.index is not None
        line = table[seat.index]
        seat.points, seat.place, seat.left = line.points, line.place, left.get(seat.index, "")
    if series.over:
        game.status, game.phase, game.to_move = Game.Status.FINISHED, Game.Phase.OVER, None
        game.result_reason = series.result_text()[:200]
        game.result_code, game.result_params = series.result()
        winner = series.winner
        game.winner_color = winner or ""
        game.winner_id = next((s.user_id for s in seats if s.color == winner), None) if winner else None
    else:
        game.phase, game.to_move = series.phase.value, series.to_move


# --- history rows ---------------------------------------------------------------------------


def place_row(game: Game, user: Any, seat: int, placement: Placement, ply: int, race: int, now: Any) -> Move:
    return Move(game=game, ply=ply, race=race, seat=seat, user=user, kind=Move.Kind.PLACE,
                final=list(placement.cell), heading=placement.heading, notation=format_placement(placement),
                created_at=now)


def roll_row(game: Game, user: Any, seat: int, color: str, number: int, choice: DiceChoice,
             dice_before: Sequence[int], rolled: Sequence[int], dice: Sequence[int], ply: int, race: int,
             now: Any) -> Move:
    """A roll at ``ply``: awaiting its direction, or stored with the turn that followed at once."""
    return Move(
        game=game, ply=ply, race=race, seat=seat, user=user, kind=Move.Kind.ROLL, number=number, rolled_at=now,
        created_at=now, choice=choice_json(choice), dice_before=list(dice_before), rolled=list(rolled),
        dice=list(dice), notation=format_roll(number, color, choice, tuple(dice)),
    )


def turn_row(game: Game, user: Any, seat: int, move: EngineMove, ply: int, race: int, now: Any) -> Move:
    """The whole turn, at the ply its direction was taken (the one after its roll's, unless a
    player left a series in between)."""
    return Move(
        game=game, ply=ply, race=race, seat=seat, user=user, kind=Move.Kind.TURN, number=move.number,
        created_at=now, choice=choice_json(move.choice),
        dice_before=list(move.dice_before), rolled=list(move.rolled), dice=list(move.dice), direction=move.direction,
        auto=move.auto, start=list(move.start), reach=move.reach, path=[list(c) for c in move.path],
        final=list(move.final), heading=move.heading, damage=move.damage, damage_total=move.damage_total,
        crash=move.crash, rounded=list(move.rounded), finished=move.finished, sunk=move.sunk,
        notation=format_move(move),
    )


def end_row(game: Game, user: Any, seat: int, color: str | None, termination: Termination, ply: int, race: int,
            now: Any) -> Move:
    return Move(game=game, ply=ply, race=race, seat=seat, user=user, kind=Move.Kind.END, termination=termination.value,
                created_at=now, notation=format_end(termination.value, color))


def _cell(value: Any) -> tuple[int, int]:
    return (int(value[0]), int(value[1]))


def engine_move(row: Move, color: str, race_seat: int | None = None) -> EngineMove:
    """A turn row as the engine's move (``race_seat``: the boat's seat in its race, which in a
    series differs from the game's seat once a player has left)."""
    assert row.choice is not None and row.direction is not None and row.start is not None
    assert row.final is not None and row.heading is not None
    return EngineMove(
        row.seat if race_seat is None else race_seat, color, row.number, choice_from_json(row.choice),
        tuple(row.dice_before), tuple(row.rolled), tuple(row.dice), row.direction, row.auto, _cell(row.start),
        row.reach, tuple(_cell(c) for c in row.path), _cell(row.final), row.heading, row.damage, row.damage_total,
        row.crash, tuple(row.rounded), row.finished, row.sunk, row.ply - 1,
    )


@dataclass(frozen=True)
class History:
    """A two-player game's history rows read as the engine's values (for its record)."""

    placements: list[Placement]
    moves: list[EngineMove]
    unfinished_roll: Move | None  # the last roll, if its direction was never chosen
    end: Move | None  # how the game ended if not by a move

    @classmethod
    def of(cls, rows: Iterable[Move], colors: Sequence[str]) -> History:
        placements: list[Placement] = []
        moves: list[EngineMove] = []
        roll: Move | None = None
        end: Move | None = None
        for row in rows:
            if row.kind == Move.Kind.PLACE:
                assert row.final is not None and row.heading is not None
                placements.append(Placement(row.seat, colors[row.seat], _cell(row.final), row.heading))
            elif row.kind == Move.Kind.ROLL:
                roll = row
            elif row.kind == Move.Kind.TURN:
                moves.append(engine_move(row, colors[row.seat]))
                roll = None
            elif row.kind == Move.Kind.END:
                end = row
        return cls(placements, moves, roll, end)

    def pending(self) -> Pending | None:
        row = self.unfinished_roll
        if row is None:
            return None
        assert row.choice is not None
        return Pending(choice_from_json(row.choice), tuple(row.dice_before), tuple(row.rolled), tuple(row.dice))


# --- replays ----------------------------------------------------------------------------------


class ReplayError(ValueError):
    """A history that does not replay: a row out of place, or one the rules do not give."""


Owner = EngineGame | EngineSeries  # the engine's owners of a game: they keep its history for a record


def new_owner(game: Game, seats: Sequence[Seat]) -> Owner:
    """The engine's game at its start, before any action (its seats' colours and players)."""
    seats = playing(seats)
    colors = [s.color for s in seats]
    players = {s.color: s.user.username for s in seats}
    if game.multi_race:
        assert game.first_start is not None
        start = Series.start(courses_of(game), colors, game.first_start, game.score_variant,
                             rules_version=game.rules_version)
        return EngineSeries(start, players=players)
    return EngineGame(courses_of(game)[0], colors, players=players)


def expected_rows(game: Game, match: Match, row: Move, after: Match, move: EngineMove | None,
                  colors: Sequence[str]) -> list[Move]:
    """The rows the services write for the action ``row`` starts, given what the engine made of
    it (``after``, ``move``): what a stored row is compared with."""
    race = len(match.races) - 1
    color = colors[row.seat] if 0 <= row.seat < len(colors) else None
    if row.kind == Move.Kind.PLACE:
        assert color is not None and row.final is not None and row.heading is not None
        placement = Placement(match.race.seat_of(color), color, _cell(row.final), row.heading)
        return [place_row(game, row.user, row.seat, placement, row.ply, race, row.created_at)]
    if row.kind == Move.Kind.ROLL:
        assert color is not None
        if move is not None:
            return [roll_row(game, row.user, row.seat, color, move.number, move.choice, move.dice_before, move.rolled,
                             move.dice, row.ply, race, row.created_at),
                    turn_row(game, row.user, row.seat, move, row.ply + 1, race, row.created_at)]
        pending = after.race.pending
        assert pending is not None
        return [roll_row(game, row.user, row.seat, color, after.race.boat.moves + 1, pending.choice,
                         pending.dice_before, pending.rolled, pending.dice, row.ply, race, row.created_at)]
    if row.kind == Move.Kind.TURN:
        assert move is not None
        return [turn_row(game, row.user, row.seat, move, row.ply, race, row.created_at)]
    shown = color if row.termination != Termination.ADJUDICATION.value else None
    return [end_row(game, row.user, row.seat, shown, Termination(row.termination), row.ply, race, row.created_at)]


ROW_FIELDS = ("ply", "race", "seat", "kind", "termination", "number", "choice", "dice_before", "rolled", "dice",
              "direction", "auto", "start", "reach", "path", "final", "heading", "damage", "damage_total", "crash",
              "rounded", "finished", "sunk", "notation")


def replay(game: Game, seats: Sequence[Seat], rows: Sequence[Move], *, check: bool = False) -> Match:
    """The game as its history makes it: the match after every row (the truth; the stored
    columns are a cache of it). With ``check`` every row must be the one the services would
    have written for that action (its turn, its notation, ...), and every roll the committed
    seed's. Raises :class:`ReplayError`."""
    owner = replay_owner(game, seats, rows, check=check)
    return owner_match(owner)


def owner_match(owner: Owner) -> Match:
    return owner.series if isinstance(owner, EngineSeries) else owner.state


def replay_onward(game: Game, seats: Sequence[Seat], series: Series, rows: Sequence[Move]) -> Series:
    """``series``, an earlier replay of this game's history (kept by a process), after ``rows``,
    the history that follows it: what :func:`replay` of the whole history gives, since the
    engine's series is immutable and each action a function of it and its row."""
    players = {s.color: s.user.username for s in playing(seats)}
    match = owner_match(replay_owner(game, seats, rows, owner=EngineSeries.resumed(series, players=players)))
    assert isinstance(match, Series)
    return match


def replay_owner(game: Game, seats: Sequence[Seat], rows: Sequence[Move], *, check: bool = False,
                 owner: Owner | None = None) -> Owner:
    """The replay through the engine's owner of a game, which keeps what a record needs (or,
    given an ``owner`` at some point of the history, the ``rows`` from there on)."""
    colors = [s.color for s in playing(seats)]
    owner = owner if owner is not None else new_owner(game, seats)
    seed = bytes.fromhex(game.dice_seed) if check and game.dice_seed else None
    i = 0
    try:
        while i < len(rows):
            row = rows[i]
            before = owner_match(owner)
            if row.ply != before.ply:
                raise ReplayError(f"a row at ply {row.ply}, but the game is at ply {before.ply}")
            if row.kind == Move.Kind.ROLL and seed is not None and \
                    list(SeededDice(seed, row.ply).roll(len(row.rolled))) != list(row.rolled):
                raise ReplayError(f"ply {row.ply}: the roll is not the seed's")
            move = _owner_act(owner, row)
            taken = 1
            if row.kind == Move.Kind.ROLL and move is not None:
                taken = 2  # the only direction allowed was taken at once (R7): its turn row follows
            if check:
                want = expected_rows(game, before, row, owner_match(owner), move, colors)
                got = list(rows[i:i + taken])
                if len(got) != len(want) or any(_row_values(a) != _row_values(b) for a, b in zip(got, want, strict=True)):
                    raise ReplayError(f"ply {row.ply}: the history says {[r.notation for r in got]}, the rules give "
                                      f"{[r.notation for r in want]}")
            i += taken
    except EngineError as exc:
        raise ReplayError(f"ply {rows[i].ply}: {exc}") from exc
    return owner


def _row_values(row: Move) -> tuple[Any, ...]:
    return tuple(getattr(row, f) for f in ROW_FIELDS)


def _owner_act(owner: Owner, row: Move) -> EngineMove | None:
    if row.kind == Move.Kind.PLACE:
        assert row.final is not None and row.heading is not None
        owner.place(_cell(row.final), row.heading)
        return None
    if row.kind == Move.Kind.ROLL:
        assert row.choice is not None
        return owner.choose_dice(choice_from_json(row.choice), FixedDice(row.rolled))
    if row.kind == Move.Kind.TURN:
        assert row.direction is not None
        return owner.choose_direction(row.direction)
    if row.termination == Termination.RESIGN.value:
        owner.resign(row.seat)
    elif row.termination == Termination.TIMEOUT.value:
        owner.time_out(row.seat)
    else:
        owner.adjudicate()
    return None


def verify(game: Game, seats: Sequence[Seat], rows: Sequence[Move]) -> str | None:
    """Why the stored state differs from the replay of the history (None: it does not): every row
    is the one the rules give for its action, every roll the committed seed's, and the stored
    columns of the game and its seats are those the replay gives."""
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        return "it has a history but has not started" if rows else None
    try:
        match = replay(game, seats, rows, check=True)
    except ReplayError as exc:
        return f"the history does not replay: {exc}"
    if match.ply != game.ply:
        return f"the history ends at ply {match.ply}, the game is at ply {game.ply}"
    copy = Game(pk=game.pk, ruleset=game.ruleset, status=Game.Status.ACTIVE, course_keys=list(game.course_keys),
                course_id=game.course_id, course_letter=game.course_letter)
    copies = [Seat(index=s.index, color=s.color, user_id=s.user_id, joined_at=s.joined_at) for s in playing(seats)]
    store_state(copy, copies, match)
    stored = {f: getattr(game, f) for f in GAME_STATE_FIELDS}
    replayed = {f: getattr(copy, f) for f in GAME_STATE_FIELDS}
    if stored != replayed:
        diff = sorted(f for f in stored if stored[f] != replayed[f])
        return "stored " + ", ".join(f"{f}={stored[f]!r}" for f in diff) + "; the replay gives " + \
            ", ".join(f"{f}={replayed[f]!r}" for f in diff)
    for seat, again in zip(playing(seats), copies, strict=True):
        a = {f: getattr(seat, f) for f in SEAT_STATE_FIELDS}
        b = {f: getattr(again, f) for f in SEAT_STATE_FIELDS}
        if a["entries"] == [] and a["moves"] == 0 and a["q"] is None:  # a boat never placed, as stored before 0021
            a["entries"] = b["entries"]
        if a != b:
            diff = sorted(f for f in a if a[f] != b[f])
            return f"{seat.color}: stored " + ", ".join(f"{f}={a[f]!r}" for f in diff) + "; the replay gives " + \
                ", ".join(f"{f}={b[f]!r}" for f in diff)
    return None


# --- records ------------------------------------------------------------------------------------


def record_meta(game: Game) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "site_game_id": game.pk,
        "created_at": game.created_at.isoformat(),
        "days_per_move": game.days_per_move,
        "rated": game.rated,
        "dice": {
            "scheme": "hmac-sha256/v1 (docs/fair-dice.md)",
            "seed_sha256": game.dice_seed_sha256,
            "seed": game.dice_seed if game.over else None,
        },
    }
    if game.clock_shape == "bank":  # a capped bank (docs/clocks.md): no days per move
        meta["clock"] = {"shape": "bank", "start_days": game.grace_days, "add_hours": game.bank_add_hours,
                         "cap_days": game.bank_cap_days}
    return meta


def record_of(game: Game, rows: Sequence[Move] | None = None, seats: Sequence[Seat] | None = None) -> dict[str, Any]:
    """The game record (docs/game-record.md) from the database, with the fair-dice data: version 1
    for a two-player game (built from the rows and the stored state), version 2 for a series (the
    replay of the rows through the engine's owner of a series, which keeps every race's log)."""
    rows = rows if rows is not None else list(game.moves.order_by("ply"))
    seats = playing(seats if seats is not None else game.seat_list())
    if game.multi_race:  # (the meta a series' record has always had)
        return replay_owner(game, seats, rows).record(meta={"site_series": game.series_number})
    colors = [s.color for s in seats]
    history = History.of(rows, colors)
    players = {s.color: s.user.username for s in seats}
    return game_record(state_of(game, seats), history.placements, history.moves, players=players,
                       meta=record_meta(game), pending=history.pending())


def deadline_text(when: datetime | None) -> str | None:
    return when.isoformat() if when else None
