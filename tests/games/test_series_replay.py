"""The series page's replay control (issue 25: what a game page has, a series page has): ``?at=N``
shows the series as it stood after N actions, with the game page's control (one template,
games/_replay.html), the actions listed as links with the one shown marked, and no turn form;
anything else than a number of actions shows now."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from games import services
from games.engine import Phase
from games.models import Move

from .factories import PASSWORD, make_user
from .series_play import play

pytestmark = pytest.mark.django_db


def series_played(until):
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = services.game_open(user=users[0], seats=3)
    for user in users[1:]:
        services.game_join(user=user, game_id=series.pk, rng=random.Random(5))
    play(series.pk, seed=1, stop=until)
    series.refresh_from_db()
    return series


def series_in_race_b():
    return series_played(lambda engine: len(engine.races) == 2 and engine.race.phase is Phase.DICE)


def page(client: Client, series, query: str = "") -> str:
    response = client.get(f"/games/{series.pk}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def boats_on_board(html: str) -> int:
    return len(re.findall(r'<g class="boat ', html))


def actions(series) -> list[Move]:
    """The series' actions, each the row that starts it: a roll whose only direction was taken at
    once (R7) is one action, stored as its roll row and its turn row at the next ply."""
    out: list[Move] = []
    for row in Move.objects.filter(game=series).order_by("ply"):
        if not (row.kind == Move.Kind.TURN and row.auto and out and out[-1].kind == Move.Kind.ROLL):
            out.append(row)
    return out


def test_the_replay_shows_the_series_after_n_actions_in_its_race():
    series = series_in_race_b()
    total = len(actions(series))
    mover = series.seats.get(index=series.to_move).user
    client = Client()
    client.login(username=mover.username, password=PASSWORD)
    now = page(client, series)
    assert 'id="dice-form"' in now and f"now ({total} actions)" in now and "· race B" in now

    start = page(client, series, "?at=0")
    assert boats_on_board(start) == 0, "nothing placed yet"
    assert "· race A" in start and "after 0 of" in start and 'id="dice-form"' not in start
    assert "Back to the current position" in start and f'href="?at={total}"' in start

    one = page(client, series, "?at=1")
    assert boats_on_board(one) == 1 and "after 1 of" in one
    assert re.search(r'<li value="1" class="current" aria-current="step"><a href="\?at=1">', one)

    first_in_b = next(a for a in actions(series) if a.race == 1)
    at = actions(series).index(first_in_b) + 1
    in_b = page(client, series, f"?at={at}")
    assert "· race B" in in_b and boats_on_board(in_b) == 1


@pytest.mark.parametrize("query", ["?at=", "?at=-1", "?at=x", "?at=¹", "?at=99999"])
def test_anything_but_a_number_of_actions_shows_now(query):
    series = series_played(lambda engine: engine.ply >= 4)
    html = page(Client(), series, query)
    assert "after " not in html.split('class="replay"')[1][:400] and "now (" in html
