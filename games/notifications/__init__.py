"""Emails about games (``emails``: recorded in the transaction of what caused them, exactly once;
written in the player's language and sent after the commit; the digest, held your-turn emails,
one-click unsubscribe) and their log (``models``: Notice). Its own app (label
``notifications``): the services of play call it; it reads play's models and imports nothing
that writes a game (a contract in .importlinter)."""
