"""``{% load kept_i18n %}`` loads common/templatetags/kept_i18n.py: Django's library whose translate
tag keeps the words of a plain literal per process and language (docs/performance.md). A page in
one language never shows another's words, and every other form of the tag works as Django's.
``{% load kept_static %}`` loads common/templatetags/kept_static.py: a literal path's URL kept per
process, the storage's own answer."""

from __future__ import annotations

from django.template import engines
from django.test import override_settings
from django.utils import translation

from common import words
from common.templatetags import kept_static


def render(source: str, language: str, **context: object) -> str:
    with translation.override(language):
        return engines["django"].from_string("{% load kept_i18n kept_static %}" + source).render(context)


def test_the_words_of_each_language_are_kept_apart():
    words._kept.clear()
    source = '{% translate "Log out" %}|{% trans "Leaderboard" %}'
    assert render(source, "de") == "Abmelden|Rangliste"
    assert render(source, "it") == "Esci|Classifica"
    assert render(source, "en") == "Log out|Leaderboard"
    assert render(source, "de") == "Abmelden|Rangliste", "kept, and still German"
    assert {key[0] for key in words._kept} == {"de", "it", "en"}


def test_a_filter_a_context_a_variable_and_as_are_rendered_as_django_does():
    words._kept.clear()
    assert render('{% translate "Log out" as words %}[{{ words|upper }}]', "de") == "[ABMELDEN]"
    assert render('{% translate "Yellow" context "boat" %}', "de") == "Gelb"
    assert render("{% translate what %}", "de", what="Log out") == "Abmelden"
    assert render('{% translate "Log out"|upper %}', "it") == "ESCI"
    assert render('{% translate "Log out" noop %}', "de") == "Log out"
    assert words._kept == {}, "only a plain literal is kept"


def test_a_setting_that_chooses_the_words_forgets_the_kept_ones():
    render('{% translate "Log out" %}', "de")
    assert words._kept
    with override_settings(LANGUAGES=[("en", "English"), ("de", "Deutsch")]):
        assert words._kept == {}


def test_a_static_url_is_the_storages_own_and_follows_its_settings():
    from django.templatetags.static import static

    kept_static._kept.clear()
    source = '{% static "js/game.js" %}|{% static path %}|{% static "css/site.css" as sheet %}[{{ sheet }}]'
    first = render(source, "en", path="js/live.js")
    assert first == f"{static('js/game.js')}|{static('js/live.js')}|[{static('css/site.css')}]"
    assert set(kept_static._kept) == {"js/game.js", "css/site.css"}, "a literal path only"
    assert render(source, "de", path="js/live.js") == first
    with override_settings(STATIC_URL="/elsewhere/"):
        assert kept_static._kept == {}
        moved = render('{% static "js/game.js" %}', "en")
        assert moved.startswith("/elsewhere/js/game") and moved == static("js/game.js")
    assert render('{% static "js/game.js" %}', "en") == static("js/game.js")


def test_kept_words_in_python_are_each_languages_own():
    """common/words.py: gettext, ngettext (per number: the plural forms differ), pgettext (per
    context) and a module's lazy translation, kept per language."""
    from django.utils.translation import pgettext_lazy

    words._kept.clear()
    yellow = pgettext_lazy("boat", "Yellow")
    said = {}
    for language in ("de", "it", "en", "de"):
        with translation.override(language):
            said[language] = (words.gettext("Log out"), words.ngettext("moves %(n)d cell", "moves %(n)d cells", 1),
                              words.ngettext("moves %(n)d cell", "moves %(n)d cells", 2),
                              words.pgettext("boat", "Red"), words.kept_str(yellow))
    assert said["de"] == ("Abmelden", "fährt %(n)d Feld", "fährt %(n)d Felder", "Rot", "Gelb"), said["de"]
    assert said["it"][0] == "Esci" and said["it"][3:] == ("Rosso", "Giallo"), said["it"]
    assert said["en"] == ("Log out", "moves %(n)d cell", "moves %(n)d cells", "Red", "Yellow")
    with override_settings(LANGUAGE_CODE="de"):
        assert words._kept == {}


