from django.db import migrations, models


def fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    Vacation = apps.get_model("accounts", "Vacation")
    for vacation in Vacation.objects.order_by("started_at"):
        end = min(vacation.ended_at, vacation.planned_end) if vacation.ended_at else vacation.planned_end
        User.objects.filter(pk=vacation.user_id).filter(
            models.Q(vacation_until__isnull=True) | models.Q(vacation_until__lt=end)
        ).update(vacation_until=end)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0007_user_name_key_unique"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="vacation_until",
            field=models.DateTimeField(blank=True, null=True, help_text="the end of the player's latest vacation (its planned end, or when it was ended early): a clock that started after it has no pause to count, and needs no look at the vacations"),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
