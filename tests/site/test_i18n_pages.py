"""Every page and every email answers in German and Italian (issue 14, docs/i18n.md).

Each page is rendered in English and then in de and it for the same data; a piece of visible
text (a paragraph, a cell, a button, a title tooltip, ...) that is the same in both and reads as
English (two or more common English words) is a sentence nobody translated. Names (players,
tournaments: chosen here to be no English words) and notation are the same in every language
and are not flagged; ``<code>`` is left out."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.db import transaction
from django.db.models import Model
from django.test import Client, TestCase
from django.urls import reverse
from django.utils import translation

from games import services
from games.models import Game
from games.notifications.emails import message_for, unsubscribe_token
from games.notifications.models import Notice
from games.social import services as social
from tests.games.factories import make_user, placed_game
from tournaments import services as swiss
from tournaments import services_formats as formats
from tournaments.models import Competition, Group

pytestmark = [pytest.mark.django_db, pytest.mark.xdist_group("i18n-pages")]  # one process makes the world
T0 = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
LANGUAGES = ["de", "it"]
# common English words that are no German or Italian word: two in one piece of text make it English
ENGLISH = set("""the of to and is are your you game games move moves player players round rounds day days
with for not on at by this it has have be or from more less than there yet left each every after when
their what which lost won turn turns over here now new all will been can must only no. none""".split())
BLOCK = {"g", "polyline", "p", "li", "td", "th", "h1", "h2", "h3", "h4", "div", "section", "button", "label", "option", "legend",
         "summary", "title", "tr", "nav", "header", "footer", "aside", "form", "table", "ul", "ol", "br", "body",
         "main", "fieldset", "select", "textarea", "input", "span", "small", "a", "strong", "em", "time"}


class _Text(HTMLParser):
    """Pieces of visible text, cut at every element (a button, a link, a cell ...), and the
    tooltips and placeholders (the board's SVG titles too); nothing inside <script>, <style> or <code>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.buffer: list[str] = []
        self.hidden = 0
        self.lang: str | None = None

    def flush(self) -> None:
        text = " ".join("".join(self.buffer).split())
        if text:
            self.pieces.append(text)
        self.buffer = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "html":
            self.lang = dict(attrs).get("lang")
        if tag in ("script", "style", "code"):
            self.hidden += 1
        if tag in BLOCK:
            self.flush()
        if not self.hidden:
            for name, value in attrs:
                if name in ("title", "placeholder", "aria-label", "data-rolled", "data-kept", "data-move",
                            "data-grace", "data-over") and value:
                    self.pieces.append(" ".join(value.split()))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "code"):
            self.hidden -= 1
        if tag in BLOCK:
            self.flush()

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.buffer.append(data)


def pieces(html: str) -> tuple[list[str], str | None]:
    parser = _Text()
    parser.feed(html)
    parser.flush()
    return parser.pieces, parser.lang


def english(piece: str) -> bool:
    words = {w.lower() for w in re.findall(r"[A-Za-z]+\.?", piece)}
    return len({w.rstrip(".") for w in words} & ENGLISH) + ("no." in words) >= 2


def untranslated(english_pieces: list[str], translated_pieces: list[str]) -> list[str]:
    seen = set(english_pieces)
    return sorted({p for p in translated_pieces if p in seen and english(p)})


@pytest.fixture(scope="module")
def world_rows(django_db_setup: None, django_db_blocker: Any, eager_for_the_module: None,
               fast_password_hashing_for_the_module: None) -> Iterator[dict[str, tuple[type[Model], int]]]:
    """The world, made once for the module (some 4 s) in a transaction that is rolled back after
    its last test; each test runs inside it in a transaction of its own, rolled back too."""
    with django_db_blocker.unblock(), transaction.atomic():
        made = build_world()
        yield {name: (type(row), row.pk) for name, row in made.items()}
        transaction.set_rollback(True)


@pytest.fixture
def world(world_rows: dict[str, tuple[type[Model], int]], db: None, eager: None) -> dict[str, Any]:
    """The module's world, its rows read afresh for each test (a test may change them)."""
    return {name: model._default_manager.get(pk=pk) for name, (model, pk) in world_rows.items()}


