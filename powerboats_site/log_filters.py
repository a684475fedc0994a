"""Secrets out of the logs (settings.LOGGING).

The one-click unsubscribe link of every email (games.notifications) holds a signed token in its
path, ``/email/unsubscribe/<token>/``: whoever has it can change that player's email settings.
Paths are logged by Django for every 4xx and 5xx (``django.request``), by ``runserver``
(``django.server``), and for every request by the server's access log: the Procfile's uvicorn
(``uvicorn.access``, on by default) or gunicorn with ``--access-logfile`` (``gunicorn.access``).
:class:`MaskUnsubscribeTokens` replaces the token in any such line with ``[hidden]``.

This module imports nothing of the site: logging is configured before the apps are loaded.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from typing import Any

TOKEN_IN_PATH = re.compile(r"(/email/unsubscribe/)[^/\s?#\"']+")
HIDDEN = r"\1[hidden]"


def _masked(value: Any) -> Any:
    return TOKEN_IN_PATH.sub(HIDDEN, value) if isinstance(value, str) else value


class MaskUnsubscribeTokens(logging.Filter):
    """Masks the token of an unsubscribe link in a record's message and its arguments (a tuple,
    as Django and uvicorn log; a mapping, as gunicorn's access log does), keeping their shape
    for the handler's formatter. Drops nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = _masked(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_masked(arg) for arg in record.args)
        elif isinstance(record.args, dict):
            record.args = {key: _masked(value) for key, value in record.args.items()}
        return True


def on_loggers(loggers: Iterable[str]) -> MaskUnsubscribeTokens:
    """A filter for ``LOGGING["filters"]`` that adds itself to ``loggers`` as they are.

    Naming a logger under ``LOGGING["loggers"]`` would take its handlers away: the servers
    configure their access loggers themselves (uvicorn before it loads the site), and Django
    its ``django.server``. Added this way the filter leaves their handlers, format and level as
    the server set them (``--no-access-log`` and ``--log-level`` still count). Idempotent."""
    mask = MaskUnsubscribeTokens()
    for name in loggers:
        logger = logging.getLogger(name)
        if not any(isinstance(f, MaskUnsubscribeTokens) for f in logger.filters):
            logger.addFilter(mask)
    return mask
