"""The shapes of the API's answers about games, for the OpenAPI schema.

The game payloads are built as plain dicts by ``games.payloads`` and ``games.services`` (fast:
no serializer runs on the hot path); these serializers describe them exactly, and the fuzz
stage (bin/fuzz) checks every answer against them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework import serializers

from games.engine import Change

from . import api_enums
from .api_enums import DIRECTION_NAME, PLAYER_COLOR, SERIES_COLOR
from .models import ClockShape, Game, LakeSide, Move, Ruleset

if TYPE_CHECKING:
    S = serializers.Serializer[Any]  # DRF's serializers are generic in its stubs only
else:
    S = serializers.Serializer
COLORS = PLAYER_COLOR  # a two-player game's boats
ANY_COLOR = SERIES_COLOR  # a boat of any game (the boxed game has six)
RACE = api_enums.RACE_LETTER


def cell(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2,
                                 help_text="[q, r] axial (docs/game-record.md)", **kwargs)


def cells(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=cell(), **kwargs)


def ints(**kwargs: Any) -> serializers.ListField:
    return serializers.ListField(child=serializers.IntegerField(), **kwargs)


class ChoiceOut(S):
    change = serializers.ChoiceField(choices=[c.value for c in Change])
    remove = serializers.IntegerField(allow_null=True)
    reroll = ints()


class OptionOut(S):
    """One of the three directions after a roll (R7–R12)."""

    direction = serializers.IntegerField(min_value=0, max_value=5)
    name = serializers.ChoiceField(choices=DIRECTION_NAME)
    turn = serializers.ChoiceField(choices=["straight", "left", "right"])
    allowed = serializers.BooleanField(help_text="R7: it reaches the full total, or no direction does and it "
                                                 "reaches furthest")
    total = serializers.IntegerField()
    reach = serializers.IntegerField()
    path = cells()
    final = cell()
    crash = serializers.BooleanField()
    damage = serializers.IntegerField()
    blocked_by = serializers.CharField(allow_null=True)
    rounded = ints()
    finishes = serializers.BooleanField()
    sinks = serializers.BooleanField()


class MoveOut(S):
    """A whole turn as recorded (docs/game-record.md) with its notation (docs/notation.md)."""

    number = serializers.IntegerField()
    color = serializers.ChoiceField(choices=ANY_COLOR)
    choice = ChoiceOut()
    dice_before = ints()
    rolled = ints()
    dice = ints()
    total = serializers.IntegerField()
    direction = serializers.IntegerField()
    auto = serializers.BooleanField()
    start = cell()
    reach = serializers.IntegerField()
    path = cells()
    final = cell()
    heading = serializers.IntegerField()
    damage = serializers.IntegerField()
    damage_total = serializers.IntegerField()
    crash = serializers.BooleanField()
    rounded = ints()
    finished = serializers.BooleanField()
    sunk = serializers.BooleanField()
    roll_ply = serializers.IntegerField()
    notation = serializers.CharField()


class PlacementOut(S):
    color = serializers.ChoiceField(choices=ANY_COLOR)
    cell = cell()
    heading = serializers.IntegerField()
    notation = serializers.CharField()


class ResultOut(S):
    winner = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True, help_text="null: a draw, a shared first place")
    reason = serializers.CharField()


class ActionOut(S):
    """The game after an action (of any game), and what the action did."""

    game = serializers.IntegerField()
    ply = serializers.IntegerField(help_text="send it with the next action")
    race = serializers.ChoiceField(choices=RACE, required=False, help_text="a series: the race being played")
    phase = serializers.ChoiceField(choices=Game.Phase.choices)
    status = serializers.ChoiceField(choices=Game.Status.choices)
    to_move = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True)
    result = ResultOut(required=False, help_text="when the game is over")
    placement = PlacementOut(required=False, help_text="after placing")
    rolled = ints(required=False, help_text="after a roll: the values rolled")
    dice = ints(required=False, help_text="after a roll: the dice held")
    move = MoveOut(required=False, allow_null=True,
                   help_text="the turn, when it was made (after a direction, or a roll with one direction allowed)")
    options = OptionOut(many=True, required=False, help_text="after a roll awaiting its direction")


class PendingOut(S):
    choice = ChoiceOut()
    dice_before = ints()
    rolled = ints()
    dice = ints()


class PlayerStateOut(S):
    color = serializers.ChoiceField(choices=COLORS)
    username = serializers.CharField()
    cell = cell(allow_null=True)
    heading = serializers.IntegerField()
    heading_name = serializers.ChoiceField(choices=DIRECTION_NAME)
    dice = ints()
    speed = serializers.IntegerField()
    damage = serializers.IntegerField()
    buoys = serializers.IntegerField()
    next_buoy = serializers.IntegerField(allow_null=True)
    finished = serializers.BooleanField()
    sunk = serializers.BooleanField()
    moves = serializers.IntegerField()
    points = serializers.IntegerField()
    grace_seconds = serializers.IntegerField()


class ClockTermsOut(S):
    """A clock's terms besides days per move and grace (docs/clocks.md)."""

    vacation_allowed = serializers.BooleanField()
    clock_shape = serializers.ChoiceField(choices=ClockShape.choices, help_text="docs/clocks.md")
    bank_add_hours = serializers.IntegerField(help_text="a capped bank: hours added after each move")
    bank_cap_days = serializers.IntegerField(help_text="a capped bank: the most it holds")
    weekend_pause_allowed = serializers.BooleanField()
    auto_vacation_allowed = serializers.BooleanField()


