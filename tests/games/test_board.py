"""The board reads like the box (issue 13): buoy 0 visibly belongs to its start/finish line (R3),
preview discs never cover a boat, even at the lake's edge (R7), there is a legend, and after a
crash the dice step defaults to adding a die (R6, R9)."""

from __future__ import annotations

import math
import random
import re

import pytest
from django.test import Client
from django.utils.translation import override

from games.board import DISC, SIZE, BoatView, OptionView, board_size, board_svg, static_layers
from games.engine import DIRECTIONS, new_course
from games.engine.hexgrid import neighbor, pixel
from games.models import Seat

from .factories import PASSWORD, make_user, placed_game, play_until

HULL = 0.75 * SIZE  # the boat's bow, from its centre (games/board.py, _boats)


@pytest.fixture(scope="module")
def course():
    return new_course("standard", "B", random.Random(11))


def view_box(svg: str) -> tuple[float, float, float, float]:
    x, y, w, h = map(float, re.search(r'viewBox="([^"]+)"', svg)[1].split())
    return x, y, x + w, y + h


def test_buoy_0_is_linked_to_the_nearest_cell_of_its_line_r3(course):
    svg = board_svg(course)
    link = re.search(r'<path class="start-link-over" d="M([-\d.]+),([-\d.]+) L([-\d.]+),([-\d.]+)"', svg)
    bx, by = pixel(course.buoys[0], SIZE)
    nearest = min(course.line, key=lambda c: math.dist(pixel(c, SIZE), (bx, by)))
    if math.dist(pixel(nearest, SIZE), (bx, by)) <= 1.2 * SIZE:
        return  # buoy 0 touches its line: nothing to link
    assert link, "a dashed connector from buoy 0 to its start/finish line"
    x1, y1, x2, y2 = map(float, link.groups())
    # it starts at buoy 0's rim and points at the line cell nearest to the buoy
    assert math.dist((x1, y1), (bx, by)) == pytest.approx(0.62 * SIZE, abs=0.2)
    lx, ly = pixel(nearest, SIZE)
    assert math.dist((x2, y2), (lx, ly)) == pytest.approx(0.55 * SIZE, abs=0.2)
    # buoy 0 and the finish buoy wear the line's chequer
    group = svg[svg.index('data-buoy="0"'):]
    assert group.index('class="buoy-ring"') < group.index("</g>")
    assert svg.count('class="buoy-ring"') == 1 + (course.finish_buoy is not None)


def test_a_course_where_buoy_0_stands_inland_gets_a_connector():
    # seeds are searched once: the connector must appear whenever the buoy is off the line
    for seed in range(40):
        course = new_course("standard", "A", random.Random(seed))
        bx, by = pixel(course.buoys[0], SIZE)
        if min(math.dist(pixel(c, SIZE), (bx, by)) for c in course.line) > 2 * SIZE:
            assert 'class="start-link"' in board_svg(course)
            return
    pytest.skip("no inland buoy 0 among the seeds tried")


def discs(svg: str) -> list[tuple[int, float, float]]:
    found = re.findall(r'<g class="option[^"]*" data-direction="(\d)".*?<circle class="option-end" '
                       r'cx="([-\d.]+)" cy="([-\d.]+)"', svg)
    return [(int(d), float(x), float(y)) for d, x, y in found]


@pytest.mark.parametrize("which", ["first", "last"])
def test_preview_discs_never_cover_a_boat_even_at_the_lakes_edge(course, which):
    lake = course.lake
    start = course.line[0] if which == "first" else course.line[-1]
    other = next(neighbor(start, d) for d in range(6) if neighbor(start, d) in lake.cells
                 and neighbor(start, d) not in lake.land)
    boats = [BoatView("yellow", start, 0), BoatView("red", other, 3)]
    options = []
    for d in range(6):  # every direction, as if it could not move at all (reach 0: R7's crash)
        options.append(OptionView(d, (), start, 0, 3, True, True, 3))
    svg = board_svg(course, boats, options, focus="yellow")
    x0, y0, x1, y1 = view_box(svg)
    found = discs(svg)
    assert len(found) == 6
    radius = DISC * SIZE
    for direction, x, y in found:
        for boat in boats:
            bx, by = pixel(boat.cell, SIZE)
            assert math.dist((x, y), (bx, by)) >= HULL + radius - 0.5, f"disc {direction} covers {boat.color}"
        # the disc stands towards its direction
        dx, dy = pixel(DIRECTIONS[direction], 1.0)
        sx, sy = pixel(start, SIZE)
        assert (x - sx) * dx + (y - sy) * dy > 0
        # and inside the drawing, also beyond the lake's edge
        assert x0 <= x - radius and x + radius <= x1 and y0 <= y - radius and y + radius <= y1
    # no two discs overlap
    for i, (_, ax, ay) in enumerate(found):
        for _, bx2, by2 in found[i + 1:]:
            assert math.dist((ax, ay), (bx2, by2)) >= 2 * radius


