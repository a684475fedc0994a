from django.db import models


class BareGame(models.Model):
    ply = models.PositiveIntegerField(default=0)
    to_move = models.PositiveSmallIntegerField(default=0)
    status = models.CharField(max_length=8, default="active")
    data = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        app_label = "baseline"


class BareMove(models.Model):
    game = models.ForeignKey(BareGame, on_delete=models.CASCADE)
    ply = models.PositiveIntegerField()
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "baseline"
        constraints = [models.UniqueConstraint(fields=["game", "ply"], name="bare_one_move_per_ply")]