def build_world() -> dict[str, Any]:
    """Players, games (to move, waiting, over), a Swiss tournament, a round-robin and a Competition."""
    anna, bruno = make_user("anna"), make_user("bruno")
    for u in (anna, bruno):
        u.first_name = ""
        u.save()
    game = placed_game(yellow=anna, red=bruno)  # Red (bruno) rolls first
    over = placed_game(yellow=bruno, red=anna, seed=5)
    services.game_resign(user=bruno, game_id=over.pk)
    services.challenge_create(user=bruno, color="random", days_per_move=3, course_letter="", lake_side="standard")
    director = make_user("dirk")
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        swiss_t = swiss.tournament_create(director=director, name="Coppa Nord", rounds=3, min_players=2,
                                          registration_closes_at=T0 - timedelta(hours=1), starts_at=T0, round_days=10)
        waiting_t = swiss.tournament_create(director=director, name="Coppa Sud", rounds=3, min_players=2,
                                            registration_closes_at=T0 + timedelta(days=9), starts_at=T0 + timedelta(days=10))
        rr = formats.round_robin_create(director=director, name="Girone Est", min_players=3,
                                        registration_closes_at=T0 - timedelta(hours=1), starts_at=T0)
        entrants = [anna, bruno] + [make_user(f"zed{i}") for i in range(4)]
        for u in entrants:
            swiss.tournament_register(user=u, tournament_id=swiss_t.pk)
            formats.round_robin_register(user=u, round_robin_id=rr.pk)
    with TestCase.captureOnCommitCallbacks(execute=True):
        swiss.tournament_start(tournament_id=swiss_t.pk, now=T0)
        formats.round_robin_start(round_robin_id=rr.pk, now=T0)
    ladder = Competition.objects.create(name="Lega", group_size=5, break_days=3, season_days=60, rated=False)
    with time_machine.travel(T0, tick=False):
        for u in entrants:
            formats.competition_join(user=u, competition_id=ladder.pk)
    with TestCase.captureOnCommitCallbacks(execute=True):
        formats.competition_start_season(competition_id=ladder.pk, now=T0 + timedelta(days=3))
    group = Group.objects.filter(round_robin=rr).first()
    season_group = Group.objects.filter(season__competition=ladder).first()
    assert group is not None and season_group is not None
    return {"anna": anna, "bruno": bruno, "game": game, "over": over, "swiss": swiss_t, "waiting": waiting_t,
            "rr": rr, "group": group, "season_group": season_group, "ladder": ladder}


def member_pages(w) -> list[str]:
    return [
        reverse("help"), reverse("lobby"), reverse("my_games"), reverse("settings"),
        reverse("game", args=[w["game"].pk]), reverse("game", args=[w["over"].pk]),
        reverse("game", args=[w["game"].pk]) + "?at=1", reverse("game_resign", args=[w["game"].pk]),
        reverse("profile", args=["anna"]), reverse("profile", args=["bruno"]) + "?vs=anna",
        reverse("profile", args=["bruno"]) + "?vs=nessuno",
        reverse("leaderboard"), reverse("leaderboard") + "?by=points",
        reverse("tournaments"), reverse("tournament_new"), reverse("tournament", args=[w["swiss"].pk]),
        reverse("tournament", args=[w["waiting"].pk]),
        reverse("round_robins"), reverse("round_robin_new"), reverse("round_robin", args=[w["rr"].pk]),
        reverse("group", args=[w["group"].pk]), reverse("group", args=[w["season_group"].pk]),
        reverse("competition", args=[w["ladder"].pk]),
        reverse("competition_player", args=[w["ladder"].pk, "anna"]),
    ]


VISITOR_PAGES = ["home", "rules", "login", "signup", "password_reset", "help", "leaderboard", "tournaments",
                 "round_robins", "series_lobby", "watch", "player_search"]