def test_a_moving_preview_ends_on_its_final_cell_and_is_a_tap_target(course):
    start = course.line[0]
    water = [c for c in course.lake.cells if c not in course.lake.land]
    path = (next(c for c in water if c != start),)
    svg = board_svg(course, [BoatView("yellow", start, 0)], [OptionView(0, path, path[0], 1, 1, True, False, 0)],
                    focus="yellow")
    (_, x, y), = discs(svg)
    assert (x, y) == pytest.approx(pixel(path[0], SIZE), abs=0.06)
    assert 'class="option-hit"' in svg and 'tabindex="0" role="button"' in svg


def test_static_layers_are_drawn_once_per_course_and_language(course):
    with override("en"):
        first = static_layers(course)
        assert static_layers(course) is first
    width, height = board_size(course)
    assert width > height  # the lake is landscape; a portrait phone turns it (CSS)


def forget_drawings_of_this_process(board) -> None:
    """What another process, or this one after its caches let the course go, starts from."""
    board._STATIC_BY_KEY.clear()
    board._versions.clear()


@pytest.mark.django_db
def test_static_layers_are_stored_once_per_course_and_language_for_every_process(monkeypatch):
    """Issue 10: the static layers are drawn once per course (and language), not once per
    process or parsed course object: the first drawing is stored (games.models.CourseDrawing)
    and every process reads it, although its course left games.state.course_by_key's cache."""
    import copy
    import gc

    import games.board as board
    from games.models import CourseDrawing
    from games.state import course_data, stored_course

    forget_drawings_of_this_process(board)
    course = new_course("expert", "C", random.Random(12))
    key = stored_course(course_data(course)).key
    with override("en"):
        drawn = static_layers(course, key)
    with override("de"):
        german = static_layers(course, key)
    assert sorted(CourseDrawing.objects.filter(course_id=key).values_list("language", flat=True)) == ["de", "en"]
    again = copy.deepcopy(course)  # the course parsed again: an equal object, not the same one
    del course
    gc.collect()
    forget_drawings_of_this_process(board)

    def no_drawing(self):
        raise AssertionError("drawn again")

    monkeypatch.setattr(board.Board, "render_static", no_drawing)
    with override("en"):
        assert static_layers(again, key) == drawn
    with override("de"):
        assert static_layers(again, key) == german
    assert german[1] != drawn[1] or german[0] != drawn[0]  # each language its own (titles, labels)
    with override("it"), pytest.raises(AssertionError, match="drawn again"):
        static_layers(again, key)  # a language not drawn yet is drawn
    # a new drawing code (or new words in a language: its catalogue is part of the version)
    # never meets an old drawing
    monkeypatch.setattr(board, "DRAWING_VERSION", board.DRAWING_VERSION + 1)
    forget_drawings_of_this_process(board)
    gc.collect()
    with override("en"), pytest.raises(AssertionError, match="drawn again"):
        static_layers(copy.deepcopy(again), key)


def test_the_version_of_a_drawing_follows_the_catalogue_of_its_language(tmp_path, settings):
    import games.board as board

    forget_drawings_of_this_process(board)
    english, german = board.drawing_version("en"), board.drawing_version("de")
    assert english != german and english.startswith(f"{board.DRAWING_VERSION}-")
    catalogue = tmp_path / "de" / "LC_MESSAGES" / "django.mo"
    catalogue.parent.mkdir(parents=True)
    catalogue.write_bytes(b"other words")
    settings.LOCALE_PATHS = [tmp_path]
    forget_drawings_of_this_process(board)
    assert board.drawing_version("de") not in (german, english)
    forget_drawings_of_this_process(board)


