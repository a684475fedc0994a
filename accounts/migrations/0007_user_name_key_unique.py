from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0006_user_name_key_fill")]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="name_key",
            field=models.TextField(
                editable=False,
                help_text="the username's TR39 skeleton with case folded (accounts/names.py)",
                unique=True,
            ),
        ),
    ]
