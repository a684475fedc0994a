"""What players look for (issue 13): chat with moderation, rematch, the next game to move,
games to watch, player search, results from the viewer's side — services and site."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from common.errors import Conflict, NotAPlayer, NotFound, ServiceError
from games import services
from games.models import Challenge, Game
from games.selectors import outcome
from games.signals import chat_posted
from games.social import services as social
from games.social.models import CHAT_MAX_LENGTH, ChatMessage, ChatReport
from games.social.selectors import chat_of, next_game_to_move, players_matching

from .factories import PASSWORD, make_game, make_user, placed_game

pytestmark = pytest.mark.django_db


def client_for(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def finished_game(**kwargs) -> Game:
    game = placed_game(**kwargs)
    services.game_resign(user=game.player(1), game_id=game.pk)  # Yellow wins
    game.refresh_from_db()
    return game


# --- chat -------------------------------------------------------------------------------------


def test_players_chat_and_the_signal_carries_the_line(django_capture_on_commit_callbacks):
    game = make_game()
    seen = []
    chat_posted.connect(lambda sender, **kw: seen.append(kw), weak=False, dispatch_uid="test-chat")
    try:
        with django_capture_on_commit_callbacks(execute=True):
            line = social.chat_post(user=game.player(1), game_id=game.pk, text="  good luck!  ")
    finally:
        chat_posted.disconnect(dispatch_uid="test-chat")
    assert line.text == "good luck!"
    assert seen == [{"game_id": game.pk, "message_id": line.pk, "user_id": game.player(1).pk, "signal": chat_posted}]


@pytest.mark.parametrize("text, why", [
    ("", "empty"), ("   ", "empty"), ("x" * (CHAT_MAX_LENGTH + 1), "at most"),
    ("hi\nthere", "control"), ("a\x00b", "control"), ("rtl\u202etrick", "control"), ("zero\u200bwidth", "control"),
])
def test_bad_chat_lines_are_refused_naming_the_field(text, why):
    game = make_game()
    with pytest.raises(ServiceError) as refused:
        social.chat_post(user=game.player(0), game_id=game.pk, text=text)
    assert refused.value.field == "text" and why in refused.value.message
    assert ChatMessage.objects.count() == 0


def test_a_spectator_cannot_chat_but_reads():
    game = make_game()
    social.chat_post(user=game.player(0), game_id=game.pk, text="hello")
    spectator = make_user("sam")
    with pytest.raises(NotAPlayer):
        social.chat_post(user=spectator, game_id=game.pk, text="me too")
    page = client_for(spectator).get(f"/games/{game.pk}/social/?part=1")
    assert page.status_code == 200 and b"hello" in page.content and b'id="chat-form"' not in page.content
    anonymous = Client().get(f"/games/{game.pk}/social/")
    assert anonymous.status_code == 200 and b"hello" in anonymous.content
    refused = client_for(spectator).post(f"/games/{game.pk}/chat/", {"text": "me too"})
    assert refused.status_code == 403 and ChatMessage.objects.count() == 1
    assert Client().post(f"/games/{game.pk}/chat/", {"text": "anon"}).status_code == 302  # to the login page
    assert ChatMessage.objects.count() == 1


def test_chat_is_escaped_on_output():
    game = make_game()
    social.chat_post(user=game.player(0), game_id=game.pk, text='<script>alert("x")</script>')
    page = Client().get(f"/games/{game.pk}/social/?part=1")
    assert b"<script>alert" not in page.content and b"&lt;script&gt;alert" in page.content


def test_mute_hides_the_opponents_lines_from_the_muter_only():
    game = make_game()
    social.chat_post(user=game.player(0), game_id=game.pk, text="from yellow")
    social.chat_post(user=game.player(1), game_id=game.pk, text="from red")
    social.chat_mute(user=game.player(0), game_id=game.pk)
    social.chat_mute(user=game.player(0), game_id=game.pk)  # twice is harmless
    assert [m.text for m in chat_of(game, game.player(0))] == ["from yellow"]
    assert [m.text for m in chat_of(game, game.player(1))] == ["from yellow", "from red"]
    assert [m.text for m in chat_of(game, None)] == ["from yellow", "from red"]
    social.chat_mute(user=game.player(0), game_id=game.pk, muted=False)
    assert [m.text for m in chat_of(game, game.player(0))] == ["from yellow", "from red"]
    with pytest.raises(NotAPlayer):
        social.chat_mute(user=make_user("sam"), game_id=game.pk)


def test_mute_and_report_through_the_site():
    game = make_game()
    line = social.chat_post(user=game.player(1), game_id=game.pk, text="rude words")
    yellow = client_for(game.player(0))
    assert yellow.post(f"/games/{game.pk}/chat/mute/", {"mute": "1"}).status_code == 302
    assert b"rude words" not in yellow.get(f"/games/{game.pk}/social/?part=1").content
    assert yellow.post(f"/games/{game.pk}/chat/{line.pk}/report/", {"reason": "rude"}).status_code == 302
    report = ChatReport.objects.get()
    assert (report.message, report.reporter, report.reason) == (line, game.player(0), "rude")
    assert yellow.post(f"/games/{game.pk}/chat/{line.pk}/report/").status_code == 409  # once per line
    other = make_game(yellow=make_user("y2"), red=make_user("r2"))
    assert yellow.post(f"/games/{other.pk}/chat/{line.pk}/report/").status_code == 404  # not this game's line


def test_report_rules():
    game = make_game()
    mine = social.chat_post(user=game.player(0), game_id=game.pk, text="hi")
    with pytest.raises(ServiceError, match="your own"):
        social.chat_report(user=game.player(0), message_id=mine.pk)
    with pytest.raises(NotAPlayer):
        social.chat_report(user=make_user("sam"), message_id=mine.pk)
    with pytest.raises(NotFound):
        social.chat_report(user=game.player(1), message_id=mine.pk + 100)
    with pytest.raises(ServiceError):
        social.chat_report(user=game.player(1), message_id=mine.pk, reason="x" * 201)
    assert ChatReport.objects.count() == 0


def test_reports_are_listed_in_the_admin(admin_client):
    game = make_game()
    line = social.chat_post(user=game.player(1), game_id=game.pk, text="spam spam")
    social.chat_report(user=game.player(0), message_id=line.pk, reason="spam")
    page = admin_client.get("/admin/social/chatreport/")
    assert page.status_code == 200 and b"spam spam" in page.content
    # the address staff knew before chat had its own app (games.social) leads there
    old = admin_client.get("/admin/games/chatreport/?resolved__exact=0")
    assert old.status_code == 301 and old["Location"] == "/admin/social/chatreport/?resolved__exact=0"


# --- rematch ----------------------------------------------------------------------------------


def test_a_rematch_swaps_colours_keeps_settings_and_the_opponent_accepts():
    game = finished_game()
    offer = social.game_rematch(user=game.player(1), game_id=game.pk)
    assert isinstance(offer, Challenge)
    assert (offer.created_by, offer.opponent, offer.color) == (game.player(1), game.player(0), "yellow")  # red was red
    assert (offer.days_per_move, offer.grace_days, offer.lake_side, offer.rated) == (
        game.days_per_move, game.grace_days, game.lake_side, game.rated)
    with pytest.raises(Conflict):
        social.game_rematch(user=game.player(1), game_id=game.pk)  # one offer at a time
    # the other player's "rematch" accepts it
    new = social.game_rematch(user=game.player(0), game_id=game.pk)
    assert isinstance(new, Game) and (new.player(0), new.player(1)) == (game.player(1), game.player(0))
    with pytest.raises(Conflict, match="played already"):
        social.game_rematch(user=game.player(1), game_id=game.pk)


def test_a_rematch_is_accepted_like_any_challenge():
    game = finished_game()
    offer = social.game_rematch(user=game.player(0), game_id=game.pk)
    new = services.challenge_accept(user=game.player(1), challenge_id=offer.pk)
    assert (new.player(0), new.player(1)) == (game.player(1), game.player(0))


def test_who_cannot_rematch():
    game = placed_game()
    with pytest.raises(Conflict, match="once the game is over"):
        social.game_rematch(user=game.player(0), game_id=game.pk)
    services.game_resign(user=game.player(1), game_id=game.pk)
    stranger = make_user("sam")
    with pytest.raises(NotAPlayer):
        social.game_rematch(user=stranger, game_id=game.pk)
    assert client_for(stranger).post(f"/games/{game.pk}/rematch/").status_code == 403
    assert not Challenge.objects.filter(rematch_of=game).exists()


def test_a_rematch_against_a_house_bot_starts_at_once():
    from django.contrib.auth import get_user_model

    bot = get_user_model().objects.get(bot_level="easy")
    human = make_user("hana")
    game = make_game(yellow=human, red=bot)
    services.game_resign(user=human, game_id=game.pk)
    new = social.game_rematch(user=human, game_id=game.pk)
    assert isinstance(new, Game) and (new.player(0), new.player(1)) == (bot, human)


def test_rematch_through_the_site():
    game = finished_game()
    red = client_for(game.player(1))
    assert red.post(f"/games/{game.pk}/rematch/").status_code == 302
    part = client_for(game.player(0)).get(f"/games/{game.pk}/social/?part=1").content.decode()
    assert "Accept roland" in part
    answer = client_for(game.player(0)).post(f"/games/{game.pk}/rematch/")
    new = Game.objects.latest("pk")
    assert answer.status_code == 302 and answer["Location"] == f"/games/{new.pk}/"


# --- next game, watch, search, results ----------------------------------------------------------


def test_the_next_game_is_the_one_with_the_oldest_deadline():
    me = make_user("mia")
    later = make_game(yellow=me, red=make_user("o1"))  # Yellow (me) places first: my turn
    sooner = make_game(yellow=me, red=make_user("o2"))
    Game.objects.filter(pk=later.pk).update(deadline=timezone.now() + timedelta(days=5))
    Game.objects.filter(pk=sooner.pk).update(deadline=timezone.now() + timedelta(days=1))
    not_mine = make_game(red=me, yellow=make_user("o3"))  # Yellow to place: not my turn
    assert next_game_to_move(me) == sooner
    assert next_game_to_move(me, exclude=sooner.pk) == later
    client = client_for(me)
    assert client.get("/games/next/")["Location"] == f"/games/{sooner.pk}/"
    assert client.get(f"/games/next/?after={sooner.pk}")["Location"] == f"/games/{later.pk}/"
    # on the page of a game where it is the opponent's turn, the link to the next one
    part = client.get(f"/games/{not_mine.pk}/social/?part=1").content.decode()
    assert f'href="/games/{sooner.pk}/"' in part and 'id="next-game"' in part
    assert f'href="/games/{sooner.pk}/"' in client.get("/games/").content.decode()
    Game.objects.filter(pk__in=[sooner.pk, later.pk]).update(status=Game.Status.FINISHED)
    assert client.get("/games/next/")["Location"] == "/games/"


def test_watch_lists_games_in_progress_newest_move_first_and_anyone_can_open_them():
    old = make_game()
    new = make_game(yellow=make_user("y2"), red=make_user("r2"))
    done = finished_game(yellow=make_user("y3"), red=make_user("r3"))
    Game.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(hours=1))
    page = Client().get("/watch/").content.decode()
    assert page.index(f"/games/{new.pk}/") < page.index(f"/games/{old.pk}/")
    assert f"/games/{done.pk}/" not in page
    assert Client().get(f"/games/{old.pk}/").status_code == 200  # spectators open any game page
    assert Client().get("/watch/?page=99").status_code == 200  # the last page


def test_player_search_folds_case_and_look_alikes():
    make_user("demo")
    make_user("Delta")
    make_user("other")
    assert [u.username for u in players_matching("DE")] == ["Delta", "demo"]
    assert [u.username for u in players_matching("dеm")] == ["demo"]  # Cyrillic е
    assert players_matching("   ") == []
    page = Client().get("/players/?q=dem").content.decode()
    assert "/players/demo/" in page and "/players/Delta/" not in page
    assert Client().get("/players/?q=dem&go=1")["Location"] == "/players/demo/"


def test_results_from_the_viewers_side_in_my_games():
    game = finished_game()
    assert outcome(game, game.player(0)) == "won" and outcome(game, game.player(1)) == "lost"
    assert outcome(game, make_user("sam")) is None
    assert 'data-outcome="won"' in client_for(game.player(0)).get("/games/").content.decode()
    assert 'data-outcome="lost"' in client_for(game.player(1)).get("/games/").content.decode()


def test_profiles_and_tournament_pairings_show_the_result_from_the_right_side():
    from django.contrib.auth.models import AnonymousUser
    from django.template import Context, Template

    game = finished_game()  # Yellow won
    page = Client().get(f"/players/{game.player(1).username}/").content.decode()
    assert 'data-outcome="lost"' in page  # the profile's player lost it
    tag = Template("{% load social %}{% pairing_result_for_viewer code red yellow %}")

    def shown(code, viewer):
        return tag.render(Context({"code": code, "red": game.player(1).pk, "yellow": game.player(0).pk, "user": viewer}))

    assert 'data-outcome="won"' in shown("1", game.player(1)) and 'data-outcome="lost"' in shown("1", game.player(0))
    assert 'data-outcome="won"' in shown("-", game.player(0)) and 'data-outcome="draw"' in shown("=", game.player(1))
    assert shown("1", make_user("sam")) == "" and shown("1", AnonymousUser()) == "" and shown("", game.player(1)) == ""


def test_the_lobby_lists_your_recent_games_with_their_result():
    game = finished_game()
    page = client_for(game.player(1)).get("/lobby/").content.decode()
    assert 'id="recent-games"' in page and 'data-outcome="lost"' in page and f"/games/{game.pk}/" in page
    assert 'id="recent-games"' not in client_for(make_user("sam")).get("/lobby/").content.decode()


def test_a_player_writes_at_most_ten_lines_a_minute():
    import time_machine

    game = make_game()
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        for n in range(social.CHAT_BURST):
            social.chat_post(user=game.player(0), game_id=game.pk, text=f"line {n}")
        with pytest.raises(social.TooFast) as refused:
            social.chat_post(user=game.player(0), game_id=game.pk, text="one too many")
        assert refused.value.status == 429 and refused.value.field == "text"
        social.chat_post(user=game.player(1), game_id=game.pk, text="the opponent still writes")
    with time_machine.travel(start + timedelta(seconds=61), tick=False):
        social.chat_post(user=game.player(0), game_id=game.pk, text="a minute later")
    assert ChatMessage.objects.filter(user=game.player(0)).count() == social.CHAT_BURST + 1
