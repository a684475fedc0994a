"""Fill ``name_key`` for existing users. Names that already look alike keep working: the
later account's key gets a ``#id`` suffix so the column can be unique, and no new account
may take a name like either of them."""

from django.db import migrations


def fill(apps, schema_editor):
    from accounts.names import name_key

    User = apps.get_model("accounts", "User")
    seen = set()
    for user in User.objects.order_by("id").only("id", "username").iterator():
        key = name_key(user.username)
        if key in seen:
            key = f"{key}#{user.id}"
        seen.add(key)
        User.objects.filter(id=user.id).update(name_key=key)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0005_user_name_key")]
    operations = [migrations.RunPython(fill, migrations.RunPython.noop)]
