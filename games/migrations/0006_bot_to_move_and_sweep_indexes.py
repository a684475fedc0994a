"""Every query of the clock sweep reads an index (issue 10): ``bot_to_move`` marks the games a
house bot is to act in, and unsent emails have an index of their own."""

from django.db import migrations, models

LEVELS = ("easy", "normal", "strong")


def mark_bots(apps, schema_editor):
    Game = apps.get_model("games", "Game")
    active = Game.objects.filter(status="active")
    active.filter(to_move=0, yellow__is_bot=True, yellow__bot_level__in=LEVELS).update(bot_to_move=True)
    active.filter(to_move=1, red__is_bot=True, red__bot_level__in=LEVELS).update(bot_to_move=True)


class Migration(migrations.Migration):

    dependencies = [
        ("games", "0005_history_rows"),
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="bot_to_move",
            field=models.BooleanField(default=False, help_text="a house bot is to act (the site moves it)"),
        ),
        migrations.AlterField(
            model_name="game",
            name="reminder_at",
            field=models.DateTimeField(blank=True, help_text="cleared once the reminder is sent", null=True),
        ),
        migrations.RunPython(mark_bots, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="game",
            index=models.Index(condition=models.Q(("bot_to_move", True), ("status", "active")),
                               fields=["updated_at"], name="active_bot_to_move"),
        ),
        migrations.AddIndex(
            model_name="emaillog",
            index=models.Index(condition=models.Q(("attempts__lt", 20), ("sent_at__isnull", True)),
                               fields=["created_at"], name="email_unsent"),
        ),
    ]
