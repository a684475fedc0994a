"""Models that move to another app keep their content types (and so the staff's permissions on
them, and the admin's log): a migration step that gives the old rows their new app label.

Used by the migrations that move models between apps in Django's state only (the tables keep
their names): ``operations = [..., moved_content_types("games", "social", ["chatmessage"])]``.
When the new app's content type exists already (a database made after the move), the old one is
left alone; Django's ``remove_stale_contenttypes`` clears it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import migrations


def relabel(apps: Any, old: str, new: str, models: Sequence[str]) -> int:
    """Give ``old``'s content types of ``models`` the label ``new``; the number relabelled."""
    content_type = apps.get_model("contenttypes", "ContentType")
    moved = 0
    for model in models:
        if not content_type.objects.filter(app_label=new, model=model).exists():
            moved += content_type.objects.filter(app_label=old, model=model).update(app_label=new)
    return moved


def moved_content_types(old: str, new: str, models: Sequence[str]) -> migrations.RunPython:
    def forwards(apps: Any, schema_editor: Any) -> None:
        relabel(apps, old, new, models)

    def backwards(apps: Any, schema_editor: Any) -> None:
        relabel(apps, new, old, models)

    return migrations.RunPython(forwards, backwards, elidable=False)
