"""FIDE Tournament Report File, reading and writing, without a database.

What we write is TRF-16 (FIDE's rating-report format) with the records the pairing programs read
from TRF(x) and TRF-26: ``XXR`` (rounds), ``XXC white1|black1`` and ``152 W|B`` (the initial
colour drawn by lot before round 1), and our own ``PBS`` records (below).

Player lines (``001``) use fixed columns, counted in characters: start number 5–8, sex 10,
title 11–13, name 15–47, rating 49–52, federation 54–56, FIDE id 58–68, birth date 70–79,
points 81–84, rank 86–89, then one 10-column cell per round from column 92: opponent start
number (4 digits, ``0000`` for none), colour (``w``/``b``/``-``) and result:

====  ===========================================================================
``1``  win           ``0``  loss           ``=``  draw
``W``  win           ``L``  loss           ``D``  draw        (an unrated game)
``+``  forfeit win   ``-``  forfeit loss   (with the scheduled opponent and colour)
``U``  pairing-allocated bye (a win)        ``F``  full-point bye
``H``  half-point bye                       ``Z``  zero-point bye (absent)
``␣``  not paired (a blank result, scored 0)
====  ===========================================================================

Text is UTF-8: bbpPairings refuses a file that is not, gacrux reads it with ``-b utf-8``, and a
name such as ``Ωmega ☃`` has no other encoding. Files that are not UTF-8 (older TRF-16 files
written in Latin-1) are read as Latin-1.

``PBS nnnn pppp dddd`` records (Powerboats score) carry, per start number, the game points (R14:
buoys rounded and finishing) and the damage taken in the tournament's games, so that the
standings command can rank by them from the file alone. The pairing programs skip records they
do not know (bbpPairings and gacrux both do).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from common.text import digits

# result code: (points, a game over the board)
RESULTS: dict[str, tuple[float, bool]] = {
    "1": (1.0, True), "0": (0.0, True), "=": (0.5, True),
    "W": (1.0, True), "L": (0.0, True), "D": (0.5, True),
    "+": (1.0, False), "-": (0.0, False),
    "U": (1.0, False), "F": (1.0, False), "H": (0.5, False), "Z": (0.0, False), " ": (0.0, False),
}
PLAYED_RESULTS = {code for code, (_, played) in RESULTS.items() if played}
BYE_RESULTS = {"U", "F", "H", "Z", " "}  # never with an opponent
# what the opponent's cell must say for each result
MIRROR = {"1": "0", "0": "1", "=": "=", "W": "L", "L": "W", "D": "D", "+": "-", "-": "+"}
MAX_NUMBER = 9999


class TrfError(ValueError):
    """A TRF that cannot be read, or whose cells contradict each other; says where."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


@dataclass(frozen=True)
class Cell:
    """One round of one player: opponent (None for a bye or an absence), colour and result."""

    opponent: int | None
    color: str  # "w", "b" or "-"
    result: str

    @property
    def points(self) -> float:
        return RESULTS[self.result][0]

    @property
    def played(self) -> bool:
        """A game over the board (forfeits and byes are not)."""
        return self.opponent is not None and RESULTS[self.result][1]

    @property
    def paired(self) -> bool:
        """The player took part in the round's pairing: had an opponent (a game or a forfeit), or
        the pairing-allocated bye."""
        return self.opponent is not None or self.result in ("U", "+")

    @property
    def voluntarily_unplayed(self) -> bool:
        """A voluntary unplayed round (C.07 art. 16): a half- or zero-point bye, an absence, or a
        forfeit loss. Forfeit wins, the pairing-allocated and the full-point bye are not."""
        return not self.played and self.result in ("-", "H", "Z", " ")

    def text(self) -> str:
        return f"{self.opponent or 0:04d} {self.color} {self.result}"


NOT_PAIRED = Cell(None, "-", " ")