def test_a_kept_address_is_djangos_own_and_follows_the_urlconf():
    """common/templatetags/kept_url.py: {% url %} of a literal name with numbers and words for
    arguments is kept; a namespaced name, an object for an argument and `as` behave as Django's."""
    from django.urls import NoReverseMatch, reverse

    from common.templatetags import kept_url

    kept_url._reverse.cache_clear()
    source = '{% url "game" 7 %}|{% url "profile" name %}|{% url "rules" %}|{% url "admin:index" %}|' \
             '{% url "game" game %}|{% url "no_such_page" as nothing %}[{{ nothing }}]'
    game = type("G", (), {"__str__": lambda self: "8"})()
    said = render(source, "en", name="anna", game=game)
    assert said == f"{reverse('game', args=[7])}|{reverse('profile', args=['anna'])}|{reverse('rules')}|" \
                   f"{reverse('admin:index')}|{reverse('game', args=[8])}|[]"
    assert kept_url._reverse.cache_info().currsize == 3, "the game, the profile, the rules"
    assert render(source, "de", name="anna", game=game) == said and kept_url._reverse.cache_info().hits == 3
    try:
        render('{% url "no_such_page" %}', "en")
        raise AssertionError("no such page: NoReverseMatch, as Django's")
    except NoReverseMatch:
        pass
    with override_settings(ROOT_URLCONF="tests.site.one_url"):
        assert kept_url._reverse.cache_info().currsize == 0
        assert render('{% url "game" 7 %}', "en") == "/only/7/"


def test_a_kept_part_is_said_once_per_language_and_flags_and_is_what_the_page_would_say():
    """``{% kept_html "name" flag … %}``: the same part for everyone with the same flags (each
    taken as true or false) in a language, rendered once and kept; another language, another flag
    or another script prefix has its own; the page's other values are not in it."""
    import pytest
    from django.template import TemplateSyntaxError
    from django.urls import set_script_prefix

    words._kept.clear()
    source = ('{% kept_html "menu" member %}{% translate "Log out" %}{% if member %} ({% translate "Leaderboard" %})'
              '{% endif %}{% endkept_html %}|{{ name }}')
    assert render(source, "de", member=True, name="anna") == "Abmelden (Rangliste)|anna"
    assert render(source, "de", member="yes", name="bruno") == "Abmelden (Rangliste)|bruno", "a flag's truth"
    assert render(source, "de", member=None, name="") == "Abmelden|"
    assert render(source, "it", member=1, name="carla") == "Esci (Classifica)|carla"
    kept_parts = [key for key in words._kept if key[1] == "{% kept_html %}"]
    assert sorted((key[0], key[3]) for key in kept_parts) == [("de", (False,)), ("de", (True,)), ("it", (True,))]
    # kept: what the part holds is not said again (its words changed here behind its back)
    for key in kept_parts:
        words._kept[key] = "kept"
    assert render(source, "de", member=True, name="anna") == "kept|anna"
    set_script_prefix("/elsewhere/")
    try:
        assert render(source, "de", member=True, name="anna") == "Abmelden (Rangliste)|anna", "its own addresses"
    finally:
        set_script_prefix("/")
    with override_settings(FORCE_SCRIPT_NAME="/other/"):
        assert words._kept == {}, "a setting that makes the addresses forgets the kept parts"
    with pytest.raises(TemplateSyntaxError):
        render("{% kept_html menu %}x{% endkept_html %}", "en")


def test_the_kept_address_and_static_url_in_python_are_djangos_own():
    """What games/templatetags/live.py writes with: ``kept_reverse`` and ``static_url`` answer as
    Django's ``reverse`` and ``static``, and follow the settings that make them."""
    from django.templatetags.static import static
    from django.urls import reverse

    from common.templatetags.kept_url import kept_reverse

    kept_static._kept.clear()
    assert kept_reverse("live_game", 12) == reverse("live_game", args=[12])
    assert kept_reverse("live_lobby") == reverse("live_lobby")
    assert kept_static.static_url("js/live.js") == static("js/live.js")
    assert set(kept_static._kept) == {"js/live.js"}
    with override_settings(FORCE_SCRIPT_NAME="/site/"):
        from django.urls import set_script_prefix
        set_script_prefix("/site/")
        try:
            moved = kept_reverse("live_game", 12)
            assert moved.startswith("/site/") and moved == reverse("live_game", args=[12])
        finally:
            set_script_prefix("/")
