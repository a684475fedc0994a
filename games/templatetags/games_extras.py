from typing import Any

from django import template
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import pgettext_lazy

from common.markup import text as _text
from common.templatetags.kept_url import kept_reverse
from common.words import gettext, ngettext, pgettext
from games.reasons import clock_text, color_name, result_of

register = template.Library()


@register.filter
def grace(seconds: int) -> str:
    """A grace bank in days and hours, e.g. 6 d 21 h (the units abbreviated per language)."""
    seconds = int(seconds or 0)
    days, rest = divmod(seconds, 86400)
    hours = rest // 3600
    d, h, m = pgettext("unit: days", "d"), pgettext("unit: hours", "h"), pgettext("unit: minutes", "min")
    if days and hours:
        return f"{days} {d} {hours} {h}"
    if days:
        return f"{days} {d}"
    minutes = (rest % 3600) // 60
    return f"{hours} {h} {minutes} {m}" if hours else f"{minutes} {m}"


@register.filter
def clock_terms(source: Any) -> str:
    """A clock's terms in words (games.reasons.clock_text)."""
    return clock_text(source)


@register.filter
def color(value: str) -> str:
    """A boat's colour ("yellow", "red") by its name in the active language."""
    return color_name(str(value))


@register.filter
def lake(value: str) -> str:
    """A lake side ("standard", "expert") in the active language."""
    names = {"standard": pgettext("lake", "standard"), "expert": pgettext("lake", "expert")}
    return names.get(str(value), str(value))


@register.filter
def course(value: str) -> str:
    """A course letter, or "random" for none."""
    return str(value) if value else gettext("random")


@register.filter
def result_words(row: Any) -> str:
    """The result of a game or a series (its ``result_code`` and ``result_params``) in the
    active language."""
    return result_of(row)


@register.filter
def bot_level(value: str) -> str:
    """A house bot's level ("easy", "normal", "strong") in the active language."""
    names = {"easy": pgettext("bot", "easy"), "normal": pgettext("bot", "normal"), "strong": pgettext("bot", "strong")}
    return names.get(str(value), str(value))


@register.filter
def group(value: str) -> str:
    """A group's name ("Group A", "Level 2, group B", "Final") in the active language."""
    from games.reasons import group_text

    return group_text(str(value))


_HOUSE_BOTS = {  # accounts.services.HOUSE_BOTS, which stores them in English as the bots' first names
    "Greedy: looks one roll ahead.": pgettext_lazy("bot", "Greedy: looks one roll ahead."),
    "Weighs every dice choice by the exact chances of every total.":
        pgettext_lazy("bot", "Weighs every dice choice by the exact chances of every total."),
    "Looks a turn further ahead and plans its speed round the course.":
        pgettext_lazy("bot", "Looks a turn further ahead and plans its speed round the course."),
}


@register.filter
def about(user: object) -> str:
    """A bot's description (its first name): a house bot's in the active language."""
    text = str(getattr(user, "first_name", "") or "")
    return str(_HOUSE_BOTS.get(text, text))


@register.filter
def series_status(value: str) -> str:
    """A series' status ("open", "active", ...) in the active language (a finished series is
    "over": the model's label "finished" is also a boat's state, "im Ziel")."""
    from games.models import Game

    if str(value) == Game.Status.FINISHED:
        return pgettext("series", "over")
    return str(dict(Game.Status.choices).get(str(value), value))


_TURNS = {"left": 0, "straight": 1, "right": 2}


@register.filter
def by_turn(options: list[dict[str, object]]) -> list[dict[str, object]]:
    """A total's three directions as the table shows them: 60° left, straight on, 60° right."""
    return sorted(options, key=lambda o: _TURNS.get(str(o.get("turn")), 3))


@register.filter
def outcome_kind(option: dict[str, object]) -> str:
    """The class of a direction's outcome in the danger table: what a glance must tell."""
    if not option.get("allowed"):
        return "barred"
    for kind in ("sinks", "crash", "finishes"):
        if option.get(kind):
            return kind
    return "buoy" if option.get("rounded") else "safe"


class _CellWords:
    """The danger table's words in the active language, looked up once a table, not once a cell."""

    def __init__(self) -> None:
        self.why = escape(gettext("not allowed: another direction goes further (R7)"))
        self.barred = escape(gettext("not allowed"))
        self.sinks = escape(gettext("sinks!"))
        self.crash = gettext("crash +%(damage)s")
        self.finishes = escape(gettext("finishes!"))
        self._counted: dict[tuple[str, int], str] = {}

    def counted(self, singular: str, plural: str, number: int) -> str:
        found = self._counted.get((singular, number))
        if found is None:
            found = self._counted[(singular, number)] = ngettext(singular, plural, number)
        return found


def _way_cell(option: dict[str, Any], said: _CellWords) -> str:
    """One direction's cell of the danger table: what it would do (R7–R12)."""
    if not option.get("allowed"):
        return f'<td class="way barred"><span title="{said.why}">{said.barred}</span></td>'
    if option.get("sinks"):
        words: str = said.sinks
    elif option.get("crash"):
        words = said.crash % {"damage": _text(option["damage"])}
    elif option.get("finishes"):
        words = said.finishes
    else:
        words = said.counted("%(cells)s cell", "%(cells)s cells", option["reach"]) % {"cells": _text(option["reach"])}
    rounded = option.get("rounded") or []
    if rounded and not option.get("sinks"):
        buoys = " &amp; ".join(_text(b) for b in rounded)
        words += ("<small>" + said.counted("rounds buoy %(buoys)s", "rounds buoys %(buoys)s", len(rounded))
                  % {"buoys": buoys} + "</small>")
    return f'<td class="way {outcome_kind(option)}">{words}</td>'


