"""Words left in English and counts not pluralised (issue 24): each rendered in de and it.

The sweep of test_i18n_pages.py flags a piece of text with two or more English words; the single
words here (a heading, a column, a compass letter) and the counts of one slip through it."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import translation

from games import services
from games.reasons import result_text
from games.rules_examples import legend
from tests.games.factories import make_game, make_user
from tournaments import services_formats as formats
from tournaments.models import Competition, Group

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)


def page(path: str, language: str, client: Client | None = None) -> str:
    response = (client or Client()).get(path, headers={"accept-language": language})
    assert response.status_code == 200, path
    return response.content.decode()


def test_round_robin_sections_are_translated() -> None:
    for language, words in {"en": ("Upcoming", "Running", "Finished"), "de": ("Demnächst", "Laufend", "Beendet"),
                            "it": ("In arrivo", "In corso", "Finito")}.items():
        html = page("/round-robins/", language)
        assert re.findall(r"<h2>([^<]*)</h2>", html) == list(words), language


def test_the_competition_is_named_in_the_readers_language() -> None:
    c = Competition.objects.create()  # the site's own, named "The Competition"
    other = Competition.objects.create(name="Lega")
    for language, name in {"en": "The Competition", "de": "Der Wettbewerb", "it": "La Competizione"}.items():
        assert f"<h1>{name}</h1>" in page(f"/competitions/{c.pk}/", language)
        assert "<h1>Lega</h1>" in page(f"/competitions/{other.pk}/", language), "a name of its own stays"


def test_the_home_board_and_the_legend_are_named_in_the_readers_language() -> None:
    for language, lake in {"de": "der See", "it": "il lago"}.items():
        html = page("/", language)
        assert f'aria-label="{lake}"' in html and 'aria-label="the lake"' not in html
        with translation.override(language):
            swatches = legend()
        # a swatch is a window on a small lake, hidden from screen readers: never announced as "the lake"
        assert all(f'aria-label="{lake}"' not in svg and 'aria-hidden="true"' in svg for svg in swatches.values())


def test_the_buoys_and_damage_columns_are_translated() -> None:
    director = make_user("dirk")
    rr = formats.round_robin_create(director=director, name="Girone Est", min_players=3,
                                    registration_closes_at=T0 - timedelta(hours=1), starts_at=T0)
    for i in range(3):
        formats.round_robin_register(user=make_user(f"zed{i}"), round_robin_id=rr.pk, now=T0 - timedelta(days=1))
    formats.round_robin_start(round_robin_id=rr.pk, now=T0)
    group = Group.objects.get(round_robin=rr)
    for language, (buoys, damage) in {"en": ("BUOYS", "DMG"), "de": ("BOJEN", "SCHADEN"),
                                      "it": ("BOE", "DANNI")}.items():
        html = page(f"/groups/{group.pk}/", language)
        heads = re.findall(r'<th title="[^"]*">([^<]*)</th>', html)
        assert buoys in heads and damage in heads, (language, heads)
        if language != "en":
            assert "BUOYS" not in heads and "DMG" not in heads
        assert "SB" in heads, "FIDE's codes are the same in every language"


def test_compass_letters_are_translated_on_the_game_page() -> None:
    game = make_game()  # Yellow places
    client = Client()
    client.force_login(game.player(0))
    for language, letters in {"en": ["E", "NE", "NW", "W", "SW", "SE"], "de": ["O", "NO", "NW", "W", "SW", "SO"],
                              "it": ["E", "NE", "NO", "O", "SO", "SE"]}.items():
        html = page(f"/games/{game.pk}/", language, client)
        labels = re.findall(r'name="heading" value="\d"[^>]*>\s*([A-Z]+)\s*(?:<span[^>]*>[^<]*</span>)?</label>', html)
        assert labels == letters, (language, labels)


def test_counts_of_one_are_singular_in_every_language() -> None:
    game = make_game()
    client = Client()
    client.force_login(game.player(0))
    line = game.course.data["course"]["start_finish_cells"]
    services.game_place(user=game.player(0), game_id=game.pk, ply=0, cell=tuple(line[0]), heading=0)
    for language, text in {"en": "now (1 action)", "de": "jetzt (1 Aktion)", "it": "ora (1 azione)"}.items():
        assert text in page(f"/games/{game.pk}/", language, client), language

    ann = make_user("ann")
    series = services.game_open(user=ann, seats=3, days_per_move=1)
    for language, text in {"en": "1 day per move", "de": "1 Tag pro Zug", "it": "1 giorno per mossa"}.items():
        assert text in page(f"/games/{series.pk}/", language, client), language
        assert text in page("/series/", language, client), language

    for language, text in {"en": "Yellow wins the series with 1 point", "de": "Gelb gewinnt die Serie mit 1 Punkt",
                           "it": "Giallo vince la serie con 1 punto"}.items():
        with translation.override(language):
            assert result_text("series_won", {"colors": ["yellow"], "points": 1, "ended_after": None}) == text


def test_a_score_picks_its_plural_form_by_a_whole_number() -> None:
    """ngettext takes an integer (a float is deprecated): a half point reads as a plural."""
    from games.notifications.emails import plural_count

    assert [plural_count(x) for x in (0, 1, 1.0, 1.5, 2.5, 3)] == [0, 1, 1, 2, 2, 3]


def test_the_apis_day_choices_say_1_day() -> None:
    from games import api_enums

    assert dict(api_enums.DAYS_PER_MOVE)[1] == "1 day" and dict(api_enums.DAYS_PER_MOVE)[3] == "3 days"
    assert dict(api_enums.GRACE_DAYS)[1] == "1 day" and dict(api_enums.GRACE_DAYS)[0] == "0 days"

