"""Events of series (issue 16), sent after the commit (games.services_series). A series' live
event is written in its action's transaction instead (games.live.write)."""

from django.dispatch import Signal

# a house bot is to act in a series; kwargs: series_id, ply
series_bot_to_move = Signal()