def series_world(w) -> dict[str, Game]:
    """An open series (bruno's, anna may join), one being played by anna, bruno and zed0, and
    one that is over (its result as the engine words it, games.engine.series)."""
    anna, bruno = w["anna"], w["bruno"]
    zed = type(anna).objects.get(username="zed0")
    waiting = services.game_open(user=bruno, seats=4)
    played = services.game_open(user=anna, seats=3, rated=False, score_variant=True)
    for u in (bruno, zed):
        services.game_join(user=u, game_id=played.pk, rng=random.Random(3))
    over = services.game_open(user=bruno, seats=3)
    for u in (anna, zed):
        services.game_join(user=u, game_id=over.pk, rng=random.Random(4))
    Game.objects.filter(pk=over.pk).update(status=Game.Status.FINISHED,
                                           result_reason="Red and Orange share first place with 9 points",
                                           result_code="series_shared",
                                           result_params={"colors": ["red", "orange"], "points": 9,
                                                          "ended_after": None})
    return {"waiting": waiting, "played": played, "over": over}


def social_pages(w) -> list[str]:
    """The pages of the merged social and series work, and the home and rules pages, for a player."""
    series = series_world(w)
    social.chat_post(user=w["bruno"], game_id=w["over"].pk, text="ciao anna")
    return [
        reverse("home"), reverse("rules"), reverse("series_lobby"),
        *(reverse("game", args=[s.pk]) for s in series.values()),
        reverse("watch"), reverse("player_search") + "?q=an", reverse("player_search") + "?q=qqq",
        reverse("game_social", args=[w["over"].pk]) + "?part=1", reverse("game_social", args=[w["game"].pk]) + "?part=1",
        reverse("game_social", args=[w["over"].pk]), reverse("unsubscribe", args=[unsubscribe_token(w["anna"])]),
    ]


@pytest.mark.slow
def test_every_page_answers_in_german_and_italian(world) -> None:
    assert_pages_translated(world["anna"], member_pages(world))


def test_the_home_rules_series_and_social_pages_answer_in_german_and_italian(world) -> None:
    assert_pages_translated(world["anna"], social_pages(world))


def test_the_rules_page_follows_the_active_language(world) -> None:
    client = Client()
    client.force_login(world["anna"])
    for language in ["en", *LANGUAGES]:
        type(world["anna"]).objects.filter(pk=world["anna"].pk).update(language=language)
        response = client.get(reverse("rules"))
        assert response.status_code == 200
        assert f"rules/rules_{language}.html" in [t.name for t in response.templates]
        assert pieces(response.content.decode())[1] == language
    visitor = Client(HTTP_ACCEPT_LANGUAGE="it")
    assert "rules/rules_it.html" in [t.name for t in visitor.get(reverse("rules")).templates]
    assert "rules/rules_de.html" in [t.name for t in visitor.get(reverse("rules") + "?lang=de").templates]
    refused = visitor.get(reverse("rules") + "?lang=fr")
    assert refused.status_code == 400 and "il regolamento è scritto in en, de, it, non in 'fr'" in \
        refused.content.decode().replace("&#x27;", "'")


def assert_pages_translated(anna, paths: list[str]) -> None:
    client = Client()
    client.force_login(anna)
    problems: dict[str, list[str]] = {}
    for path in paths:
        renderings = {}
        for language in ["en", *LANGUAGES]:
            type(anna).objects.filter(pk=anna.pk).update(language=language)  # the player's own setting
            response = client.get(path)
            assert response.status_code == 200, (path, language, response.status_code)
            renderings[language] = pieces(response.content.decode())
            if "part=1" not in path:  # a fragment has no <html>
                assert renderings[language][1] == language, f"{path}: <html lang> in {language}"
        for language in LANGUAGES:
            left = untranslated(renderings["en"][0], renderings[language][0])
            if left:
                problems[f"{language} {path}"] = left
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())


