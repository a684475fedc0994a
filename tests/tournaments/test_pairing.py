"""Pairing (FIDE Dutch, C.04.3), as a pure function of a TRF: the classic situations, invariants,
and an independent second opinion on random tournaments."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tournaments import trf
from tournaments.pairing import Pairing, PairingError, pair, pair_text

FLIP = {"1": "0", "0": "1", "=": "="}


def field(n: int, rounds: int = 5, first_color: str = "w") -> trf.Tournament:
    t = trf.Tournament(name="Test", rounds=rounds, first_color=first_color)
    t.players = [trf.Player(number=i, name=f"P{i:03d}", rating=2200 - 10 * i) for i in range(1, n + 1)]
    return t


def play(t: trf.Tournament, pairing: Pairing, results: dict[tuple[int, int], str] | None = None,
         absent: dict[int, str] | None = None, rng: random.Random | None = None) -> None:
    """Record a round: given results (white's), else by rating, random when ``rng`` is given."""
    done = set()
    for w, b in pairing.boards:
        res = (results or {}).get((w, b))
        if res is None:
            if rng is not None:
                x = rng.random()
                res = "=" if x < 0.15 else "1" if x < 0.6 else "0"
            else:
                res = "1" if w < b else "0"
        t.player(w).cells.append(trf.Cell(b, "w", res))
        t.player(b).cells.append(trf.Cell(w, "b", FLIP[res]))
        done |= {w, b}
    if pairing.bye is not None:
        t.player(pairing.bye).cells.append(trf.Cell(None, "-", "U"))
        done.add(pairing.bye)
    for number, code in (absent or {}).items():
        t.player(number).cells.append(trf.Cell(None, "-", code))
        done.add(number)
    assert done == {p.number for p in t.players}


def test_round_1_pairs_the_top_half_against_the_bottom_half():
    p = pair(field(8))
    assert {frozenset(b) for b in p.boards} == {frozenset({i, i + 4}) for i in range(1, 5)}
    assert p.bye is None and p.round == 1
    assert p.text().splitlines()[0] == "4"


def test_an_odd_number_gives_the_lowest_player_the_bye_and_never_twice():
    """Pairing-allocated bye: to the lowest-ranked eligible player, at most once (C2)."""
    t = field(7)
    first = pair(t)
    assert first.bye == 7
    play(t, first)
    second = pair(t)
    assert second.bye is not None and second.bye != 7
    assert second.text().splitlines()[-1] == f"{second.bye} 0"


def test_no_pairing_repeats_a_game():
    """C1: two players meet at most once."""
    t = field(10)
    met: set[frozenset[int]] = set()
    for _ in range(4):
        p = pair(t)
        boards = {frozenset(b) for b in p.boards}
        assert not boards & met
        met |= boards
        play(t, p)


def test_absent_players_are_not_paired():
    t = field(8)
    play(t, pair(t))
    p = pair(t, absent={3: "Z", 8: "H"})
    paired = {n for b in p.boards for n in b} | ({p.bye} if p.bye else set())
    assert paired == {1, 2, 4, 5, 6, 7}


def test_a_player_with_two_whites_in_a_row_gets_black():
    """Colour rules: nobody gets the same colour three times in a row (absolute, C3 / colour
    allocation), and a player with two whites is due black."""
    t = field(6, rounds=4)
    # player 1 had white twice
    play(t, Pairing(1, ((1, 4), (5, 2), (3, 6)), None), {(1, 4): "1", (5, 2): "0", (3, 6): "1"})
    play(t, Pairing(2, ((1, 3), (2, 6), (4, 5)), None), {(1, 3): "1", (2, 6): "1", (4, 5): "="})
    p = pair(t)
    board = next(b for b in p.boards if 1 in b)
    assert board[1] == 1, f"player 1 (ww) must get black, got {board}"


def test_a_lone_leader_floats_down():
    """A score group with an odd player out sends one player down to the next group."""
    t = field(6, rounds=4)
    play(t, Pairing(1, ((1, 4), (2, 5), (3, 6)), None), {(1, 4): "1", (2, 5): "1", (3, 6): "1"})
    p = pair(t)  # three leaders (1, 2, 3) with 1 point: one of them meets a player on 0
    mixed = [b for b in p.boards if (t.player(b[0]).points != t.player(b[1]).points)]
    assert len(mixed) == 1
    leader_pairs = [b for b in p.boards if t.player(b[0]).points == t.player(b[1]).points == 1]
    assert len(leader_pairs) == 1


def test_the_pairing_command_reads_a_trf_and_prints_the_programs_format(tmp_path):
    t = field(5)
    path = tmp_path / "t.trf"
    path.write_text(trf.dump(t))
    out = subprocess.run([sys.executable, "-m", "tournaments.pairing", str(path)], capture_output=True, text=True,
                         check=True).stdout.split("\n")
    assert out == ["3", "1 3", "4 2", "5 0", ""]  # the lowest gets the bye; 1 (odd) the initial colour


def expected_round_1(n: int, first: str, absent: set[int]) -> Pairing:
    """C.04.3 for round 1, worked out here: the players present, in start-number order, are
    split into halves and the k-th of the top half meets the k-th of the bottom half; the last
    one left over gets the bye. Colours by E.5: the higher-ranked player of a board gets the
    initial colour when their pairing number is odd, the other colour when it is even; a
    player absent before their first pairing has no pairing number, so the numbers are the
    places among the players present."""
    present = [i for i in range(1, n + 1) if i not in absent]
    bye = present.pop() if len(present) % 2 else None
    half = len(present) // 2
    boards = []
    for k in range(half):
        high, low = present[k], present[k + half]
        high_colour = first if k % 2 == 0 else {"w": "b", "b": "w"}[first]
        boards.append((high, low) if high_colour == "w" else (low, high))
    return Pairing(1, tuple(boards), bye)


@pytest.mark.parametrize("first", ["w", "b"])
@pytest.mark.parametrize("absent", [{}, {1: "H"}, {3: "Z"}, {1: "Z", 2: "H"}, {9: "H"}])
def test_round_1_follows_the_initial_colour_with_and_without_absences(first, absent):
    """XXC/152 decide round 1 (C.04.3 E.5); before, an absence before round 1 made gacrux read
    "black1" whatever the file said, and without one it drew the colour with random.random()."""
    t = field(9, first_color=first)
    got = pair(t, absent)
    want = expected_round_1(9, first, set(absent))
    assert (got.boards, got.bye) == (want.boards, want.bye)


@pytest.mark.slow
def test_the_same_trf_gives_the_same_pairing_ten_times(tmp_path):
    """Pairing is a pure function of the file: round 1 with and without an absence (where the
    engine used to draw or misread the colour) and a later round, ten times each, one output."""
    t = field(11, rounds=4, first_color="b")
    before = trf.dump(with_absent(t, {2: "H"}))
    assert len({pair_text(trf.dump(t)).text() for _ in range(10)}) == 1
    path = tmp_path / "r1.trf"
    path.write_text(before, encoding="utf-8")
    outputs = {subprocess.run([sys.executable, "-m", "tournaments.pairing", str(path)], capture_output=True, text=True,
                              check=True).stdout for _ in range(10)}
    assert len(outputs) == 1
    rng = random.Random(4)
    play(t, pair(t), rng=rng)
    play(t, pair(t, {5: "Z"}), absent={5: "Z"}, rng=rng)
    assert len({pair_text(trf.dump(t)).text() for _ in range(10)}) == 1


def with_absent(t: trf.Tournament, absent: dict[int, str]) -> trf.Tournament:
    from tournaments.pairing import with_absences

    return with_absences(t, absent)


def test_the_initial_colour_comes_from_xxc_or_record_152():
    t = field(6)
    text = trf.dump(t)
    assert "XXC white1" in text and "152 W" in text
    only_xxc = text.replace("152 W\n", "").replace("white1", "black1")
    only_152 = text.replace("XXC white1\n", "").replace("152 W", "152 B")
    assert trf.parse(only_xxc).first_color == trf.parse(only_152).first_color == "b"
    assert pair_text(only_xxc) == pair_text(only_152) == expected_round_1(6, "b", set())
    with pytest.raises(trf.TrfError, match="XXC says black1 but record 152 says W"):
        trf.parse(text.replace("XXC white1", "XXC black1"))
    neither = text.replace("XXC white1\n", "").replace("152 W\n", "")
    with pytest.raises(PairingError, match="does not give the initial colour"):
        pair_text(neither)


def test_without_xxc_the_initial_colour_is_read_back_from_the_first_round():
    """As bbpPairings does: the highest-ranked player of the first round with games gave the
    initial colour (or its opposite from an even place); here player 1 was absent, so player 2
    had pairing number 1 and played Yellow: black1."""
    t = field(8, first_color="b")
    absent = {1: "H"}
    play(t, pair(t, absent), absent=absent)
    assert t.player(2).cells[0].color == "b"
    t.first_color = None
    assert trf.infer_first_color(t) == "b"
    text = trf.dump(t)
    assert "XXC" not in text
    t.first_color = "b"
    assert pair_text(text) == pair(t)


def colour_invariants(t: trf.Tournament, p: Pairing) -> None:
    """No player gets the same colour three times in a row or a colour difference beyond 2
    (absolute colour criteria), except top-scorers in the last round."""
    last = t.rounds_played + 1 == t.rounds
    top = max(pl.points for pl in t.players)
    for w, b in p.boards:
        for number, colour in ((w, "w"), (b, "b")):
            history = [c.color for c in t.player(number).cells if c.played]
            if last and t.player(number).points > top / 2:
                continue
            assert history[-2:] != [colour, colour], f"{number} would get {colour} a third time"
            diff = sum(1 if c == "w" else -1 for c in [*history, colour])
            assert abs(diff) <= 2, f"{number}: colour difference {diff}"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_tournaments_agree_with_an_independent_engine(seed, tmp_path):
    """A random tournament (draws, a few absences) paired round by round; then caissify-pairings'
    checker re-pairs every round with its own Dutch engine and must find the same pairs."""
    rng = random.Random(seed)
    n = rng.choice([11, 14, 17, 20])
    t = field(n, rounds=6)
    for _ in range(6):
        absent = {rng.randrange(1, n + 1): "H"} if rng.random() < 0.3 else {}
        p = pair(t, absent)
        colour_invariants(t, p)
        counts = Counter(x for board in p.boards for x in board)
        assert all(v == 1 for v in counts.values()) and p.bye not in counts
        play(t, p, absent=absent, rng=rng)
    byes = Counter(pl.number for pl in t.players for c in pl.cells if c.result == "U")
    assert all(v == 1 for v in byes.values())  # nobody had the pairing bye twice
    path = tmp_path / f"random-{seed}.trf"
    path.write_text(trf.dump(t))
    check = subprocess.run([sys.executable, "-m", "caissify_pairings", "--check", str(path)], capture_output=True,
                           text=True, timeout=600)
    assert "0 discrepancies" in check.stdout, check.stdout + check.stderr


def test_trf_round_trip(tmp_path):
    rng = random.Random(9)
    t = field(9, rounds=3)
    for _ in range(3):
        play(t, pair(t), rng=rng)
    again = trf.parse(trf.dump(t))
    assert [(p.number, p.name, p.rating, p.points) for p in again.players] == [
        (p.number, p.name, p.rating, p.points) for p in t.players
    ]
    assert [[(c.opponent, c.color, c.result) for c in p.cells] for p in again.players] == [
        [(c.opponent, c.color, c.result) for c in p.cells] for p in t.players
    ]
    assert again.rounds == 3 and again.first_color == "w"


def test_when_every_pairing_would_repeat_a_game_there_is_no_pairing():
    """Four players who have all met: C.04.3's absolute criterion C1 leaves no pairing, and the
    engine's empty answer is an error, not a round without boards."""
    t = field(4, rounds=4)
    for boards in (((1, 3), (4, 2)), ((2, 1), (3, 4)), ((1, 4), (2, 3))):
        play(t, Pairing(len(t.player(1).cells) + 1, boards, None))
    with pytest.raises(PairingError, match="no legal pairing for round 4"):
        pair(t)


# --- the engine's warm process (tournaments/pairing/warm.py) ---------------------------------


def warm_pid() -> int:
    from tournaments import pairing

    assert pairing._warm.process is not None
    return pairing._warm.process.pid


def test_pairings_share_one_warm_engine_process_and_a_dead_one_is_replaced():
    """Each pairing is a child forked from one process that keeps the engine loaded; killed
    (the machine's memory killer, say), it is started again by the next pairing, which is paired."""
    want = pair(field(8)).boards
    first = warm_pid()
    assert pair(field(8)).boards == want
    assert warm_pid() == first
    os.kill(first, signal.SIGKILL)
    os.waitpid(first, 0)  # gone, and reaped: its pipe is broken
    assert pair(field(8)).boards == want
    assert warm_pid() != first


def test_a_pairing_past_its_time_is_stopped_and_the_engine_process_pairs_on():
    """The 600 s a pairing may take (ENGINE_TIMEOUT), here 0 s: the child is killed, the caller
    gets a status saying so, and the next pairing in the same warm process is made."""
    from tournaments.pairing import engine_input, run_engine

    path = Path(tempfile.mkdtemp()) / "r1.trf"
    path.write_text(engine_input(field(8)), encoding="utf-8")
    stopped = run_engine(["-i", str(path), "-b", "utf-8", "-p", "-o", "-", "-dT"], timeout=0)
    assert stopped.returncode == -signal.SIGKILL and "ran past 0 s" in stopped.stderr
    made = run_engine(["-i", str(path), "-b", "utf-8", "-p", "-o", "-", "-dT"])
    assert made.returncode == 0 and made.stdout.split()[0] == "4"


def test_pairings_from_threads_at_once_each_get_their_own_boards():
    """The site's threads share the warm process: one request at a time on its pipes."""
    fields = [field(n) for n in (6, 8, 10, 12)] * 3
    want = [pair(t).text() for t in fields[:4]] * 3
    with ThreadPoolExecutor(max_workers=6) as pool:
        assert list(pool.map(lambda t: pair(t).text(), fields)) == want


def test_a_forked_process_pairs_with_a_warm_process_of_its_own():
    """A Celery worker's pool forks its children: the parent's warm process is not theirs."""
    pair(field(6))
    parent_warm = warm_pid()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        code = 1
        try:
            boards = pair(field(6)).text()
            os.write(write, f"{warm_pid()}\n{boards}".encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read) as pipe:
        reported = pipe.read()
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    pid, boards = reported.split("\n", 1)
    assert int(pid) != parent_warm and boards == pair(field(6)).text()
    assert warm_pid() == parent_warm


def test_the_warm_process_exits_when_idle_and_the_next_pairing_starts_another(monkeypatch):
    """Pairings come in bursts (rounds close together): between them a worker keeps no engine
    in memory (ENGINE_IDLE, 300 s; here 0.3 s)."""
    from tournaments import pairing

    pairing._stop_warm()
    monkeypatch.setattr(pairing, "ENGINE_IDLE", 0.3)
    want = pair(field(8)).boards
    process = pairing._warm.process
    assert process is not None
    assert process.wait(timeout=30) == 0  # exited by itself, idle
    assert pair(field(8)).boards == want
    assert warm_pid() != process.pid
    pairing._stop_warm()
