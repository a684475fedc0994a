"""Events other apps subscribe to instead of being called from the game code."""

from django.dispatch import Signal

# sent after the transaction that ended a game commits; kwargs: game_id
game_finished = Signal()
# sent after a move commits; kwargs: game_id, ply, user_id_to_move (None when over),
# turn_passed (True when another player now has the turn, or a new game starts)
move_made = Signal()
# sent after the reminder of a turn is claimed; kwargs: game_id, user_id
reminder_due = Signal()
# sent after a challenge to a named player commits; kwargs: challenge_id
challenge_made = Signal()
# sent INSIDE the transaction that ends a game (after its result is stored, before commit), so
# that receivers (ratings) change their rows in the same transaction; kwargs: game
game_ended = Signal()
