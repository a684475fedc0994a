"""Sessions move to accounts.PlayerSession (Django's session with its player's id in a column of
its own, powerboats_site.sessions): every session that has not expired is copied with the id its
data names, so that nobody is logged out. Django's table is left as it was (and unused;
``clearsessions`` no longer empties it). Run it with the old web processes stopped: a logout
the old code handled after the copy would end only Django's row, and a login would be lost.
Undoing it drops the new table: sessions ended since would live again in Django's."""

import django.db.models.deletion
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import migrations, models
from django.utils import timezone


def copy_sessions(apps, schema_editor):
    Session = apps.get_model("sessions", "Session")
    PlayerSession = apps.get_model("accounts", "PlayerSession")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    users = set(User.objects.values_list("pk", flat=True))
    store = SessionStore()  # its decode: the same signing as the sessions were saved with
    batch = []
    for row in Session.objects.filter(expire_date__gt=timezone.now()).iterator(chunk_size=2000):
        named = store.decode(row.session_data).get(SESSION_KEY)
        user_id = int(named) if isinstance(named, str) and named.isdigit() else None
        batch.append(PlayerSession(session_key=row.session_key, session_data=row.session_data,
                                   expire_date=row.expire_date, user_id=user_id if user_id in users else None))
        if len(batch) >= 2000:
            PlayerSession.objects.bulk_create(batch)
            batch = []
    PlayerSession.objects.bulk_create(batch)


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0015_weekend_pause_and_auto_vacation'),
        ('sessions', '0001_initial'),
    ]

    operations = [
        migrations.CreateModel(
            name='PlayerSession',
            fields=[
                ('session_key', models.CharField(max_length=40, primary_key=True, serialize=False, verbose_name='session key')),
                ('session_data', models.TextField(verbose_name='session data')),
                ('expire_date', models.DateTimeField(db_index=True, verbose_name='expire date')),
                ('user', models.ForeignKey(blank=True, null=True, db_constraint=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'verbose_name': 'session',
                'verbose_name_plural': 'sessions',
                'abstract': False,
            },
        ),
        migrations.RunPython(copy_sessions, migrations.RunPython.noop),
    ]
