"""A copy of a SQLite database for the tests that start a site of their own (tests/conftest.py:
the ``migrated_sqlite`` fixture)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def copy_sqlite(source: Path, target: Path) -> None:
    """A whole copy, with what the write-ahead log still holds (SQLite's online backup)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()
