"""Usernames: 3–30 printable characters, unique by look (accounts/names.py); the column for the key."""

import accounts.names
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0004_house_bots")]

    operations = [
        migrations.AlterField(
            model_name="user",
            name="username",
            field=models.CharField(
                error_messages={"unique": "A user with that username already exists."},
                help_text=accounts.names.USERNAME_HELP,
                max_length=150,
                unique=True,
                validators=[accounts.names.validate_username, accounts.names.validate_username_available],
                verbose_name="username",
            ),
        ),
        migrations.AddField(
            model_name="user",
            name="name_key",
            field=models.TextField(editable=False, null=True),
        ),
    ]
