"""The Competition's numbers (group size, promotion, relegation, the break, the time control) are
set by staff in the admin (docs/tournaments.md); everything else is run by the site."""

from django.contrib import admin

from .models import Competition


@admin.register(Competition)
class CompetitionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ["name", "group_size", "promote", "relegate", "break_days", "season_days", "next_season_at"]
    fields = ["name", "description", "group_size", "promote", "relegate", "break_days", "season_days", "min_players",
              "days_per_move", "grace_days", "vacation_allowed", "rated", "lake_side", "next_season_at"]
