"""The email log becomes the log of notices by any channel (issue 26): EmailLog is renamed Notice
(its table keeps its name), each row has its channel (email, push, digest; every row so far an
email), one per user, event, key and channel; and the devices that take pushes."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("notifications", "0001_initial"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RenameModel("EmailLog", "Notice"),
        migrations.AddField(
            model_name="notice",
            name="channel",
            field=models.CharField(choices=[("email", "email"), ("push", "push"), ("digest", "digest")],
                                   db_default="email", default="email", max_length=6),
        ),
        migrations.AlterField(
            model_name="notice",
            name="key",
            field=models.CharField(help_text="what the notice is about, e.g. game:12:ply:30", max_length=100),
        ),
        migrations.AlterField(
            model_name="notice",
            name="send_after",
            field=models.DateTimeField(
                blank=True, null=True,
                help_text="held back until then: a your-turn notice waits a little, in case the player is there "
                          "already; anything waits for the end of the player's quiet hours"),
        ),
        migrations.RemoveConstraint(model_name="notice", name="one_email_per_event"),
        migrations.AddConstraint(
            model_name="notice",
            constraint=models.UniqueConstraint(fields=("user", "event", "key", "channel"),
                                               name="one_notice_per_event_and_channel"),
        ),
        migrations.CreateModel(
            name="PushSubscription",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("endpoint", models.URLField(max_length=1000, unique=True)),
                ("p256dh", models.CharField(help_text="the device's public key (base64url, P-256)", max_length=100)),
                ("auth", models.CharField(help_text="the device's authentication secret (base64url)", max_length=40)),
                ("name", models.CharField(blank=True, help_text="what the player calls it (else: the browser's)",
                                          max_length=80)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("last_pushed_at", models.DateTimeField(blank=True, null=True)),
                ("last_error", models.CharField(blank=True, max_length=200)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE,
                                           related_name="push_subscriptions", to=settings.AUTH_USER_MODEL)),
            ],
            options={"ordering": ["created_at", "pk"]},
        ),
    ]
