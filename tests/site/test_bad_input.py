"""Input no view can use is refused at the edge: NUL bytes in the path or the query string
(PostgreSQL's driver cannot send them: these were 500s), bodies over the size limit, too
many query parameters. JSON under /api/, a plain page elsewhere; nothing changes."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import RequestDataTooBig
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from common.middleware import BadInputMiddleware

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.mark.parametrize(
    ("url", "field"),
    [
        ("/api/tournaments/?status=%00", "status"),
        ("/api/players/a%00b/", "username"),
        ("/api/games/?page=1&%00=x", "query"),
        ("/api/leaderboard/?q=%ED%A0%80%00", "q"),
        ("/api/nowhere%00/", "path"),
    ],
)
def test_a_nul_byte_in_an_api_path_or_query_is_a_400_naming_the_parameter(url, field):
    response = APIClient().get(url)
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["code"] == "invalid" and body["field"] == field
    assert body["message"].startswith(f"{field}: must not contain a NUL character")


@pytest.mark.parametrize("url", ["/players/x/?vs=a%00b", "/players/a%00b/", "/tournaments/?status=%00", "/%00"])
def test_a_nul_byte_on_a_page_is_a_plain_400_page(url):
    response = Client().get(url)
    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/html")
    assert b"Bad request" in response.content and b"NUL character" in response.content


def test_a_refused_request_changes_nothing():
    before = User.objects.count()
    response = APIClient().post("/api/accounts/?via=%00", {"username": "newbie", "password": "sea-spray-and-salt-42"},
                                format="json")
    assert response.status_code == 400 and response.json()["field"] == "via"
    assert User.objects.count() == before


def test_ordinary_text_in_paths_and_queries_still_works():
    User.objects.create_user("zoë", "z@example.com", "sea-spray-and-salt-42")
    assert APIClient().get("/api/players/zo%C3%AB/").status_code == 200
    assert APIClient().get("/api/tournaments/?status=running&x=%E2%9B%B5").status_code == 200
    assert APIClient().get("/api/tournaments/?status=open").json()["field"] == "status"  # not a status
    assert Client().get("/players/zo%C3%AB/?vs=%F0%9F%9A%A4").status_code == 200


def test_too_many_query_parameters_is_a_400():
    query = "&".join(f"p{i}=1" for i in range(1001))
    response = APIClient().get(f"/api/tournaments/?{query}")
    assert response.status_code == 400 and "too many query parameters" in response.json()["message"]


def test_a_huge_api_body_is_a_413_json_and_creates_nothing(settings):
    before = User.objects.count()
    body = json.dumps({"username": "newbie", "password": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    response = APIClient().post("/api/accounts/", body, content_type="application/json")
    assert response.status_code == 413
    assert response.json() == {"code": "too_large", "message": "the request body is larger than 256 KiB"}
    assert User.objects.count() == before


def test_a_huge_form_body_is_a_413_page(settings):
    response = Client().post("/accounts/login/", {"username": "ann", "password": "x" * 300_000})
    assert response.status_code == 413 and b"Request too large" in response.content


def test_a_body_just_under_the_limit_is_read(settings):
    response = APIClient().post("/api/token/", {"username": "ann", "password": "x" * 200_000}, format="json")
    assert response.status_code == 400 and response.json()["code"] == "invalid"  # wrong credentials, not too large


def test_data_too_big_from_a_view_is_a_413_too():
    middleware = BadInputMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    api = middleware.process_exception(RequestFactory().post("/api/games/1/roll/"), RequestDataTooBig("big"))
    assert api is not None and api.status_code == 413 and json.loads(api.content)["code"] == "too_large"
    page = middleware.process_exception(RequestFactory().post("/signup/"), RequestDataTooBig("big"))
    assert page is not None and page.status_code == 413
    assert middleware.process_exception(RequestFactory().get("/"), ValueError("other")) is None
