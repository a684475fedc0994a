"""Events of the tournaments app, published after the transaction that caused them commits
(docs/architecture.md); every subscription is in ``tournaments/receivers.py``."""

from django.dispatch import Signal

# round-robin groups were drawn (players and schedule stored, games not created yet); kwargs: group_ids
groups_drawn = Signal()
# a round-robin group played its last game (or its deadline passed); kwargs: group_id,
# round_robin_id (or None), season_id (or None)
group_finished = Signal()
