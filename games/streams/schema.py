"""The two API streams in the OpenAPI schema (a drf-spectacular postprocessing hook).

They are async Django views (games/streams/views.py), not DRF views, because they hold the
connection open under the ASGI server; this hook describes them in the same terms as the rest
of the API: token or session authentication, the shared ``Error`` for 400/401/404, and the
shape of each NDJSON line.
"""

from __future__ import annotations

from typing import Any

ERROR = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
BUSY = {**ERROR, "description": "Too many streams open: from you (a player, any of your tokens), from your address, "
                                "or on this server (docs/live.md). The answer's `limit` says which; try again after "
                                "Retry-After seconds.",
        "headers": {"Retry-After": {"schema": {"type": "integer"}}}}
ENDS = (" The server ends a stream after a while (LIVE_STREAM_SECONDS, half an hour by default) and when the client "
        "reads too slowly: connect again, with Last-Event-ID. A resume more than 1,000 ids back gets "
        "`{\"type\": \"resync\"}` instead of the events missed: read your state afresh.")

USER_EVENT = {
    "type": "object",
    "description": "One line of the user's event stream (lichess's bot API names). An empty line is a keep-alive.",
    "properties": {
        "type": {"type": "string", "enum": ["challenge", "challengeCanceled", "challengeDeclined", "challengeAccepted",
                                           "gameStart", "yourTurn", "gameFinish", "seriesStart", "seriesFinish",
                                           "resync"]},
        "id": {"type": "integer", "description": "the event's id: send it back as Last-Event-ID to resume"},
        "challenge": {"type": "object", "properties": {
            "id": {"type": "integer"}, "status": {"type": "string"}, "created_by": {"type": "integer"},
            "opponent": {"type": "integer", "nullable": True}, "game": {"type": "integer", "nullable": True}}},
        "game": {"type": "object", "properties": {
            "id": {"type": "integer"}, "ply": {"type": "integer"},
            "outcome": {"type": "string", "enum": ["won", "lost", "draw"]}}},
        "series": {"type": "object", "description": "a series of the boxed game (yourTurn, seriesStart, "
                   "seriesFinish): GET /api/series/{id}/", "properties": {
            "id": {"type": "integer"}, "ply": {"type": "integer"}}},
    },
    "required": ["type", "id"],
}

GAME_LINE = {
    "description": "One line of a game's stream: `gameFull` first, then a `gameState` after each move; "
                   "both carry the game as GET /api/games/{game_id}/ answers it. An empty line is a keep-alive.",
    "allOf": [
        {"$ref": "#/components/schemas/GameDetailOut"},
        {"type": "object", "properties": {"type": {"type": "string", "enum": ["gameFull", "gameState"]}},
         "required": ["type"]},
    ],
}

SINCE = {"in": "query", "name": "since", "required": False,
         "schema": {"type": "string", "pattern": "^[0-9]{1,14}$"},
         "description": "start after the last event before this time (milliseconds since 1970); "
                        "without it, and without Last-Event-ID, the stream starts now"}
LAST_EVENT_ID = {"in": "header", "name": "Last-Event-ID", "required": False,
                 "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"},
                 "description": "resume: the events after this id (the `id` of the last line you read)"}


def add_streams(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    if getattr(generator, "patterns", None) is not None or getattr(generator, "urlconf", None) is not None:
        return result  # a schema of some URLs only (tests of one app): not the site's
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["StreamUserEvent"] = USER_EVENT
    schemas["StreamGameLine"] = GAME_LINE
    security: list[dict[str, list[str]]] = [{"tokenAuth": []}, {"cookieAuth": []}]
    paths = result.setdefault("paths", {})
    paths["/api/stream/events/"] = {"get": {
        "operationId": "stream_events",
        "summary": "Your events as they happen (NDJSON)",
        "description": "A never-ending stream of your events, one JSON object per line: a challenge made to you or "
                       "by you and what became of it, a game started, your turn, a game finished. Resume after a "
                       "dropped connection with Last-Event-ID. While connected, your-turn emails for moves you were "
                       "told about here are not sent. A series of the boxed game is told as `seriesStart`, "
                       "`yourTurn` and `seriesFinish` with a `series` object instead of `game`. Example client: "
                       "docs/live_client.py." + ENDS,
        "tags": ["stream"],
        "parameters": [SINCE, LAST_EVENT_ID],
        "security": security,
        "responses": {
            "200": {"description": "the stream", "content": {
                "application/x-ndjson": {"schema": {"$ref": "#/components/schemas/StreamUserEvent"}}}},
            "400": {**ERROR, "description": "Invalid input: the answer names the field."},
            "401": {**ERROR, "description": "Authentication needed: a token (Authorization: Token …) or a session."},
            "429": BUSY,
        },
    }}
    paths["/api/games/{game_id}/stream/"] = {"get": {
        "operationId": "games_stream",
        "summary": "A game's moves as they happen (NDJSON)",
        "description": "`gameFull` (the game as GET /api/games/{game_id}/ answers it, for the caller), then a "
                       "`gameState` after each move; the stream ends when the game is over." + ENDS,
        "tags": ["stream"],
        "parameters": [{"in": "path", "name": "game_id", "required": True,
                        "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"}}],
        "security": [*security, {}],
        "responses": {
            "200": {"description": "the stream", "content": {
                "application/x-ndjson": {"schema": {"$ref": "#/components/schemas/StreamGameLine"}}}},
            "400": {**ERROR, "description": "Invalid input: the answer names the field."},
            "401": {**ERROR, "description": "The token given is not valid."},
            "404": {**ERROR, "description": "No such game."},
            "429": BUSY,
        },
    }}
    return result
