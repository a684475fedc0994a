"""The house bots: one account per level, played by the site's Celery worker."""

from django.db import migrations

BOTS = {
    "bot-easy": ("easy", "Greedy: looks one roll ahead."),
    "bot-normal": ("normal", "Weighs every dice choice by the exact chances of every total."),
    "bot-strong": ("strong", "Looks a turn further ahead and plans its speed round the course."),
}


def create_bots(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    for username, (level, about) in BOTS.items():
        user, created = User.objects.get_or_create(
            username=username, defaults={"is_bot": True, "bot_level": level, "email": "", "first_name": about[:150]}
        )
        if created:
            user.password = "!"  # no password: nobody logs in as a house bot
            user.save(update_fields=["password"])


def remove_bots(apps, schema_editor):
    apps.get_model("accounts", "User").objects.filter(username__in=BOTS, bot_level__in=["easy", "normal", "strong"]).delete()


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_user_bot_level")]
    operations = [migrations.RunPython(create_bots, remove_bots)]
