"""The Powerboats rules engine: pure Python, no Django.

Typical use::

    from games.engine import GameState, new_course, DiceChoice, Change, SystemDice

    course = new_course("standard", "A")
    state = GameState.initial(course)
    state = state.place(course.line[0], 0).place(course.line[2], 0)
    state, move = state.choose_dice(DiceChoice(Change.ADD), SystemDice())
    if move is None:                       # more than one direction allowed
        state, move = state.choose_direction(state.allowed_directions()[0])
"""

from .course import Course, CourseCheck, Gate, Sense, build_course, generate_course, new_course, validate_course
from .dice import Change, DiceChoice, DiceSource, FixedDice, RandomDice, SeededDice, SystemDice
from .errors import CourseError, EngineError, GameOver, IllegalMove, RecordError
from .hexgrid import DIRECTION_NAMES, DIRECTIONS, Hex
from .lake import Lake, assemble_lake
from .rules import (
    CUTOFF_MOVES,
    Boat,
    GameState,
    Move,
    Option,
    Outcome,
    Pending,
    Phase,
    Placement,
    Step,
    Termination,
)

__all__ = [
    "CUTOFF_MOVES",
    "DIRECTIONS",
    "DIRECTION_NAMES",
    "Boat",
    "Change",
    "Course",
    "CourseCheck",
    "CourseError",
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
    "Option",
    "Outcome",
    "Pending",
    "Phase",
    "Placement",
    "RandomDice",
    "RecordError",
    "SeededDice",
    "Sense",
    "Step",
    "SystemDice",
    "Termination",
    "assemble_lake",
    "build_course",
    "generate_course",
    "new_course",
    "validate_course",
]