@dataclass
class Player:
    number: int
    name: str
    rating: int = 0
    cells: list[Cell] = field(default_factory=list)
    sex: str = " "
    title: str = ""
    federation: str = ""
    fide_id: str = ""
    birth: str = ""
    rank: int = 0
    declared_points: float | None = None  # the points column as read (None: blank or not read)
    source_line: int = field(default=0, compare=False, repr=False)  # the 001 line it was read from (0: not read)

    @property
    def points(self) -> float:
        return sum(c.points for c in self.cells)

    def cell(self, round_number: int) -> Cell:
        """The player's cell for a round (1-based); a round beyond the file reads as not paired."""
        return self.cells[round_number - 1] if round_number <= len(self.cells) else NOT_PAIRED

    def line(self, rounds: int | None = None) -> str:
        cells = self.cells if rounds is None else self.cells[:rounds]
        name = " ".join(self.name.split())[:33]  # no tabs or line breaks in a fixed column
        head = (
            f"001 {self.number:4d} {self.sex[:1]:1}{self.title[:3]:>3} {name:<33} {self.rating or 0:4d} "
            f"{self.federation[:3]:<3} {self.fide_id[:11]:>11} {self.birth[:10]:<10} "
            f"{sum(c.points for c in cells):4.1f} {self.rank:4d}"
        )
        return head + "".join(f"  {c.text()}" for c in cells)


# header records kept, by record code: tournament name, city, federation, start and end dates,
# chief arbiter, time control
HEADER = {"012": "name", "022": "city", "032": "federation", "042": "start", "052": "end", "102": "arbiter",
          "122": "time_control"}
COLORS = {"w": "white1", "b": "black1"}


@dataclass
class Tournament:
    name: str = ""
    rounds: int = 0  # XXR / 142: rounds planned (0: the file does not say)
    players: list[Player] = field(default_factory=list)
    first_color: str | None = None  # XXC / 152: the initial colour, "w" or "b"; None when the file does not say
    city: str = ""
    federation: str = ""
    start: str = ""
    end: str = ""
    arbiter: str = ""
    time_control: str = ""
    extra: list[str] = field(default_factory=list)
    # PBS: start number → (game points (R14), damage taken) over the tournament's games
    buoys_damage: dict[int, tuple[int, int]] = field(default_factory=dict)

    def player(self, number: int) -> Player:
        for p in self.players:
            if p.number == number:
                return p
        raise KeyError(number)

    @property
    def rounds_played(self) -> int:
        """The number of round columns in the file (pre-entered absences included)."""
        return max((len(p.cells) for p in self.players), default=0)

    @property
    def rounds_paired(self) -> int:
        """The number of rounds that have been paired: the last round in which anybody had an
        opponent or the pairing-allocated bye. Cells after it are absences entered in advance."""
        return max((r for p in self.players for r, c in enumerate(p.cells, 1) if c.paired), default=0)

    def copy(self) -> Tournament:
        return dataclasses.replace(
            self, players=[dataclasses.replace(p, cells=list(p.cells)) for p in self.players],
            extra=list(self.extra), buoys_damage=dict(self.buoys_damage),
        )


def _col(line: str, start: int, end: int) -> str:
    """Columns ``start``..``end`` (1-based, inclusive) of a line."""
    return line[start - 1 : end]


def _number(text: str, what: str, line: int) -> int:
    text = text.strip()
    if not digits(text):
        raise TrfError(f"{what} must be a number, not {text!r}", line)
    return int(text)


