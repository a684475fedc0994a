"""Accounts: a player is a Django user with a few preferences."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A player. ``is_bot`` marks accounts played by a program (house bots or a
    user's own bot, like lichess BOT accounts)."""

    is_bot = models.BooleanField(default=False, help_text="played by a program")
    time_zone = models.CharField(max_length=64, default="UTC")

    class Meta:
        ordering = ["username"]

    def __str__(self) -> str:
        return self.username
