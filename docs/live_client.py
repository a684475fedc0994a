"""A tiny Powerboats bot that listens and plays (docs/live.md), with the standard library only.

    POWERBOATS_URL=http://127.0.0.1:8000 POWERBOATS_TOKEN=… python docs/live_client.py

Get a token for a BOT account: ``POST /api/accounts/ {"username", "password", "is_bot": true}``
then ``POST /api/token/ {"username", "password"}``. The bot listens on ``/api/stream/events/``,
accepts every challenge made to it, and plays each of its games from ``/api/games/<id>/stream/``:
it places on the first free cell, adds a die while it holds fewer than three, and takes the
first allowed direction (R5–R7). A dropped connection is resumed with ``Last-Event-ID``.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

URL = os.environ.get("POWERBOATS_URL", "http://127.0.0.1:8000").rstrip("/")
TOKEN = os.environ.get("POWERBOATS_TOKEN", "")


def call(method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    request = urllib.request.Request(
        URL + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Token {TOKEN}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def lines(path: str, last_event_id: int | None = None) -> Iterator[dict[str, Any]]:
    """The JSON lines of a stream (keep-alive empty lines skipped)."""
    headers = {"Authorization": f"Token {TOKEN}"}
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    with urllib.request.urlopen(urllib.request.Request(URL + path, headers=headers), timeout=60) as response:
        for raw in response:
            if raw.strip():
                yield json.loads(raw)


def act(game: dict[str, Any]) -> None:
    """One action for the game as the stream gave it, when it is our turn."""
    if not game.get("your_turn"):
        return
    gid, ply = game["id"], game["ply"]
    if "placements" in game:
        cell = game["placements"]["cells"][0]
        call("POST", f"/api/games/{gid}/place/", {"ply": ply, "cell": cell, "heading": 0})
    elif "dice_options" in game:
        me = next(p for p in game["players"] if p["color"] == game["your_color"])
        change = "add" if len(me["dice"]) < 3 else "keep"
        call("POST", f"/api/games/{gid}/roll/", {"ply": ply, "change": change, "reroll": []})
    elif "options" in game:
        direction = next(o["direction"] for o in game["options"] if o["allowed"])
        call("POST", f"/api/games/{gid}/direction/", {"ply": ply, "direction": direction})


def play(game_id: int) -> None:
    """Follow one game until it ends: every line is the whole game, so acting on it is enough."""
    for line in lines(f"/api/games/{game_id}/stream/"):
        act(line)
        if line["status"] != "active":
            print(f"game {game_id} is over: {line['result']}")
            return


def main() -> None:
    last: int | None = None
    playing: set[int] = set()
    while True:
        try:
            for event in lines("/api/stream/events/", last):
                last = event["id"]
                if event["type"] == "challenge" and event["challenge"]["status"] == "open":
                    status, _ = call("POST", f"/api/challenges/{event['challenge']['id']}/accept/")
                    print(f"challenge {event['challenge']['id']}: accept → {status}")  # 403/409: not for us
                elif "game" not in event:
                    continue  # a series of the boxed game (seriesStart, yourTurn, seriesFinish): not played here
                elif event["type"] in ("gameStart", "yourTurn") and event["game"]["id"] not in playing:
                    playing.add(event["game"]["id"])
                    threading.Thread(target=play, args=(event["game"]["id"],), daemon=True).start()
                elif event["type"] == "gameFinish":
                    playing.discard(event["game"]["id"])
        except (OSError, ValueError) as error:
            print(f"stream dropped ({error}); resuming after event {last}")
            time.sleep(1)


if __name__ == "__main__":
    main()
