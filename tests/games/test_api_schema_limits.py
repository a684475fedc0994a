"""Issue 23: the schema says what the API accepts. The limits of the services (a tournament's
rounds, the days per move, a round-robin's groups, …) are declared on the serializer fields,
which validate with them, so the schema states them and a request the schema allows is not
refused for a reason it could have stated (the fuzz stage's positive-data checks, bin/fuzz)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from common.errors import ServiceError
from tournaments import services as tournament_services
from tournaments import services_formats
from tournaments.api import MAX_ROUNDS
from tournaments.models import RoundRobin, Tournament

from .factories import make_user

pytestmark = pytest.mark.django_db
T0 = datetime(2030, 3, 1, 12, tzinfo=UTC)
DATES = {"registration_closes_at": (T0 - timedelta(hours=1)).isoformat(), "starts_at": T0.isoformat()}


@pytest.fixture(scope="module")
def schema(django_db_setup: Any, django_db_blocker: Any) -> dict[str, Any]:
    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/?format=json").json()  # type: ignore[no-any-return]


def body(schema: dict[str, Any], component: str) -> dict[str, Any]:
    return schema["components"]["schemas"][component]["properties"]  # type: ignore[no-any-return]


def enum_of(schema: dict[str, Any], field: dict[str, Any]) -> list[Any]:
    ref = field["allOf"][0]["$ref"] if "allOf" in field else field["$ref"]
    return schema["components"]["schemas"][ref.rsplit("/", 1)[1]]["enum"]  # type: ignore[no-any-return]


def test_the_schema_states_the_limits_of_the_services(schema):
    tournament = body(schema, "TournamentInRequest")
    assert (tournament["rounds"]["minimum"], tournament["rounds"]["maximum"]) == (1, 30)
    assert tournament["late_entry_until_round"]["maximum"] == 30
    assert tournament["min_players"]["minimum"] == 2
    assert enum_of(schema, tournament["days_per_move"]) == [1, 2, 3, 5, 7, 14]
    # a grace bank of 0, 1, 3, 5, 7, 14 or 21 days, or a capped bank's start of 1 to 60 (issue 27): the
    # schema states the range, its description the set, and the service refuses a value of neither
    assert (tournament["grace_days"]["minimum"], tournament["grace_days"]["maximum"]) == (0, 60)
    assert "0, 1, 3, 5, 7, 14, 21" in tournament["grace_days"]["description"]
    assert enum_of(schema, tournament["clock_shape"]) == ["move", "bank"]
    challenge = body(schema, "ChallengeInRequest")
    assert (challenge["bank_add_hours"]["minimum"], challenge["bank_add_hours"]["maximum"]) == (0, 240)
    assert (challenge["bank_cap_days"]["minimum"], challenge["bank_cap_days"]["maximum"]) == (0, 60)
    assert enum_of(schema, tournament["lake_side"]) == ["standard", "expert"]
    assert tournament["name"]["pattern"] == r"\S"
    assert "BH/C1" in tournament["tiebreaks"]["pattern"]
    round_robin = body(schema, "RoundRobinInRequest")
    assert (round_robin["group_count"]["minimum"], round_robin["group_count"]["maximum"]) == (1, 50)
    assert (round_robin["deadline_days"]["minimum"], round_robin["deadline_days"]["maximum"]) == (1, 365)
    assert (round_robin["min_players"]["minimum"], round_robin["max_players"]["maximum"]) == (3, 1000)
    assert enum_of(schema, round_robin["days_per_move"]) == [1, 2, 3, 5, 7, 14]
    assert body(schema, "RegisterInRequest")["username"]["pattern"] == r"^[\w.@+-]+$"
    assert body(schema, "ChatInRequest")["text"]["pattern"] == r"\S"
    assert "opponent" not in body(schema, "PlayBotInRequest")  # the house bot is the opponent


@pytest.mark.parametrize(("path", "component", "field", "base"), [
    ("/api/tournaments/", "TournamentInRequest", "rounds", {"name": "Swiss", **DATES}),
    ("/api/tournaments/", "TournamentInRequest", "late_entry_until_round", {"name": "Swiss", "rounds": 30, **DATES}),
    ("/api/round-robins/", "RoundRobinInRequest", "group_count", {"name": "RR", **DATES}),
    ("/api/round-robins/", "RoundRobinInRequest", "deadline_days", {"name": "RR", **DATES}),
    ("/api/round-robins/", "RoundRobinInRequest", "round_days", {"name": "RR", "pace": "rounds", **DATES}),
])
def test_a_bound_in_the_schema_is_the_apis_own(schema, path, component, field, base):
    """At each bound the schema states the API accepts, one beyond it refuses, naming the field."""
    limits = body(schema, component)[field]
    client = APIClient()
    client.force_authenticate(make_user("td"))
    for value, accepted in [(limits["minimum"], True), (limits["maximum"], True),
                            (limits["minimum"] - 1, False), (limits["maximum"] + 1, False)]:
        response = client.post(path, {**base, field: value}, format="json")
        if accepted:
            assert response.status_code == 201, (value, response.content)
        else:
            assert response.status_code == 400 and response.json()["field"] == field, (value, response.content)


@pytest.mark.parametrize(("path", "field", "value"), [
    ("/api/tournaments/", "days_per_move", 4), ("/api/tournaments/", "grace_days", 2),
    ("/api/tournaments/", "lake_side", "shallow"), ("/api/tournaments/", "name", "   "),
    ("/api/round-robins/", "days_per_move", 30), ("/api/round-robins/", "lake_side", ""),
])
def test_a_value_outside_the_schemas_choices_is_refused_before_anything_is_made(path, field, value):
    client = APIClient()
    client.force_authenticate(make_user("td"))
    response = client.post(path, {"name": "Open", **DATES, field: value}, format="json")
    assert response.status_code == 400 and response.json()["field"] == field, response.content
    assert not Tournament.objects.exists() and not RoundRobin.objects.exists()


def test_the_services_keep_the_bounds_the_schema_states():
    """The serializers hold the services' limits as numbers of their own: the services refuse
    past them too (a form or a task reaches them without the API)."""
    director = make_user("td")
    fields = {"name": "Swiss", "registration_closes_at": T0 - timedelta(hours=1), "starts_at": T0}
    tournament_services.tournament_create(director=director, rounds=MAX_ROUNDS, **fields)
    with pytest.raises(ServiceError, match="rounds"):
        tournament_services.tournament_create(director=director, rounds=MAX_ROUNDS + 1, **fields)
    services_formats.round_robin_create(director=director, group_count=services_formats.MAX_GROUPS, **fields)
    with pytest.raises(ServiceError):
        services_formats.round_robin_create(director=director, group_count=services_formats.MAX_GROUPS + 1, **fields)


def test_playing_a_bot_ignores_an_opponent_no_longer_in_its_body(eager, django_capture_on_commit_callbacks):
    """The house bot is the opponent: the body has no ``opponent`` (it was read, checked and
    thrown away; a name of no player refused a game that never needed one)."""
    client = APIClient()
    client.force_authenticate(make_user("ann"))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/bots/play/", {"level": "easy", "opponent": "nobody"}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["red"] == "bot-easy" or response.json()["yellow"] == "bot-easy"


@pytest.mark.parametrize(("path", "field", "value"), [
    ("/api/tournaments/", "name", "Swiss" + " " * 96), ("/api/tournaments/", "tiebreaks", " BH SB" + " " * 55),
    ("/api/round-robins/", "name", " " + "R" * 100),
])
def test_a_maximum_length_is_of_the_string_as_sent(path, field, value):
    """Found by the fuzz stage (negative data accepted): a string one over the schema's maxLength
    whose surplus was a space was trimmed to fit and accepted."""
    client = APIClient()
    client.force_authenticate(make_user("td"))
    response = client.post(path, {"name": "Open", **DATES, field: value}, format="json")
    assert response.status_code == 400 and response.json()["field"] == field, response.content
    shorter = client.post(path, {"name": "Open", **DATES, field: value[:-1]}, format="json")
    assert shorter.status_code == 201, shorter.content


def test_a_password_is_kept_as_typed_spaces_too():
    """The API's sign-up trimmed the password; logging in does not: "  a long secret  " made an
    account whose password was "a long secret", which the same words then could not open."""
    password = "  a long secret  "
    made = APIClient().post("/api/accounts/", {"username": "spacey", "password": password}, format="json")
    assert made.status_code == 201, made.content
    token = APIClient().post("/api/token/", {"username": "spacey", "password": password}, format="json")
    assert token.status_code == 200, token.content
    too_long = APIClient().post("/api/accounts/", {"username": "spacey2", "password": "x" * 199 + "  "},
                                format="json")
    assert too_long.status_code == 400 and too_long.json()["field"] == "password"