class ClockOut(ClockTermsOut):
    turn_started_at = serializers.DateTimeField(allow_null=True)
    move_deadline = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True, help_text="the player to move loses on time then")
    grace_seconds = serializers.DictField(child=serializers.IntegerField(), help_text="per colour")
    days_per_move = serializers.IntegerField(help_text="0 with a capped bank")
    grace_days = serializers.IntegerField(help_text="a capped bank: its start")
    now = serializers.DateTimeField()


class FinalResultOut(S):
    winner = serializers.ChoiceField(choices=COLORS, allow_null=True)
    termination = serializers.CharField()
    reason = serializers.CharField(help_text="in English")
    code = serializers.CharField(help_text="the result as data (docs/i18n.md): finished, sank, all_sank, resigned, "
                                           "timeout, cutoff_buoys, cutoff_damage, cutoff_draw, adjudicated_points, "
                                           "adjudicated_buoys, adjudicated_damage, adjudicated_draw; empty for a game "
                                           "that ended before codes were stored with a sentence of no known shape")
    params = serializers.DictField(help_text="the code's values: color (the colour's name), damage, a and b (the "
                                             "winner's and the other's count), buoys, points")


class MoveLineOut(S):
    ply = serializers.IntegerField()
    color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    kind = serializers.ChoiceField(choices=Move.Kind.choices)
    notation = serializers.CharField()
    planned = serializers.BooleanField(required=False, help_text="true: the site played it from the player's plan "
                                                                 "(issue 27); absent otherwise")


class PlacementsOut(S):
    cells = cells()
    headings = ints()


class DiceChangeOut(S):
    change = serializers.ChoiceField(choices=[c.value for c in Change])
    label = serializers.CharField()  # type: ignore[assignment]  # a field named "label": DRF takes it out of the class
    remove = serializers.IntegerField(required=False)


class RiskOut(S):
    crash = serializers.FloatField(help_text="the chance that every allowed direction crashes (R9) or sinks (R12)")
    sinks = serializers.FloatField(help_text="the chance that every allowed direction sinks the boat (R12)")


class DiceChoiceOut(S):
    notation = serializers.CharField()
    change = serializers.ChoiceField(choices=[c.value for c in Change])
    remove = serializers.IntegerField(allow_null=True)
    reroll = ints()
    totals = serializers.DictField(child=serializers.FloatField(), help_text="total → chance")
    risk = RiskOut(help_text="danger before the dice: what the totals of this choice force")


class OutcomeOut(S):
    total = serializers.IntegerField()
    options = OptionOut(many=True, help_text="each direction as it would be after rolling this total")
    forced = serializers.ChoiceField(choices=["crash", "sinks"], allow_null=True,
                                     help_text="what every allowed direction does with this total (None: a safe one "
                                               "is left)")


class DiceOptionsOut(S):
    dice = ints()
    first_move = serializers.BooleanField()
    changes = DiceChangeOut(many=True)
    reroll = serializers.CharField()
    choices = DiceChoiceOut(many=True)
    outcomes = OutcomeOut(many=True, help_text="for each total the choices can give: what each direction would do")


class AdviceOut(S):
    """What the strong house bot would do in the player's place (issue 24), when they asked for
    it (``bot_hints`` in /api/me/) in a casual game against a house bot."""

    phase = serializers.ChoiceField(choices=["place", "dice", "direction"])
    cell = cell(required=False)  # place: the start cell
    heading = serializers.IntegerField(required=False, min_value=0, max_value=5, help_text="place: the heading")
    change = serializers.ChoiceField(choices=[c.value for c in Change], required=False, help_text="dice (R6)")
    remove = serializers.IntegerField(required=False, allow_null=True, help_text="dice: the die to remove")
    reroll = ints(required=False, help_text="dice: the dice to roll again")
    direction = serializers.IntegerField(required=False, min_value=0, max_value=5, help_text="direction (R7)")


