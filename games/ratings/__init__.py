"""Ratings (docs/ratings.md): the two-player pool and the multi-player pool of series, Glicko-2
in both. Its own app (label ``ratings``); it reads games through the protocols of its services
and imports nothing of the games app but the writer of a turn's rows (common.db)."""
