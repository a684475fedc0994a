"""A small database layer used by every game (and by the sessions and the players' reads): the
statements of the hot paths put together once per process from the models' metadata — the reads
(``reading``: rows by a column, instances as the ORM makes them) and the writes of one step sent
together (``writing``: one round trip on PostgreSQL). bench/http.py measures what they save
(docs/performance.md). It knows no model of its own."""