class GameDetailOut(S):
    """Everything a client needs to show a game and, for the player to move, to act."""

    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Game.Status.choices)
    phase = serializers.ChoiceField(choices=Game.Phase.choices)
    ply = serializers.IntegerField()
    to_move = serializers.ChoiceField(choices=COLORS, allow_null=True)
    your_color = serializers.ChoiceField(choices=COLORS, allow_null=True)
    your_turn = serializers.BooleanField()
    course_letter = serializers.CharField()
    lake_side = serializers.CharField()
    rated = serializers.BooleanField()
    days_per_move = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    dice_seed_sha256 = serializers.CharField()
    dice_seed = serializers.CharField(allow_null=True, help_text="revealed when the game ends (docs/fair-dice.md)")
    players = PlayerStateOut(many=True)
    pending = PendingOut(allow_null=True)
    clock = ClockOut()
    result = FinalResultOut(allow_null=True)
    moves = MoveLineOut(many=True)
    placements = PlacementsOut(required=False, help_text="your turn to place (R5)")
    dice_options = DiceOptionsOut(required=False, help_text="your turn to choose dice (R6)")
    advice = AdviceOut(required=False, help_text="the strong bot's advice, when asked for (casual games against the "
                                                 "house bots only)")
    options = OptionOut(many=True, required=False, help_text="your turn to choose a direction (R7)")


class RecordPlayerOut(S):
    seat = serializers.IntegerField()
    color = serializers.CharField()
    name = serializers.CharField(allow_null=True)


class RecordPlacementOut(S):
    color = serializers.CharField()
    cell = cell()
    heading = serializers.IntegerField()


class RecordMoveOut(MoveOut):
    notation = None  # type: ignore[assignment]


class RecordPendingOut(PendingOut):
    roll_ply = serializers.IntegerField(required=False)


class RecordOut(S):
    """What every record has (docs/game-record.md): its format and version, its ruleset, the site's
    data about it, the grid's conventions and the lake."""

    format = serializers.CharField()
    version = serializers.IntegerField()
    ruleset = serializers.CharField()
    meta = serializers.DictField(child=serializers.JSONField())
    grid = serializers.DictField(child=serializers.JSONField())
    lake = serializers.DictField(child=serializers.JSONField())


class GameRecordOut(RecordOut):
    """The game record (docs/game-record.md): enough to replay and check a game without this site."""

    course = serializers.DictField(child=serializers.JSONField())
    players = RecordPlayerOut(many=True)
    placements = RecordPlacementOut(many=True)
    moves = RecordMoveOut(many=True)
    pending = RecordPendingOut(allow_null=True)
    result = serializers.DictField(child=serializers.JSONField(), allow_null=True)


# --- a game of the boxed rules, answered as a series (docs/series.md) -------------------------------


class SeriesPlayerOut(S):
    username = serializers.CharField()
    color = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True, help_text="once the series has started")
    left = serializers.CharField(allow_null=True, help_text="resign or timeout: left the series (R18)")


class SeriesSummaryOut(S):
    """A series (a game of the boxed rules) in a list."""

    id = serializers.IntegerField(help_text="the game's id (/api/games/<id>/)")
    ruleset = serializers.ChoiceField(choices=[Ruleset.BOXED.value])
    series = serializers.IntegerField(help_text="its number as a series (/series/<n>/, /api/series/<n>/)")
    status = serializers.ChoiceField(choices=Game.Status.choices)
    created_by = serializers.CharField(allow_null=True)
    seats = serializers.IntegerField()
    players = SeriesPlayerOut(many=True, help_text="in seat order (R15) once started")
    days_per_move = serializers.IntegerField(help_text="0 with a capped bank")
    grace_days = serializers.IntegerField(help_text="a capped bank: its start")
    clock_shape = serializers.ChoiceField(choices=ClockShape.choices, help_text="docs/clocks.md; the terms: clock")
    lake_side = serializers.ChoiceField(choices=LakeSide.choices)
    rated = serializers.BooleanField()
    score_variant = serializers.BooleanField()
    phase = serializers.ChoiceField(choices=Game.Phase.choices)
    race = serializers.ChoiceField(choices=RACE, allow_null=True)
    ply = serializers.IntegerField(help_text="send it with the next action")
    to_move = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True)
    your_seat = serializers.BooleanField()
    your_turn = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    result = serializers.CharField(allow_null=True)


