"""Site pages of series of the boxed game (issue 16): the series lobby and a series' page with
every boat, the series table and the actions. Views parse input, call a service, and render."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST

from games.engine import Phase
from powerboats_site.strict import digits

from . import services_series
from .board import BoatView, OptionView, board_style, board_svg
from .errors import ServiceError
from .forms import DiceForm, DirectionForm, PlaceForm, ResignForm, posted_turn
from .models import DAYS_PER_MOVE, GRACE_DAYS, LakeSide
from .models_series import MAX_SEATS, MIN_SEATS, SeriesGame
from .movetext import series_long_forms
from .payloads_series import series_detail, series_summary
from .ratings_series import display, leaderboard, shown_ratings
from .selectors import open_series, series_of, series_with_seats
from .state import course_by_key
from .turn_forms import turn_context


class SeriesForm(forms.Form):
    seats = forms.TypedChoiceField(choices=[(n, n) for n in range(MIN_SEATS, MAX_SEATS + 1)], coerce=int, initial=4,
                                   label=gettext_lazy("Players"))
    days_per_move = forms.TypedChoiceField(choices=[(d, d) for d in DAYS_PER_MOVE], coerce=int, initial=3,
                                           label=gettext_lazy("Days per move"))
    grace_days = forms.TypedChoiceField(choices=[(d, d) for d in GRACE_DAYS], coerce=int, initial=7,
                                        label=gettext_lazy("Grace bank (days)"))
    lake_side = forms.ChoiceField(choices=LakeSide.choices, initial=LakeSide.STANDARD, label=gettext_lazy("Lake"))
    rated = forms.BooleanField(required=False, initial=True, label=gettext_lazy("Rated"))
    score_variant = forms.BooleanField(required=False, initial=False, label=gettext_lazy("Score variant (R19)"))


def _lobby(request: HttpRequest, form: SeriesForm, status: int = 200) -> HttpResponse:
    user = request.user if request.user.is_authenticated else None
    context = {
        "form": form,
        "open": [series_summary(s, seats, user) for s, seats in open_series()],
        "mine": [series_summary(s, seats, user) for s, seats in series_of(user)] if user else [],
        "leaders": [{"user": r.user, "rating": display(r), "deviation": r.deviation, "series": r.series,
                     "wins": r.wins} for r in leaderboard(20)],
    }
    return render(request, "series/lobby.html", context, status=status)


def series_lobby(request: HttpRequest) -> HttpResponse:
    """Open series to join, your series, a form to open one, the multi-player leaderboard."""
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={reverse('series_lobby')}")
        form = SeriesForm(request.POST)
        if not form.is_valid():
            return _lobby(request, form, 400)
        try:
            series = services_series.series_create(user=request.user, **form.cleaned_data)
        except ServiceError as exc:
            form.add_error(None, exc.message)
            return _lobby(request, form, exc.status)
        messages.info(request, _("Your series is open: it starts when its seats are filled."))
        return redirect("series", series_id=series.pk)
    return _lobby(request, SeriesForm())


LOBBY_ACTIONS = {
    "join": services_series.series_join,
    "leave": services_series.series_leave,
    "start": services_series.series_start,
    "cancel": services_series.series_cancel,
}


@login_required
@require_POST
def series_lobby_action(request: HttpRequest, series_id: int, action: str) -> HttpResponse:
    call = LOBBY_ACTIONS.get(action)
    if call is None and action != "bot":
        raise Http404("no such action")
    try:
        if action == "bot":
            services_series.series_add_bot(user=request.user, series_id=series_id,
                                           level=str(request.POST.get("level", "")))
        else:
            assert call is not None
            call(user=request.user, series_id=series_id)
    except ServiceError as exc:
        # refused (a bot strength already seated, a full series, ...): the page again, saying why
        series, seats = _loaded(series_id)
        return render(request, "series/series.html", _context(request, series, seats, exc), status=exc.status)
    if action == "cancel":
        return redirect("series_lobby")
    return redirect("series", series_id=series_id)


def _loaded(series_id: int) -> tuple[SeriesGame, list[Any]]:
    found = series_with_seats(series_id)
    if found is None or found[0].status == SeriesGame.Status.CANCELLED:
        raise Http404("no such series")
    return found


def _with_ratings(rows: list[dict[str, Any]], seats: list[Any]) -> None:
    """Each player's series rating as shown ('1500?' while provisional) beside their name, as a
    two-player game shows its players' ratings; house bots have none (a series with a bot is not
    rated)."""
    people = {s.user.username: s.user_id for s in seats if not getattr(s.user, "is_bot", False)}
    shown = shown_ratings(people.values())
    for row in rows:
        uid = people.get(row["username"])
        row["rating"] = shown[uid] if uid is not None else None


def _context(request: HttpRequest, series: SeriesGame, seats: list[Any], error: ServiceError | None = None
             ) -> dict[str, Any]:
    user = request.user if request.user.is_authenticated else None
    context: dict[str, Any] = {"series": series, "error": error, "board": None,
                               "live_over": series.status != SeriesGame.Status.ACTIVE}
    if series.status == SeriesGame.Status.OPEN:
        context["live_rev"] = services_series.seats_revision(series)  # its live stream (docs/live.md)
        context["detail"] = series_summary(series, seats, user)
        _with_ratings(context["detail"]["players"], seats)
        context["is_creator"] = user is not None and series.created_by_id == user.pk
        # each house bot plays once per series: the levels already seated are offered no more
        seated = {s.user.bot_level for s in seats if s.user.is_bot}
        names = {"easy": _("easy"), "normal": _("normal"), "strong": _("strong")}
        free = [level for level in names if level not in seated]
        context["bot_levels"] = [(level, names[level], level not in free) for level in names]
        context["bot_default"] = "normal" if "normal" in free else (free[0] if free else None)
        return context
    played = services_series.engine_of(series, seats)
    actions = list(series.actions.order_by("ply"))
    total = len(actions)
    at = _at(request, total)
    replaying = at < total
    # the replay control (?at=N, as a game's): the series as it stood after N actions
    engine = services_series.replay(series, seats, actions[:at]).series if replaying else played.series
    detail = series_detail(series, seats, engine, actions, user, replayed=replaying)
    # each action in words beside its notation, read from the replay (games/movetext.py)
    lines = [{c: i + 1 for i, c in enumerate(course_by_key(k).line)}
             for k in series.course_keys[:len(played.series.races)]]
    long = series_long_forms(actions, played.logs, {s.index: s.color for s in seats if s.index is not None}, lines)
    for entry, words in zip(detail["history"], long, strict=True):
        entry["long"] = words
    _with_ratings(detail["table"], seats)
    for row in detail["table"]:  # "A 0 · B 1": the damage counters carried into each race, by its letter (R20)
        row["carried_by_race"] = [("ABC"[i], n) for i, n in enumerate(row["carried_damage"]) if n is not None]
    race = engine.race
    focus = detail["your_color"]
    boats = [BoatView(b.color, b.cell if b.racing else None, b.heading, next_buoy=b.next_buoy, finished=b.finished,
                      sunk=b.sunk) for b in race.boats]
    options: list[OptionView] = []
    placeable: list[tuple[int, int]] = []
    your_turn = detail["your_turn"]
    if your_turn and race.phase is Phase.DIRECTION:
        options = [OptionView(o.direction, o.path, o.final, o.reach, o.total, o.allowed, o.crash, o.damage, o.rounded,
                              o.finishes, o.sinks) for o in race.options()]
    if your_turn and race.phase is Phase.PLACE:
        placeable = race.free_start_cells()
    key = series.course_keys[len(engine.races) - 1]
    course = course_by_key(key)
    context.update(
        detail=detail,
        board=board_svg(course, boats, options, placeable, focus, key=key),
        board_size=board_style(course, key),
        phase=race.phase.value,
        your_turn=your_turn,
        letter="ABC"[len(engine.races) - 1],
        races_played=["ABC"[i] for i in range(len(engine.races))],
        to_move_name=next((b["username"] for b in detail["boats"] if b["color"] == detail["to_move"]), None),
        history=_history_window(detail["history"], at, replaying),
        at=at,
        total=total,
        replaying=replaying,
        you_play=focus is not None and not any(t["left"] for t in detail["table"] if t["color"] == focus),
    )
    if your_turn:  # as the board numbers the start cells
        context.update(turn_context(race, placeable, {c: i + 1 for i, c in enumerate(course.line)}))
    return context


HISTORY_SHOWN = 40


def _at(request: HttpRequest, total: int) -> int:
    """The replay's position: ``?at=N`` actions (0 to all; anything else: now)."""
    text = request.GET.get("at", "")
    return max(0, min(int(text), total)) if digits(text) else total


