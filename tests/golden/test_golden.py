"""Golden snapshots of what users see (issue 25: taken BEFORE one game for any number of boats
replaces the two-player game and the series, and compared after).

Two scripted games are played through the API, as a client would, with the clock frozen and
every random draw seeded (the lake and course, the lot, the dice secret; each seat chooses with
GreedyPlayer(Random(seat))):
* a rated two-player game (a challenge accepted, placements, every roll and direction, to the
  end), and
* a 4-boat series of the boxed game (opened, joined, three races).

What is kept (tests/golden/*.json): every action's request and answer, each player's and a
spectator's view of the game at a few points, the record, the lists, the ratings, and the text of
the pages (game or series page for a player and a spectator, in English and German; My games).
Ids are replaced by names (``<game>``, ``<ann>``...), so the files do not depend on the database's
sequences. A difference fails with the first differing lines; ``GOLDEN_UPDATE=1`` writes the
files afresh (then read the diff: every change in it is a change users see).
"""

from __future__ import annotations

import difflib
import json
import os
import random
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.engine import Phase
from games.engine.players import GreedyPlayer
from games.models import Game
from games.rulesets import BOXED
from games.state import state_of
from tests.games.factories import greedy_player, make_user
from tests.games.series_play import engine_now

HERE = Path(__file__).resolve().parent
T0 = datetime(2026, 6, 1, 9, 30, tzinfo=UTC)
UPDATE = os.environ.get("GOLDEN_UPDATE") == "1"
ID_KEYS = {"id": "", "game": "game", "series": "series", "challenge": "challenge", "user": "user", "user_id": "user",
           "tournament": "tournament", "site_game_id": "game", "site_series": "series"}  # key: what it names

pytestmark = pytest.mark.django_db(transaction=True)


# --- what is compared ----------------------------------------------------------------------------


class Names:
    """Ids to names: each object the script makes is named once; an id of something else is
    ``<id>``."""

    def __init__(self) -> None:
        self.by_id: dict[tuple[str, int], str] = {}

    def add(self, kind: str, pk: int, name: str) -> None:
        self.by_id[(kind, pk)] = name

    def _name(self, kind: str, value: int) -> str:
        name = self.by_id.get((kind, value))
        return f"<{name}>" if name else "<id>"

    def json(self, value: Any, key: str = "", kind: str = "") -> Any:
        """``kind``: what an ``id`` names here (the kind of object the API path is about): a
        game and a challenge may share a number."""
        if isinstance(value, dict):
            return {k: self.json(v, k, kind) for k, v in value.items()}
        if isinstance(value, list):
            return [self.json(v, key, kind) for v in value]
        if key in ID_KEYS and isinstance(value, int) and not isinstance(value, bool):
            return self._name(ID_KEYS[key] or kind, value)
        if isinstance(value, str):
            return self.text(value)
        return value

    def text(self, value: str) -> str:
        def path(match: re.Match[str]) -> str:
            kind = {"games": "game", "series": "series", "challenges": "challenge"}[match.group(1)]
            return f"/{match.group(1)}/{self._name(kind, int(match.group(2)))}/"

        def title(match: re.Match[str]) -> str:  # "Game 12", "Partie 12", "Series 3", "Serie 3"
            kind = "series" if match.group(1).lower().startswith("serie") else "game"
            return f"{match.group(1)} {self._name(kind, int(match.group(2)))}"

        def number(match: re.Match[str]) -> str:  # "#12": a game in a list, when it is one of ours
            pk = int(match.group(1))
            return f"#{self._name('game', pk)}" if ("game", pk) in self.by_id else match.group(0)

        value = re.sub(r"/(games|series|challenges)/(\d+)/", path, value)
        value = re.sub(r"#(\d+)\b", number, value)
        return re.sub(r"\b(Game|Partie|Partita|Spiel|Series|Serie)\s+(\d+)\b", title, value)


