"""Events of the games app (every game, of any ruleset), published after the transaction that
caused them commits.

Other code subscribes instead of being called from the game code; every subscription of this
app is in ``games/receivers.py`` (the tournaments app has its own). An event is small and
carries what its receivers need, so that a receiver queues its task without reading the game.
"""

from django.dispatch import Signal

# an action was stored (a placement, a roll, a turn, a game's start or its end);
# kwargs: game_id, ply, user_id_to_move (None when over), turn_passed (another player now has
# the turn, or a new game starts), bot_to_move (the player to move is a house bot),
# player_ids (the user ids of its players, in seat order)
move_made = Signal()
# a game ended (by a move, resignation, time or adjudication); kwargs: game_id, player_ids,
# winner_id (None for a draw)
game_finished = Signal()
# a game was created (from a challenge, a bot game, a tournament pairing); kwargs: game_id,
# player_ids
game_started = Signal()
# a challenge was created, accepted, declined or cancelled (open ones too); kwargs:
# challenge_id, status, created_by_id, opponent_id (None for an open challenge), game_id
challenge_changed = Signal()
# a challenge was made to a named player; kwargs: challenge_id, opponent_is_bot
challenge_made = Signal()
# notices were recorded to send (games.notifications: emails and pushes); kwargs: notices, a
# list of (id, channel, seconds to wait before sending)
notices_recorded = Signal()
# a player wrote a line in a game's chat (games.social.services); kwargs: game_id, message_id,
# user_id (its author) — for the live event stream
chat_posted = Signal()
