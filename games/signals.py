"""Events of the games app, published after the transaction that caused them commits.

Other code subscribes instead of being called from the game code; every subscription of this
app is in ``games/receivers.py`` (the tournaments app has its own). An event is small and
carries what its receivers need, so that a receiver queues its task without reading the game.
"""

from django.dispatch import Signal

# an action was stored (a placement, a roll, a turn, a game's start or its end);
# kwargs: game_id, ply, user_id_to_move (None when over), turn_passed (another player now has
# the turn, or a new game starts), bot_to_move (the player to move is a house bot)
move_made = Signal()
# a game ended (by a move, resignation, time or adjudication); kwargs: game_id
game_finished = Signal()
# a challenge was made to a named player; kwargs: challenge_id, opponent_is_bot
challenge_made = Signal()
# emails were recorded (games.notifications); kwargs: ids
emails_recorded = Signal()
