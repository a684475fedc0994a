"""Site views: they parse input, call a service, and render. No rules here."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AnonymousUser
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from accounts.services import user_set_language, user_set_notifications
from common.errors import ServiceError
from common.markup import text
from common.text import digits
from games.engine import DIRECTION_NAMES, Phase, Series

from . import clock, plans, services, vacations
from .advice import advice, advice_words, guided, opponent_is_house_bot
from .board import UNREAD, BoatView, OptionView, Stored, Unread, board_style, board_svg, drawing_version
from .bots import house_bots, play_house_bot
from .errors import StalePly
from .forms import (
    ChallengeForm,
    DiceForm,
    DirectionForm,
    NotificationsForm,
    PlaceForm,
    PlanForm,
    PreferencesForm,
    ResignForm,
    SeriesForm,
    SignUpForm,
    VacationForm,
    apply_clock,
    form_error,
    posted_turn,
)
from .models import Game, Move, Plan
from .movetext import KEPT_LONG_FORMS
from .notifications import push
from .notifications.emails import BadToken, unsubscribe_link_use, unsubscribe_token, user_from_token
from .payloads import action_entries, series_detail, series_summary, shown_rows
from .ratings.models import Rating
from .ratings.selectors import display as rating_display
from .ratings.selectors import series_display, series_leaderboard, shown_series_ratings
from .rules_examples import examples, legend
from .rulesets import match_of
from .selectors import (
    PAGE_COLUMNS,
    game_id_of_series,
    game_to_show,
    games_of,
    history,
    open_challenges,
    open_games,
    series_of,
)
from .state import LETTERS, course_by_key, course_of, playing, record_of, replay, state_of
from .turn_forms import plan_context, turn_context

User = get_user_model()


def help_page(request: HttpRequest) -> HttpResponse:
    return render(request, "help.html")


RULES_LANGUAGES = ("en", "de", "it")


@require_GET
def rules_page(request: HttpRequest) -> HttpResponse:
    """The rules as this site enforces them, with boards the engine played (games.rules_examples),
    in the active language or the one ``?lang=`` names (``en``, ``de``, ``it``)."""
    asked = request.GET.get("lang")
    if asked is not None and asked not in RULES_LANGUAGES:
        return render(request, "400.html", {
            "title": gettext("No such language"),
            "message": gettext("lang: the rules are written in %(languages)s, not %(asked)r")
            % {"languages": ", ".join(RULES_LANGUAGES), "asked": asked},
        }, status=400)
    lang = asked or (translation.get_language() or "en").split("-")[0]
    if lang not in RULES_LANGUAGES:
        lang = "en"
    with translation.override(lang):
        return render(request, f"rules/rules_{lang}.html", {
            "lang": lang, "languages": RULES_LANGUAGES, "examples": examples(), "legend": legend(),
        })


def health(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


def signup(request: HttpRequest) -> HttpResponse:
    """Sign up and log in. From the home page's "Play the computer now" (``?then=bot``, kept in
    the form's URL) the new player lands back on that button, signed in now, one click from the
    game; otherwise in the lobby."""
    form = SignUpForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # the language the player signed up in (the switcher's or the browser's) is theirs from now
        # on, for the emails too (a blank language sends them in English); Settings changes it
        language = (getattr(request, "LANGUAGE_CODE", "") or "").split("-")[0]
        if language in dict(settings.LANGUAGES):
            user_set_language(user=user, language=language)
        login(request, user, backend="accounts.backends.PlayerBackend")
        if request.GET.get("then") == "bot":
            messages.success(request, _("Welcome, %(name)s! Your game against the computer is one click away: "
                                        "press “Play the computer now” (or choose “Easier” or “Stronger”).")
                             % {"name": user.username})
            return redirect(reverse("home") + "#play-bot")
        messages.success(request, _("Welcome, %(name)s! Challenge someone in the lobby.") % {"name": user.username})
        return redirect("lobby")
    return render(request, "registration/signup.html", {"form": form}, status=400 if form.errors else 200)


# --- lobby --------------------------------------------------------------------------------


@login_required
def lobby(request: HttpRequest) -> HttpResponse:
    form = ChallengeForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = clock.with_terms(apply_clock(dict(form.cleaned_data)))
            try:
                services.challenge_create(
                    user=request.user, color=data["color"], days_per_move=data["days_per_move"],
                    grace_days=data["grace_days"],
                    course_letter=data["course_letter"], lake_side=data["lake_side"], rated=data["rated"],
                    opponent=data["opponent"], terms=data["terms"],
                )
            except ServiceError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, exc.message)
                status = exc.status
            else:
                messages.success(request, _("Challenge made."))
                return redirect("lobby")
        else:
            status = 400
    return render(request, "games/lobby.html", _lobby_context(request, form), status=status)


def _lobby_context(request: HttpRequest, form: Any) -> dict[str, Any]:
    recent = games_of(request.user).filter(status=Game.Status.FINISHED).order_by("-finished_at", "-pk")[:5]
    return {"form": form, "challenges": open_challenges(request.user), "bots": house_bots(), "recent": recent}


@login_required
@require_POST
def play_bot(request: HttpRequest) -> HttpResponse:
    """Challenge a house bot; it accepts at once and the game starts."""
    form = ChallengeForm(request.POST)
    level = request.POST.get("level", "")
    if not form.is_valid():
        return render(request, "games/lobby.html", _lobby_context(request, form), status=400)
    data = clock.with_terms(apply_clock(dict(form.cleaned_data)))
    try:
        game = play_house_bot(
            user=request.user, level=level, color=data["color"], days_per_move=data["days_per_move"],
            grace_days=data["grace_days"], course_letter=data["course_letter"], lake_side=data["lake_side"],
            rated=data["rated"], terms=data["terms"],
        )
    except ServiceError as exc:
        messages.error(request, exc.message)
        return render(request, "games/lobby.html", _lobby_context(request, ChallengeForm()), status=exc.status)
    return redirect("game", game_id=game.pk)


@login_required
@require_POST
def challenge_action(request: HttpRequest, challenge_id: int, action: str) -> HttpResponse:
    try:
        if action == "accept":
            game = services.challenge_accept(user=request.user, challenge_id=challenge_id)
            messages.success(request, _("Challenge accepted: the game has started."))
            return redirect("game", game_id=game.pk)
        if action == "cancel":
            services.challenge_cancel(user=request.user, challenge_id=challenge_id)
            messages.success(request, _("Challenge cancelled."))
        elif action == "decline":
            services.challenge_decline(user=request.user, challenge_id=challenge_id)
            messages.success(request, _("Challenge declined."))
    except ServiceError as exc:
        messages.error(request, exc.message)
        return render(request, "games/lobby.html", _lobby_context(request, ChallengeForm()), status=exc.status)
    return redirect("lobby")


@login_required
def my_games(request: HttpRequest) -> HttpResponse:
    games = list(games_of(request.user))
    mine = [g for g in games if g.user_id_to_move == request.user.pk]  # your turn first (games_of)
    waiting = min(mine, key=lambda g: (g.deadline is None, g.deadline, g.pk), default=None)  # oldest deadline
    return render(request, "games/my_games.html", {"games": games, "next_game": waiting})


# --- the game page ------------------------------------------------------------------------


@dataclass
class Position:
    """Boats as they stood after ``at`` actions, for the board, the panel and replays."""

    boats: list[BoatView]
    damage: list[int]
    dice: list[list[int]]
    buoys: list[int]


def position_at(colors: list[str], rows: list[Move], at: int) -> Position:
    """The boats of a two-player game after the first ``at`` actions (history rows)."""
    views: list[dict[str, Any]] = [
        {"color": c, "cell": None, "heading": 0, "path": (), "start": None, "next_buoy": 1, "finished": False,
         "sunk": False}
        for c in colors
    ]
    damage = [0] * len(colors)
    dice: list[list[int]] = [[] for _ in colors]
    for row in rows[:at]:
        v = views[row.seat]
        if row.kind == Move.Kind.PLACE:
            assert row.final is not None
            v.update(cell=tuple(row.final), heading=row.heading)
            continue
        if row.kind == Move.Kind.ROLL:
            dice[row.seat] = list(row.dice)
            continue
        if row.kind == Move.Kind.END:
            continue
        assert row.final is not None
        v.update(
            cell=tuple(row.final), heading=row.heading, path=tuple(tuple(c) for c in row.path),
            start=tuple(row.start) if row.start else None, next_buoy=v["next_buoy"] + len(row.rounded),
            finished=v["finished"] or row.finished, sunk=row.sunk,
        )
        damage[row.seat] = row.damage_total
        dice[row.seat] = [] if row.crash else list(row.dice)
    return Position([BoatView(**v) for v in views], damage, dice, [v["next_buoy"] - 1 for v in views])


def _game_context(request: HttpRequest, game: Game, seats: list[Any], error: ServiceError | None = None,
                  drawing: Stored | Unread | None = UNREAD, *, ratings: dict[int, Rating]) -> dict[str, Any]:
    """The page of a game, of any ruleset: a two-player game's here, a series' in
    :func:`_series_context`. ``seats``, ``drawing`` and the players' two-player ``ratings`` as
    :func:`_loaded` read them."""
    if game.multi_race:
        return _series_context(request, game, seats, error)
    user = request.user if request.user.is_authenticated else None
    rows = history(game, PAGE_COLUMNS)
    total = len(rows)
    try:
        at = int(request.GET.get("at", total))
    except ValueError:
        at = total
    at = max(0, min(at, total))
    replaying = at < total
    state = state_of(game, seats)
    course = course_of(game)
    viewer = game.seat_of(user)
    your_turn = viewer is not None and not game.over and viewer == game.to_move and not replaying
    colors = [s.color for s in seats]
    position = position_at(colors, rows, at)
    options: list[OptionView] = []
    placeable: list[tuple[int, int]] = []
    if your_turn and state.phase is Phase.DIRECTION:
        options = [
            OptionView(o.direction, o.path, o.final, o.reach, o.total, o.allowed, o.crash, o.damage, o.rounded,
                       o.finishes, o.sinks)
            for o in state.options()
        ]
    if your_turn and state.phase is Phase.PLACE:
        placeable = state.free_start_cells()
    focus = game.color_of(viewer) if viewer is not None else None
    svg = board_svg(course, position.boats, options, placeable, focus, key=game.course_id, stored=drawing)
    players = []
    for s in seats:
        now = not replaying
        players.append({
            "color": s.color,
            "user": s.user,
            "rating": rating_display(ratings.get(s.user_id)),
            "dice": list(s.dice) if now else position.dice[s.index],
            "damage": s.damage if now else position.damage[s.index],
            "buoys": s.buoys if now else position.buoys[s.index],
            "points": s.points if now else position.buoys[s.index] + position.boats[s.index].finished,
            "finished": s.finished if now else position.boats[s.index].finished,
            "sunk": s.sunk if now else position.boats[s.index].sunk,
            "to_move": now and not game.over and game.to_move == s.index,
            "next_buoy": s.next_buoy if now else position.boats[s.index].next_buoy,
        })
    line_index = {c: i + 1 for i, c in enumerate(course.line)}
    long = KEPT_LONG_FORMS.by_ply(game.pk, game.dice_seed_sha256, rows, colors, line_index)
    context: dict[str, Any] = {
        "players": players,
        "game": game,
        "board": svg,
        "board_size": board_style(course, game.course_id),  # drawn above: kept in the process
        "at": at,
        "total": total,
        "replaying": replaying,
        "moves": move_items(shown_rows(rows), long, at, replaying),
        "winner": next((s.user for s in seats if s.user_id == game.winner_id), None),
        "your_turn": your_turn,
        "viewer_color": focus,
        "phase": state.phase.value,
        "position": position,
        "seats": seats,
        "error": error,
        "direction_names": DIRECTION_NAMES,
    }
    if your_turn and user is not None:
        found = advice(game, user)
        context["advice"] = advice_words(found, game, line_index) if found else None
        context["advice_offered"] = found is not None or (
            not game.rated and viewer is not None and opponent_is_house_bot(game, viewer))
        context["guide"] = guided(game, user)
    if your_turn:
        context.update(turn_context(state, placeable, line_index))
    elif viewer is not None and not game.over and not replaying:
        context.update(_plan_panel(game, seats, viewer, state))
    return context


def _plan_panel(game: Game, seats: list[Any], viewer: int, match: Any) -> dict[str, Any]:
    """The plan panel of a player whose turn it is not (games/plans.py): their own plan only, read
    only when they have one (``Seat.planned``, read with the game)."""
    mine = next((s for s in seats if s.index == viewer), None)
    if mine is None or mine.left:
        return {}
    plan = Plan.objects.filter(game=game, seat=viewer).first() if mine.planned else None
    return plan_context(plans.planner_state(match, mine), plan.turns if plan is not None else None)


def move_items(rows: Iterable[Move], long: dict[int, str], at: int, replaying: bool) -> SafeString:
    """The move list's items: one per row, its notation linking to the position after it and
    its long form. Written here rather than as a template loop, which costs ~0.14 ms a move
    (a page of a finished game shows seventy and more)."""
    items = []
    planned = text(gettext("played from the plan"))
    for row in rows:
        after = row.ply + 1
        current = " current" if replaying and after == at else ""
        mark = f' <small class="planned">({planned})</small>' if row.planned else ""
        items.append(f'<li class="move-{text(row.kind)}{current}"><a href="?at={after}"><code class="notation">'
                     f'{text(row.notation)}</code></a> <span class="long">{text(long[row.ply])}</span>{mark}</li>')
    return mark_safe("".join(items))  # every value above is escaped


def _loaded(game_id: int) -> tuple[Game, list[Any], Stored | None, dict[int, Rating]]:
    """The game to show, its seats, its board's stored drawing and its players' ratings, in one
    query (a cancelled series is gone)."""
    found = game_to_show(game_id, translation.get_language() or "en", drawing_version())
    if found is None or found[0].status == Game.Status.CANCELLED:
        raise Http404("no such game")
    return found


@require_GET
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game, seats, drawing, ratings = _loaded(game_id)
    return render(request, page_template(game), _game_context(request, game, seats, drawing=drawing, ratings=ratings))


@dataclass(frozen=True)
class Part:
    ply: int
    players: tuple[int, ...]
    html: str

    @cached_property
    def body(self) -> bytes:
        return self.html.encode()


PartKey = tuple[int, int, str, str, str]  # game, ply, replayed position (?at=), language, time zone


class SpectatorParts:
    """The game page's changing part as spectators see it, kept per process for each move,
    replayed position, language and time zone: the same for every spectator (no form, no token,
    nothing of theirs), so a crowd watching a game costs one render per move, not one per
    spectator (static/js/live.js fetches it on every live event: through the streams' handler,
    games.streams.views.game_part, or this site's game_live). Used from the site's threads and the
    streams' event loop: a lock."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self.parts: OrderedDict[PartKey, Part] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: PartKey) -> Part | None:
        with self.lock:
            return self.parts.get(key)

    def put(self, key: PartKey, part: Part) -> None:
        with self.lock:
            self.parts[key] = part
            while len(self.parts) > self.size:
                self.parts.popitem(last=False)


SPECTATOR_PARTS = SpectatorParts()


def spectator_part(game_id: int, at: str) -> Part | None:
    """Render the changing part of a game's page as a spectator sees it, in the active language
    and time zone, and keep it (None: no such game)."""
    try:
        game, seats, drawing, ratings = _loaded(game_id)
    except Http404:
        return None
    viewer = SimpleNamespace(user=AnonymousUser(), GET=QueryDict(mutable=True))
    if at:
        viewer.GET["at"] = at
    context = _game_context(viewer, game, seats, drawing=drawing, ratings=ratings)  # type: ignore[arg-type]
    part = Part(game.ply, tuple(game.player_ids), render_to_string(part_template(game), context))
    SPECTATOR_PARTS.put(part_key(game.pk, game.ply, at), part)
    return part


def part_key(game_id: int, ply: int, at: str) -> PartKey:
    return (game_id, ply, at, translation.get_language() or "", timezone.get_current_timezone_name())


def asked_ply(text: str) -> int | None:
    return int(text) if digits(text) and len(text) < 10 else None


@require_GET
def game_live(request: HttpRequest, game_id: int) -> HttpResponse:
    """The game page's changing part alone (templates/games/_game.html) for its player: what
    live.js morphs into their open page on a live event (a spectator's page asks
    games.streams.views.game_part, or, under a sync server, this view, which then gives the
    spectators' kept part)."""
    at = request.GET.get("at", "")
    user_id = request.user.pk if request.user.is_authenticated else None
    asked = asked_ply(request.GET.get("ply", ""))
    if asked is not None:
        kept = SPECTATOR_PARTS.get(part_key(game_id, asked, at))
        if kept is not None and user_id not in kept.players:
            return part_response(kept.html)
    game, seats, drawing, ratings = _loaded(game_id)
    open_series = game.status == Game.Status.OPEN  # its forms are the reader's own (join, start, ...)
    if game.seat_of(request.user if user_id is not None else None) is None and not open_series:
        part = spectator_part(game_id, at)
        if part is None:
            raise Http404("no such game")
        return part_response(part.html)
    context = _game_context(request, game, seats, drawing=drawing, ratings=ratings)
    return part_response(render_to_string(part_template(game), context, request=request))


def part_template(game: Game) -> str:
    """The changing part of a game's page: a two-player game's, a series' (open or in play)."""
    if not game.multi_race:
        return "games/_game.html"
    return "games/_series_open.html" if game.status == Game.Status.OPEN else "games/_series.html"


def page_template(game: Game) -> str:
    return "games/series.html" if game.multi_race else "games/game.html"


def part_response(html: str) -> HttpResponse:
    response = HttpResponse(html)
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def game_advice(request: HttpRequest, game_id: int) -> HttpResponse:
    """Turn the strong bot's advice on or off (casual games against the house bots only)."""
    user = request.user
    assert isinstance(user, User)  # login_required
    user.bot_hints = request.POST.get("on") == "1"
    user.save(update_fields=["bot_hints"])
    return redirect("game", game_id=game_id)


@login_required
@require_POST
def guide_done(request: HttpRequest) -> HttpResponse:
    """A new account dismisses the first game's hints."""
    user = request.user
    assert isinstance(user, User)  # login_required
    user.guide_done = True
    user.save(update_fields=["guide_done"])
    back = request.POST.get("next", "")
    return redirect(back if back.startswith("/") and not back.startswith("//") else "lobby")


@require_GET
def game_board(request: HttpRequest, game_id: int) -> HttpResponse:
    """The board alone (for the replay control without reloading the page)."""
    game, seats, drawing, ratings = _loaded(game_id)
    context = _game_context(request, game, seats, drawing=drawing, ratings=ratings)
    return HttpResponse(context["board"], content_type="image/svg+xml")


@require_GET
def game_record(request: HttpRequest, game_id: int) -> JsonResponse:
    game = get_object_or_404(Game, pk=game_id)
    if game.status in (Game.Status.OPEN, Game.Status.CANCELLED):
        raise Http404("the game has not started")
    response = JsonResponse(record_of(game), json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'inline; filename="powerboats-{game.pk}.json"'
    return response


def _turn(request: HttpRequest, game_id: int, form: Any, act: Any) -> HttpResponse:
    def page(error: ServiceError, status: int) -> HttpResponse:
        if isinstance(error, StalePly):
            # a form from a page the game has moved on from (another tab, the opponent's move, a
            # second click): the game as it is now, at its own address, not the refusal at the form's
            messages.info(request, _("The game moved on meanwhile (in another tab, or your opponent moved): "
                                     "here it is as it stands now."))
            return redirect(reverse("game", args=[game_id]) + "#board")
        game, seats, drawing, ratings = _loaded(game_id)
        return render(request, page_template(game), _game_context(request, game, seats, error, drawing, ratings=ratings),
                      status=status)

    return posted_turn(form, act, page, reverse("game", args=[game_id]))


@login_required
@require_POST
def place(request: HttpRequest, game_id: int) -> HttpResponse:
    form = PlaceForm(request.POST)
    return _turn(request, game_id, form, lambda: services.game_place(
        user=request.user, game_id=game_id, ply=form.cleaned_data["ply"], cell=form.cell_value(),
        heading=form.cleaned_data["heading"],
    ))


@login_required
@require_POST
def roll(request: HttpRequest, game_id: int) -> HttpResponse:
    form = DiceForm(request.POST)
    return _turn(request, game_id, form, lambda: services.game_roll(
        user=request.user, game_id=game_id, ply=form.cleaned_data["ply"], choice=form.choice(),
    ))


@login_required
@require_POST
def direction(request: HttpRequest, game_id: int) -> HttpResponse:
    form = DirectionForm(request.POST)
    return _turn(request, game_id, form, lambda: services.game_choose_direction(
        user=request.user, game_id=game_id, ply=form.cleaned_data["ply"], direction=form.cleaned_data["direction"],
    ))


@login_required
@require_POST
def plan(request: HttpRequest, game_id: int) -> HttpResponse:
    """Save or cancel the player's plan for their next turn (games/plans.py)."""
    back = reverse("game", args=[game_id]) + "#plan"

    def page(error: ServiceError, status: int) -> HttpResponse:
        game, seats, drawing, ratings = _loaded(game_id)
        messages.error(request, error.message)
        return render(request, page_template(game), _game_context(request, game, seats, None, drawing, ratings=ratings),
                      status=status)

    try:
        if "cancel" in request.POST:
            plans.plan_cancel(user=request.user, game_id=game_id)
            messages.success(request, _("Your plan is cancelled: you play your next turn yourself."))
            return redirect(back)
        form = PlanForm(request.POST)
        if not form.is_valid():
            return page(form_error(form), 400)
        plans.plan_set(user=request.user, game_id=game_id, turns=form.turns())
    except ServiceError as exc:
        return page(exc, exc.status)
    messages.success(request, _("Your plan is saved: the site plays it when your turn comes, unless you change it."))
    return redirect(back)


@login_required
def resign(request: HttpRequest, game_id: int) -> HttpResponse:
    """Resign: a page that asks (a two-player game); a series' page posts its own box (R18)."""
    game = get_object_or_404(Game, pk=game_id)
    form = ResignForm(request.POST if request.method == "POST" else None)
    if game.multi_race and request.method == "POST":
        response = _turn(request, game_id, form, lambda: services.game_resign(user=request.user, game_id=game_id))
        if response.status_code == 302:
            messages.info(request, _("You left the series; your points so far stand (R18)."))
        return response
    if request.method == "POST" and form.is_valid():
        try:
            services.game_resign(user=request.user, game_id=game_id)
        except ServiceError as exc:
            form.add_error(None, exc.message)
            return render(request, "games/resign.html", {"game": game, "form": form}, status=exc.status)
        messages.info(request, _("You resigned."))
        return redirect("game", game_id=game_id)
    return render(request, "games/resign.html", {"game": game, "form": form}, status=400 if form.errors else 200)


# --- a series of the boxed game: its page, the lobby, the old addresses ------------------------------


def _with_ratings(rows: list[dict[str, Any]], seats: list[Any]) -> None:
    """Each player's series rating as shown ('1500?' while provisional) beside their name, as a
    two-player game shows its players' ratings; house bots have none (a series with a bot is not
    rated)."""
    people = {s.user.username: s.user_id for s in seats if not getattr(s.user, "is_bot", False)}
    shown = shown_series_ratings(people.values())
    for row in rows:
        uid = people.get(row["username"])
        row["rating"] = shown[uid] if uid is not None else None


def _series_context(request: HttpRequest, game: Game, seats: list[Any], error: ServiceError | None = None
                    ) -> dict[str, Any]:
    """The page of a game of the boxed rules: open (its seats, joining, starting, bots), or in play
    (the race's lake with every boat, the series table, the actions, the turn's forms)."""
    user = request.user if request.user.is_authenticated else None
    context: dict[str, Any] = {"game": game, "series": game, "error": error, "board": None,
                               "live_over": game.status != Game.Status.ACTIVE}
    if game.status == Game.Status.OPEN:
        context["live_rev"] = services.seats_revision(game)  # its live stream (docs/live.md)
        context["detail"] = series_summary(game, seats, user)
        _with_ratings(context["detail"]["players"], seats)
        context["is_creator"] = user is not None and game.created_by_id == user.pk
        # each house bot plays once per series: the levels already seated are offered no more
        seated = {s.user.bot_level for s in seats if s.user.is_bot}
        names = {"easy": _("easy"), "normal": _("normal"), "strong": _("strong")}
        free = [level for level in names if level not in seated]
        context["bot_levels"] = [(level, names[level], level not in free) for level in names]
        context["bot_default"] = "normal" if "normal" in free else (free[0] if free else None)
        return context
    played = match_of(game, seats)
    assert isinstance(played, Series)
    rows = history(game)
    entries = action_entries(rows)
    total = len(entries)
    at = _at(request, total)
    replaying = at < total
    # the replay control (?at=N, as a game's): the series as it stood after N actions
    if replaying:
        upto = entries[at]["row"].ply if at < len(entries) else len(rows)
        engine = replay(game, seats, [r for r in rows if r.ply < upto])
        assert isinstance(engine, Series)
    else:
        engine = played
    detail = series_detail(game, seats, engine, rows, user, replayed=replaying)
    # each action in words beside its notation (games/movetext.py)
    lines = [{c: i + 1 for i, c in enumerate(course_by_key(k).line)} for k in game.course_keys]
    colors = [s.color for s in playing(seats)]
    long = KEPT_LONG_FORMS.by_ply(game.pk, game.dice_seed_sha256, rows, colors, lines)
    for entry, shown in zip(entries, detail["history"], strict=True):
        turn = entry["turn"]
        shown["long"] = long[turn.ply if turn is not None else entry["ply"]]
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
    key = game.course_keys[len(engine.races) - 1]
    course = course_by_key(key)
    context.update(
        detail=detail,
        board=board_svg(course, boats, options, placeable, focus, key=key),
        board_size=board_style(course, key),
        phase=race.phase.value,
        your_turn=your_turn,
        letter=LETTERS[len(engine.races) - 1],
        races_played=[LETTERS[i] for i in range(len(engine.races))],
        to_move_name=next((b["username"] for b in detail["boats"] if b["color"] == detail["to_move"]), None),
        history=_history_window(detail["history"], at, replaying),
        at=at,
        total=total,
        replaying=replaying,
        viewer_color=focus,
        you_play=focus is not None and not any(t["left"] for t in detail["table"] if t["color"] == focus),
    )
    if your_turn:  # as the board numbers the start cells
        context.update(turn_context(race, placeable, {c: i + 1 for i, c in enumerate(course.line)}))
    elif context["you_play"] and game.status == Game.Status.ACTIVE and not replaying:
        viewer = next(s.index for s in seats if s.color == focus)
        context.update(_plan_panel(game, seats, viewer, played))
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


LOBBY_PAGE_SIZE = 50


def _series_lobby(request: HttpRequest, form: SeriesForm, status: int = 200) -> HttpResponse:
    user = request.user if request.user.is_authenticated else None
    page = Paginator(open_games(), LOBBY_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "form": form,
        "open": [series_summary(g, g.seat_list(), user) for g in page],
        "open_page": page,
        "mine": [series_summary(g, seats, user) for g, seats in series_of(user)] if user else [],
        "leaders": [{"user": r.user, "rating": series_display(r), "deviation": r.deviation, "series": r.series,
                     "wins": r.wins} for r in series_leaderboard(20)],
    }
    return render(request, "games/series_lobby.html", context, status=status)


def series_lobby(request: HttpRequest) -> HttpResponse:
    """Series of the boxed game: open ones to join, yours, a form to open one, the multi-player
    leaderboard."""
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('login')}?next={reverse('series_lobby')}")
        form = SeriesForm(request.POST)
        if not form.is_valid():
            return _series_lobby(request, form, 400)
        try:
            game = services.game_open(user=request.user, **clock.with_terms(apply_clock(dict(form.cleaned_data))))
        except ServiceError as exc:
            form.add_error(None, exc.message)
            return _series_lobby(request, form, exc.status)
        messages.info(request, _("Your series is open: it starts when its seats are filled."))
        return redirect("game", game_id=game.pk)
    return _series_lobby(request, SeriesForm())


LOBBY_ACTIONS = {
    "join": services.game_join,
    "leave": services.game_leave,
    "start": services.game_start,
    "cancel": services.game_cancel,
}


@login_required
@require_POST
def lobby_action(request: HttpRequest, game_id: int, action: str) -> HttpResponse:
    """An open game's seats: join, leave, start, cancel, or give a seat to a house bot."""
    call = LOBBY_ACTIONS.get(action)
    if call is None and action != "bot":
        raise Http404("no such action")
    try:
        if action == "bot":
            services.game_add_bot(user=request.user, game_id=game_id, level=str(request.POST.get("level", "")))
        else:
            assert call is not None
            call(user=request.user, game_id=game_id)
    except ServiceError as exc:
        # refused (a bot strength already seated, a full series, ...): the page again, saying why
        game, seats, drawing, ratings = _loaded(game_id)
        return render(request, page_template(game), _game_context(request, game, seats, exc, drawing, ratings=ratings),
                      status=exc.status)
    if action == "cancel":
        return redirect("series_lobby")
    return redirect("game", game_id=game_id)


def series_address(request: HttpRequest, number: int, rest: str = "") -> HttpResponse:
    """The old addresses of a series (/series/<n>/…, from before series were games): the same
    page of the game it is now; a form posted there is sent on with its method and body (308)."""
    game_id = game_id_of_series(number)
    if game_id is None:
        raise Http404("no such series")
    if rest.strip("/") in LOBBY_ACTIONS or rest.strip("/") == "bot":
        rest = "lobby/" + rest  # the seats of an open series
    target = reverse("game", args=[game_id]) + rest
    query = request.META.get("QUERY_STRING", "")
    if query:
        target += "?" + query
    permanent = HttpResponsePermanentRedirect(target)
    if request.method not in ("GET", "HEAD"):
        permanent.status_code = 308
    return permanent


# --- settings, vacation, unsubscribe ---------------------------------------------------------


@login_required
def settings_page(request: HttpRequest) -> HttpResponse:
    user: Any = request.user
    saving = request.method == "POST" and "save" in request.POST
    form = PreferencesForm(request.POST if saving else None, instance=user)
    notices = NotificationsForm(request.POST if saving else None, user=user)
    status = 200
    if request.method == "POST":
        try:
            if saving:
                if form.is_valid() and notices.is_valid():
                    form.save()
                    vacations.clock_settings_set(user=user, time_zone_changed="time_zone" in form.changed_data)
                    user_set_notifications(user=user, notify=notices.notify(),
                                           quiet=(notices.cleaned_data["quiet_from"], notices.cleaned_data["quiet_to"]),
                                           next_game_link=notices.cleaned_data["next_game_link"])
                    # in the language just chosen, which the next page is in (a blank one: the browser's)
                    with translation.override(user.language or translation.get_language_from_request(request)):
                        messages.success(request, _("Settings saved."))
                    return redirect("settings")
                status = 400
            elif "push_remove" in request.POST:
                device = request.POST.get("push_remove", "")
                push.unsubscribe(user=user, device_id=int(device) if digits(device) and len(device) < 19 else 0)
                messages.success(request, _("That device gets no more notifications."))
                return redirect("settings")
            elif "vacation_start" in request.POST:
                vacation_form = VacationForm(request.POST)
                if not vacation_form.is_valid():
                    raise ServiceError("days: " + " ".join(str(e) for e in vacation_form.errors.get("days", ["invalid"])), "days")
                vacations.vacation_start(user=user, days=vacation_form.cleaned_data["days"])
                messages.success(request, _("Have a good vacation: your clocks have stopped."))
                return redirect("settings")
            elif "clock_settings" in request.POST:
                vacations.clock_settings_set(user=user, weekend_pause=request.POST.get("weekend_pause") == "1",
                                             auto_vacation=request.POST.get("auto_vacation") == "1")
                messages.success(request, _("Settings saved."))
                return redirect("settings")
            elif "vacation_end" in request.POST:
                vacations.vacation_end(user=user)
                messages.success(request, _("Welcome back: your clocks run again."))
                return redirect("settings")
        except ServiceError as exc:
            messages.error(request, exc.message)
            status = exc.status
    context = {
        "form": form,
        "notices": notices,
        "devices": push.devices(user),
        "push_key": push.public_key(),
        "vacation": vacations.active_vacation(user),
        "days_left": vacations.vacation_days_left(user).total_seconds() / 86400,
        "vacation_form": VacationForm(),
    }
    return render(request, "games/settings.html", context, status=status)


@csrf_exempt
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """The unsubscribe link of every email, no login needed (RFC 8058 one-click).

    A GET changes nothing (mail scanners open links): it shows a page with the button. A POST
    unsubscribes from every email — the button, or a mail client's one-click
    ``List-Unsubscribe=One-Click`` — and a POST with ``resubscribe`` undoes it. The token is
    signed, names its purpose, expires (``UNSUBSCRIBE_LINK_DAYS``) and works for one change: the
    page after it offers the undo with a fresh link. A forged or expired token gets a page saying
    so (status 400), a used one or one sent to an address the account no longer has another
    (410); none changes anything. The token is in the path, which the logs mask
    (powerboats_site/log_filters.py)."""
    if request.method not in ("GET", "HEAD", "POST"):
        return HttpResponse(status=405, headers={"Allow": "GET, HEAD, POST"})
    try:
        user = user_from_token(token)
    except BadToken as exc:
        context: dict[str, Any] = {"invalid": True, "reason": exc.reason, "expired": exc.expired}
        if exc.user is not None:
            context["current"] = exc.user.email_mode
        return render(request, "games/unsubscribe.html", context, status=exc.status)
    context = {"user_name": user.username}
    if request.method == "POST":
        resubscribe = bool(request.POST.get("resubscribe"))
        if not unsubscribe_link_use(user=user, mode=User.EmailMode.EACH if resubscribe else User.EmailMode.NONE):
            context = {"invalid": True, "reason": "used", "current": User.objects.get(pk=user.pk).email_mode}
            return render(request, "games/unsubscribe.html", context, status=410)
        context["resubscribed" if resubscribe else "unsubscribed"] = True
        context["undo_token"] = unsubscribe_token(user)  # this link is used up: the undo gets its own
    context["current"] = user.email_mode
    return render(request, "games/unsubscribe.html", context)