def kind_of(path: str) -> str:
    """What an ``id`` in the answer to ``path`` names: /api/games/… a game, and so on."""
    head = path.split("/")[2] if path.startswith("/api/") else ""
    return {"games": "game", "series": "series", "challenges": "challenge"}.get(head, "")


class Text(HTMLParser):
    """The text a reader sees of a page's main part: no scripts, styles or drawings, nothing
    ``hidden`` (what a script shows only when it applies: the offline note, the offer of
    notifications); one line per block."""

    SKIP = {"script", "style", "svg", "template", "noscript"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
    BLOCK = {"p", "li", "tr", "h1", "h2", "h3", "h4", "div", "section", "td", "th", "dt", "dd", "option",
             "label", "button", "summary", "caption", "br", "form", "legend", "a"}

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.now: list[str] = []
        self.skipping = 0
        self.inside = False
        self.open: list[tuple[str, bool]] = []  # the elements open, and whether each is hidden

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "main":
            self.inside = True
        if tag in self.SKIP:
            self.skipping += 1
        if tag in self.BLOCK:
            self.flush()
        if tag not in self.VOID:
            hidden = any(name == "hidden" for name, _ in attrs)
            self.open.append((tag, hidden))
            self.skipping += hidden

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping -= 1
        if tag in self.BLOCK:
            self.flush()
        while self.open and tag in (t for t, _ in self.open):  # close it, and what was left open inside it
            name, hidden = self.open.pop()
            self.skipping -= hidden
            if name == tag:
                break
        if tag == "main":
            self.flush()
            self.inside = False

    def handle_data(self, data: str) -> None:
        if self.inside and not self.skipping:
            self.now.append(data)

    def flush(self) -> None:
        line = " ".join("".join(self.now).split())
        if line:
            self.lines.append(line)
        self.now = []


def page_text(html: str, names: Names) -> list[str]:
    parser = Text()
    parser.feed(html)
    parser.flush()
    return [names.text(line) for line in parser.lines]


def compare(name: str, got: dict[str, Any]) -> None:
    path = HERE / f"{name}.json"
    # one line per step, view and page: a change shows as the lines of what changed
    sections = []
    for section, items in got.items():
        lines = [json.dumps(item, ensure_ascii=False, sort_keys=True) for item in items] if isinstance(items, list) \
            else [f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False, sort_keys=True)}"
                  for k, v in items.items()]
        sections.append(f"{json.dumps(section)}: {'[' if isinstance(items, list) else '{'}\n"
                        + ",\n".join(lines) + f"\n{']' if isinstance(items, list) else '}'}")
    text = "{\n" + ",\n".join(sections) + "\n}\n"
    assert json.loads(text) == json.loads(json.dumps(got)), "the file reads back as what was seen"
    if UPDATE or not path.exists():
        if not UPDATE and os.environ.get("CI"):
            pytest.fail(f"{path.name} is missing: run GOLDEN_UPDATE=1 pytest {__file__}")
        path.write_text(text, encoding="utf-8")
        return
    want = path.read_text(encoding="utf-8")
    if text != want:
        diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), f"{name} (kept)", f"{name} (now)",
                                         lineterm="", n=2))
        pytest.fail(f"{name}: what users see has changed ({len(diff)} diff lines; GOLDEN_UPDATE=1 to accept):\n"
                    + "\n".join(diff[:80]))


# --- a deterministic world -----------------------------------------------------------------------


@pytest.fixture
def seeded(monkeypatch):
    """Every draw the site makes, seeded: the lake and course (random.SystemRandom), the dice
    secret (secrets.token_bytes in games.services), the series' lot and secret (its rng)."""
    draws = random.Random(2026)
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(draws.random()))
    monkeypatch.setattr(services.secrets, "token_bytes", lambda n=32: draws.randbytes(n))
    real = services._start
    monkeypatch.setattr(services, "_start", lambda g, seats, now, rng: real(g, seats, now, random.Random(16)))
    BOXED.forget()
    with time_machine.travel(T0, tick=False):
        yield
    BOXED.forget()


