from collections.abc import Iterator
from pathlib import Path

import pytest

from .live_site import serve


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Iterator[str]:
    """The site as bin/run serves it, for the live tests (tests/games/live_site.py): its address."""
    with serve(tmp_path_factory.mktemp("live-var"), migrated_sqlite) as base:
        yield base


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """Production hashing is slow on purpose; tests do not need it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_board_drawings():
    """The board's drawings kept by this process (games.board) outlive each test's database:
    every test starts and ends without them, so none depends on which ran before it."""
    import games.board as board

    for cache in (board._STATIC, board._STATIC_BY_KEY, board._versions):
        cache.clear()
    yield
    for cache in (board._STATIC, board._STATIC_BY_KEY, board._versions):
        cache.clear()


@pytest.fixture(autouse=True)
def _fresh_replays():
    """Game ids and seeds repeat from test to test (rolled back); the series a process keeps
    (games.rulesets) would not: every test starts and ends without them."""
    from games.rulesets import BOXED

    BOXED.forget()
    yield
    BOXED.forget()