class SeriesClockOut(ClockTermsOut):
    move_deadline = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True, help_text="when the player to move loses on time (R18)")
    grace_seconds = serializers.DictField(child=serializers.IntegerField(), help_text="by colour")


class SeriesBoatOut(S):
    color = serializers.ChoiceField(choices=ANY_COLOR)
    username = serializers.CharField()
    cell = cell(allow_null=True)  # null before placing and once lifted off (R18)
    heading = serializers.IntegerField()
    heading_name = serializers.CharField()
    dice = ints()
    damage = serializers.IntegerField(help_text="carried counters included (R20)")
    carried = serializers.IntegerField(help_text="damage counters carried into this race (R20)")
    buoys = serializers.IntegerField()
    next_buoy = serializers.IntegerField(allow_null=True)
    moves = serializers.IntegerField()
    finished = serializers.BooleanField()
    sunk = serializers.BooleanField()
    left = serializers.CharField(allow_null=True)
    racing = serializers.BooleanField()


class SeriesTableLineOut(S):
    place = serializers.IntegerField(help_text="equal places are shared (R19)")
    color = serializers.ChoiceField(choices=ANY_COLOR)
    username = serializers.CharField()
    points = serializers.IntegerField()
    race_points = ints(help_text="per race played")
    positions = serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                      help_text="per race played; null: no position")
    carried_damage = serializers.ListField(child=serializers.IntegerField(allow_null=True),
                                           help_text="damage counters carried into each race (R20)")
    left = serializers.CharField(allow_null=True)


class SeriesRaceOut(S):
    letter = serializers.ChoiceField(choices=RACE)
    multiplier = serializers.IntegerField(help_text="k of R19")
    start_player = serializers.ChoiceField(choices=ANY_COLOR)
    boats = serializers.ListField(child=serializers.ChoiceField(choices=ANY_COLOR))
    result = serializers.JSONField(allow_null=True, help_text="once over: as in the series record (docs/game-record.md)")


class SeriesHistoryOut(S):
    ply = serializers.IntegerField()
    race = serializers.ChoiceField(choices=RACE)
    seat = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=api_enums.SERIES_KIND)
    notation = serializers.CharField()
    planned = serializers.BooleanField(required=False, help_text="true: the site played it from the player's plan "
                                                                 "(issue 27); absent otherwise")


class SeriesDetailOut(SeriesSummaryOut):
    """Everything a client needs to show a series and, for the player to move, to act."""

    dice_seed_sha256 = serializers.CharField(allow_null=True)
    dice_seed = serializers.CharField(allow_null=True, help_text="revealed once the series is over")
    clock = SeriesClockOut()
    your_color = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True)
    boats = SeriesBoatOut(many=True, help_text="the race being played, in its seat order")
    positions = serializers.ListField(child=serializers.ChoiceField(choices=ANY_COLOR),
                                      help_text="finishing positions so far in this race (R18)")
    table = SeriesTableLineOut(many=True, help_text="the series table (R19, R20)")
    races = SeriesRaceOut(many=True)
    start_player = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True)
    next_start_player = serializers.ChoiceField(choices=ANY_COLOR, allow_null=True,
                                                help_text="R15: the next race's start player")
    history = SeriesHistoryOut(many=True)
    placements = PlacementsOut(required=False, help_text="your turn to place (R16)")
    dice_options = DiceOptionsOut(required=False, help_text="your turn to choose dice (R6)")
    options = OptionOut(many=True, required=False, help_text="your roll awaits its direction (R7)")


class SeriesRecordOut(RecordOut):
    """The record of a series (docs/game-record.md, version 2)."""

    series = serializers.JSONField()
    players = serializers.JSONField()
    courses = serializers.JSONField()
    races = serializers.JSONField()
    result = serializers.JSONField(allow_null=True)


class SeriesRatingOut(S):
    username = serializers.CharField()
    rating = serializers.FloatField()
    deviation = serializers.FloatField()
    provisional = serializers.BooleanField(help_text="while the deviation is 110 or more (shown as 1500?); the "
                                                     "leaderboard leaves provisional ratings out")
    series = serializers.IntegerField()
    wins = serializers.IntegerField()


class VacationOut(S):
    started_at = serializers.DateTimeField()
    until = serializers.DateTimeField()


class RegisteredOut(S):
    username = serializers.CharField()
    is_bot = serializers.BooleanField()
    token = serializers.CharField(help_text="send it as Authorization: Token …")
