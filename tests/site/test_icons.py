"""The site's icon (issue 24): /favicon.ico answers (it was a 404 and a console error on every
page), every page links the SVG icon, the touch icon and the manifest, and the committed files
are what bin/icons draws."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from tests.games.factories import make_game

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_favicon_ico_is_served_as_an_icon_of_three_sizes() -> None:
    response = Client().get("/favicon.ico")
    assert response.status_code == 200 and response["Content-Type"] == "image/x-icon"
    assert "max-age" in response["Cache-Control"]
    body = response.content
    reserved, kind, count = struct.unpack("<HHH", body[:6])
    assert (reserved, kind, count) == (0, 1, 3)
    sizes = []
    for i in range(count):
        width, _h, _c, _r, _p, _b, length, offset = struct.unpack("<BBBBHHII", body[6 + 16 * i:22 + 16 * i])
        assert body[offset:offset + 8] == b"\x89PNG\r\n\x1a\n" and offset + length <= len(body)
        sizes.append(width)
    assert sizes == [16, 32, 48]
    assert Client().post("/favicon.ico").status_code == 405


def icon_links(html: str) -> dict[str, str]:
    links: dict[str, str] = {}
    for rel, href in re.findall(r'<link rel="(icon|apple-touch-icon|manifest)" href="([^"]+)"', html):
        links.setdefault(rel, href)  # the first: the SVG icon, before the ICO for older browsers
    return links


def test_every_page_links_the_icons_and_they_exist() -> None:
    game = make_game()
    for path in ("/", "/rules/", f"/games/{game.pk}/", "/accounts/login/", "/no-such-page/"):
        html = Client().get(path).content.decode()
        links = icon_links(html)
        assert set(links) == {"icon", "apple-touch-icon", "manifest"}, path
        assert links["icon"].endswith("img/favicon.svg") and '<link rel="icon" href="/favicon.ico"' in html
    assert finders.find("img/favicon.svg") and finders.find("img/apple-touch-icon.png")
    svg = ET.fromstring(Path(finders.find("img/favicon.svg")).read_text())
    assert svg.get("viewBox") == "0 0 64 64"


def test_the_manifest_names_the_site_and_its_png_icons() -> None:
    response = Client().get("/site.webmanifest")
    assert response.status_code == 200 and response["Content-Type"] == "application/manifest+json"
    data = response.json()
    # installable (issue 26): an app of its own window, opening on My games, over the whole site
    assert data["name"] == "Powerboats" and data["start_url"] == "/games/" and data["scope"] == "/"
    assert data["display"] == "standalone" and data["id"] == "/"
    pngs = [i for i in data["icons"] if i["type"] == "image/png"]
    assert [i["sizes"] for i in pngs] == ["192x192", "512x512"]
    for icon in pngs:
        path = finders.find(icon["src"].split("/static/", 1)[1])
        assert path and Path(path).read_bytes()[16:24] == struct.pack(">II", *map(int, icon["sizes"].split("x")))


def test_the_committed_svg_is_what_bin_icons_draws() -> None:
    loader = importlib.machinery.SourceFileLoader("bin_icons", str(ROOT / "bin" / "icons"))
    spec = importlib.util.spec_from_loader("bin_icons", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    assert (ROOT / "static" / "img" / "favicon.svg").read_text() == module.svg()
