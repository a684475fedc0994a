"""The root URLconf lists the API before the site's pages (powerboats_site/urls.py): each pattern
tried before a request's own costs a regular expression and a list kept for the 404 page, and the
pages' patterns under "" were ~40 misses before every API request. That order is only harmless
while no page's pattern can match a path under "api/"; these tests hold it so."""

from __future__ import annotations

import re

from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.resolvers import RegexPattern, RoutePattern

API = "api/"


def literal_start(pattern: RoutePattern | RegexPattern) -> tuple[str, bool]:
    """The text every path this pattern matches starts with, and whether that text is all of it
    (a route without converters)."""
    if isinstance(pattern, RoutePattern):
        route = str(pattern)
        head = route.split("<", 1)[0]
        return head, head == route
    regex = str(pattern).removeprefix("^")
    head = re.match(r"[\w/.-]*", regex)
    text = head.group(0) if head else ""
    return text, text == regex.removesuffix("$")


def flattened(patterns, prefix: str = "", whole: bool = True):
    """(the path's start, whether that start is a whole route, the pattern) for every endpoint."""
    for p in patterns:
        head, complete = literal_start(p.pattern)
        if isinstance(p, URLResolver):
            yield from flattened(p.url_patterns, prefix + head, whole and complete)
        else:
            assert isinstance(p, URLPattern)
            yield prefix + head, whole and complete, p


def top_level_outside_api():
    return [p for p in get_resolver().url_patterns if str(p.pattern) != API]


def test_no_page_pattern_can_match_under_the_api_prefix():
    endpoints = list(flattened(top_level_outside_api()))
    assert len(endpoints) > 50  # the site's pages, the social pages, tournaments, accounts, admin
    clashes = []
    for start, whole, pattern in endpoints:
        if whole:
            if start.startswith(API):
                clashes.append(start)
        elif start.startswith(API) or API.startswith(start):
            clashes.append(f"{start}… ({pattern.name})")  # a converter where "api/" could stand
    assert clashes == []


def test_the_checker_sees_a_pattern_that_would_clash():
    """The check above would catch a page pattern that starts with a converter or with "api"."""
    catch_all = URLResolver(RoutePattern(""), [URLPattern(RoutePattern("<slug:who>/games/"), lambda r: None, name="x")])
    api_page = URLResolver(RoutePattern(""), [URLPattern(RoutePattern("api/old/"), lambda r: None, name="y")])
    starts = {start: whole for start, whole, _ in flattened([catch_all, api_page])}
    assert starts == {"": False, "api/old/": True}


def test_the_api_comes_before_the_pages_and_still_resolves():
    top = get_resolver().url_patterns
    first_api = next(i for i, p in enumerate(top) if str(p.pattern) == API)
    page_includes = [i for i, p in enumerate(top) if isinstance(p, URLResolver) and str(p.pattern) == ""]
    assert page_includes and min(page_includes) > first_api
    assert resolve("/api/games/7/roll/").url_name == "api_game_roll"
    assert resolve("/games/7/").url_name == "game"
