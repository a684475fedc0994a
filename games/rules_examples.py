"""The worked examples of the rules pages (/rules/), played by the engine and drawn by the
site's own renderer.

Each example is a small lake written as text (odd-r offset rows, as in the tile files and
tests/engine/helpers.py), the boats on it and the turns to play. :func:`examples` plays the
turns with the engine (the same ``GameState`` the games use) and draws two boards: *before*
(the boats, with the three directions of the first turn previewed as on the game page) and
*after* (where the boats ended, with the mover's route). Nothing here is drawn by hand: what a
caption claims (the reach, the damage, a rounded buoy) is what the engine did, and
tests/games/test_rules_pages.py checks each claim against the engine.

The boards are computed once per process (:func:`examples` is cached); they depend on code only.

Map tokens: ``.`` water, ``#`` land, ``0``–``3`` buoys, ``F`` the finish buoy, ``=`` a
start/finish cell, ``Y``/``R`` the boats, ``*`` a water cell the captions point at.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from functools import lru_cache

from django.utils import translation

from games.engine import (
    Boat,
    Change,
    Course,
    DiceChoice,
    FixedDice,
    GameState,
    Gate,
    Lake,
    Move,
    Option,
    Phase,
    Sense,
    new_course,
)
from games.engine.course import gate_cells
from games.engine.hexgrid import Hex, direction_by_name, pixel

from .board import SIZE, BoatView, OptionView, board_svg

BOAT_TOKENS = {"Y": "yellow", "R": "red"}
WAIT = DiceChoice(Change.KEEP)  # the other boat, holding no dice, keeps none: speed 0 (R6, R7)


@dataclass(frozen=True)
class Turn:
    """One turn of the example's boat: the dice choice, the values the dice show after it
    (``rolled``: the re-rolled dice in index order, then the added die, docs/rules.md) and,
    when more than one direction is allowed, the direction chosen (a compass name)."""

    choice: DiceChoice
    rolled: tuple[int, ...] = ()
    direction: str | None = None


@dataclass(frozen=True)
class Spec:
    key: str
    rulings: tuple[str, ...]
    text: str
    boats: dict[str, dict[str, object]]  # colour -> Boat fields (heading by name), in seat order
    mover: str
    turns: tuple[Turn, ...]
    gates: dict[int, tuple[str, str]] = field(default_factory=lambda: {1: ("E", "ccw"), 2: ("E", "ccw"),
                                                                        3: ("E", "ccw")})


@dataclass(frozen=True)
class Example:
    """An example played: the position before, each turn of the mover (the other boat waits
    in between) and the position after, with both boards drawn."""

    key: str
    rulings: tuple[str, ...]
    course: Course
    marks: dict[str, Hex]
    before: GameState
    options: tuple[Option, ...]  # the first turn's three directions, with its total
    moves: tuple[Move, ...]  # the mover's moves, in order
    states: tuple[GameState, ...]  # the position after each of them
    after: GameState
    before_svg: str
    after_svg: str

    @property
    def by_turn(self) -> dict[str, Option]:
        """The first turn's options by ``straight``, ``left``, ``right`` (for the captions)."""
        return {o.turn: o for o in self.options}

    @property
    def move(self) -> Move:
        return self.moves[0]

    @property
    def last(self) -> Move:
        return self.moves[-1]

    def boat(self, color: str, state: GameState | None = None) -> Boat:
        state = state or self.after
        return state.boats[state.seat_of(color)]


def parse_course(text: str, gates: dict[int, tuple[str, str]]) -> tuple[Course, dict[str, Hex]]:
    """A course from a text map; returns it with the cell of every token that is not water."""
    lake, tokens = Lake.from_text(text)
    marks: dict[str, Hex] = {}
    for cell, token in tokens.items():
        if token not in {".", "#"}:
            marks.setdefault(token, cell)
    buoys = [marks[str(n)] for n in range(4)]
    gate_list = []
    for number in (1, 2, 3):
        name, sense = gates[number]
        direction = direction_by_name(name)
        gate_list.append(Gate(number, buoys[number], direction, Sense(sense),
                              gate_cells(lake, buoys[number], direction)))
    line = sorted((c for c, t in tokens.items() if t == "="), key=lambda c: (c[1], c[0]))
    return Course(lake, "A", buoys, line, gate_list, marks.get("F")), marks


def _state(spec: Spec, course: Course, marks: dict[str, Hex]) -> GameState:
    made = []
    for color, fields in spec.boats.items():
        values = {"moves": 1, **fields}
        if isinstance(values.get("heading"), str):
            values["heading"] = direction_by_name(str(values["heading"]))
        token = next(t for t, c in BOAT_TOKENS.items() if c == color)
        made.append(Boat(color, cell=marks[token], **values))  # type: ignore[arg-type]
    order = list(spec.boats)
    return GameState(course, tuple(made), Phase.DICE, order.index(spec.mover))


