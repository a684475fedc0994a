"""Events of series (issue 16), sent after the commit (games.services_series)."""

from django.dispatch import Signal

# a house bot is to act in a series; kwargs: series_id, ply
series_bot_to_move = Signal()

# a series changed (after the commit); kwargs: series_id, action ("open", "seats", "start", "move",
# "finish", "cancel"), ply; before the start also seats (how many are taken) and rev (services_series.seats_revision) — it goes live to the series page and the series lobby (games.live)
series_changed = Signal()