@pytest.mark.slow
def test_a_visitor_gets_the_browsers_language_and_the_switchers_choice(world) -> None:
    problems: dict[str, list[str]] = {}
    for name in VISITOR_PAGES:
        path = reverse(name)
        english_pieces, lang = pieces(Client(HTTP_ACCEPT_LANGUAGE="en").get(path).content.decode())
        assert lang == "en"
        for language in LANGUAGES:
            browser = Client(HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")
            translated, lang = pieces(browser.get(path).content.decode())
            assert lang == language, (path, language)
            if left := untranslated(english_pieces, translated):
                problems[f"{language} {path}"] = left
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())
    missing = Client(HTTP_ACCEPT_LANGUAGE="it").get("/nowhere/")
    assert missing.status_code == 404 and "A questo indirizzo non c’è niente." in missing.content.decode()
    # the switcher (a POST, no login needed) wins over the browser's wish
    browser = Client(HTTP_ACCEPT_LANGUAGE="de")
    response = browser.post(reverse("set_language"), {"language": "it", "next": reverse("help")})
    assert response.status_code == 302 and response["Location"] == reverse("help")
    assert pieces(browser.get(reverse("help")).content.decode())[1] == "it"


def test_the_switcher_saves_a_players_language_and_their_setting_wins(world) -> None:
    anna = world["anna"]
    client = Client(HTTP_ACCEPT_LANGUAGE="it")
    client.force_login(anna)
    assert pieces(client.get(reverse("lobby")).content.decode())[1] == "it", "no setting yet: the browser's"
    client.post(reverse("set_language"), {"language": "de", "next": reverse("lobby")})
    anna.refresh_from_db()
    assert anna.language == "de"
    other_browser = Client(HTTP_ACCEPT_LANGUAGE="it")
    other_browser.force_login(anna)
    assert pieces(other_browser.get(reverse("lobby")).content.decode())[1] == "de", "the setting follows the player"
    response = client.post(reverse("set_language"), {"language": "xx", "next": reverse("lobby")})
    anna.refresh_from_db()
    assert response.status_code == 302 and anna.language == "de", "an unknown language changes nothing"


def test_dates_are_in_the_players_language_and_time_zone(world) -> None:
    anna = world["anna"]
    anna.language, anna.time_zone = "de", "Asia/Tokyo"
    anna.save()
    client = Client()
    client.force_login(anna)
    html = client.get(reverse("tournament", args=[world["waiting"].pk])).content.decode()
    # registration closes at T0 + 9 days, 12:00 UTC = 21:00 in Tokyo, on a Thursday in September
    assert "10. Sep 2026, 21:00 (Asia/Tokyo)" in html  # German order (powerboats_site/formats/de), the zone named
    anna.language = "it"
    anna.save()
    html = client.get(reverse("tournament", args=[world["waiting"].pk])).content.decode()
    assert "10 Set 2026, 21:00 (Asia/Tokyo)" in html


