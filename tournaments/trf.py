"""FIDE Tournament Report File (TRF-16), reading and writing, without a database.

Player lines (``001``) use fixed columns: start number 5–8, sex 10, title 11–13, name
15–47, rating 49–52, federation 54–56, FIDE id 58–68, birth date 70–79, points 81–84,
rank 86–89, then one 10-column cell per round from column 92: opponent start number
(4; ``0000`` for a bye), colour (``w``/``b``/``-``) and result:

====  ============================================================
``1``  win          ``0``  loss          ``=``  draw
``+``  forfeit win  ``-``  forfeit loss  (``W D L``: unrated game)
``U``  pairing-allocated bye (1 point)   ``F``  full-point bye
``H``  half-point bye                    ``Z``  zero-point bye (absent)
====  ============================================================

Extension lines read by the FIDE pairing programs: ``XXR n`` (number of rounds), ``XXC
white1``/``black1`` (the colour of player 1 in round 1). For the round to pair, a player who
is absent has an extra cell ``0000 - Z`` (or ``H`` for a requested half-point bye).
"""

from __future__ import annotations

from dataclasses import dataclass, field

POINTS = {"1": 1.0, "+": 1.0, "W": 1.0, "U": 1.0, "F": 1.0, "=": 0.5, "D": 0.5, "H": 0.5,
          "0": 0.0, "-": 0.0, "L": 0.0, "Z": 0.0, " ": 0.0}
BYE_RESULTS = {"U", "F", "H", "Z"}
PLAYED_RESULTS = {"1", "0", "=", "W", "D", "L"}


@dataclass
class Cell:
    """One round of one player: opponent (None for a bye/absence), colour and result."""

    opponent: int | None
    color: str  # "w", "b" or "-"
    result: str

    @property
    def points(self) -> float:
        return POINTS.get(self.result, 0.0)

    @property
    def played(self) -> bool:
        """A game over the board (forfeits and byes are not)."""
        return self.opponent is not None and self.result in PLAYED_RESULTS

    def text(self) -> str:
        return f"{self.opponent or 0:4d} {self.color} {self.result}"


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

    @property
    def points(self) -> float:
        return sum(c.points for c in self.cells)

    def line(self, rounds: int | None = None) -> str:
        cells = self.cells if rounds is None else self.cells[:rounds]
        head = (
            f"001 {self.number:4d} {self.sex[:1]:1}{self.title[:3]:>3} {self.name[:33]:<33} {self.rating or 0:4d} "
            f"{self.federation[:3]:<3} {self.fide_id[:11]:>11} {self.birth[:10]:<10} {self.points:4.1f} {self.rank:4d}"
        )
        return head + "".join(f"  {c.text()}" for c in cells)


# header lines kept, by record code: tournament name, city, federation, start and end dates,
# chief arbiter, time control
HEADER = {"012": "name", "022": "city", "032": "federation", "042": "start", "052": "end", "102": "arbiter",
          "122": "time_control"}


@dataclass
class Tournament:
    name: str = ""
    rounds: int = 0  # XXR: rounds planned
    players: list[Player] = field(default_factory=list)
    first_color: str = "w"  # XXC: the colour of player 1 in round 1
    city: str = ""
    federation: str = ""
    start: str = ""
    end: str = ""
    arbiter: str = ""
    time_control: str = ""
    extra: list[str] = field(default_factory=list)

    def player(self, number: int) -> Player:
        for p in self.players:
            if p.number == number:
                return p
        raise KeyError(number)

    @property
    def rounds_played(self) -> int:
        return max((len(p.cells) for p in self.players), default=0)


def _col(line: str, start: int, end: int) -> str:
    """Columns ``start``..``end`` (1-based, inclusive) of a line."""
    return line[start - 1 : end]


def parse_player(line: str) -> Player:
    number = int(_col(line, 5, 8))
    rating_text = _col(line, 49, 52).strip()
    rank_text = _col(line, 86, 89).strip()
    player = Player(
        number=number,
        sex=_col(line, 10, 10).strip() or " ",
        title=_col(line, 11, 13).strip(),
        name=_col(line, 15, 47).strip(),
        rating=int(rating_text) if rating_text.isdigit() else 0,
        federation=_col(line, 54, 56).strip(),
        fide_id=_col(line, 58, 68).strip(),
        birth=_col(line, 70, 79).strip(),
        rank=int(rank_text) if rank_text.isdigit() else 0,
    )
    position = 92
    while position <= len(line.rstrip()):
        cell = line[position - 1 : position + 7].ljust(8)
        opponent_text, color, result = cell[0:4].strip(), cell[5], cell[7]
        if not opponent_text and color == " " and result == " ":
            position += 10
            continue
        opponent = int(opponent_text) if opponent_text and opponent_text != "0000" and int(opponent_text) else None
        player.cells.append(Cell(opponent, color if color in "wb" else "-", result))
        position += 10
    return player


def parse(text: str) -> Tournament:
    """A TRF(x) file: the header lines we use, the players and their rounds."""
    t = Tournament()
    for raw in text.splitlines():
        line = raw.rstrip("\r\n")
        if len(line) < 3:
            continue
        code = line[:3]
        rest = line[4:].strip() if len(line) > 4 else ""
        if code == "001":
            t.players.append(parse_player(line))
        elif code in HEADER:
            setattr(t, HEADER[code], rest)
        elif code == "XXR":
            t.rounds = int(rest.split()[0])
        elif code == "XXC":
            words = rest.lower().split()
            t.first_color = "b" if "black1" in words else "w"
        else:
            t.extra.append(line)
    if not t.rounds:
        t.rounds = t.rounds_played
    t.players.sort(key=lambda p: p.number)
    return t


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
    lines.append(f"XXR {t.rounds}")
    lines.append(f"XXC {'white1' if t.first_color == 'w' else 'black1'}")
    lines.extend(t.extra)
    for p in sorted(t.players, key=lambda p: p.number):
        lines.append(p.line(rounds))
    return "\n".join(lines) + "\n"
