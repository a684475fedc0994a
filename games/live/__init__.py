"""Live events (docs/live.md): the append-only log every action writes in its own transaction
(``events``: new_event, move_event, publish) and its readers (the hub, a stream's backlog, "seen
live"), with its models. Its own app (label ``live``), below the games app: it imports of games
only the database layer (common.db); the streams that serve it are games.streams (a contract in
.importlinter)."""
