"""Names people choose: usernames and display names (tournament names and the like).

Every way of creating or renaming a user goes through the validators on ``User.username``
(sign-up form, admin, ``createsuperuser``) or calls :func:`validate_new_username` (the API).

* A **display name** may hold any printable text but no control or invisible characters
  (Unicode category C*: CR, LF, NUL, tabs, zero-width joiners, bidi overrides, unassigned
  code points): :func:`validate_display_name`.
* A **username** is a display name of 3 to 30 characters made of letters, digits and
  ``@ . + - _`` (Django's rule), and no other account may have a name that looks the same:
  two names clash when their :func:`name_key` is equal.

The key is the confusable skeleton of Unicode TR39 computed by ICU (the Unicode
Consortium's reference implementation), with case folded in: ``skeleton(casefold(skeleton(NFKC(name))))``.
Folding between two skeletons catches look-alikes that differ only in case (``I`` and
``l``, Cyrillic ``Е`` and Latin ``e``) as well as plain case differences (``Demo``,
``demo``). Keys are stored in the unique column ``User.name_key``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from django.contrib.auth import get_user_model  # the model module imports these validators: no import back
from django.core.exceptions import ValidationError
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy

USERNAME_MIN_LENGTH = 3
USERNAME_MAX_LENGTH = 30
USERNAME_HELP = lazy(lambda: gettext(
    "%(min)d to %(max)d characters: letters, digits and @ . + - _ only; "
    "a name that looks like one already taken is refused.") % {"min": USERNAME_MIN_LENGTH, "max": USERNAME_MAX_LENGTH},
    str)()
USERNAME_CHARACTERS = r"[\w.@+-]"  # one character of a username (the API's schema states it as a pattern)
_USERNAME_CHARACTERS = re.compile(USERNAME_CHARACTERS + r"+\Z")


@cache
def _spoof_checker():  # type: ignore[no-untyped-def]
    import icu  # PyICU

    return icu.SpoofChecker()


def skeleton(text: str) -> str:
    """The TR39 confusable skeleton: two strings that look alike have the same one.

    >>> skeleton("dеmo") == skeleton("demo")  # the first has a Cyrillic е
    True
    """
    return str(_spoof_checker().getSkeleton(0, text))


def name_key(name: str) -> str:
    """What makes two usernames the same: case and look-alike letters do not count.

    >>> name_key("Demo") == name_key("dеmo") == name_key("DEMO") == name_key("demo")
    True
    >>> name_key("lan") == name_key("Ian") == name_key("1an")
    True
    >>> name_key("ann") == name_key("anna")
    False
    """
    folded = unicodedata.normalize("NFKC", skeleton(unicodedata.normalize("NFKC", name)).casefold())
    return skeleton(folded)


def control_characters(text: str) -> list[str]:
    """The characters of ``text`` in Unicode category C* (control, format, surrogate,
    private use, unassigned), as ``U+XXXX`` names.

    >>> control_characters("ann\\r\\n")
    ['U+000D', 'U+000A']
    >>> control_characters("Zoë")
    []
    """
    return [f"U+{ord(c):04X}" for c in text if unicodedata.category(c).startswith("C")]


def validate_display_name(value: str) -> None:
    """Refuse control and invisible characters (any Unicode category C*) and blank names."""
    bad = control_characters(value)
    if bad:
        raise ValidationError(
            gettext_lazy("A name must not contain control or invisible characters (found %(chars)s)."),
            code="control_characters",
            params={"chars": ", ".join(dict.fromkeys(bad))},
        )
    if not value.strip():
        raise ValidationError(gettext_lazy("A name must not be blank."), code="blank")


def validate_username(value: str) -> None:
    """The form of a username (not whether it is free): printable, 3–30 characters, letters,
    digits and ``@ . + - _``."""
    validate_display_name(value)
    if not USERNAME_MIN_LENGTH <= len(value) <= USERNAME_MAX_LENGTH:
        raise ValidationError(
            gettext_lazy("A username must be %(min)d to %(max)d characters long (this one has %(n)d)."),
            code="length",
            params={"min": USERNAME_MIN_LENGTH, "max": USERNAME_MAX_LENGTH, "n": len(value)},
        )
    if not _USERNAME_CHARACTERS.match(value):
        raise ValidationError(gettext_lazy("A username may contain only letters, digits and @ . + - _"), code="characters")


def validate_username_available(value: str) -> None:
    """Refuse a name that looks like another account's (same :func:`name_key`).

    An account keeping its own exact name is not a clash, so this can sit on the model
    field; it does not know which account is being edited, so an account changing only the
    case of its own name is refused too (an admin renames through another name)."""
    if control_characters(value):
        return  # refused by validate_username; never sent to the database
    other = get_user_model().objects.filter(name_key=name_key(value)).exclude(username=value).values_list("username", flat=True).first()
    if other is not None:
        raise ValidationError(
            gettext_lazy("This name is too like the existing name %(other)s (case and letters that look alike count "
                         "as the same)."),
            code="taken",
            params={"other": other},
        )


def validate_new_username(value: str) -> None:
    """Everything a new account's name must pass: form, then free (exactly and by look).
    Checks the name as it will be stored (``create_user`` applies NFKC)."""
    value = unicodedata.normalize("NFKC", value)
    validate_username(value)
    if get_user_model().objects.filter(username=value).exists():
        raise ValidationError(gettext_lazy("This name is taken."), code="taken")
    validate_username_available(value)
