"""Tournament times name their time zone (issue 24): the reader's (Settings), or UTC for a
visitor; the forms say in which zone a time typed in is read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client

from tests.games.factories import make_user
from tournaments import services
from tournaments import services_formats as formats

pytestmark = pytest.mark.django_db
STARTS = datetime(2030, 9, 1, 12, 0, tzinfo=UTC)


def client_of(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def test_tournament_and_round_robin_times_show_the_readers_zone() -> None:
    director = make_user("dirk")
    t = services.tournament_create(director=director, name="Coppa", registration_closes_at=STARTS - timedelta(hours=1),
                                   starts_at=STARTS)
    rr = formats.round_robin_create(director=director, name="Girone", min_players=3,
                                    registration_closes_at=STARTS - timedelta(hours=1), starts_at=STARTS)
    berlin = make_user("berta", time_zone="Europe/Berlin")
    for path in (f"/tournaments/{t.pk}/", f"/round-robins/{rr.pk}/", "/tournaments/", "/round-robins/"):
        visitor = client_of().get(path).content.decode()
        assert "12:00 (UTC)" in visitor and "UTC (UTC)" not in visitor, path
        html = client_of(berlin).get(path).content.decode()
        assert "14:00 (Europe/Berlin)" in html and "(UTC)" not in html and "CEST" not in html, path
    de = client_of(berlin).get(f"/tournaments/{t.pk}/", headers={"accept-language": "de"}).content.decode()
    assert "14:00 (Europe/Berlin)" in de, "2 pm in Berlin in September (summer time)"


def test_the_forms_say_which_zone_a_time_is_read_in() -> None:
    berlin = make_user("berta", time_zone="Europe/Berlin")
    for path in ("/tournaments/new/", "/round-robins/new/"):
        assert "in your time zone (Europe/Berlin; Settings)" in client_of(berlin).get(path).content.decode()
