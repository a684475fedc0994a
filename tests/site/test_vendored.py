"""The vendored browser libraries are the releases their table says (static/js/vendor/README.md)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[2] / "static" / "js" / "vendor"


def test_every_vendored_file_is_listed_with_its_checksum():
    table = dict(re.findall(r"^\| `([^`]+)` \|.*\| `([0-9a-f]{64})` \|$", (VENDOR / "README.md").read_text(), re.M))
    files = {p.name for p in VENDOR.iterdir() if p.name != "README.md"}
    assert files and files == set(table), "every file listed, every listed file there"
    for name, digest in table.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name