def _turn(state: GameState, turn: Turn) -> tuple[GameState, Move]:
    state, move = state.choose_dice(turn.choice, FixedDice(list(turn.rolled)))
    if move is None:
        direction = direction_by_name(turn.direction) if turn.direction else state.boat.heading
        state, move = state.choose_direction(direction)
    assert move is not None
    return state, move


def _views(state: GameState, mover: str, moves: tuple[Move, ...]) -> list[BoatView]:
    views = []
    for boat in state.boats:
        path: tuple[Hex, ...] = ()
        start = None
        if boat.color == mover and moves:
            start = moves[0].start
            path = tuple(c for m in moves for c in (m.path or (m.final,)))
        views.append(BoatView(boat.color, boat.cell, boat.heading, path, start, boat.next_buoy, boat.finished,
                              boat.sunk))
    return views


def play(spec: Spec) -> Example:
    course, marks = parse_course(spec.text, spec.gates)
    before = state = _state(spec, course, marks)
    first = spec.turns[0]
    dice = first.choice.apply(before.boat.dice, FixedDice(list(first.rolled)), checked=False)[0]
    options = before.options_for_total(sum(dice))
    moves: list[Move] = []
    states: list[GameState] = []
    for turn in spec.turns:
        if state.boat.color != spec.mover:  # the other boat waits: no dice, speed 0, same heading
            state, _ = _turn(state, Turn(WAIT))
        state, move = _turn(state, turn)
        moves.append(move)
        states.append(state)
    before_svg = board_svg(
        course, _views(before, spec.mover, ()),
        [OptionView(o.direction, o.path, o.final, o.reach, o.total, o.allowed, o.crash, o.damage, o.rounded,
                    o.finishes, o.sinks) for o in options],
        (), spec.mover,
    )
    after_svg = board_svg(course, _views(state, spec.mover, tuple(moves)), (), (), spec.mover)
    return Example(spec.key, spec.rulings, course, marks, before, options, tuple(moves), tuple(states), state,
                   before_svg, after_svg)


# The examples, in the order of the rules pages. The lakes are ours; the situations are the
# box's worked examples (tests/engine/test_worked_examples.py) and the online rules' gate rule.
SPECS: tuple[Spec, ...] = (
    Spec(
        # R7: 3 1 3 = 7. Left is land at once, straight on stops after 6: only right goes all 7.
        key="turn", rulings=("R6", "R7"), mover="yellow",
        text="""
. . # . . . . . . . 1 .
 . Y . . . . . . # . . .
. . . . . . . . . . . .
 . . . . . . . . . . R .
. . . . . . . . . . . .
 . . . . . . . . . . 2 .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . * . . . . 3 .
 . . . . . . . . . . . .
0 = = = = F . . . . . .
""",
        boats={"yellow": {"heading": "E", "dice": (3, 2)}, "red": {"heading": "W"}},
        turns=(Turn(DiceChoice(Change.ADD, reroll=(1,)), (1, 3)),),
    ),
    Spec(
        # R9: 2 3 = 5, but the longest way is 3 cells: a crash with 2 damage, the dice are lost.
        key="crash", rulings=("R7", "R9"), mover="red",
        text="""
. . . . . . . . . . 1 .
 . R . . # . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . 2 .
. . . * . . . . Y . . .
 . . . # # . . . . . . .
. . . . . . . . . . 3 .
 . . . . . . . . . . . .
0 = = = = F . . . . . .
""",
        boats={"yellow": {"heading": "W"}, "red": {"heading": "E", "dice": (3, 2, 2), "damage": 1}},
        turns=(Turn(DiceChoice(Change.REMOVE, remove=0, reroll=(1,)), (3,)),),
    ),
    Spec(
        # R8: 3 2 = 5 straight on, through Red's cell.
        key="pass", rulings=("R8",), mover="yellow",
        text="""
. . . . . . . . . . 1 .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 Y . R . . * . . . . 2 .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . 3 .
 . . . . . . . . . . . .
0 = = = = F . . . . . .
""",
        boats={"yellow": {"heading": "E", "dice": (2, 1)}, "red": {"heading": "W"}},
        turns=(Turn(DiceChoice(Change.KEEP, reroll=(0, 1)), (3, 2), "E"),),
    ),
    Spec(
        # R8: 2 1 = 3 would end on Yellow's cell: Red stops one cell short, without damage.
        key="stop", rulings=("R8", "R9"), mover="red",
        text="""
. . # . . . . . . . 1 .
 . R # . . . . . . . . .
. . . . . . . . . . . .
 . . * . . . . . . . 2 .
. . . Y . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . 3 .
 . . . . . . . . . . . .
0 = = = = F . . . . . .
""",
        boats={"yellow": {"heading": "E"}, "red": {"heading": "E", "dice": (3, 2, 1)}},
        turns=(Turn(DiceChoice(Change.REMOVE, remove=0)),),
    ),
    Spec(
        # R4, R10: buoy 1 is rounded leftward; its chevrons run east. Crossing them from the
        # south to the north rounds it.
        key="round", rulings=("R4", "R10"), mover="yellow",
        text="""
. . . . . . . . . . . .
 . . . . . . . . . . . 2
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . 1 . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . Y . . . . .
. . . . . . . . . . . 3
 . . . . . . . . . . . .
0 = = = = F . . . R . .
""",
        boats={"yellow": {"heading": "NW", "dice": (2, 2)}, "red": {"heading": "W"}},
        turns=(Turn(DiceChoice(Change.KEEP), (), "NW"),),
    ),
    Spec(
        # R10: crossing the chevrons the wrong way (north to south) counts -1; coming back
        # across them the right way only makes it 0 again: the buoy is not rounded.
        key="wrong", rulings=("R10",), mover="yellow",
        text="""
. . . . . . . . . . . .
 . . . . . . . . . . . 2
. . . . . . Y . . . . .
 . . . . . . . . . . . .
. . . 1 . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . . .
. . . . . . . . . . . 3
 . . . . . . . . . . . .
0 = = = = F . . . R . .
""",
        boats={"yellow": {"heading": "SE", "dice": (3,)}, "red": {"heading": "W"}},
        turns=(
            Turn(DiceChoice(Change.KEEP)),  # 3 south-east, across the chevrons the wrong way
            Turn(DiceChoice(Change.KEEP, reroll=(0,)), (1,), "E"),  # 1 east, along the south side
            Turn(DiceChoice(Change.ADD), (2,), "NE"),  # 1 2 = 3 north-east, back across them
        ),
    ),
    Spec(
        # R11: all three buoys rounded (next buoy 4); 1 2 = 3 south-west reaches the line: finished, won.
        key="finish", rulings=("R11", "R14"), mover="yellow",
        text="""
. . . . . . . . . . . .
 . . 1 . . . . . . . . .
. . . . . . . . . 3 . .
 . . . . . . . . . . . .
. . . . . 2 . . . . . .
 . . . . . Y . . . . . .
. . . . . . . . . . . .
 . . . . . . . . . . R .
0 = = = = F . . . . . .
""",
        boats={"yellow": {"heading": "SW", "dice": (1, 2), "next_buoy": 4}, "red": {"heading": "W", "next_buoy": 3}},
        turns=(Turn(DiceChoice(Change.KEEP), (), "SW"),),
    ),
)


