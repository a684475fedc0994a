"""Models moved to an app of their own (games.ratings, games.social; issue 25) keep their content
types, so a staff member's permissions on them still hold (common/contenttypes.py)."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType

from common.contenttypes import relabel
from tests.games.factories import make_game, make_user

pytestmark = pytest.mark.django_db


def as_before_the_move() -> Group:
    """The database as it was before chat had its app: the report's content type under games,
    and a moderators' group allowed to see reports."""
    ContentType.objects.filter(app_label="social", model="chatreport").delete()  # and its permissions
    ContentType.objects.clear_cache()
    old = ContentType.objects.create(app_label="games", model="chatreport")
    seeing = Permission.objects.create(codename="view_chatreport", name="Can view chat report", content_type=old)
    moderators = Group.objects.create(name="moderators")
    moderators.permissions.add(seeing)
    return moderators


def test_a_moderator_keeps_seeing_reports_after_chat_moved_to_its_app(client):
    from games.social import services as social

    moderators = as_before_the_move()
    moderator = make_user("mod", is_staff=True)
    moderator.groups.add(moderators)
    game = make_game()
    line = social.chat_post(user=game.player(1), game_id=game.pk, text="spam spam")
    social.chat_report(user=game.player(0), message_id=line.pk, reason="spam")

    assert relabel(apps, "games", "social", ["chatreport"]) == 1
    ContentType.objects.clear_cache()
    client.force_login(moderator)
    page = client.get("/admin/social/chatreport/")
    assert page.status_code == 200 and b"spam spam" in page.content
    assert not ContentType.objects.filter(app_label="games", model="chatreport").exists()

    # the way back (the migration undone) gives the old label again
    assert relabel(apps, "social", "games", ["chatreport"]) == 1
    ContentType.objects.clear_cache()


def test_a_database_made_after_the_move_keeps_its_own_content_type():
    """Both exist (the old one left over): the new one stays, the old one is not merged into it."""
    ContentType.objects.get_for_model(apps.get_model("social", "ChatReport"))
    stale = ContentType.objects.create(app_label="games", model="chatreport")
    assert relabel(apps, "games", "social", ["chatreport"]) == 0
    stale.refresh_from_db()
    assert stale.app_label == "games"
    assert ContentType.objects.filter(app_label="social", model="chatreport").count() == 1
