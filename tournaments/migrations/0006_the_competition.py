"""Every site has the Competition (docs/tournaments.md): created once, empty; its first season
starts a few days after enough players have joined."""

from django.db import migrations


def create(apps, schema_editor):
    Competition = apps.get_model("tournaments", "Competition")
    if not Competition.objects.exists():
        Competition.objects.create(name="The Competition")


class Migration(migrations.Migration):

    dependencies = [("tournaments", "0005_round_robins_and_competition")]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
