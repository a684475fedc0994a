"""Ratings of games: when, how, idempotence, the leaderboard, profiles, the API, recompute."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from rest_framework.test import APIClient

from games import services
from games.ratings.models import Rating, RatingChange
from games.ratings.services import rate_game
from tests.games.factories import make_game, make_user, placed_game
from tournaments.selectors import leaderboard, points_table, provisional_players

pytestmark = pytest.mark.django_db
T0 = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def resign_game(yellow, red, loser, at=T0, rated=True):
    with time_machine.travel(at, tick=False):
        game = placed_game(yellow=yellow, red=red, rated=rated)
        services.game_resign(user=loser, game_id=game.pk)
    game.refresh_from_db()
    return game


def test_a_rated_game_moves_both_ratings_in_the_same_transaction():
    ann, bob = make_user("ann"), make_user("bob")
    game = resign_game(ann, bob, loser=bob)
    # the test runs inside one transaction: the rows exist without any commit hook running
    changes = {c.user.username: c for c in RatingChange.objects.filter(game=game)}
    assert changes["ann"].score == 1.0 and changes["bob"].score == 0.0
    assert changes["ann"].rating_after > 1500 > changes["bob"].rating_after
    ann_rating = Rating.objects.get(user=ann)
    assert ann_rating.games == 1 and ann_rating.wins == 1 and ann_rating.provisional
    assert rate_game(game) is False  # processed twice: once
    assert RatingChange.objects.filter(game=game).count() == 2


def test_casual_games_and_early_time_outs_are_not_rated():
    ann, bob = make_user("ann"), make_user("bob")
    resign_game(ann, bob, loser=bob, rated=False)
    with time_machine.travel(T0, tick=False):
        game = make_game(yellow=ann, red=bob)  # Yellow never places: lost on time before a first move
    services.game_time_out(game_id=game.pk, now=T0 + timedelta(days=30))
    game.refresh_from_db()
    assert game.termination == "timeout"
    assert not RatingChange.objects.exists()


def test_deviation_grows_while_idle():
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    resign_game(ann, bob, loser=bob)
    after_first = Rating.objects.get(user=ann).deviation
    resign_game(ann, cid, loser=cid, at=T0 + timedelta(weeks=30))
    change = RatingChange.objects.filter(user=ann).order_by("created_at").last()
    assert change.deviation_before > after_first  # grew over the 30 idle weeks before the game


def test_the_leaderboard_leaves_out_provisional_and_inactive_players():
    def player(name, rating, deviation, days_ago, games=20, points=40):
        user = make_user(name)
        Rating.objects.create(user=user, rating=rating, deviation=deviation, games=games, wins=games // 2,
                              losses=games - games // 2, points=points, points_per_game=points / games,
                              last_rated_at=T0 - timedelta(days=days_ago))
        return user

    player("top", 1810, 60, 3, points=70)
    player("second", 1700, 80, 10)
    player("third", 1650, 105, 80, points=20)
    player("shaky", 1900, 140, 1)  # provisional
    player("gone", 1950, 50, 200)  # not active
    player("fresh", 1600, 90, 1, games=3, points=12)  # too few games for the points table
    with time_machine.travel(T0, tick=False):
        assert [r.user.username for r in leaderboard()] == ["top", "second", "third", "fresh"]
        assert [r.user.username for r in points_table()] == ["top", "second", "shaky", "third"]
        page = Client().get("/leaderboard/").content.decode()
        assert "gone" not in page and page.index("top") < page.index("second")
        # provisional players have their own section after the established ones (issue 13)
        established, provisional = page.split('id="provisional"')
        assert "shaky" not in established and "/players/shaky/" in provisional and "1900?" in provisional
        assert [r.user.username for r in provisional_players()] == ["shaky"]
        api_provisional = APIClient().get("/api/leaderboard/?by=provisional").json()["results"]
        assert [(r["rank"], r["username"], r["provisional"]) for r in api_provisional] == [(1, "shaky", True)]
        api = APIClient().get("/api/leaderboard/").json()
        assert [(r["rank"], r["username"], r["provisional"]) for r in api["results"]][:2] == [
            (1, "top", False), (2, "second", False)]
        assert APIClient().get("/api/leaderboard/?by=points").json()["results"][0]["points_per_game"] == 3.5
        assert APIClient().get("/api/leaderboard/?by=luck").status_code == 400
    with time_machine.travel(T0 + timedelta(days=200), tick=False):
        assert list(leaderboard()) == []  # nobody active any more


def test_many_games_make_a_rating_established():
    ann, bob = make_user("ann"), make_user("bob")
    for week in range(16):
        resign_game(ann, bob, loser=bob if week % 2 else ann, at=T0 + timedelta(days=week))
    rating = Rating.objects.get(user=ann)
    assert rating.games == 16 and not rating.provisional and rating.deviation < 110


def test_profile_shows_rating_history_games_and_head_to_head():
    ann, bob = make_user("ann"), make_user("bob")
    for i in range(3):
        resign_game(ann, bob, loser=bob if i < 2 else ann, at=T0 + timedelta(days=i))
    page = Client().get("/players/ann/").content.decode()
    assert 'class="rating-chart"' in page and "3 rated games" in page
    assert page.count('class="rating-change"') >= 3 and "?" in page[page.index('id="rating"'):][:60]
    versus = Client().get("/players/ann/?vs=bob").content.decode()
    assert "3 finished games — 2 won, 0 drawn, 1 lost" in versus
    data = APIClient().get("/api/players/ann/").json()
    assert data["rating"]["games"] == 3 and data["rating"]["provisional"] is True
    assert [h["score"] for h in data["history"]] == [1.0, 1.0, 0.0]
    assert APIClient().get("/api/players/nobody/").status_code == 404


def test_ratings_are_shown_with_a_question_mark_while_provisional():
    game = placed_game()
    page = Client().get(f"/games/{game.pk}/").content.decode()
    assert '<small class="rating">1500?</small>' in page


def test_recompute_ratings_finds_no_difference_and_finds_a_changed_one(capsys):
    ann, bob, cid = make_user("ann"), make_user("bob"), make_user("cid")
    resign_game(ann, bob, loser=bob)
    resign_game(bob, cid, loser=bob, at=T0 + timedelta(weeks=3))
    resign_game(cid, ann, loser=ann, at=T0 + timedelta(weeks=9))
    call_command("recompute_ratings")
    assert "0 difference(s)" in capsys.readouterr().out
    Rating.objects.filter(user=bob).update(rating=1234)
    with pytest.raises(CommandError):
        call_command("recompute_ratings")
    assert f"user {bob.pk}: stored 1234.0000" in capsys.readouterr().out
    call_command("recompute_ratings", "--write")
    call_command("recompute_ratings")