def examples() -> dict[str, Example]:
    """Every example, played and drawn once per process and language (the board's tooltips
    may be translated), by key."""
    return _examples(translation.get_language())


@lru_cache(maxsize=8)
def _examples(language: str | None) -> dict[str, Example]:
    return {spec.key: play(spec) for spec in SPECS}


def welcome_board() -> str:
    """A real lake for the home page: a course of the standard side (the same generator as a
    new game, with a fixed seed), both boats on the start line, Red's first move previewed;
    drawn once per process and language (its label and tooltips are translated)."""
    return _welcome_board(translation.get_language())


@lru_cache(maxsize=8)
def _welcome_board(language: str | None) -> str:
    course = new_course("standard", "A", random.Random(14))
    state = GameState.initial(course)
    state = state.place(course.line[1], direction_by_name("NE")).place(course.line[3], direction_by_name("NE"))
    boats = [BoatView(b.color, b.cell, b.heading) for b in state.boats]
    return board_svg(course, boats, (), (), None)


# The legend: one small lake with one of everything, drawn by the renderer; each swatch is the
# same drawing seen through a small window (its viewBox) round one cell.
LEGEND_MAP = """
. . . . . . . . . . . . .
 . # . 0 = = = F . . . 2 .
. . . . . . . . . . . . .
 . * . . 1 g . . . . . . 3
. . . . . . . Y . . R . .
"""
LEGEND_CELLS = {"water": "*", "land": "#", "line": "=", "start": "0", "buoy": "1", "gate": "g", "finish": "F",
                "yellow": "Y", "red": "R"}


def legend() -> dict[str, str]:
    """Swatches (small SVGs) of the board's parts, by name (LEGEND_CELLS)."""
    return _legend(translation.get_language())


@lru_cache(maxsize=8)
def _legend(language: str | None) -> dict[str, str]:
    course, marks = parse_course(LEGEND_MAP, {1: ("E", "ccw"), 2: ("E", "cw"), 3: ("E", "cw")})
    _lake, tokens = Lake.from_text(LEGEND_MAP)
    marks["#"] = next(c for c, t in tokens.items() if t == "#")
    marks["="] = course.line[len(course.line) // 2]  # the middle of the line, away from the buoys
    boats = [BoatView("yellow", marks["Y"], direction_by_name("NW")), BoatView("red", marks["R"], direction_by_name("E"))]
    swatches = {}
    for name, token in LEGEND_CELLS.items():  # each a piece of the same board, hidden from screen readers
        x, y = pixel(marks[token], SIZE)
        half = SIZE * (1.25 if name in {"start", "buoy", "finish"} else 1.0)
        swatches[name] = board_svg(course, boats, (), (), "yellow", decorative=True,
                                   view=(x - half, y - half, 2 * half, 2 * half))
    return swatches
