"""The Powerboats rules engine: pure Python, no Django.

Typical use::

    from games.engine import GameState, new_course, DiceChoice, Change, SystemDice

    course = new_course("standard", "A")
    state = GameState.initial(course)
    state = state.place(course.line[0], 0).place(course.line[2], 0)
    state, move = state.choose_dice(DiceChoice(Change.ADD), SystemDice())
    if move is None:                       # more than one direction allowed
        state, move = state.choose_direction(state.allowed_directions()[0])

The online two-player game above is one configuration (:data:`ONLINE`) of the engine; a race
of the boxed game for 2–6 boats is another (:class:`RaceRules`), and a :class:`Series` plays
three of them on the A, B and C courses of one lake::

    series = Series.start(new_courses("standard"), 4, start=2)   # four boats, seat 2 starts
    series = series.place(series.race.free_start_cells()[0], 0)   # ... and so on: same actions
"""

from .course import (
    Course,
    CourseCheck,
    Gate,
    Sense,
    build_course,
    generate_course,
    new_course,
    new_courses,
    validate_course,
)
from .dice import Change, DiceChoice, DiceSource, FixedDice, RandomDice, SeededDice, SystemDice
from .errors import CourseError, EngineError, GameOver, IllegalMove, RecordError
from .hexgrid import DIRECTION_NAMES, DIRECTIONS, Hex
from .lake import Lake, assemble_lake
from .race import RULES_VERSION, RULES_VERSIONS, RaceRules, RaceScore, race_scores
from .rules import (
    CUTOFF_MOVES,
    ONLINE,
    Boat,
    GameState,
    Move,
    OnlineRules,
    Option,
    Outcome,
    Pending,
    Phase,
    Placement,
    Rules,
    Step,
    Termination,
)
from .series import SERIES_COLORS, Departure, Series, SeriesStep, Standing

__all__ = [
    "CUTOFF_MOVES",
    "DIRECTIONS",
    "DIRECTION_NAMES",
    "ONLINE",
    "RULES_VERSION",
    "RULES_VERSIONS",
    "SERIES_COLORS",
    "Boat",
    "Change",
    "Course",
    "CourseCheck",
    "CourseError",
    "Departure",
    "DiceChoice",
    "DiceSource",
    "EngineError",
    "FixedDice",
    "GameOver",
    "GameState",
    "Gate",
    "Hex",
    "IllegalMove",
    "Lake",
    "Move",
    "OnlineRules",
    "Option",
    "Outcome",
    "Pending",
    "Phase",
    "Placement",
    "RaceRules",
    "RaceScore",
    "RandomDice",
    "RecordError",
    "Rules",
    "SeededDice",
    "Sense",
    "Series",
    "SeriesStep",
    "Standing",
    "Step",
    "SystemDice",
    "Termination",
    "assemble_lake",
    "build_course",
    "generate_course",
    "new_course",
    "new_courses",
    "race_scores",
    "validate_course",
]
