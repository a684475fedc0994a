"""Migrations 0020–0022 move series into games (issue 25): the data, not only the code.

``old_world.json`` holds every row of a world of games and series as the code before the change
stored them (two-player games finished, awaiting a direction, resigned, lost on time,
adjudicated; series finished and rated, in race B with a player who resigned and a roll awaiting
its direction, with a player who lost on time, with a house bot, of rules version 1, open in the
lobby, cancelled; their idempotency keys, ratings, emails, live events, "seen live" marks), and
what that code served about each: its record, its state as a player and as a spectator see it,
each player's lists. It was made by tests/migration/make_old_world.py at b7f171f (the last
commit with the series tables; run by hand, then removed with them).

Here the rows are written at migration 0019 as they were, the migrations run, and then: every
game verifies (its history replays by the rules to its stored state, every roll is its seed's,
its record verifies); every series is a game numbered as it was, whose record, state and lists
are what the old code served (the old API paths answer them, the new ones the same with the
game's id); and what pointed at a series points at its game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from tests.migrating import database_at

HERE = Path(__file__).resolve().parent
BEFORE = [("games", "0019_idempotent_series_actions")]

# the world is made once for the module's tests (migrating to the old state and on to the latest takes some 10 s),
# each test runs in a transaction rolled back at its end, and they run in one process (xdist)
pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("one-game-migration")]


def load_rows(apps: Any, rows: list[dict[str, Any]]) -> None:
    """Write the rows as they were, through the models of that time (their ids kept; auto-set
    times as stored; the sequences moved past them)."""
    models = []
    apps.get_model("accounts", "User").objects.all().delete()  # the house bots of the migrations: the world has its own
    for label in dict.fromkeys(r["model"] for r in rows):
        model = apps.get_model(label)
        models.append(model)
        objects, stamps = [], []
        for row in (r for r in rows if r["model"] == label):
            values: dict[str, Any] = {}
            for name, value in row["fields"].items():
                field = model._meta.get_field(name)
                if field.many_to_many:
                    continue
                values[field.attname] = value
            objects.append(model(pk=row["pk"], **values))
            auto = {f.attname: row["fields"][f.name] for f in model._meta.concrete_fields
                    if getattr(f, "auto_now", False) and f.name in row["fields"]}
            if auto:
                stamps.append((row["pk"], auto))
        model.objects.bulk_create(objects)
        for pk, auto in stamps:
            model.objects.filter(pk=pk).update(**auto)
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    with django_db_blocker.unblock():
        yield migrated_world()
        call_command("flush", interactive=False, verbosity=0)  # the next tests find the database as made


def migrated_world() -> dict[str, Any]:
    data = json.loads((HERE / "old_world.json").read_text(encoding="utf-8"))
    executor = MigrationExecutor(connection)
    # the other apps as they are now (none of their migrations needs games past 0019), but for
    # the ratings, social, live and notifications apps: their models were the games app's then
    # (games 0023–0026), so they are left out (undone)
    later = ("games", "ratings", "social", "live", "notifications")
    before = [*BEFORE, *(leaf for leaf in executor.loader.graph.leaf_nodes() if leaf[0] not in later)]
    executor = database_at(before)
    with transaction.atomic():  # the rows refer to each other in both directions (foreign keys checked at the end)
        load_rows(executor.loader.project_state(before).apps, data["rows"])
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    return data


def client(username: str) -> APIClient:
    from accounts.models import User

    c = APIClient()
    c.force_authenticate(User.objects.get(username=username))
    return c


def without_now(value: Any) -> Any:
    """The state as served, but the moment it was asked (``clock.now``)."""
    if isinstance(value, dict):
        return {k: without_now(v) for k, v in value.items() if k != "now"}
    if isinstance(value, list):
        return [without_now(v) for v in value]
    return value


def served_then(now: Any, then: Any) -> Any:
    """Of an answer served now, what the old code served: the fields added since (issue 27's clock
    terms: ``clock_shape``, ``bank_add_hours``, …) left out, every field it served kept as it is
    now, so that comparing with the old answer shows any field lost or changed."""
    if isinstance(then, dict) and isinstance(now, dict):
        return {k: served_then(now[k], v) if k in now else "<missing now>" for k, v in then.items()}
    if isinstance(then, list) and isinstance(now, list) and len(then) == len(now):
        return [served_then(n, t) for n, t in zip(now, then, strict=True)]
    return now


@pytest.mark.slow
def test_the_migrated_world_verifies_and_serves_what_the_old_code_served(world):
    from games.models import Game, IdempotentRequest, Move
    from games.ratings.models import SeriesRatingChange

    served = world["served"]
    rows = world["rows"]
    old_series = {r["pk"]: r["fields"] for r in rows if r["model"] == "games.seriesgame"}
    names = {r["pk"]: r["fields"]["username"] for r in rows if r["model"] == "accounts.user"}

    call_command("verify_games")  # every game: its history replays to its stored state, its record verifies
    games = {g.series_number: g for g in Game.objects.filter(series_number__isnull=False)}
    assert set(games) == set(old_series)
    two_player = Game.objects.filter(series_number__isnull=True)
    assert sorted(str(g.pk) for g in two_player) == sorted(served["games"])

    # two-player games: their state and record as before
    for pk, before in served["games"].items():
        game = Game.objects.get(pk=int(pk))
        yellow = names[next(r["fields"]["yellow"] for r in rows if r["model"] == "games.game" and r["pk"] == int(pk))]
        assert game.player(0).username == yellow
        assert client(yellow).get(f"/api/games/{pk}/record/").json() == before["record"]
        for who, seen in ((yellow, before["player"]), ("fay", before["spectator"])):
            now = without_now(client(who).get(f"/api/games/{pk}/").json())
            assert served_then(now, without_now(seen)) == without_now(seen)

    # series: games numbered as they were, serving what they served (old paths), and the same at the new
    for number, before in served["series"].items():
        number = int(number)
        game = games[number]
        old = old_series[number]
        assert (game.ruleset, game.status, game.ply, game.seats_wanted, game.rules_version) == (
            "boxed", old["status"], old["ply"], old["seats_wanted"], old["rules_version"])
        creator = names[old["created_by"]]
        if old["status"] == "cancelled":
            assert client(creator).get(f"/api/series/{number}/").status_code == 404
            continue
        mine = client(creator).get(f"/api/series/{number}/").json()
        assert served_then(mine, before["player"]) == before["player"], number
        watched = client("eve").get(f"/api/series/{number}/").json()
        assert served_then(watched, before["spectator"]) == before["spectator"], number
        record = client(creator).get(f"/api/series/{number}/record/")
        assert (record.json() if record.status_code == 200 else None) == before["record"], number
        new = client(creator).get(f"/api/games/{game.pk}/").json()
        expected = {**before["player"], "id": game.pk, "ruleset": "boxed", "series": number}
        assert served_then(new, expected) == expected
    for name, lists in served["lists"].items():
        assert served_then(client(name).get("/api/series/").json(), lists["series"]) == lists["series"], name
        games_now = client(name).get("/api/games/").json()
        two_player = [g for g in games_now["results"] if "yellow" in g]
        assert served_then(two_player, lists["games"]["results"]) == lists["games"]["results"], name

    # what pointed at a series points at its game
    keys = IdempotentRequest.objects.filter(key__startswith="s") | IdempotentRequest.objects.filter(key="leave-1")
    assert keys.exists() and all(k.game.ruleset == "boxed" for k in keys)
    retried = client("eve").post(f"/api/series/{games[2].series_number}/resign/", {"confirm": True}, format="json",
                                 HTTP_IDEMPOTENCY_KEY="leave-1")
    assert retried.status_code == 200 and retried.json()["series"] == 2  # the first answer, as it was given
    assert SeriesRatingChange.objects.filter(game=games[1]).count() == 4
    assert {c.user.username: c.place for c in SeriesRatingChange.objects.filter(game=games[1])} == {
        names[r["fields"]["user"]]: r["fields"]["place"] for r in rows if r["model"] == "games.seriesratingchange"}
    assert Move.objects.filter(game=games[2], kind="end", termination="resign").count() == 1
    assert Move.objects.filter(game=games[3], kind="end", termination="timeout").count() == 1


@pytest.mark.slow
def test_emails_live_events_and_addresses_follow_the_series_into_its_game(world):
    from games.live.events import user_event_lines
    from games.live.models import LiveEvent, LiveSeen
    from games.models import Game
    from games.notifications.emails import message_for
    from games.notifications.models import Notice

    games = {g.series_number: g for g in Game.objects.filter(series_number__isnull=False)}
    assert not Notice.objects.filter(event__startswith="series_").exists()
    turns = Notice.objects.filter(event="your_turn", key__startswith=f"game:{games[1].pk}:")
    assert turns.count() > 10 and all(e.data == {"game": games[1].pk} for e in turns)
    over = Notice.objects.filter(event="game_over", data={"game": games[1].pk})
    assert over.count() == 4
    message = message_for(over.first())  # an email recorded before is written as a series' still
    assert message.subject.startswith("Series 1 is over: Orange wins the series")
    assert f"/games/{games[1].pk}/" in message.body
    held = Notice.objects.filter(event="your_turn", sent_at__isnull=True, data__game=games[2].pk).first()
    assert held is not None
    assert message_for(held).subject == f"Your turn in series 2 (race {'ABC'[games[2].race]})"

    events = list(LiveEvent.objects.filter(game_id__in=[g.pk for g in games.values()]))
    assert events and {e.kind for e in events} <= {"move", "start", "finish", "seats"}
    assert all(e.users for e in events if e.kind != "seats" or e.data.get("action") != "cancel")
    start = next(e for e in events if e.kind == "start")
    lines = user_event_lines(start, start.users[0])
    assert [line["type"] for line in lines] == ["gameStart", "seriesStart"]
    assert LiveSeen.objects.filter(game_id=games[1].pk).exists()

    page = Client().get("/series/1/")
    assert page.status_code == 301 and page["Location"] == f"/games/{games[1].pk}/"
    assert Client().get("/series/1/", follow=True).status_code == 200
    assert games[7].status == "cancelled" and Client().get("/series/7/", follow=True).status_code == 404
