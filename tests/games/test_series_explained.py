"""The series page explains itself (issue 24): the move list's notation, the start player's ★
and the carried damage have a legend; the one-bot-of-each-strength rule is said where series are
opened, and a strength already seated is not offered again. And the sign-up from "Play the
computer now" lands on that button."""

from __future__ import annotations

import random
import re

import pytest
from django.test import Client

from games import services as svc
from games.models import Move

from .factories import make_user
from .series_play import play

pytestmark = pytest.mark.django_db



def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_series_page_explains_its_marks_and_notation() -> None:
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = svc.game_open(user=users[0], seats=3)
    svc.game_join(user=users[1], game_id=series.pk)
    svc.game_join(user=users[2], game_id=series.pk, rng=random.Random(16))
    play(series.pk, stop=lambda engine: len(engine.races) >= 2)  # into race B
    for language, words in {"en": ("★ start player of this race (R15)", "How to read the actions", "A 0 · B "),
                            "de": ("★ Startspieler dieses Rennens (R15)", "So liest man die Aktionen", "A 0 · B "),
                            "it": ("★ primo giocatore di questa gara (R15)", "Come leggere le azioni", "A 0 · B ")}.items():
        html = client_of(users[0]).get(f"/games/{series.pk}/", headers={"accept-language": language}).content.decode()
        legend, summary, carried = words
        assert legend in html and f"<summary>{summary}</summary>" in html, language
        cells = re.findall(r'<td class="carried">([^<]*)</td>', html)
        assert len(cells) == 3 and all(c.startswith(carried) for c in cells), cells
        assert 'id="notation-legend"' in html and "<code>x2 b1 F S</code>" in html


def test_one_bot_of_each_strength_is_said_up_front_and_a_seated_one_is_not_offered() -> None:
    ann = make_user("ann")
    lobby = client_of(ann).get("/series/").content.decode()
    assert "Each house bot plays once per series: at most one easy, one normal and one strong bot." in lobby
    series = svc.game_open(user=ann, seats=4, rated=False)
    page = client_of(ann).get(f"/games/{series.pk}/").content.decode()
    assert "Each house bot plays once per series" in page
    assert '<option value="normal" selected>normal</option>' in page and "already playing" not in page
    svc.game_add_bot(user=ann, game_id=series.pk, level="normal")
    page = client_of(ann).get(f"/games/{series.pk}/").content.decode()
    assert '<option value="normal" disabled>normal (already playing)</option>' in page
    assert '<option value="easy" selected>easy</option>' in page
    # asking for it anyway (an old page) is refused as a conflict with the series as it stands, and says why
    refused = client_of(ann).post(f"/games/{series.pk}/lobby/bot/", {"level": "normal"})
    assert refused.status_code == 409 and "there is no free normal house bot for this series" in refused.content.decode()
    svc.game_add_bot(user=ann, game_id=series.pk, level="easy")
    page = client_of(ann).get(f"/games/{series.pk}/").content.decode()
    assert '<option value="strong" selected>strong</option>' in page


def test_a_sign_up_from_play_the_computer_lands_on_the_bot_buttons() -> None:
    client = Client()
    home = client.get("/").content.decode()
    url = re.search(r'id="play-now" href="([^"]+)"', home).group(1)
    assert url == "/signup/?then=bot"
    fields = {"username": "newcomer", "email": "newcomer@example.com",
              "password1": "sea-spray-and-salt-42", "password2": "sea-spray-and-salt-42"}
    landed = client.post(url, fields)
    assert landed.status_code == 302 and landed["Location"] == "/#play-bot"
    # a sign-up from elsewhere goes to the lobby, as before; an unknown "then" changes nothing
    other = Client().post("/signup/?then=elsewhere", {**fields, "username": "other", "email": "other@example.com"})
    assert other.status_code == 302 and other["Location"] == "/lobby/"


def test_the_series_move_list_says_each_action_in_words_in_every_language() -> None:
    """Issue 24: each action of the series' move list in words beside its notation (as the
    two-player game's list), read from the replay: a placement names its start cell's number,
    a roll awaiting its direction ends in "…", a turn says how far and what happened."""
    users = [make_user(n) for n in ("ann", "bob", "cid")]
    series = svc.game_open(user=users[0], seats=3)
    svc.game_join(user=users[1], game_id=series.pk)
    svc.game_join(user=users[2], game_id=series.pk, rng=random.Random(16))
    play(series.pk, stop=lambda engine: len(engine.races) >= 2)  # into race B
    # the actions: a roll whose only direction was taken at once (R7) is one action, stored as
    # its roll row and its turn row, and said as its turn
    actions: list[Move] = []
    for row in series.moves.order_by("ply"):
        if row.kind == Move.Kind.TURN and row.auto and actions and actions[-1].kind == Move.Kind.ROLL:
            actions[-1] = row
        else:
            actions.append(row)
    actions = list(reversed(actions))[:40]
    html = client_of(users[0]).get(f"/games/{series.pk}/").content.decode()
    items = re.findall(r'<li value="\d+"><a href="\?at=\d+"><code class="notation">([^<]*)</code></a> '
                       r'<span class="long">([^<]*)</span></li>', html)
    assert len(items) == len(actions), "every action shown has its words"
    for (notation, words), action in zip(items, actions, strict=True):
        written = action.notation
        assert notation.endswith(written.replace("&", "&amp;")), (notation, written)
        if action.kind == Move.Kind.PLACE:
            assert re.fullmatch(r"\w+ starts on line cell \d+, heading [A-Z]+", words), words
        elif written.endswith("…"):
            assert words.endswith(" …") and any(w in words for w in (" rolls ", " keeps ", " holds no dice")), words
        else:  # a whole turn
            cells = int(written.split()[4])
            assert (f"moves {cells} cell" in words) if cells else ("does not move" in words), (written, words)
            assert (" crashes: " in words) == any(m.startswith("x") for m in written.split()[5:]), words
            marks = written.split()[5:]
            assert (" finishes" in words) == ("F" in marks), (written, words)
            assert (" sinks" in words) == ("S" in marks), (written, words)
            assert (" rounds buoy" in words) == any(m.startswith("b") for m in marks), (written, words)
    german = client_of(users[0]).get(f"/games/{series.pk}/", headers={"accept-language": "de"}).content.decode()
    assert "startet auf Linienfeld" in german or "würfelt" in german
