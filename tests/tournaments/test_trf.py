"""The TRF we read and write (tournaments.trf): TRF-16 player lines, every result code, ``0000``
for no opponent, UTF-8 names, the XXR/XXC/152/PBS records, and clear errors for bad files."""

from __future__ import annotations

import pytest

from tournaments import trf

C = trf.Cell


def small() -> trf.Tournament:
    """Six players, two rounds, every kind of round: games (rated and unrated), forfeits, the
    pairing-allocated bye and the other byes."""
    t = trf.Tournament(name="Codes", rounds=3, first_color="b", start="2026-09-01")
    rounds = {
        1: [C(4, "w", "1"), C(5, "b", "="), C(6, "w", "+"), C(1, "b", "0"), C(2, "w", "="), C(3, "b", "-")],
        2: [C(2, "b", "W"), C(1, "w", "L"), C(None, "-", "U"), C(5, "b", "D"), C(4, "w", "D"), C(None, "-", "H")],
    }
    t.players = [trf.Player(n, f"P{n}", 2000 - n, [rounds[1][n - 1], rounds[2][n - 1]]) for n in range(1, 7)]
    t.player(6).cells.append(C(None, "-", "Z"))  # an absence entered for round 3
    t.player(3).cells.append(C(None, "-", "F"))
    t.buoys_damage = {n: (n, 7 - n) for n in range(1, 7)}
    return t


def test_cells_without_an_opponent_are_written_0000_at_the_trf16_columns():
    line = small().player(3).line()
    assert line[91:99] == "0006 w +"  # column 92: opponent (4 digits), colour, result
    assert line[101:109] == "0000 - U"
    assert line[111:119] == "0000 - F"
    assert line[80:84] == " 3.0"  # columns 81-84: the points


def test_every_result_code_survives_a_round_trip():
    t = small()
    text = trf.dump(t)
    again = trf.parse(text)
    assert [[(c.opponent, c.color, c.result) for c in p.cells] for p in again.players] == [
        [(c.opponent, c.color, c.result) for c in p.cells] for p in t.players
    ]
    assert {c.result for p in again.players for c in p.cells} == set("10=WLD+-UFHZ")
    assert [p.points for p in again.players] == [2.0, 0.5, 3.0, 0.5, 1.0, 0.5]
    assert again.first_color == "b" and again.rounds == 3 and again.buoys_damage == t.buoys_damage
    assert "XXR 3\nXXC black1\n152 B\n" in text
    assert trf.dump(again) == text


def test_what_counts_as_played_paired_and_voluntarily_unplayed():
    """C.07 art. 16 and C.04.3 read these: forfeits are paired but not played; the pairing
    bye is paired; requested byes, absences and forfeit losses are voluntarily unplayed."""
    t = small()
    kinds = {c.result: (c.played, c.paired, c.voluntarily_unplayed) for p in t.players for c in p.cells}
    assert kinds == {
        "1": (True, True, False), "0": (True, True, False), "=": (True, True, False),
        "W": (True, True, False), "L": (True, True, False), "D": (True, True, False),
        "+": (False, True, False), "-": (False, True, True), "U": (False, True, False),
        "F": (False, False, False), "H": (False, False, True), "Z": (False, False, True),
    }


def test_a_name_in_any_script_exports_as_utf8_and_keeps_the_columns():
    t = small()
    t.player(1).name = "Ωmega ☃"
    t.player(2).name = "Zoë Ünal-Ångström, a name longer than the thirty-three columns"
    data = trf.dump(t).encode("utf-8")
    again = trf.parse(trf.decode(data))
    assert again.player(1).name == "Ωmega ☃"
    assert again.player(2).name == "Zoë Ünal-Ångström, a name longer"  # cut at 33 characters
    assert [c.result for c in again.player(1).cells] == ["1", "W"]


def test_a_latin1_file_from_another_program_is_read():
    text = trf.dump(small()).replace("P1 ", "Zoé")
    assert trf.decode(text.encode("latin-1")) == text
    assert trf.parse(trf.decode(text.encode("latin-1"))).player(1).name == "Zoé"


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.replace("0004 w 1", "0004 w 1", 1).replace("0001 b 0", "0002 b 0", 1),
     "round 1: player 1 meets 4, but 4's cell says 0002"),
    (lambda s: s.replace("0001 b 0", "0001 b =", 1), "have results '1' and '=', which do not match"),
    (lambda s: s.replace("0001 b 0", "0001 w 0", 1), "cannot both have colour w"),
    (lambda s: s.replace("0004 w 1", "0004 w X", 1), "unknown result 'X'"),
    (lambda s: s.replace("0000 - U", "0002 - U", 1), "a bye or absence (U) has no opponent: write 0000"),
    (lambda s: s.replace("0004 w 1", "0004 - 1", 1), "a game (1) needs an opponent and a colour"),
    (lambda s: s.replace(" 1.0    0  0002", " 2.0    0  0002", 1), "player 5: the points column says 2 but the results add up to 1"),
    (lambda s: s.replace("001    6", "001    5", 1), "start number 5 appears twice"),
    (lambda s: s.replace("152 B", "152 X"), "record 152 (the initial colour) must be W or B"),
    (lambda s: s.replace("XXC black1", "XXC rank"), "XXC rank"),
    (lambda s: s.replace("XXR 3", "XXR 1"), "2 rounds paired but XXR/142 plans 1"),
    (lambda s: s.replace("001    5", "001   5x", 1), "the start number (columns 5-8) must be a number"),
    (lambda s: s.replace("001    5", "001    ¹", 1), "the start number (columns 5-8) must be a number, not '¹'"),
])
def test_a_bad_file_is_refused_saying_where(change, message):
    text = change(trf.dump(small()))
    with pytest.raises(trf.TrfError) as info:
        trf.parse(text)
    assert message in str(info.value)


@pytest.mark.parametrize(("change", "player", "message"), [
    (lambda s: s.replace("0001 b 0", "0002 b 0", 1), 1, "round 1: player 1 meets 4, but 4's cell says 0002"),
    (lambda s: s.replace(" 1.0    0  0002", " 2.0    0  0002", 1), 5,
     "player 5: the points column says 2 but the results add up to 1"),
    (lambda s: s.replace("0004 w 1", "0007 w 1", 1), 1, "round 1: player 1 meets 7, who is not in the file"),
])
def test_cells_that_contradict_each_other_are_refused_with_the_line_of_the_player(change, player, message):
    """A contradiction is found after reading every line; it names the line of the player whose
    record was being checked, so that an arbiter can find it in a file of hundreds."""
    text = change(trf.dump(small()))
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith(f"001 {player:4d}"))
    with pytest.raises(trf.TrfError) as info:
        trf.parse(text)
    assert str(info.value) == f"line {line}: {message}" and info.value.line == line


def test_rounds_paired_ignores_absences_entered_ahead():
    t = small()
    assert t.rounds_played == 3 and t.rounds_paired == 2
