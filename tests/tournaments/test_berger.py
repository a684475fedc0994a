"""The Berger tables (FIDE C.05, Annex 1) against the published tables, the double round-robin,
snake seeding and the command ``python -m tournaments.berger N``."""

from __future__ import annotations

import io
import subprocess
import sys
from collections import Counter
from contextlib import redirect_stderr, redirect_stdout

import pytest

from tournaments import berger

# FIDE C.05 Annex 1, "Berger Tables for Round-Robin Tournaments", copied from the handbook's
# tables (first-named: White, here Red). An odd number of players uses the next even table,
# the highest number being the bye.
PUBLISHED = {
    4: """1-4 2-3
          4-3 1-2
          2-4 3-1""",
    6: """1-6 2-5 3-4
          6-4 5-3 1-2
          2-6 3-1 4-5
          6-5 1-4 2-3
          3-6 4-2 5-1""",
    8: """1-8 2-7 3-6 4-5
          8-5 6-4 7-3 1-2
          2-8 3-1 4-7 5-6
          8-6 7-5 1-4 2-3
          3-8 4-2 5-1 6-7
          8-7 1-6 2-5 3-4
          4-8 5-3 6-2 7-1""",
    10: """1-10 2-9 3-8 4-7 5-6
           10-6 7-5 8-4 9-3 1-2
           2-10 3-1 4-9 5-8 6-7
           10-7 8-6 9-5 1-4 2-3
           3-10 4-2 5-1 6-9 7-8
           10-8 9-7 1-6 2-5 3-4
           4-10 5-3 6-2 7-1 8-9
           10-9 1-8 2-7 3-6 4-5
           5-10 6-4 7-3 8-2 9-1""",
    12: """1-12 2-11 3-10 4-9 5-8 6-7
           12-7 8-6 9-5 10-4 11-3 1-2
           2-12 3-1 4-11 5-10 6-9 7-8
           12-8 9-7 10-6 11-5 1-4 2-3
           3-12 4-2 5-1 6-11 7-10 8-9
           12-9 10-8 11-7 1-6 2-5 3-4
           4-12 5-3 6-2 7-1 8-11 9-10
           12-10 11-9 1-8 2-7 3-6 4-5
           5-12 6-4 7-3 8-2 9-1 10-11
           12-11 1-10 2-9 3-8 4-7 5-6
           6-12 7-5 8-4 9-3 10-2 11-1""",
    14: """1-14 2-13 3-12 4-11 5-10 6-9 7-8
           14-8 9-7 10-6 11-5 12-4 13-3 1-2
           2-14 3-1 4-13 5-12 6-11 7-10 8-9
           14-9 10-8 11-7 12-6 13-5 1-4 2-3
           3-14 4-2 5-1 6-13 7-12 8-11 9-10
           14-10 11-9 12-8 13-7 1-6 2-5 3-4
           4-14 5-3 6-2 7-1 8-13 9-12 10-11
           14-11 12-10 13-9 1-8 2-7 3-6 4-5
           5-14 6-4 7-3 8-2 9-1 10-13 11-12
           14-12 13-11 1-10 2-9 3-8 4-7 5-6
           6-14 7-5 8-4 9-3 10-2 11-1 12-13
           14-13 1-12 2-11 3-10 4-9 5-8 6-7
           7-14 8-6 9-5 10-4 11-3 12-2 13-1""",
}


def published(players: int) -> list[list[tuple[int, int]]]:
    """The handbook's table for ``players``; for an odd number, that of the next even number
    without the pairs of the dummy (the bye)."""
    size = players + players % 2
    rounds = [[tuple(map(int, pair.split("-"))) for pair in line.split()] for line in PUBLISHED[size].splitlines()]
    return [[(a, b) for a, b in pairs if size not in (a, b) or size == players] for pairs in rounds]  # type: ignore[misc]


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14])
def test_the_tables_are_fides_published_tables(players):
    assert berger.table(players) == published(players)


@pytest.mark.parametrize("players", [3, 6, 9, 14, 20])
def test_everyone_meets_everyone_once_and_an_odd_group_rests_once_each(players):
    rounds = berger.table(players)
    assert len(rounds) == berger.rounds_for(players) == players - 1 + players % 2
    met = Counter(frozenset(pair) for pairs in rounds for pair in pairs)
    assert len(met) == players * (players - 1) // 2 and set(met.values()) == {1}
    for pairs in rounds:
        playing = [n for pair in pairs for n in pair]
        assert len(playing) == len(set(playing)) == players - players % 2  # one rests when odd
    if players % 2:
        resting = [next(n for n in range(1, players + 1) if all(n not in p for p in pairs)) for pairs in rounds]
        assert sorted(resting) == list(range(1, players + 1))


@pytest.mark.parametrize("players", [4, 5, 6, 11])
def test_a_double_round_robins_second_cycle_is_the_first_with_colours_reversed(players):
    """C.05 Annex 1: the second cycle repeats the table with the colours reversed; the last two
    rounds of the first cycle are exchanged (the Annex's recommendation for a double round-robin)."""
    single = berger.table(players)
    double = berger.schedule(players, double=True)
    n = len(single)
    assert len(double) == 2 * n == berger.rounds_for(players, double=True)
    assert double[: n - 2] == single[: n - 2]
    assert double[n - 2] == single[n - 1] and double[n - 1] == single[n - 2]
    for k in range(n):
        assert double[n + k] == [(b, a) for a, b in single[k]]
    # every pair meets twice, once with each colour
    games = Counter(pair for pairs in double for pair in pairs)
    assert all(games[(b, a)] == 1 for (a, b) in games) and set(games.values()) == {1}
    assert len(games) == players * (players - 1)


def test_no_player_has_the_same_colour_three_times_running_where_the_cycles_meet():
    """What the exchange of the first cycle's last two rounds is for (6 players: without it
    players 1 and 4 would get three of a colour in rounds 5-7)."""
    rounds = berger.schedule(6, double=True)
    for player in range(1, 7):
        colours = "".join("R" if any(a == player for a, _ in pairs) else "Y" for pairs in rounds)
        assert "RRR" not in colours and "YYY" not in colours, (player, colours)


def test_snake_seeding_deals_the_best_first_then_back():
    assert berger.snake(list(range(1, 13)), 4) == [[1, 8, 9], [2, 7, 10], [3, 6, 11], [4, 5, 12]]
    assert berger.snake([1, 2, 3], 1) == [[1, 2, 3]]


def test_the_command_prints_the_table_by_round_with_the_bye_omitted():
    out = io.StringIO()
    with redirect_stdout(out):
        assert berger.main(["5"]) == 0
    assert out.getvalue() == "1: 2-5 3-4\n2: 5-3 1-2\n3: 3-1 4-5\n4: 1-4 2-3\n5: 4-2 5-1\n"
    err = io.StringIO()
    with redirect_stderr(err):
        assert berger.main(["1"]) == 1
    assert "2 to 99 players" in err.getvalue()
    run = subprocess.run([sys.executable, "-m", "tournaments.berger", "4", "--double"], capture_output=True, text=True,
                         check=True)
    assert run.stdout.splitlines() == ["1: 1-4 2-3", "2: 2-4 3-1", "3: 4-3 1-2", "4: 4-1 3-2", "5: 3-4 2-1",
                                       "6: 4-2 1-3"]
