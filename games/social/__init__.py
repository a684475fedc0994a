"""What players do around a game (issue 13, docs/social.md): chat with moderation, rematches,
the next game to move, games to watch, player search — its models, reads, writes, pages and API.
Its own app (label ``social``), above the games app: it uses games' models and services; nothing
of games imports it (a contract in .importlinter)."""