def parse_player(line: str, line_number: int | None = None) -> Player:
    number = _number(_col(line, 5, 8), "the start number (columns 5-8)", line_number or 0)
    if not 1 <= number <= MAX_NUMBER:
        raise TrfError(f"start number {number} is not 1 to {MAX_NUMBER}", line_number)
    rating_text = _col(line, 49, 52).strip()
    points_text = _col(line, 81, 84).strip()
    rank_text = _col(line, 86, 89).strip()
    try:
        declared = float(points_text) if points_text else None
    except ValueError:
        raise TrfError(f"player {number}: the points (columns 81-84) must be a number, not {points_text!r}",
                       line_number) from None
    player = Player(
        number=number,
        sex=_col(line, 10, 10).strip() or " ",
        title=_col(line, 11, 13).strip(),
        name=_col(line, 15, 47).strip(),
        rating=_number(rating_text, f"player {number}: the rating (columns 49-52)", line_number or 0)
        if rating_text else 0,
        federation=_col(line, 54, 56).strip(),
        fide_id=_col(line, 58, 68).strip(),
        birth=_col(line, 70, 79).strip(),
        rank=int(rank_text) if digits(rank_text) else 0,
        declared_points=declared,
        source_line=line_number or 0,
    )
    cells: list[Cell] = []
    position = 92
    text = line.rstrip()
    while position <= len(text):
        raw = line[position - 1 : position + 7].ljust(8)
        round_number = len(cells) + 1
        where = f"player {number}, round {round_number} (columns {position}-{position + 7})"
        if line[position - 3 : position - 1].strip():
            raise TrfError(f"{where}: a round cell starts every 10 columns from column 92", line_number)
        opponent_text, color, result = raw[0:4], raw[5], raw[7]
        if result not in RESULTS:
            raise TrfError(f"{where}: unknown result {result!r} (one of 1 0 = W L D + - U F H Z)", line_number)
        if color not in "wb- ":
            raise TrfError(f"{where}: the colour must be w, b or -, not {color!r}", line_number)
        opponent = None
        if opponent_text.strip():
            opponent = _number(opponent_text, where + ": the opponent", line_number or 0) or None
        if opponent == number:
            raise TrfError(f"{where}: a player cannot meet themselves", line_number)
        if result in PLAYED_RESULTS and (opponent is None or color not in "wb"):
            raise TrfError(f"{where}: a game ({result}) needs an opponent and a colour", line_number)
        if result in BYE_RESULTS and opponent is not None:
            raise TrfError(f"{where}: a bye or absence ({result.strip() or 'blank'}) has no opponent: "
                           "write 0000", line_number)
        if opponent is None and color in "wb":
            raise TrfError(f"{where}: a round without an opponent has no colour: write -", line_number)
        cells.append(Cell(opponent, color if color in "wb" else "-", result))
        position += 10
    # blank trailing rounds carry nothing
    while cells and cells[-1] == NOT_PAIRED:
        cells.pop()
    player.cells = cells
    return player


def _initial_color(text: str, line: int) -> str:
    words = text.lower().split()
    if "white1" in words:
        return "w"
    if "black1" in words:
        return "b"
    raise TrfError(f"XXC must say white1 or black1, not {text.strip()!r}", line)


def parse(text: str, *, check: bool = True) -> Tournament:
    """A TRF(x) text: the header records we use, the players and their rounds. With ``check``
    (the default) the cells must agree with each other (see :func:`validate`)."""
    t = Tournament()
    numbers: set[int] = set()
    colours: dict[str, str] = {}
    for line_number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.rstrip("\r\n")
        if len(line.strip()) < 3:
            continue
        code = line[:3]
        rest = line[4:].strip() if len(line) > 4 else ""
        if code == "001":
            player = parse_player(line, line_number)
            if player.number in numbers:
                raise TrfError(f"start number {player.number} appears twice", line_number)
            numbers.add(player.number)
            t.players.append(player)
        elif code in HEADER:
            setattr(t, HEADER[code], rest)
        elif code in ("XXR", "142"):
            words = rest.split()
            if not words or not digits(words[0]) or int(words[0]) < 1:
                raise TrfError(f"{code} must give the number of rounds, not {rest!r}", line_number)
            t.rounds = int(words[0])
        elif code == "XXC":
            if "rank" in rest.lower().split():
                raise TrfError("XXC rank (pairing numbers taken from the rank column) is not supported: "
                               "the start numbers are the pairing numbers", line_number)
            colours["XXC"] = _initial_color(rest, line_number)
        elif code == "152":
            if rest not in ("W", "B"):
                raise TrfError(f"record 152 (the initial colour) must be W or B, not {rest!r}", line_number)
            colours["152"] = rest.lower()
        elif code == "PBS":
            words = rest.split()
            if len(words) != 3 or not all(digits(w) for w in words):
                raise TrfError(f"PBS needs a start number, game points and damage, not {rest!r}", line_number)
            t.buoys_damage[int(words[0])] = (int(words[1]), int(words[2]))
        elif code in ("062", "072", "092"):
            continue  # counts and the system: written again from the data
        else:
            t.extra.append(line)
    if len(set(colours.values())) > 1:
        raise TrfError(f"XXC says {COLORS[colours['XXC']]} but record 152 says {colours['152'].upper()}")
    t.first_color = next(iter(colours.values()), None)
    t.players.sort(key=lambda p: p.number)
    if check:
        validate(t)
    return t