def _way_labels(way_choices: Any) -> list[tuple[str, str]]:
    """The plan's ways with their words in the active language, escaped (looked up once a table)."""
    return [(str(escape(value)), str(escape(str(label)))) for value, label in way_choices]


def _way_options(labels: list[tuple[str, str]], chosen: str) -> str:
    return "".join(f'<option value="{value}"{" selected" if value == chosen else ""}>{label}</option>'
                   for value, label in labels)


def _way_selects(labels: list[tuple[str, str]]) -> dict[str, str]:
    """A select's options for each way chosen, made once a table (which has a dozen selects of the
    same four ways); a way not among them gets its options made as it comes."""
    return {value: _way_options(labels, value) for value, _ in labels}


@register.simple_tag
def danger_rows(outcomes: list[dict[str, Any]], planning: bool = False, way_choices: Any = ()) -> SafeString:
    """The danger table's rows (templates/games/_danger.html): for each total, its three directions
    and, on the plan panel, the way chosen for it. Written here rather than as template loops,
    which cost ~1.5 ms a page for the nine to twelve totals and their options (bench/http.py)."""
    rows = []
    labels = _way_labels(way_choices) if planning else []
    selects = _way_selects(labels)
    plan_for = gettext("Your plan for a total of %(total)s")
    said = _CellWords()
    for row in outcomes:
        total = _text(row["total"])
        forced = "" if row["forced"] is None else _text(row["forced"])
        cells = "".join(_way_cell(o, said) for o in by_turn(row["options"]))
        plan = ""
        if planning:
            label = _text(plan_for % {"total": row["total"]})
            way = _text(row["way"])
            plan = (f'<td class="plan-way"><select name="way_{total}" aria-label="{label}">'
                    f'{selects.get(way) or _way_options(labels, way)}</select></td>')
        rows.append(f'\n      <tr data-total="{total}" data-forced="{forced}">\n        <th scope="row">{total}</th>'
                    f'<td class="chance">–</td>\n        {cells}\n        {plan}\n      </tr>\n    ')
    return mark_safe("".join(rows))  # every value above is escaped


@register.simple_tag
def player_rows(players: list[dict[str, Any]]) -> SafeString:
    """The players table's rows on a two-player game's page (templates/games/_game.html, from
    games.views._game_context): each boat's colour, player, rating, dice, damage, buoys and points.
    Written here rather than as a template loop, which cost ~0.16 ms a page for its two rows
    (~0.04 ms here: docs/performance.md)."""
    to_move, sunk, finish = escape(gettext("to move")), escape(gettext("sunk")), escape(gettext("finish"))
    rows = []
    for p in players:
        color, name = escape(p["color"]), p["user"].username
        mark = f' <span class="turn-mark" title="{to_move}">◀</span>' if p["to_move"] else ""
        dice = "".join(f'<span class="face">{_text(d)}</span>' for d in p["dice"]) or "–"
        damage, buoys = _text(p["damage"]), _text(p["buoys"])
        if p["finished"]:
            buoys += f" + {finish}"
        elif p["next_buoy"] <= 3:
            buoys += " (" + gettext("next %(buoy)s") % {"buoy": _text(p["next_buoy"])} + ")"
        rows.append(
            f'\n        <tr class="{color}{" to-move" if p["to_move"] else ""}" data-color="{color}">\n'
            f'          <th scope="row"><span class="chip {color}">{escape(p["color"][:1].upper())}</span> '
            f'<a href="{escape(kept_reverse("profile", name))}">{escape(name)}</a> '
            f'<small class="rating">{escape(p["rating"])}</small>{mark}</th>\n'
            f'          <td class="dice">{dice}</td>\n'
            f'          <td class="damage" data-damage="{damage}">{damage}{f" {sunk}" if p["sunk"] else ""}</td>\n'
            f'          <td class="buoys" data-buoys="{_text(p["buoys"])}">{buoys}</td>\n'
            f'          <td class="points">{_text(p["points"])}</td>\n        </tr>\n      ')
    return mark_safe("".join(rows))  # every value above is escaped


@register.simple_tag
def plan_then_ways(rows: list[tuple[int, str]], way_choices: Any) -> SafeString:
    """The plan panel's ways for the turn after (templates/games/_plan.html): a choice per total."""
    labels = _way_labels(way_choices)
    selects = _way_selects(labels)
    words = gettext("total %(total)s")
    return mark_safe("".join(  # every value is escaped
        f'\n        <label>{_text(words % {"total": total})} <select name="then_way_{_text(total)}">'
        f'{selects.get(_text(way)) or _way_options(labels, _text(way))}</select></label>\n      '
        for total, way in rows))


@register.simple_tag
def push_key() -> str:
    """The site's VAPID public key, for a page that offers web push (templates/games/_push_offer.html)."""
    from games.notifications.push import public_key

    return public_key()
