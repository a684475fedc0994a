"""Pages and API of round-robins and the Competition: what they show, their query counts (one
read per kind of thing, never one per player or row), the schema, errors, and the beat's indexes."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games.notifications.emails import message_for
from games.notifications.models import Notice
from tests.games.factories import PASSWORD, make_user
from tournaments import services_formats as services
from tournaments.models import Competition, CompetitionMember, Group, RoundRobin, Season
from tournaments.simulate import end_game

from .formats_helpers import T0, finish, lower_number_wins, players, round_robin

pytestmark = pytest.mark.django_db


def started_round_robin(count: int, prefix: str = "player", **fields):
    rr, users = round_robin(count, prefix=prefix, **fields)
    services.round_robin_start(round_robin_id=rr.pk, now=T0)
    for g in rr.groups.all():
        services.group_start(group_id=g.pk, now=T0)
    return rr, users


def season_of(count: int, prefix: str, group_size: int = 5) -> tuple[Competition, Season]:
    c = Competition.objects.create(name=f"Ladder {prefix}", group_size=group_size, rated=False)
    for u in players(count, prefix=prefix):
        services.competition_join(user=u, competition_id=c.pk, now=T0)
    services.competition_start_season(competition_id=c.pk, now=T0 + timedelta(days=3))
    season = Season.objects.get(competition=c)
    for g in season.groups.all():
        services.group_start(group_id=g.pk, now=T0 + timedelta(days=3))
    return c, season


def queries(client: Client, url: str) -> tuple[int, str]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return len(ctx.captured_queries), response.content.decode()


# --- pages ---------------------------------------------------------------------------------------


def test_the_round_robin_pages_show_groups_standings_and_cross_tables():
    rr, _users = started_round_robin(5, days_per_move=5)
    group = rr.groups.get()
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        finish(group, lower_number_wins)
    services.group_advance(group_id=group.pk, now=T0 + timedelta(hours=1))
    listing = Client().get("/round-robins/").content.decode()
    assert "Autumn round-robin" in listing and "5 players" in listing
    page = Client().get(f"/round-robins/{rr.pk}/").content.decode()
    assert f'id="standings-{group.pk}"' in page and f'id="cross-{group.pk}"' in page
    assert '<th title="Sonneborn-Berger">SB</th><th title="direct encounter">DE</th>' in page
    detail = Client().get(f"/groups/{group.pk}/").content.decode()
    assert "Round 5" in detail and "Group A" in detail and "×" in detail
    web = Client()
    web.login(username="player0", password=PASSWORD)
    form = web.get("/round-robins/new/")
    assert form.status_code == 200 and b"round-robin-form" in form.content
    made = web.post("/round-robins/new/", {
        "name": "Web RR", "group_count": 2, "pace": "at_once", "days_per_move": 3, "grace_days": 7,
        "lake_side": "standard", "course_mode": "random", "deadline_days": 90, "round_days": 30,
        "registration_closes_at": "2026-09-01T10:00", "starts_at": "2026-09-01T12:00", "min_players": 3,
        "max_players": 40, "entry": "open", "final_group": "on", "double": "on", "rated": "on"})
    assert made.status_code == 302
    web_rr = RoundRobin.objects.get(name="Web RR")
    assert web_rr.double and web_rr.final_group and web_rr.group_count == 2 and web_rr.director.username == "player0"
    refused = web.post("/round-robins/new/", {"name": "Too big", "group_count": 1, "pace": "at_once",
                                              "days_per_move": 3, "grace_days": 7, "lake_side": "standard",
                                              "course_mode": "random", "deadline_days": 90, "round_days": 30,
                                              "registration_closes_at": "2026-09-01T10:00",
                                              "starts_at": "2026-09-01T12:00", "min_players": 3, "max_players": 25,
                                              "entry": "open"})
    assert refused.status_code == 400 and "at most 20 players per group" in refused.content.decode()
    with time_machine.travel(web_rr.registration_closes_at - timedelta(days=1), tick=False):
        assert web.post(f"/round-robins/{web_rr.pk}/register/").status_code == 302
        again = web.post(f"/round-robins/{web_rr.pk}/register/")
        assert again.status_code == 409 and "registered already" in again.content.decode()
    assert web.post(f"/round-robins/{web_rr.pk}/dance/").status_code == 404
    assert web.post("/round-robins/999999/register/").status_code == 404


def test_the_competition_pages_show_levels_groups_history_and_join_leave():
    c, season = season_of(12, "s")
    page = Client().get(f"/competitions/{c.pk}/").content.decode()
    assert 'id="level-1"' in page and 'id="level-2"' in page and ">Group B</a>" in page and ">The group</a>" in page
    assert "Season 1 is playing." in page
    web = Client()
    newcomer = make_user("newcomer")
    web.force_login(newcomer)
    assert 'id="join"' in web.get(f"/competitions/{c.pk}/").content.decode()
    assert web.post(f"/competitions/{c.pk}/join/").status_code == 302
    page = web.get(f"/competitions/{c.pk}/").content.decode()
    assert 'id="leave"' in page and "Waiting for the next season" in page and "newcomer</a>" in page
    assert web.post(f"/competitions/{c.pk}/join/").status_code == 409
    assert web.post(f"/competitions/{c.pk}/leave/").status_code == 302
    assert not CompetitionMember.objects.get(user=newcomer).active
    assert web.post(f"/competitions/{c.pk}/leave/").status_code == 404
    member = season.groups.get(level=1).players.first().user
    history = Client().get(f"/competitions/{c.pk}/players/{member.username}/").content.decode()
    assert 'id="history"' in history and "Level 1" in history and "playing (5 players)" in history
    assert Client().get("/competition/").status_code == 302
    assert Client().get(f"/competitions/{c.pk}/?season=7").status_code == 404
    assert Client().get(f"/competitions/{c.pk}/players/nobody/").status_code == 404


@pytest.mark.slow
def test_pages_read_a_fixed_number_of_queries_whatever_the_number_of_players():
    """Standings, cross tables, levels and histories are read in one query per kind of thing:
    twice the players (and four times the games) costs no query more."""
    small, _ = started_round_robin(4, prefix="a", name="Small", group_count=1)
    large, _ = started_round_robin(16, prefix="b", name="Large", group_count=2, max_players=40)
    for rr in (small, large):
        for g in rr.groups.all():
            with time_machine.travel(T0 + timedelta(hours=1), tick=False):
                first = g.games.select_related("game").first()
                end_game(first.game, "white", T0 + timedelta(hours=1))
            services.group_advance(group_id=g.pk, now=T0 + timedelta(hours=1))
    c_small, s_small = season_of(6, "x")
    c_large, s_large = season_of(30, "y")
    client = Client()
    pairs = [
        (f"/round-robins/{small.pk}/", f"/round-robins/{large.pk}/"),
        (f"/groups/{small.groups.first().pk}/", f"/groups/{large.groups.first().pk}/"),
        (f"/competitions/{c_small.pk}/", f"/competitions/{c_large.pk}/"),
        (f"/competitions/{c_small.pk}/players/x0/", f"/competitions/{c_large.pk}/players/y0/"),
        ("/round-robins/", "/round-robins/"),
    ]
    budgets = {}
    for few, many in pairs:
        n_few, _ = queries(client, few)
        n_many, _ = queries(client, many)
        assert n_few == n_many, (few, n_few, many, n_many)
        budgets[few] = n_few
    # the round-robin: itself, its players, its groups, and for all groups at once their players, pairings
    # (with the games) and seats; a group: itself and the same three; the Competition: itself, its seasons,
    # the players waiting, the count of members, the season's groups and the same three; a history: the
    # competition, the player, the membership, the seasons (the group's size in a subquery)
    assert list(budgets.values()) == [6, 4, 8, 4, 3], budgets
    api = APIClient()
    for few, many in [(f"/api/round-robins/{small.pk}/", f"/api/round-robins/{large.pk}/"),
                      (f"/api/competitions/{c_small.pk}/", f"/api/competitions/{c_large.pk}/"),
                      ("/api/round-robins/", "/api/round-robins/"), ("/api/competitions/", "/api/competitions/"),
                      (f"/api/competitions/{c_small.pk}/seasons/1/", f"/api/competitions/{c_large.pk}/seasons/1/"),
                      (f"/api/groups/{s_small.groups.first().pk}/", f"/api/groups/{s_large.groups.first().pk}/")]:
        assert queries(api, few)[0] == queries(api, many)[0], few


# --- API ------------------------------------------------------------------------------------------


def test_the_round_robin_api(eager, django_capture_on_commit_callbacks):
    director = make_user("td")
    api = APIClient()
    api.force_authenticate(director)
    base = {"name": "API RR", "registration_closes_at": (T0 - timedelta(hours=1)).isoformat(),
            "starts_at": T0.isoformat()}
    made = api.post("/api/round-robins/", {**base, "double": True, "invited": []}, format="json")
    assert made.status_code == 201, made.json()
    rr = made.json()
    assert rr["double"] and rr["status"] == "registration" and rr["groups"] == [] and rr["director"] == "td"
    bad = api.post("/api/round-robins/", {**base, "max_players": 21}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "max_players"
    bad = api.post("/api/round-robins/", {**base, "invited": ["ghost"]}, format="json")
    assert bad.status_code == 400 and bad.json()["field"] == "invited" and "ghost" in bad.json()["message"]
    assert RoundRobin.objects.count() == 1  # refused requests made nothing
    users = players(4, prefix="r")
    with time_machine.travel(T0 - timedelta(days=1), tick=False):
        for u in users:
            client = APIClient()
            client.force_authenticate(u)
            assert client.post(f"/api/round-robins/{rr['id']}/register/").status_code == 200
        twice = client.post(f"/api/round-robins/{rr['id']}/register/")
        assert twice.status_code == 409 and twice.json() == {"code": "conflict", "message": "you are registered already",
                                                             "field": "round_robin"}
        assert client.post(f"/api/round-robins/{rr['id']}/withdraw/").json()["players"] == 3
        assert client.post(f"/api/round-robins/{rr['id']}/withdraw/").status_code == 404
        assert APIClient().post(f"/api/round-robins/{rr['id']}/register/").status_code in (401, 403)
    with time_machine.travel(T0, tick=False), django_capture_on_commit_callbacks(execute=True):
        services.formats_tick()
    detail = APIClient().get(f"/api/round-robins/{rr['id']}/").json()
    assert detail["status"] == "running" and len(detail["groups"]) == 1
    group = detail["groups"][0]
    assert group["games_total"] == 6 and group["rounds"] == 6 and len(group["standings"]) == 3
    assert set(group["standings"][0]["tiebreaks"]) == {"SB", "DE", "WIN", "BUOYS", "DMG"}
    full = APIClient().get(f"/api/groups/{group['id']}/").json()
    assert full["event"] == {"kind": "round_robin", "id": rr["id"], "name": "API RR", "season": None}
    assert len(full["pairings"]) == 6 and all(p["game"] for p in full["pairings"])
    assert [row["cells"][i] for i, row in enumerate(full["cross"])] == ["×"] * 3
    listing = APIClient().get("/api/round-robins/?status=running").json()
    assert [r["id"] for r in listing] == [rr["id"]] and listing[0]["players"] == 3
    assert APIClient().get("/api/round-robins/?status=nonsense").status_code == 400


def test_the_competition_api():
    c, _ = season_of(8, "k")
    api = APIClient()
    listing = api.get("/api/competitions/").json()
    mine = next(x for x in listing if x["id"] == c.pk)
    assert mine == {"id": c.pk, "name": c.name, "members": 8, "seasons": 1, "next_season_at": None}
    detail = api.get(f"/api/competitions/{c.pk}/").json()
    assert detail["season"]["number"] == 1 and [lv["level"] for lv in detail["season"]["levels"]] == [1, 2]
    assert detail["you"] is None and detail["waiting"] == []
    assert api.get(f"/api/competitions/{c.pk}/seasons/1/").json()["levels"] == detail["season"]["levels"]
    assert api.get(f"/api/competitions/{c.pk}/seasons/2/").status_code == 404
    user = make_user("joiner")
    api.force_authenticate(user)
    joined = api.post(f"/api/competitions/{c.pk}/join/")
    assert joined.status_code == 200 and joined.json()["active"] and joined.json()["username"] == "joiner"
    assert api.post(f"/api/competitions/{c.pk}/join/").json()["code"] == "conflict"
    detail = api.get(f"/api/competitions/{c.pk}/").json()
    assert detail["you"]["active"] and detail["waiting"] == ["joiner"] and detail["members"] == 9
    left = api.post(f"/api/competitions/{c.pk}/leave/").json()
    assert not left["active"] and left["removal"] == "left"
    history = APIClient().get(f"/api/competitions/{c.pk}/players/k0/").json()
    assert history["username"] == "k0" and len(history["seasons"]) == 1
    row = history["seasons"][0]
    assert row["season"] == 1 and row["level"] == 1 and row["rank"] is None and row["move"] == ""
    assert APIClient().get(f"/api/competitions/{c.pk}/players/ghost/").json()["code"] == "not_found"


def test_no_input_gets_a_server_error_and_bad_input_changes_nothing():
    """Random and hostile input on every endpoint: always a 4xx with a JSON code and message
    (or a 2xx), never a 5xx; refused writes leave the tables as they were."""
    rr, _ = round_robin(3)
    c, season = season_of(4, "z")
    group = season.groups.first()
    user = make_user("fuzzer")
    api = APIClient()
    api.force_authenticate(user)
    rng = random.Random(15)
    huge = "9" * 30
    paths = [f"/api/round-robins/{huge}/", f"/api/round-robins/{huge}/register/", f"/api/groups/{huge}/",
             f"/api/competitions/{huge}/", f"/api/competitions/{huge}/join/", f"/api/competitions/{c.pk}/seasons/{huge}/",
             f"/api/competitions/{huge}/players/z0/", f"/api/round-robins/{rr.pk}/withdraw/", f"/api/groups/{group.pk}/"]
    for path in paths:
        for method in ("get", "post"):
            response = getattr(api, method)(path)
            assert response.status_code < 500, (method, path, response.status_code)
            if response.status_code >= 400 and response.status_code != 405:
                assert {"code", "message"} <= set(response.json()), (path, response.json())
    values = [None, "", "x" * 300, -1, 0, 3, 10**12, 1.5, True, [], {}, "2026-13-45", "\u00e9", [1, 2], {"a": 1}]
    fields = ["name", "double", "group_count", "final_group", "pace", "days_per_move", "grace_days", "lake_side",
              "course_mode", "deadline_days", "round_days", "registration_closes_at", "starts_at", "min_players",
              "max_players", "entry", "invited", "vacation_allowed", "rated"]
    before = RoundRobin.objects.count()
    created = 0
    for _ in range(150):
        body = {"name": "Fuzz", "registration_closes_at": T0.isoformat(), "starts_at": T0.isoformat()}
        for name in rng.sample(fields, rng.randint(1, 4)):
            body[name] = rng.choice(values)
        response = api.post("/api/round-robins/", body, format="json")
        assert response.status_code in (201, 400), (body, response.status_code, response.content[:300])
        if response.status_code == 400:
            assert {"code", "message"} <= set(response.json())
        created += response.status_code == 201
    assert RoundRobin.objects.count() == before + created
    for path in (f"/round-robins/{huge}/", f"/groups/{huge}/", f"/competitions/{huge}/"):
        assert Client().get(path).status_code == 404


def test_the_schema_describes_every_new_endpoint_without_warnings():
    """drf-spectacular: the new endpoints add no warning or error to the schema, every request
    and response has a component, operation ids are unique, error statuses are documented."""
    from django.urls import include, path
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    from tournaments import api_formats

    def generate(patterns=None):
        GENERATOR_STATS.reset()
        with GENERATOR_STATS.silence():
            schema = SchemaGenerator(patterns=patterns).get_schema(request=None, public=True)
        return schema, set(GENERATOR_STATS._warn_cache), set(GENERATOR_STATS._error_cache)

    mine, warnings, errors = generate([path("api/", include(api_formats.urlpatterns))])
    assert warnings == set() and errors == set()
    ops = [op for item in mine["paths"].values() for op in item.values()]
    ids = [op["operationId"] for op in ops]
    assert len(ids) == len(set(ids)) == 12
    for op in ops:
        for code, response in op["responses"].items():
            assert "$ref" in str(response["content"]["application/json"]["schema"]), (op["operationId"], code)
        assert any(code.startswith("4") for code in op["responses"]) or op["operationId"] == "competitions_list"
    whole, whole_warnings, _ = generate()
    assert {i for i in ids} <= {op["operationId"] for item in whole["paths"].values() for op in item.values()}
    assert not [w for w in whole_warnings if any(name in w for name in (
        "RoundRobin", "Competition", "Group", "round_robin", "round-robins", "competitions", "groups_retrieve"))]


def test_the_emails_have_their_subject_text_and_html(eager, django_capture_on_commit_callbacks):
    rr, _ = started_round_robin(3)
    start = Notice.objects.filter(event="group_start").first()
    message = message_for(start)
    assert message.subject == "Autumn round-robin: you play in Group A"
    html = message.alternatives[0][0]
    assert "/games/" in message.body and "must end by" in message.body and "/groups/" in html
    group = rr.groups.get()
    with time_machine.travel(T0 + timedelta(hours=1), tick=False):
        finish(group, lower_number_wins)
    services.group_advance(group_id=group.pk, now=T0 + timedelta(hours=1))
    over = message_for(Notice.objects.filter(event="group_over").order_by("pk").first())
    assert over.subject.startswith("Autumn round-robin is over: you finished ") and "The winners: 1. " in over.body


@pytest.mark.postgres
def test_every_beat_query_reads_an_index():
    """The minute tick's queries (services_formats.due) on PostgreSQL: with sequential scans
    priced out, each plan reads an index (a query no index serves would still scan the table)."""
    _, season = season_of(6, "q")
    started_round_robin(3)
    now = T0 + timedelta(days=5)
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        for name, query in services.due(now).items():
            sql, params = query.query.sql_with_params()
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Seq Scan on tournaments_" not in plan, (name, plan)
            assert "Index" in plan, (name, plan)
    assert Group.objects.filter(season=season).exists()
