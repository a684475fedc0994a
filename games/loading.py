"""One game with its seats and their players, in one query: the read that every action and every
view of a game starts with (a game of any number of boats: one row per seat). Each row ends with
the compact form of the course being raced, which is kept (games.state.keep_course): a game whose
course has left this process's cache (most, in correspondence play) needs no query for it.

It is the same query the ORM would make for
``Seat.objects.select_related("game", "user").filter(game_id=…)`` (with
``select_for_update(of=("game",))`` when locking), but the SQL is put together once per process
from the models' metadata, and the rows are turned into model instances with Django's
``Model.from_db`` and each field's database converters. Compiling that query is most of its cost
(~0.5 of ~1.1 ms of CPU: docs/performance.md), and on this path it would be compiled for every
request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from common.db.reading import Part, columns, instance_of, model_part, read_rows

from .models import CourseDrawing, Game, LakeCourse, Seat
from .ratings.models import Rating
from .state import keep_course

# the user columns a game needs of its players (not their password hashes and the rest)
PLAYER_FIELDS = ("username", "is_bot", "bot_level", "email", "email_mode", "time_zone", "reminder_hours",
                 "vacation_until", "weekend_pause", "auto_vacation", "notify", "push_devices", "quiet_from", "quiet_to")

@lru_cache(maxsize=8)
def _query(vendor: str, lock: bool, drawing: bool = False) -> tuple[str, tuple[Part, ...]]:
    user = get_user_model()
    parts = (model_part(Seat, "s"), model_part(Game, "g"), model_part(user, "u", ("id", *PLAYER_FIELDS)))
    qn = connection.ops.quote_name
    # the compact form of the course being raced (games.state.keep_course): no query of its own
    # for a course that has left this process's cache (most of them, in correspondence play)
    selected = f"{columns(*parts)}, c.{qn('compact')}"
    users = qn(user._meta.db_table)
    joined = f"LEFT JOIN {qn(LakeCourse._meta.db_table)} c ON c.{qn('key')} = g.{qn('course_id')} "
    if drawing:  # the board's stored drawing in a language and version, when there is one; each player's rating
        selected += f", d.{qn('svg')}, d.{qn('box')}, r.{qn('rating')}, r.{qn('deviation')}"
        joined += (f"LEFT JOIN {qn(CourseDrawing._meta.db_table)} d ON d.{qn('course_id')} = g.{qn('course_id')} "
                  f"AND d.{qn('language')} = %s AND d.{qn('version')} = %s "
                  f"LEFT JOIN {qn(Rating._meta.db_table)} r ON r.{qn('user_id')} = s.{qn('user_id')} ")
    sql = (
        f"SELECT {selected} FROM {qn(Seat._meta.db_table)} s "
        f"JOIN {qn(Game._meta.db_table)} g ON g.{qn('id')} = s.{qn('game_id')} "
        f"JOIN {users} u ON u.{qn('id')} = s.{qn('user_id')} "
        f"{joined}WHERE s.{qn('game_id')} = %s"
    )
    if lock and connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF g"  # the game row only; on SQLite the transaction itself is the lock
    return sql, parts


def game_and_seats(game_id: int, *, lock: bool = False) -> tuple[Game, list[Seat]] | None:
    """The game and its seats in seat order, each with its player (the fields a game needs of
    them); with ``lock`` the game row is locked (``FOR UPDATE OF``: the caller is inside a
    transaction). None when there is no such game (a game has a seat from its creation on)."""
    sql, parts = _query(connection.vendor, lock)
    rows = read_rows(sql, [game_id])
    if not rows:
        return None
    return _game(rows, parts)


def game_seats_and_drawing(game_id: int, language: str, version: str
                           ) -> tuple[Game, list[Seat], tuple[bytes, list[float]] | None, dict[int, Rating]] | None:
    """The same read, with the stored drawing of the game's board in ``language`` and
    ``version`` (games.models.CourseDrawing; None when it has not been drawn yet) and the
    two-player rating of each player who has one (their ``rating`` and ``deviation``, by user
    id): what the game page shows, in one query."""
    sql, parts = _query(connection.vendor, False, True)
    rows = read_rows(sql, [language, version, game_id])
    if not rows:
        return None
    game, seats = _game([row[:-4] for row in rows], parts)
    user_id = len(parts[0].fields) + len(parts[1].fields)  # the user's part starts with their id
    ratings = {row[user_id]: Rating(user_id=row[user_id], rating=row[-2], deviation=row[-1])
               for row in rows if row[-2] is not None}
    svg, box = rows[0][-4:-2]
    if svg is None:
        return game, seats, None, ratings
    if isinstance(box, str):  # JSON comes back as text (Django has psycopg leave jsonb undecoded)
        box = json.loads(box)
    return game, seats, (bytes(svg), box), ratings


def _game(rows: Sequence[Sequence[Any]], parts: tuple[Part, ...]) -> tuple[Game, list[Seat]]:
    """The game and its seats from the rows of :func:`_query` (each ending with the compact form
    of the game's course: kept, games.state.keep_course)."""
    seat_part, game_part, user_part = parts
    seat_end = len(seat_part.fields)
    game_end = seat_end + len(game_part.fields)
    user_end = game_end + len(user_part.fields)
    first = rows[0]
    game = instance_of(game_part, first[seat_end:game_end])
    if game.course_id is not None and first[user_end] is not None:
        keep_course(game.course_id, first[user_end])
    seats = []
    for row in rows:
        seat = instance_of(seat_part, row[:seat_end])
        seat.game = game
        seat.user = instance_of(user_part, row[game_end:user_end])
        seats.append(seat)
    game.keep_seats(seats)
    return game, game.seat_list()
