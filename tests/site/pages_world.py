"""A site with something on every page, for the browser tests that visit them all (issue 24:
phone widths, tests/site/test_phone_fit_browser.py; axe, tests/site/test_a11y_browser.py).

anna is the viewer: a challenge of bruno's waits in the lobby; she has a game to place, one to
roll, one to steer, one that is over; bruno and zed0 play a game she watches; a series of three
is under way; a Swiss tournament and a round-robin are running, another round-robin plays round
by round (round 1 over, round 2 running, round 3 to come); a Competition season has begun; the
leaderboards (two-player and series) have rows. One player's name is long (30 characters, the
most a name may have), as real names sometimes are."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import time_machine
from django.urls import reverse
from django.utils import timezone

from games import services
from games.ratings.models import Rating, SeriesRating
from tests.games.factories import greedy_action, make_game, make_user, placed_game
from tests.games.series_play import play
from tournaments import services as swiss
from tournaments import services_formats as formats
from tournaments.models import Competition, Group

T0 = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)
LONG_NAME = "kapitaenin_wellenbrecher_1984"  # 29 characters


def _actions(game: Any, n: int) -> Any:
    for _ in range(n):
        game.refresh_from_db()
        if game.over:
            break
        greedy_action(game)
    game.refresh_from_db()
    return game


def dice_game(anna: Any, other: Any) -> Any:
    """A game where anna (Red) is to roll first: the danger table shows before the dice."""
    return placed_game(yellow=other, red=anna, seed=5)


def direction_game(anna: Any, bruno: Any) -> Any:
    """A game where anna (Red) has rolled and chooses a direction; bruno moves next."""
    game = placed_game(yellow=bruno, red=anna, seed=7)
    greedy_action(game)  # anna rolled
    return game


def build() -> dict[str, Any]:
    """The data; returns the viewer (anna) and the pages: (name, path, logged in?)."""
    anna, bruno = make_user("anna"), make_user("bruno")
    long = make_user(LONG_NAME)
    zeds = [make_user(f"zed{i}") for i in range(4)]
    services.challenge_create(user=bruno, color="random", days_per_move=3, course_letter="", lake_side="standard")
    services.challenge_create(user=long, color="red", days_per_move=14, course_letter="B", lake_side="expert",
                              rated=False)
    placing = make_game(yellow=anna, red=long, seed=3)  # anna (Yellow) places first
    dice = dice_game(anna, long)
    direction = direction_game(anna, bruno)
    over = _actions(placed_game(yellow=long, red=anna, seed=9), 14)
    services.game_resign(user=long, game_id=over.pk)
    watched = _actions(placed_game(yellow=bruno, red=zeds[0], seed=11), 9)  # anna only watches

    now = timezone.now()
    for i, u in enumerate([anna, bruno, long, *zeds]):
        Rating.objects.update_or_create(user=u, defaults={
            "rating": 1500 + 37 * i, "deviation": 60 + 30 * (i % 3), "games": 12 + i, "wins": 7, "draws": 1,
            "losses": 4 + i, "points": 80 + i, "points_per_game": 6.25 + i / 7, "last_rated_at": now})
        SeriesRating.objects.update_or_create(user=u, defaults={
            "rating": 1480 + 23 * i, "deviation": 70, "series": 5 + i, "wins": 2, "last_rated_at": now})

    # series: one open (bruno's), one being played by anna, long and zed0 (some moves made)
    open_series = services.game_open(user=bruno, seats=4)
    played = services.game_open(user=anna, seats=3, rated=False, score_variant=True)
    for u in (long, zeds[0]):
        services.game_join(user=u, game_id=played.pk, rng=random.Random(3))
    plies = iter(range(10_000))
    play(played.pk, seed=2, stop=lambda engine: next(plies) >= 16)

    director = make_user("dirk")
    with time_machine.travel(T0 - timedelta(days=2), tick=False):
        swiss_t = swiss.tournament_create(director=director, name="Coppa Nord", rounds=3, min_players=2,
                                          registration_closes_at=T0 - timedelta(hours=1), starts_at=T0, round_days=10)
        swiss.tournament_create(director=director, name="Coppa Sud", rounds=3, min_players=2,
                                registration_closes_at=T0 + timedelta(days=9), starts_at=T0 + timedelta(days=10))
        rr = formats.round_robin_create(director=director, name="Girone Est", min_players=3,
                                        registration_closes_at=T0 - timedelta(hours=1), starts_at=T0)
        rounds = formats.round_robin_create(director=director, name="Girone Ovest", min_players=4, pace="rounds",
                                            round_days=7, registration_closes_at=T0 - timedelta(hours=1), starts_at=T0)
        entrants = [anna, bruno, long, *zeds]
        for u in entrants:
            swiss.tournament_register(user=u, tournament_id=swiss_t.pk)
            formats.round_robin_register(user=u, round_robin_id=rr.pk)
        for u in entrants[:4]:
            formats.round_robin_register(user=u, round_robin_id=rounds.pk)
    swiss.tournament_start(tournament_id=swiss_t.pk, now=T0)
    formats.round_robin_start(round_robin_id=rr.pk, now=T0)
    formats.round_robin_start(round_robin_id=rounds.pk, now=T0)
    rounds_group = Group.objects.get(round_robin=rounds)
    for g in rounds_group.games.filter(round=1).select_related("game"):
        services.game_resign(user=g.game.player(1), game_id=g.game_id)
    formats.group_advance(group_id=rounds_group.pk, now=T0 + timedelta(days=1))  # the receiver may have done it
    rounds_group.refresh_from_db()
    assert rounds_group.current_round == 2

    ladder = Competition.objects.create(name="Lega", group_size=5, break_days=3, season_days=60, rated=False)
    with time_machine.travel(T0, tick=False):
        for u in entrants:
            formats.competition_join(user=u, competition_id=ladder.pk)
    formats.competition_start_season(competition_id=ladder.pk, now=T0 + timedelta(days=3))
    season_group = Group.objects.filter(season__competition=ladder).first()
    rr_group = Group.objects.filter(round_robin=rr).first()
    assert season_group is not None and rr_group is not None

    pages = [
        ("home", reverse("home"), False), ("signup", reverse("signup"), False), ("login", reverse("login"), False),
        ("rules", reverse("rules"), False), ("home (player)", reverse("home"), True),
        ("lobby", reverse("lobby"), True), ("my games", reverse("my_games"), True),
        ("settings", reverse("settings"), True),
        ("game: placing", reverse("game", args=[placing.pk]), True),
        ("game: dice", reverse("game", args=[dice.pk]), True),
        ("game: direction", reverse("game", args=[direction.pk]), True),
        ("game: over", reverse("game", args=[over.pk]), True),
        ("game: watched", reverse("game", args=[watched.pk]), True),
        ("watch", reverse("watch"), True),
        ("series lobby", reverse("series_lobby"), True),
        ("series", reverse("game", args=[played.pk]), True),
        ("series: open", reverse("game", args=[open_series.pk]), True),
        ("tournaments", reverse("tournaments"), True),
        ("tournament (Swiss)", reverse("tournament", args=[swiss_t.pk]), True),
        ("round-robins", reverse("round_robins"), True),
        ("round-robin", reverse("round_robin", args=[rr.pk]), True),
        ("round-robin by rounds", reverse("round_robin", args=[rounds.pk]), True),
        ("group by rounds", reverse("group", args=[rounds_group.pk]), True),
        ("group", reverse("group", args=[rr_group.pk]), True),
        ("Competition", reverse("competition", args=[ladder.pk]), True),
        ("Competition group", reverse("group", args=[season_group.pk]), True),
        ("Competition player", reverse("competition_player", args=[ladder.pk, "anna"]), True),
        ("leaderboard", reverse("leaderboard"), True),
        ("leaderboard by points", reverse("leaderboard") + "?by=points", True),
        ("profile", reverse("profile", args=["anna"]), True),
        ("profile of a long name", reverse("profile", args=[LONG_NAME]) + "?vs=anna", True),
    ]
    return {"anna": anna, "bruno": bruno, "pages": pages, "dice": dice, "direction": direction, "played": played}


def settle(page: Any) -> None:
    """Wait until a page loaded has filled in what it fetches after loading: a game page's chat
    slot (static/js/social.js). A test that measures or checks the page then always sees the chat,
    not sometimes the link that stands in for it."""
    page.wait_for_function("() => !document.querySelector('#social[data-src]')"
                           " || !!document.querySelector('#social .social-part')")