def validate(t: Tournament) -> None:
    """Raise :class:`TrfError` unless every game and forfeit is written on both sides (opponents
    point at each other, opposite colours, matching results), every opponent exists, nobody
    plays beyond the planned rounds, and every points column that is filled in is the sum of
    the player's results. A player read from a file is named with the line of its record."""
    by_number = {p.number: p for p in t.players}
    for p in t.players:
        line = p.source_line or None
        for r, c in enumerate(p.cells, 1):
            if c.opponent is None:
                continue
            other = by_number.get(c.opponent)
            if other is None:
                raise TrfError(f"round {r}: player {p.number} meets {c.opponent}, who is not in the file", line)
            mine = other.cell(r)
            if mine.opponent != p.number:
                said = f"{mine.opponent:04d}" if mine.opponent else "0000"
                raise TrfError(f"round {r}: player {p.number} meets {c.opponent}, but {c.opponent}'s cell says {said}",
                               line)
            # a double forfeit (both "-") is the one pair of results that does not mirror
            if c.result not in MIRROR or (mine.result != MIRROR[c.result] and (c.result, mine.result) != ("-", "-")):
                raise TrfError(f"round {r}: players {p.number} and {c.opponent} have results {c.result!r} and "
                               f"{mine.result!r}, which do not match", line)
            if c.played and {c.color, mine.color} != {"w", "b"}:
                raise TrfError(f"round {r}: players {p.number} and {c.opponent} cannot both have colour {c.color}",
                               line)
        if p.declared_points is not None and abs(p.declared_points - p.points) > 1e-9:
            raise TrfError(f"player {p.number}: the points column says {p.declared_points:g} but the results add "
                           f"up to {p.points:g}", line)
    if t.rounds and t.rounds_paired > t.rounds:
        raise TrfError(f"the file has {t.rounds_paired} rounds paired but XXR/142 plans {t.rounds}")


def infer_first_color(t: Tournament) -> str | None:
    """The initial colour read back from the first round with a game, the way bbpPairings does
    for a file that does not state it: the highest-ranked player who took part in the pairing
    of that round (by start number, counting only those) and has a colour gave it, reversed
    when their place among those is even. None when nobody has played."""
    rounds = [r for p in t.players for r, c in enumerate(p.cells, 1) if c.color in "wb"]
    if not rounds:
        return None
    first = min(rounds)
    place = 0
    for p in sorted(t.players, key=lambda p: p.number):
        if not any(p.cell(r).paired for r in range(1, first + 1)):
            continue
        color = p.cell(first).color
        if color in "wb":
            return color if place % 2 == 0 else {"w": "b", "b": "w"}[color]
        place += 1
    return None


def dump(t: Tournament, rounds: int | None = None) -> str:
    """The TRF text of a tournament (only the first ``rounds`` rounds if given)."""
    lines = [f"012 {t.name}"]
    for code, attribute in HEADER.items():
        value = getattr(t, attribute)
        if value and code != "012":
            lines.append(f"{code} {value}")
    lines.append(f"062 {len(t.players)}")
    lines.append(f"072 {sum(1 for p in t.players if p.rating)}")
    lines.append("092 Individual: Swiss-System (FIDE Dutch)")
    if t.rounds:
        lines.append(f"XXR {t.rounds}")
    if t.first_color in COLORS:
        lines.append(f"XXC {COLORS[t.first_color]}")
        lines.append(f"152 {t.first_color.upper()}")
    lines.extend(t.extra)
    for p in sorted(t.players, key=lambda p: p.number):
        lines.append(p.line(rounds))
    for number, (points, damage) in sorted(t.buoys_damage.items()):
        lines.append(f"PBS {number:4d} {points:4d} {damage:4d}")
    return "\n".join(lines) + "\n"


def decode(data: bytes) -> str:
    """A TRF file's bytes as text: UTF-8 (with or without a byte-order mark), else Latin-1."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def load(path: str) -> Tournament:
    with open(path, "rb") as handle:
        return parse(decode(handle.read()))
