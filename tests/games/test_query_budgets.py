"""Query budgets of the turn path (issue 10), from authentication to commit, through the API and
the site as clients use them. Tasks are not counted: they are queued after the commit.

Budgets: a roll <= 7, a direction <= 9, the API GET of a game <= 4, the HTML game page <= 3 (the
session with its player, the game with its seats, players, drawing and ratings, its history). On
PostgreSQL a turn is 3, of a two-player game and of a series alike: the token, the locked read, and
its writes, its live event included, in one statement (common.db.writing).
The tests run with real transactions (as in production, where BEGIN and COMMIT are not
statements of the budget: they are left out). Whether this process has the game's course parsed
or not (in correspondence play most requests find it gone from the cache) makes no difference:
the read of the game brings it (games.loading).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from games import state
from games.models import Game
from games.ratings.models import Rating

from .factories import PASSWORD, greedy_player, make_user, placed_game

pytestmark = pytest.mark.django_db(transaction=True)

BUDGET = {"roll": 7, "direction": 9, "api_get": 4, "page": 3}


@pytest.fixture
def game() -> Game:
    return placed_game()


def token(user: Any) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def counted(call: Any) -> tuple[Any, list[str]]:
    """The queries of ``call``, made with no course parsed in this process (the harder case)."""
    state._COURSES.clear()
    with CaptureQueriesContext(connection) as queries:
        result = call()
    return result, [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT",
                                                                                            "RELEASE"))]


def turns(game: Game, client: Client, tokens: dict[int, str]) -> Iterator[tuple[str, Any, list[str]]]:
    """Play the game through the API, always adding a die (or keeping three), taking the first
    allowed direction; yields each request with its answer and its queries."""
    while True:
        game.refresh_from_db()
        if game.over:
            return
        auth = {"HTTP_AUTHORIZATION": f"Token {tokens[game.to_move]}"}
        seat = game.seats.get(index=game.to_move)
        body = {"ply": game.ply, "change": "add" if len(seat.dice) < 3 else "keep", "reroll": []}
        response, sql = counted(
            lambda b=body, a=auth: client.post(f"/api/games/{game.pk}/roll/", b, "application/json", **a))
        assert response.status_code == 200, response.json()
        yield "roll", response.json(), sql
        data = response.json()
        if data["move"] is None:
            allowed = [o["direction"] for o in data["options"] if o["allowed"]]
            body = {"ply": data["ply"], "direction": allowed[0]}
            response, sql = counted(
                lambda b=body, a=auth: client.post(f"/api/games/{game.pk}/direction/", b, "application/json", **a))
            assert response.status_code == 200, response.json()
            yield "direction", response.json(), sql


def test_a_roll_and_a_direction_stay_within_their_query_budgets(game):
    client = Client()
    seen: dict[tuple[str, bool], int] = {}
    games = [game]
    while len(seen) < 3:  # the dice decide which kinds of request a game needs: play more games until all are seen
        assert len(games) <= 10, seen
        tokens = {0: token(game.player(0)), 1: token(game.player(1))}
        for kind, answer, sql in turns(game, client, tokens):
            if answer["status"] != "active":
                break  # a finishing move also rates the game: not part of the budget of a turn
            passed = answer["phase"] == "dice"  # the turn passed to the other player
            seen[(kind, passed)] = max(seen.get((kind, passed), 0), len(sql))
            assert len(sql) <= BUDGET[kind], f"{kind}: {len(sql)} queries\n" + "\n".join(sql)
            if connection.vendor == "postgresql":  # token, locked read, the step's writes with its live event
                assert len(sql) == 3 and sql[2].startswith("INSERT INTO") and "games_liveevent" in sql[2], (
                    "\n".join(sql))
        game = placed_game(yellow=make_user(f"by{len(games)}"), red=make_user(f"br{len(games)}"), seed=len(games) + 3)
        games.append(game)
    # every kind of request was measured: a roll that waits for its direction, a roll whose only
    # direction was taken at once (R7, the turn passes), and a direction (the turn passes)
    assert set(seen) == {("roll", False), ("roll", True), ("direction", True)}, seen


def test_a_finishing_move_rates_the_game_and_looks_for_its_tournament_in_two_queries_more(game):
    """The move that ends a game (here a boat sinks, or the race is over) also rates it and, once
    committed, looks for the tournament round or round-robin group it belongs to. Both players
    have a rating (every game but a player's first rated one): on PostgreSQL the token, the
    locked read, the two ratings locked with the look for the game's rating changes (rated once),
    the step's writes (the ratings and their changes with them), and one look for the game in a
    tournament's round or group: 5 queries."""
    for seat in (0, 1):
        Rating.objects.create(user=game.player(seat))
    tokens = {0: token(game.player(0)), 1: token(game.player(1))}
    last = None
    for kind, answer, sql in turns(game, Client(), tokens):
        last = kind, answer, sql
    assert last is not None
    kind, answer, sql = last
    assert answer["status"] == "finished" and kind in ("roll", "direction"), answer
    text = "\n".join(sql)
    assert game.rating_changes.count() == 2
    reads = [q for q in sql if not q.startswith(("INSERT", "UPDATE"))]
    assert len(reads) == 4, text  # on the other backends the writes go one by one
    if connection.vendor == "postgresql":
        assert len(sql) == 5, text
        assert "FOR UPDATE" in sql[2] and '"tournaments_rating"' in sql[2] and "EXISTS" in sql[2], text
        assert sql[3].startswith("INSERT INTO") and "games_liveevent" in sql[3], text
        assert "UNION ALL" in sql[4] and "tournaments_entry" in sql[4] and "tournaments_groupgame" in sql[4], text


def test_reading_a_game_stays_within_the_query_budgets(game):
    tokens = {0: token(game.player(0)), 1: token(game.player(1))}
    client = Client()
    response, sql = counted(lambda: client.get(f"/api/games/{game.pk}/", HTTP_AUTHORIZATION=f"Token {tokens[1]}"))
    assert response.status_code == 200 and response.json()["your_turn"] is True
    assert len(sql) <= BUDGET["api_get"], "\n".join(sql)
    client.login(username=game.player(1).username, password=PASSWORD)
    client.get(f"/games/{game.pk}/")  # the board drawn once (see the next test: a first view stores it)
    response, sql = counted(lambda: client.get(f"/games/{game.pk}/"))
    assert response.status_code == 200 and b'id="dice-form"' in response.content
    assert len(sql) <= BUDGET["page"], "\n".join(sql)


def test_an_unchanged_game_answers_not_modified_for_almost_nothing(game):
    """Conditional requests: a client polling a game that has not changed gets a 304 after
    authentication and one read; after a move the ETag changes."""
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Token {token(game.player(1))}"}
    first = client.get(f"/api/games/{game.pk}/", **auth)
    etag = first["ETag"]
    response, sql = counted(lambda: client.get(f"/api/games/{game.pk}/", HTTP_IF_NONE_MATCH=etag, **auth))
    assert response.status_code == 304 and response["ETag"] == etag and len(sql) <= 2
    other = client.get(f"/api/games/{game.pk}/", HTTP_IF_NONE_MATCH=etag,
                       HTTP_AUTHORIZATION=f"Token {token(game.player(0))}")
    assert other.status_code == 200, "another viewer sees another version (their own options)"
    client.post(f"/api/games/{game.pk}/roll/", {"ply": 2, "change": "add", "reroll": []}, "application/json", **auth)
    again = client.get(f"/api/games/{game.pk}/", HTTP_IF_NONE_MATCH=etag, **auth)
    assert again.status_code == 200 and again["ETag"] != etag and again.json()["ply"] > 2


def test_an_unchanged_series_answers_not_modified_as_a_game_does():
    """A series is a game (issue 25): its state has the game's ETag (one games.api.versioned): a
    304 after authentication and one read (no replay, no history read), another viewer another
    version, and a new one after an action. By its number (/api/series/<n>/, its old address) the
    same, with one query more (the number)."""
    from .series_play import started

    users = [make_user(n) for n in ("ea", "eb", "ec")]
    series = started(users, seed=5)
    mover = series.seats.get(index=series.to_move).user
    other = next(u for u in users if u != mover)
    client = Client()
    auth = {"HTTP_AUTHORIZATION": f"Token {token(mover)}"}
    for url, reads in ((f"/api/games/{series.pk}/", 2), (f"/api/series/{series.series_number}/", 3)):
        first = client.get(url, **auth)
        etag = first["ETag"]
        assert first.status_code == 200 and first.json()["your_turn"] and first["Cache-Control"] == "private, no-cache"
        response, sql = counted(lambda u=url, e=etag: client.get(u, HTTP_IF_NONE_MATCH=e, **auth))
        assert response.status_code == 304 and response["ETag"] == etag and not response.content
        assert len(sql) <= reads, "\n".join(sql)  # the token, the game with its seats (and the number)
        seen = client.get(url, HTTP_IF_NONE_MATCH=etag, HTTP_AUTHORIZATION=f"Token {token(other)}")
        assert seen.status_code == 200, "another viewer sees another version (not their turn)"
    cell = first.json()["placements"]["cells"][0]
    placed = client.post(f"/api/games/{series.pk}/place/", {"ply": 0, "cell": cell, "heading": 0},
                         "application/json", **auth)
    assert placed.status_code == 200, placed.json()
    for url in (f"/api/games/{series.pk}/", f"/api/series/{series.series_number}/"):
        again = client.get(url, HTTP_IF_NONE_MATCH=etag, **auth)
        assert again.status_code == 200 and again["ETag"] != etag and again.json()["ply"] == 1


def test_a_page_reads_its_boards_drawing_with_the_game(game, monkeypatch):
    """The first view of a course in a language draws its static layers and stores them (one
    INSERT more); every later view, in any process, reads them with the game: no drawing and
    no query of its own."""
    import games.board as board

    client = Client()
    client.login(username=game.player(1).username, password=PASSWORD)
    board._STATIC_BY_KEY.clear()  # as in a fresh process
    board._STATIC.clear()
    first, sql = counted(lambda: client.get(f"/games/{game.pk}/"))
    inserts = [q for q in sql if q.startswith("INSERT") and "games_coursedrawing" in q]
    assert first.status_code == 200 and len(inserts) == 1
    assert len(sql) <= BUDGET["page"] + 1, "\n".join(sql)

    def no_drawing(self):
        raise AssertionError("drawn again")

    monkeypatch.setattr(board.Board, "render_static", no_drawing)
    board._STATIC_BY_KEY.clear()  # another process, or this one after the course left its caches
    board._STATIC.clear()
    Rating.objects.create(user=game.player(0), rating=1620.4, deviation=50)  # the other player has none yet
    again, sql = counted(lambda: client.get(f"/games/{game.pk}/"))
    assert again.status_code == 200 and board_of(again) == board_of(first)
    assert len(sql) <= BUDGET["page"], "\n".join(sql)
    drawing = [q for q in sql if "games_coursedrawing" in q]
    assert len(drawing) == 1 and "games_seat" in drawing[0], "read with the game and its seats, nothing else"
    ratings = [q for q in sql if "tournaments_rating" in q]
    assert ratings == drawing, "the players' ratings too"
    shown = re.findall(r'<small class="rating">([^<]*)</small>', again.content.decode())
    assert shown == ["1620", "1500?"], shown


def board_of(response: Any) -> bytes:
    import re

    found = re.search(rb'<svg class="board.*?</svg>', response.content, re.S)
    assert found is not None
    return found.group(0)


@pytest.mark.slow
def test_a_two_player_turn_and_a_series_turn_go_one_path_within_one_budget(game, monkeypatch):
    """One game for any number of boats (issue 25): a two-player game's turn and a series' turn
    are the same requests to the same views, served by the same service path (games.services
    ``_play`` → ``_record``) within the same budget: the token, the game read and locked with its
    seats, the step's writes (on PostgreSQL one statement: 3 in all, whatever the game; elsewhere
    one statement per write, and a series' action may change more seats' rows: one UPDATE each,
    counted apart). The series' engine state is kept by the process (games.rulesets): no history
    is read. Actions that end a race or the game (ratings, the next race) are not part of it."""

    from games import services
    from games.engine import Phase
    from games.engine.players import GreedyPlayer

    from .series_play import engine_now, started

    played: list[tuple[int, str]] = []
    real_play = services._play

    def spy(**kwargs: Any) -> Any:
        played.append((kwargs["game_id"], kwargs["action"]))
        return real_play(**kwargs)

    monkeypatch.setattr(services, "_play", spy)
    client = Client()
    shapes: dict[tuple[str, str], int] = {}

    def check(kind: str, name: str, sql: list[str]) -> None:
        seats = sum(q.startswith('UPDATE "games_seat"') for q in sql)
        reads = [q for q in sql if q.startswith("SELECT")]
        assert len(reads) == 2 and "games_seat" in reads[1] and "games_move" not in reads[1], "\n".join(sql)
        if connection.vendor == "postgresql":
            assert len(sql) == 3 and sql[2].startswith("INSERT INTO") and "games_liveevent" in sql[2], "\n".join(sql)
        else:
            assert len(sql) - max(seats - 1, 0) <= BUDGET.get(kind, BUDGET["roll"]), f"{name} {kind}:\n" + "\n".join(sql)
        shapes[(name, kind)] = max(shapes.get((name, kind), 0), len(sql) - max(seats - 1, 0))

    tokens = {0: token(game.player(0)), 1: token(game.player(1))}
    for kind, answer, sql in turns(game, client, tokens):
        if answer["status"] != "active":
            break
        check(kind, "two-player", sql)
    assert {g for g, _ in played} == {game.pk}

    users = [make_user(n) for n in ("sa", "sb", "sc", "sd")]
    series = started(users, rated=False)
    tokens_by_user = {u.pk: token(u) for u in users}
    players: dict[int, GreedyPlayer] = {}
    for _ in range(400):
        row, _seats, engine = engine_now(series.pk)
        if row.status != "active" or len(engine.races) > 1:
            break
        seat = row.seat_at(row.to_move)
        player = players.setdefault(seat.index, greedy_player(seat.index + 1))
        state = engine.race
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            kind, body = "place", {"ply": row.ply, "cell": list(cell), "heading": heading}
        elif state.phase is Phase.DICE:
            choice = player.dice(state)
            kind, body = "roll", {"ply": row.ply, "change": choice.change.value, "remove": choice.remove,
                                  "reroll": list(choice.reroll)}
        else:
            kind, body = "direction", {"ply": row.ply, "direction": player.direction(state)}
        auth = {"HTTP_AUTHORIZATION": f"Token {tokens_by_user[seat.user_id]}"}
        response, sql = counted(lambda k=kind, b=body, a=auth: client.post(f"/api/games/{series.pk}/{k}/", b,
                                                                          "application/json", **a))
        assert response.status_code == 200, response.json()
        after = Game.objects.get(pk=series.pk)
        if after.race != row.race or after.status != "active":
            continue  # the race's last action
        check(kind, "series", sql)
    assert {g for g, _ in played} == {game.pk, series.pk}, "one service path for both"
    assert {k for _, k in shapes} >= {"roll", "direction"} and ("series", "place") in shapes, shapes
    print("\nqueries per request (max, one seat's UPDATE counted):", shapes)