def emails(world) -> list[Notice]:
    anna, game, over = world["anna"], world["game"], world["over"]
    challenge = services.challenge_create(user=world["bruno"], opponent=anna, color="red", days_per_move=2,
                                          course_letter="B", lake_side="expert", rated=False)
    group = world["group"]
    data = [
        ("your_turn", {"game": game.pk}), ("reminder", {"game": game.pk}), ("game_over", {"game": over.pk}),
        ("challenge", {"challenge": challenge.pk}), ("digest", {"games": [game.pk]}),
        ("pairing", {"game": game.pk, "round": 2, "tournament_name": "Coppa Nord", "opponent_name": "bruno",
                     "color": "Red"}),
        ("tournament_over", {"tournament": world["swiss"].pk, "tournament_name": "Coppa Nord", "rank": 2,
                             "score": 2.5, "podium": "1. bruno (3), 2. anna (2.5)", "players": 6}),
        ("group_start", {"title": "Girone Est", "group": "Group A", "path": reverse("group", args=[group.pk]),
                         "players": 6, "opponents": ["bruno", "zed0"], "at_once": True, "rounds": 5,
                         "deadline": "2027-01-01 12:00 UTC",
                         "games": [{"game": game.pk, "path": reverse("game", args=[game.pk]), "round": 1,
                                    "color": "Red", "opponent": "bruno"}]}),
        ("group_start", {"title": "Girone Est", "group": "Level 2, group B", "path": "/", "players": 5,
                         "opponents": [], "at_once": False, "rounds": 5, "deadline": "2027-01-01 12:00 UTC",
                         "games": []}),
        ("group_over", {"title": "The Competition, season 1", "competition": "The Competition", "season": 1,
                        "competition_default": True, "group": "Level 2, group B", "path": "/", "rank": 1,
                        "players": 5, "score": 3.5, "podium": "1. anna (3.5)", "next_season": "2027-01-01 12:00 UTC",
                        "place": {"rank": 1, "players": 5, "move": "up", "level": 1}}),
        ("group_over", {"title": "Lega, season 1", "competition": "Lega", "season": 1, "competition_default": False,
                        "group": "Level 2, group B", "path": "/", "rank": 4, "players": 5, "score": 0.5,
                        "podium": "1. anna (3.5)", "next_season": "2027-01-01 12:00 UTC",
                        "place": {"rank": 4, "players": 5, "move": "timeouts", "timeouts": 3, "games": 4}}),
        # an entry recorded before the outcome was stored as data: its English sentence is read
        ("group_over", {"title": "Lega, season 1", "group": "Level 2, group B", "path": "/", "rank": 1,
                        "players": 5, "score": 3.5, "podium": "1. anna (3.5)", "next_season": "2027-01-01 12:00 UTC",
                        "outcome": "you finished 1st of 5 and move up to level 1"}),
        ("pairing", {"game": game.pk, "round": 3, "tournament_name": "The Competition, season 2, Level 1",
                     "title": "The Competition, season 2", "competition": "The Competition", "season": 2,
                     "competition_default": True, "group": "Level 1", "opponent_name": "bruno", "color": "Red"}),
    ]
    series = series_world(world)
    data += [("your_turn", {"game": series["played"].pk}), ("reminder", {"game": series["played"].pk}),
             ("game_over", {"game": series["over"].pk})]
    return [Notice.objects.create(user=anna, event=event, key=f"test:{i}", data=d) for i, (event, d) in enumerate(data)]


def _email_pieces(message: mail.EmailMultiAlternatives) -> list[str]:
    html = message.alternatives[0][0]
    return [message.subject, *(line.strip() for line in message.body.splitlines() if line.strip()),
            *pieces(str(html))[0]]


def test_every_email_is_written_in_the_recipients_language(world) -> None:
    anna = world["anna"]
    entries = emails(world)
    problems: dict[str, list[str]] = {}
    with translation.override("it"):  # the sender's language does not matter, the recipient's does
        for entry in entries:
            anna.language = "en"
            anna.save()
            entry.user.refresh_from_db()
            english_pieces = _email_pieces(message_for(entry))
            for language in LANGUAGES:
                anna.language = language
                anna.save()
                entry.user.refresh_from_db()
                message = message_for(entry)
                assert pieces(str(message.alternatives[0][0]))[1] == language
                if left := untranslated(english_pieces, _email_pieces(message)):
                    problems[f"{language} {entry.event}"] = left
    assert problems == {}, "\n".join(f"{k}: {v}" for k, v in problems.items())
    anna.language = "de"
    anna.save()
    entry = next(e for e in entries if e.event == "group_over")
    entry.user.refresh_from_db()
    assert "steigst auf in Stufe 1" in message_for(entry).body, "the stored English outcome is translated too"


def test_the_api_translates_its_messages_but_keeps_its_codes(world) -> None:
    anna = world["anna"]
    client = Client(HTTP_ACCEPT_LANGUAGE="de")
    client.force_login(anna)
    game = world["game"]  # it is Red's (bruno's) turn
    response = client.post(f"/api/games/{game.pk}/roll/", {"ply": game.ply, "change": "add", "reroll": []},
                           content_type="application/json")
    assert response.status_code == 403
    body = response.json()
    assert body["code"] == "not_your_turn" and body["message"] == "bruno ist am Zug"


