"""The Celery app: settings come from Django's (``CELERY_*``), tasks from the apps."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")

app = Celery("powerboats")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
