"""Two endpoints: POST a move (lock the row, insert a move, update the row) and GET the row."""

from django.db import transaction
from rest_framework import serializers
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from .models import BareGame, BareMove


class MoveIn(serializers.Serializer):
    ply = serializers.IntegerField(min_value=0)
    value = serializers.IntegerField(required=False, default=0)


class GameOut(serializers.ModelSerializer):
    class Meta:
        model = BareGame
        fields = ["id", "ply", "to_move", "status", "data", "updated_at"]


@api_view(["POST"])
def move(request: Request, game_id: int) -> Response:
    data = MoveIn(data=request.data)
    data.is_valid(raise_exception=True)
    with transaction.atomic():
        game = BareGame.objects.select_for_update().get(pk=game_id)
        if data.validated_data["ply"] != game.ply:
            return Response({"code": "stale_ply", "ply": game.ply}, status=409)
        BareMove.objects.create(game=game, ply=game.ply, data={"value": data.validated_data["value"]})
        game.ply += 1
        game.to_move = 1 - game.to_move
        game.save(update_fields=["ply", "to_move", "updated_at"])
    return Response({"game": game.pk, "ply": game.ply, "to_move": game.to_move})


@api_view(["GET"])
def detail(request: Request, game_id: int) -> Response:
    return Response(GameOut(BareGame.objects.get(pk=game_id)).data)