def clients(*users: Any) -> dict[str, APIClient]:
    out = {}
    for user in users:
        client = APIClient()
        client.force_authenticate(user)
        out[user.username] = client
    return out


def page_client(user: Any, language: str = "en") -> Client:
    client = Client(headers={"accept-language": language})
    if user is not None:
        client.force_login(user)
    return client


def call(log: list[Any], names: Names, who: str, client: APIClient, method: str, path: str,
         body: dict[str, Any] | None = None, makes: str = "") -> Any:
    """One API call, logged; ``makes``: the kind of object its answer makes (named by its kind)."""
    response = client.post(path, body or {}, format="json") if method == "POST" else client.get(path)
    data = response.json() if response.content else None
    if makes:
        names.add(makes, data["id"], makes)
    kind = "game" if path.endswith("/accept/") else kind_of(path)  # accepting a challenge answers its game
    log.append({"who": who, "call": f"{method} {names.text(path)}", "body": names.json(body),
                "status": response.status_code, "answer": names.json(data, kind=kind)})
    assert response.status_code < 500, (path, data)
    return data


# --- the two scripted games ------------------------------------------------------------------------


def test_a_rated_two_player_game_as_its_players_and_a_spectator_see_it(seeded):
    names = Names()
    ann, bob, eve = make_user("ann"), make_user("bob"), make_user("eve")
    for user in (ann, bob, eve):
        names.add("user", user.pk, user.username)
    api = clients(ann, bob, eve)
    steps: list[Any] = []
    views: dict[str, Any] = {}
    pages: dict[str, Any] = {}
    challenge = call(steps, names, "ann", api["ann"], "POST", "/api/challenges/",
                     {"color": "yellow", "days_per_move": 2, "course_letter": "C", "rated": True}, makes="challenge")
    game = call(steps, names, "bob", api["bob"], "POST", f"/api/challenges/{challenge['id']}/accept/", makes="game")
    gid = game["id"]
    url = f"/api/games/{gid}/"
    players = {"ann": greedy_player(1), "bob": greedy_player(2)}
    for _ in range(400):
        row = Game.objects.get(pk=gid)
        if row.over:
            break
        mover = row.player(row.to_move).username
        state = state_of(row)
        mine = call(steps, names, mover, api[mover], "GET", url) if row.ply % 10 == 0 else None
        if mine is not None:
            assert mine["your_turn"]
        player = players[mover]
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            call(steps, names, mover, api[mover], "POST", url + "place/",
                 {"ply": row.ply, "cell": list(cell), "heading": heading})
        elif state.phase is Phase.DICE:
            choice = player.dice(state)
            call(steps, names, mover, api[mover], "POST", url + "roll/",
                 {"ply": row.ply, "change": choice.change.value, "remove": choice.remove,
                  "reroll": list(choice.reroll)})
        else:
            call(steps, names, mover, api[mover], "POST", url + "direction/",
                 {"ply": row.ply, "direction": player.direction(state)})
        if row.ply == 12:  # mid-game: the pages as the players and a spectator see them
            for who, user in (("ann", ann), ("eve", eve)):
                pages[f"game page at ply 13, {who}"] = page_text(
                    page_client(user).get(f"/games/{gid}/").content.decode(), names)
            views["mid-game, eve (a spectator)"] = names.json(api["eve"].get(url).json(), kind="game")
    else:
        raise AssertionError("the game did not end")
    for who in ("ann", "bob", "eve"):
        views[f"the end, {who}"] = names.json(api[who].get(url).json(), kind="game")
    views["record"] = names.json(api["ann"].get(url + "record/").json(), kind="game")
    views["ann's games"] = names.json(api["ann"].get("/api/games/").json(), kind="game")
    views["ann's account"] = names.json(api["ann"].get("/api/me/").json(), kind="user")
    views["bob's account"] = names.json(api["bob"].get("/api/me/").json(), kind="user")
    for who, user, language in (("ann", ann, "en"), ("ann", ann, "de"), ("a visitor", None, "en")):
        pages[f"game page at the end, {who}, {language}"] = page_text(
            page_client(user, language).get(f"/games/{gid}/").content.decode(), names)
    pages["My games, ann"] = page_text(page_client(ann).get("/games/").content.decode(), names)
    compare("two_player_game", {"steps": steps, "views": views, "pages": pages})