@pytest.mark.django_db
def test_the_page_has_a_legend_and_the_board_size_for_turning_it():
    game = placed_game()
    page = Client().get(f"/games/{game.pk}/").content.decode()
    legend = page[page.index('id="legend"'):]
    for words in ("water", "island", "buoy 1–3", "gate chevrons", "start/finish line", "spots"):
        assert words in legend
    # the board's size for turning it on a phone, in a style block the CSP allows (its nonce)
    assert re.search(r'<style nonce="[^"]+">#board { --bw:\d+;--bh:\d+ }</style>', page)
    assert 'id="zoom"' in page


@pytest.mark.django_db
def test_after_a_crash_the_dice_step_defaults_to_adding_a_die():
    def crashed_and_to_move(g):
        seat = Seat.objects.get(game=g, index=g.to_move)
        return g.phase == "dice" and seat.moves >= 1 and not seat.dice

    # the dice of a new game are a fresh secret, so a game may end before a crash (a CI run met
    # one): then another game
    for n in range(6):
        game = play_until(placed_game(yellow=make_user(f"cy{n}"), red=make_user(f"cr{n}")), crashed_and_to_move,
                          limit=800)
        if not game.over:
            break
    else:
        pytest.skip("the greedy games ended before a crash, six times")
    client = Client()
    assert client.login(username=game.player(game.to_move).username, password=PASSWORD)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert re.search(r'value="add" checked', page) and not re.search(r'value="keep" checked', page)


@pytest.mark.django_db
def test_holding_dice_the_default_is_still_to_keep_them():
    def holding(g):
        seat = Seat.objects.get(game=g, index=g.to_move)
        return g.phase == "dice" and seat.moves >= 1 and seat.dice

    game = play_until(placed_game(), holding)
    client = Client()
    assert client.login(username=game.player(game.to_move).username, password=PASSWORD)
    page = client.get(f"/games/{game.pk}/").content.decode()
    assert re.search(r'value="keep" checked', page) and not re.search(r'value="add" checked', page)


@pytest.mark.django_db
def test_the_sweep_drops_drawings_a_month_old_and_a_course_shown_again_is_drawn_again():
    from datetime import timedelta

    from django.utils import timezone

    import games.board as board
    from games.models import CourseDrawing
    from games.state import course_data, stored_course
    from games.tasks import sweep_clocks

    forget_drawings_of_this_process(board)
    old, new = (new_course("expert", letter, random.Random(5)) for letter in "AB")
    keys = [stored_course(course_data(c)).key for c in (old, new)]
    with override("en"):
        for course, key in zip((old, new), keys, strict=True):
            static_layers(course, key)
    CourseDrawing.objects.filter(course_id=keys[0]).update(
        created_at=timezone.now() - timedelta(days=board.DRAWING_DAYS, minutes=1))
    assert sweep_clocks()["drawings_pruned"] == 1
    assert list(CourseDrawing.objects.values_list("course_id", flat=True)) == [keys[1]]
    forget_drawings_of_this_process(board)
    board._STATIC.clear()
    with override("en"):
        static_layers(old, keys[0])
    assert CourseDrawing.objects.filter(course_id=keys[0]).count() == 1


@pytest.mark.django_db
def test_a_drawing_that_cannot_be_stored_is_shown_all_the_same(monkeypatch, caplog):
    from django.db import DatabaseError

    import games.board as board
    from games.models import CourseDrawing
    from games.state import course_data, stored_course

    course = new_course("expert", "B", random.Random(8))
    key = stored_course(course_data(course)).key

    def refused(*args, **kwargs):
        raise DatabaseError("the database is read-only")

    monkeypatch.setattr(CourseDrawing.objects, "bulk_create", refused)
    with override("en"):
        layers = static_layers(course, key)
    assert layers == board.Board(course).render_static() and 'class="cells"' in layers[1]
    assert "could not store the drawing" in caplog.text and not CourseDrawing.objects.exists()


def test_the_version_of_a_drawing_follows_the_drawing_code(monkeypatch, tmp_path):
    import games.board as board

    english = board.drawing_version("en")
    changed = tmp_path / "board.py"
    changed.write_text(open(board.__file__).read() + "\n# drawn differently\n")
    monkeypatch.setattr(board, "__file__", str(changed))
    board._versions.clear()
    assert board.drawing_version("en") != english, "a change of the drawing code is a new version by itself"
