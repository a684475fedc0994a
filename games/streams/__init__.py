"""The live streams (docs/live.md): their own ASGI handler (``asgi``: no site middleware, no thread
per request), the async stream views (``views``), their URLs (``urls``) and their description in
the API schema (``schema``). Above the games app (a stream shows a game's page parts) and the live
log (games.live) they read."""
