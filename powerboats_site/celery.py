"""The Celery app: settings come from Django's (``CELERY_*``), tasks from the apps."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery import Task as CeleryTask

from powerboats_site import broker as _broker  # noqa: F401 - registers folder://, the embedded default's broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "powerboats_site.settings")


class Task(CeleryTask):  # type: ignore[misc]
    """No retry waits longer than the broker holds an unacknowledged message.

    On Redis a message a worker has held past ``visibility_timeout`` is delivered again,
    and a retry waiting for its countdown is such a message: it would run twice, and each
    copy that fails would retry again. So a retry's countdown is kept under that timeout."""

    def retry(self, args: Any = None, kwargs: Any = None, exc: Any = None, throw: bool = True, eta: Any = None,
              countdown: float | None = None, max_retries: int | None = None, **options: Any) -> Any:
        visibility = (self.app.conf.broker_transport_options or {}).get("visibility_timeout")
        if visibility and countdown is not None:
            countdown = min(countdown, 0.8 * visibility)
        return super().retry(args, kwargs, exc, throw, eta, countdown, max_retries, **options)


app = Celery("powerboats", task_cls=Task)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