def _history_window(history: list[dict[str, Any]], at: int, replaying: bool) -> list[dict[str, Any]]:
    """The actions listed, newest first, each with the replay's position after it (``after``):
    the last ``HISTORY_SHOWN``, or when replaying those around the position shown (marked)."""
    for i, entry in enumerate(history):
        entry["after"] = i + 1
        entry["current"] = replaying and i + 1 == at
    end = len(history) if not replaying else min(len(history), max(at + HISTORY_SHOWN // 2, HISTORY_SHOWN))
    return list(reversed(history[max(0, end - HISTORY_SHOWN):end]))


@require_GET
def series_page(request: HttpRequest, series_id: int) -> HttpResponse:
    series, seats = _loaded(series_id)
    return render(request, "series/series.html", _context(request, series, seats))


def _turn(request: HttpRequest, series_id: int, form: Any, act: Any) -> HttpResponse:
    def page(error: ServiceError, status: int) -> HttpResponse:
        series, seats = _loaded(series_id)
        return render(request, "series/series.html", _context(request, series, seats, error), status=status)

    return posted_turn(form, act, page, reverse("series", args=[series_id]))


@login_required
@require_POST
def series_place(request: HttpRequest, series_id: int) -> HttpResponse:
    form = PlaceForm(request.POST)
    return _turn(request, series_id, form, lambda: services_series.series_place(
        user=request.user, series_id=series_id, ply=form.cleaned_data["ply"], cell=form.cell_value(),
        heading=form.cleaned_data["heading"]))


@login_required
@require_POST
def series_roll(request: HttpRequest, series_id: int) -> HttpResponse:
    form = DiceForm(request.POST)
    return _turn(request, series_id, form, lambda: services_series.series_roll(
        user=request.user, series_id=series_id, ply=form.cleaned_data["ply"], choice=form.choice()))


@login_required
@require_POST
def series_direction(request: HttpRequest, series_id: int) -> HttpResponse:
    form = DirectionForm(request.POST)
    return _turn(request, series_id, form, lambda: services_series.series_direction(
        user=request.user, series_id=series_id, ply=form.cleaned_data["ply"],
        direction=form.cleaned_data["direction"]))


@login_required
@require_POST
def series_resign(request: HttpRequest, series_id: int) -> HttpResponse:
    form = ResignForm(request.POST)
    response = _turn(request, series_id, form,
                     lambda: services_series.series_resign(user=request.user, series_id=series_id))
    if response.status_code == 302:
        messages.info(request, _("You left the series; your points so far stand (R18)."))
    return response