def test_the_engines_refusals_and_results_are_translated(world) -> None:
    """The engine words its refusals and results in English (it has no Django); they reach the
    player in their language (games/reasons.py), with the rule id unchanged."""
    bruno, game = world["bruno"], world["game"]
    bruno.language = "it"
    bruno.save()
    client = Client()
    client.force_login(bruno)
    response = client.post(reverse("game_roll", args=[game.pk]), {"ply": game.ply, "change": "remove-0"})
    html = response.content.decode()
    assert response.status_code == 400
    assert "la tua prima mossa è obbligata: aggiungi un dado" in html and "(R6)" in html  # R6: first move adds a die
    with translation.override("de"):
        from games.reasons import outcome_text, refusal_text, result_text

        assert result_text("sank", {"color": "yellow", "damage": 4}) == "Gelb ist mit 4 Schaden gesunken"  # R12
        assert result_text("cutoff_buoys", {"color": "red", "a": 2, "b": 1}) == \
            "je 35 Züge: Rot hat mehr Bojen umrundet (2 zu 1)"  # R13
        assert outcome_text("you finished 2nd of 5 and stay at level 3") == "du bist 2. von 5 und bleibst in Stufe 3"
        assert refusal_text("cell_taken", {"cell": "(1, 2)"}, "(1, 2) is taken by another boat") == \
            "auf (1, 2) steht schon ein anderes Boot"
        assert refusal_text("a_new_code", {}, "a refusal of a new kind") == "a refusal of a new kind"
        assert result_text("", {}, "a sentence of a new shape") == "a sentence of a new shape"
        assert result_text("series_won", {"colors": ["purple"], "points": 11, "ended_after": None}) == \
            "Lila gewinnt die Serie mit 11 Punkten"  # R19
        assert result_text("series_shared", {"colors": ["red", "orange", "black"], "points": 5, "ended_after": "B"}) \
            == ("Rot, Orange und Schwarz teilen sich den ersten Platz mit 5 Punkten (nach Rennen B beendet: weniger "
                "als zwei Spieler übrig)")


def test_a_token_client_gets_the_players_language_once_it_is_set(world) -> None:
    from rest_framework.authtoken.models import Token

    anna, game = world["anna"], world["game"]
    token = Token.objects.create(user=anna)
    client = Client(HTTP_AUTHORIZATION=f"Token {token.key}")
    roll = {"ply": game.ply, "change": "add", "reroll": []}
    english = client.post(f"/api/games/{game.pk}/roll/", roll, content_type="application/json").json()
    assert english == {"code": "not_your_turn", "message": "it is bruno's turn", "field": "game"}
    response = client.patch("/api/me/", {"language": "it"}, content_type="application/json")
    assert response.status_code == 200 and response.json()["language"] == "it"
    italian = client.post(f"/api/games/{game.pk}/roll/", roll, content_type="application/json")
    assert italian.json() == {"code": "not_your_turn", "message": "tocca a bruno", "field": "game"}
    assert italian["Content-Language"] == "it"
    refused = client.patch("/api/me/", {"language": "fr"}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["field"] == "language"


def test_the_series_and_chat_refusals_are_translated(world) -> None:
    """The refusals of the merged services (games/services.py, games/social/services.py) reach the
    player in their language: the awaited phase (R6) and the status are words, not codes."""
    from common.errors import ServiceError
    from games.engine.dice import Change, DiceChoice

    series = series_world(world)
    played = Game.objects.get(pk=series["played"].pk)  # the first boat is placed first (R16)
    mover = played.seats.get(index=played.to_move).user
    with translation.override("de"):
        with pytest.raises(ServiceError) as refused:
            services.game_roll(user=mover, game_id=played.pk, ply=played.ply, choice=DiceChoice(Change.ADD))
        assert refused.value.message == "die Partie erwartet Boot einsetzen, keine Würfelwahl"  # as a game's (R6)
        with pytest.raises(ServiceError) as refused:
            services.game_join(user=world["bruno"], game_id=series["over"].pk)
        assert refused.value.message == "die Serie ist beendet: die Plätze können sich nicht mehr ändern"
    with translation.override("it"):
        with pytest.raises(ServiceError) as refused:
            social.chat_post(user=world["anna"], game_id=world["game"].pk, text="   ")
        assert refused.value.message == "un messaggio della chat non può essere vuoto"
        with pytest.raises(ServiceError) as refused:
            social.game_rematch(user=world["anna"], game_id=world["game"].pk)
        assert refused.value.message == "la rivincita si può proporre solo a partita finita"