@pytest.mark.slow
def test_a_four_boat_series_as_its_players_and_a_spectator_see_it(seeded):
    names = Names()
    users = [make_user(n) for n in ("ann", "bob", "cid", "dee", "eve")]
    for user in users:
        names.add("user", user.pk, user.username)
    api = clients(*users)
    steps: list[Any] = []
    views: dict[str, Any] = {}
    pages: dict[str, Any] = {}
    made = call(steps, names, "ann", api["ann"], "POST", "/api/series/", {"seats": 4, "days_per_move": 2, "rated": True},
                makes="series")
    sid = made["id"]  # the series' number: its API of before issue 25 (games/api_old_paths.py)
    gid = Game.objects.get(series_number=sid).pk
    url = f"/api/series/{sid}/"
    for who in ("bob", "cid", "dee"):
        call(steps, names, who, api[who], "POST", url + "join/")
    players: dict[str, GreedyPlayer] = {}
    shown_races: set[int] = set()
    for _ in range(3000):
        series, _seats, engine = engine_now(gid)
        if series.status != "active":
            break
        seat = series.seat_at(series.to_move)
        mover = seat.user.username
        player = players.setdefault(mover, greedy_player(seat.index + 1))
        state = engine.race
        if series.ply % 100 == 0:
            assert call(steps, names, mover, api[mover], "GET", url)["your_turn"]
        if state.phase is Phase.PLACE:
            cell, heading = player.place(state)
            call(steps, names, mover, api[mover], "POST", url + "place/",
                 {"ply": series.ply, "cell": list(cell), "heading": heading})
        elif state.phase is Phase.DICE:
            choice = player.dice(state)
            call(steps, names, mover, api[mover], "POST", url + "roll/",
                 {"ply": series.ply, "change": choice.change.value, "remove": choice.remove,
                  "reroll": list(choice.reroll)})
        else:
            call(steps, names, mover, api[mover], "POST", url + "direction/",
                 {"ply": series.ply, "direction": player.direction(state)})
        race = len(engine.races)
        if race not in shown_races and state.phase is Phase.DICE and state.ply > 12:  # each race, once under way
            shown_races.add(race)
            for who, user in (("ann", users[0]), ("eve", users[4])):
                pages[f"series page in race {'ABC'[race - 1]}, {who}"] = page_text(
                    page_client(user).get(f"/series/{sid}/", follow=True).content.decode(), names)
            views[f"race {'ABC'[race - 1]}, eve (a spectator)"] = names.json(api["eve"].get(url).json(), kind="series")
    else:
        raise AssertionError("the series did not end")
    for who in ("ann", "eve"):
        views[f"the end, {who}"] = names.json(api[who].get(url).json(), kind="series")
    views["record"] = names.json(api["ann"].get(url + "record/").json(), kind="series")
    views["series list, ann"] = names.json(api["ann"].get("/api/series/").json(), kind="series")
    views["series leaderboard"] = names.json(api["eve"].get("/api/series/leaderboard/").json())
    for who, user, language in (("ann", users[0], "en"), ("ann", users[0], "it"), ("a visitor", None, "en")):
        pages[f"series page at the end, {who}, {language}"] = page_text(
            page_client(user, language).get(f"/series/{sid}/", follow=True).content.decode(), names)
    compare("four_boat_series", {"steps": steps, "views": views, "pages": pages})
