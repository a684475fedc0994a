"""Events other apps subscribe to instead of being called from the game code."""

from django.dispatch import Signal

# sent after the transaction that ended a game commits; kwargs: game_id
game_finished = Signal()
# sent after a move commits; kwargs: game_id, ply, user_id_to_move (None when over)
move_made = Signal()
