"""Leaderboards and ratings pages."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.errors import ServiceError
from games.ratings.models import RatingChange
from games.ratings.selectors import display as rating_display
from games.selectors import games_of, head_to_head

from . import selectors, services
from .forms import TournamentForm
from .labels import TIEBREAK_LABELS as TIEBREAKS
from .models import Tournament

User = get_user_model()


def leaderboard(request: HttpRequest) -> HttpResponse:
    by = "points" if request.GET.get("by") == "points" else "rating"
    rows = selectors.points_table() if by == "points" else selectors.leaderboard()
    page = Paginator(rows, 50).get_page(request.GET.get("page"))
    context = {
        "page": page, "by": by, "offset": page.start_index(), "active_days": selectors.ACTIVE_DAYS,
        "min_games": selectors.MIN_GAMES_FOR_POINTS,
    }
    if by == "rating":  # provisional players in their own section (their own pages)
        provisional = Paginator(selectors.provisional_players(), 50).get_page(request.GET.get("ppage"))
        context.update(provisional=provisional, provisional_offset=provisional.start_index())
    return render(request, "tournaments/leaderboard.html", context)


def profile(request: HttpRequest, username: str) -> HttpResponse:
    player = get_object_or_404(User, username=username)
    games = list(games_of(player)[:30])
    changes = {c.game_id: c for c in RatingChange.objects.filter(user=player, game__in=[g.pk for g in games])}
    rows = [(g, changes.get(g.pk)) for g in games]
    history = selectors.history(player)
    rating = selectors.rating_of(player)
    vs_name = request.GET.get("vs", "").strip()
    versus = None
    if vs_name:
        opponent = User.objects.filter(username__iexact=vs_name).first()
        versus = {"name": vs_name, "found": opponent is not None,
                  **(head_to_head(player, opponent) if opponent else {})}
    return render(request, "games/profile.html", {
        "player": player, "rows": rows, "rating": rating, "rating_shown": rating_display(rating),
        "chart": selectors.history_svg(history), "versus": versus,
    })


# --- tournaments --------------------------------------------------------------------------


def tournament_list(request: HttpRequest) -> HttpResponse:
    groups = {
        status: Tournament.objects.filter(status=status).order_by("starts_at" if status != "finished" else "-finished_at")
        for status in ("registration", "running", "finished")
    }
    return render(request, "tournaments/list.html", {"groups": groups})


@login_required
def tournament_new(request: HttpRequest) -> HttpResponse:
    form = TournamentForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        fields = {k: v for k, v in form.cleaned_data.items() if k != "invited_names"}
        names = [n.strip() for n in form.cleaned_data["invited_names"].split(",") if n.strip()]
        invited = list(User.objects.filter(username__in=names))
        try:
            t = services.tournament_create(director=request.user, invited=invited, **fields)
        except ServiceError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, _("Tournament created: players can register now."))
            return redirect("tournament", tournament_id=t.pk)
    return render(request, "tournaments/new.html", {"form": form}, status=400 if form.errors else 200)


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament.objects.select_related("director"), pk=tournament_id)
    table = selectors.tournament_standings(t)
    rank_of = {row.registration.pk: row.rank for row in table}
    rounds = []
    for rnd in t.round_set.order_by("number"):
        boards = []
        byes = []
        for e in rnd.entries.select_related("registration__user", "opponent__user", "game").order_by("board"):
            if e.color == "w":
                boards.append(e)
            elif not e.opponent_id:
                byes.append(e)
        rounds.append((rnd, boards, byes))
    me = t.registrations.filter(user=request.user).first() if request.user.is_authenticated else None
    cross = [(row, [row.cells.get(n) for n in range(1, t.rounds + 1)]) for row in table]
    order = t.tiebreak_order
    standing_rows = [(row, [row.values.get(code) for code in order]) for row in table]
    closed = t.round_set.filter(status="closed").count()
    return render(request, "tournaments/detail.html", {
        "t": t, "table": standing_rows, "rounds": rounds, "me": me, "cross": cross, "rank_of": rank_of,
        "tiebreaks": [(code, TIEBREAKS[code]) for code in order], "closed_rounds": closed,
        "round_numbers": range(1, t.rounds + 1),
        "is_director": request.user.is_authenticated and request.user.pk == t.director_id,
        "registrations": t.registrations.select_related("user"),
    })


@login_required
@require_POST
def tournament_action(request: HttpRequest, tournament_id: int, action: str) -> HttpResponse:
    try:
        if action == "register":
            services.tournament_register(user=request.user, tournament_id=tournament_id)
            messages.success(request, _("You are registered."))
        elif action == "withdraw":
            services.tournament_withdraw(user=request.user, tournament_id=tournament_id)
            messages.success(request, _("You have withdrawn."))
        elif action in ("remove", "bye"):
            player = get_object_or_404(User, username=request.POST.get("username", ""))
            if action == "remove":
                services.tournament_withdraw(user=player, tournament_id=tournament_id, by_director=request.user)
                messages.success(request, _("%(player)s removed.") % {"player": player})
            else:
                number = int(request.POST.get("round", "0") or 0)
                services.tournament_set_bye(director=request.user, tournament_id=tournament_id, user=player,
                                            round_number=number)
                messages.success(request, _("%(player)s has a bye in round %(number)s.") % {"player": player, "number": number})
        else:
            return HttpResponse(status=404)
    except (ServiceError, ValueError) as exc:
        messages.error(request, getattr(exc, "message", str(exc)))
        response = tournament_page(request, tournament_id)
        response.status_code = getattr(exc, "status", 400)
        return response
    return redirect("tournament", tournament_id=tournament_id)


def tournament_trf(request: HttpRequest, tournament_id: int) -> HttpResponse:
    t = get_object_or_404(Tournament, pk=tournament_id)
    response = HttpResponse(selectors.tournament_trf_export(t), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="powerboats-tournament-{t.pk}.trf"'
    return response



