"""Pages of round-robin tournaments and the Competition (docs/tournaments.md). Each page reads a
fixed number of queries whatever the number of groups and players (pinned in tests)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from common.errors import ServiceError

from . import selectors_formats as selectors
from . import services_formats as services
from .forms import RoundRobinForm
from .labels import TIEBREAK_LABELS as TIEBREAKS
from .models import Competition, Group, RoundRobin, Season

User = get_user_model()
TIEBREAK_NAMES = [(code, TIEBREAKS[code]) for code in selectors.ORDER]


# --- round-robins ------------------------------------------------------------------------------


def round_robin_list(request: HttpRequest) -> HttpResponse:
    sections = [(label, list(selectors.round_robins(status))) for status, label in (
        (RoundRobin.Status.REGISTRATION, _("Upcoming")), (RoundRobin.Status.RUNNING, _("Running")),
        (RoundRobin.Status.FINISHED, _("Finished")))]
    return render(request, "tournaments/round_robin_list.html", {"sections": sections})


@login_required
def round_robin_new(request: HttpRequest) -> HttpResponse:
    form = RoundRobinForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        fields = {k: v for k, v in form.cleaned_data.items() if k != "invited_names"}
        names = [n.strip() for n in form.cleaned_data["invited_names"].split(",") if n.strip()]
        invited = list(User.objects.filter(username__in=names))
        try:
            rr = services.round_robin_create(director=request.user, invited=invited, **fields)
        except ServiceError as exc:
            form.add_error(exc.field if exc.field in form.fields else None, exc.message)
        else:
            messages.success(request, _("Round-robin created: players can register now."))
            return redirect("round_robin", round_robin_id=rr.pk)
    return render(request, "tournaments/round_robin_new.html", {"form": form}, status=400 if form.errors else 200)


def round_robin_page(request: HttpRequest, round_robin_id: int, status: int = 200) -> HttpResponse:
    rr = get_object_or_404(RoundRobin.objects.select_related("director"), pk=round_robin_id)
    groups = selectors.round_robin_groups(rr)
    tables = selectors.group_tables(groups)
    entries = list(rr.entries.select_related("user").order_by("-rating", "user__username"))
    me = next((e for e in entries if e.user_id == request.user.pk), None) if request.user.is_authenticated else None
    return render(request, "tournaments/round_robin.html", {
        "rr": rr, "tables": [tables[g.pk] for g in groups], "entries": entries, "me": me,
        "tiebreaks": TIEBREAK_NAMES,
    }, status=status)


@login_required
@require_POST
def round_robin_action(request: HttpRequest, round_robin_id: int, action: str) -> HttpResponse:
    try:
        if action == "register":
            services.round_robin_register(user=request.user, round_robin_id=round_robin_id)
            messages.success(request, _("You are registered."))
        elif action == "withdraw":
            services.round_robin_withdraw(user=request.user, round_robin_id=round_robin_id)
            messages.success(request, _("You have withdrawn."))
        else:
            raise Http404("no such action")
    except ServiceError as exc:
        if exc.status == 404 and not RoundRobin.objects.filter(pk=round_robin_id).exists():
            raise Http404(exc.message) from None
        messages.error(request, exc.message)
        return round_robin_page(request, round_robin_id, status=exc.status)
    return redirect("round_robin", round_robin_id=round_robin_id)


def group_page(request: HttpRequest, group_id: int) -> HttpResponse:
    """A group: standings with the tie-breaks, the cross table, and its games round by round."""
    group = get_object_or_404(Group.objects.select_related("round_robin", "season__competition"), pk=group_id)
    table = selectors.group_table(group)
    by_pk = {p.pk: p for p in table.players}
    rounds = [(number, [(g, by_pk[g.red_id], by_pk[g.yellow_id]) for g in games]) for number, games in table.rounds()]
    return render(request, "tournaments/group.html", {
        "group": group, "table": table, "rounds": rounds, "tiebreaks": TIEBREAK_NAMES,
        "event": group.round_robin or group.season,
    })


# --- the Competition ------------------------------------------------------------------------------


def competition_default(request: HttpRequest) -> HttpResponse:
    c = Competition.objects.order_by("pk").first()
    if c is None:
        raise Http404("there is no Competition on this site")
    return redirect("competition", competition_id=c.pk)


def competition_page(request: HttpRequest, competition_id: int, status: int = 200) -> HttpResponse:
    """The Competition: a season's levels and groups (the current one, or ?season=N), who waits
    for the next season, and the join or leave button."""
    c = get_object_or_404(Competition, pk=competition_id)
    seasons = list(c.seasons.order_by("-number").only("id", "number", "status", "competition_id"))
    season: Season | None = seasons[0] if seasons else None
    wanted = request.GET.get("season", "")
    if wanted:
        season = next((s for s in seasons if str(s.number) == wanted), None)
        if season is None:
            raise Http404(f"no season {wanted}")
    playing = seasons[0] if seasons and seasons[0].status == Season.Status.PLAYING else None
    waiting = list(selectors.waiting_members(c, playing))
    return render(request, "tournaments/competition.html", {
        "c": c, "season": season, "seasons": seasons, "playing": playing,
        "levels": selectors.season_levels(season) if season else [],
        "member": selectors.membership(c, request.user), "waiting": waiting,
        "members": c.members.filter(active=True).count(),
    }, status=status)


def competition_player(request: HttpRequest, competition_id: int, username: str) -> HttpResponse:
    """A player's seasons in the Competition: level, group, place, score and move."""
    c = get_object_or_404(Competition, pk=competition_id)
    player = get_object_or_404(User, username=username)
    return render(request, "tournaments/competition_player.html", {
        "c": c, "player": player, "rows": list(selectors.history(c, player)),
        "member": c.members.filter(user=player).first(),
    })


@login_required
@require_POST
def competition_action(request: HttpRequest, competition_id: int, action: str) -> HttpResponse:
    try:
        if action == "join":
            services.competition_join(user=request.user, competition_id=competition_id)
            messages.success(request, _("You are in: you play from the next season on."))
        elif action == "leave":
            services.competition_leave(user=request.user, competition_id=competition_id)
            messages.success(request, _("You have left: you are not in the next season."))
        else:
            raise Http404("no such action")
    except ServiceError as exc:
        if exc.status == 404 and not Competition.objects.filter(pk=competition_id).exists():
            raise Http404(exc.message) from None
        messages.error(request, exc.message)
        return competition_page(request, competition_id, status=exc.status)
    return redirect("competition", competition_id=competition_id)
