from collections.abc import Iterator

import pytest
from django.test import override_settings

collect_ignore = ["celery_probe.py"]  # imported by the worker processes of test_celery_redelivery.py only


FAST_HASHING = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """Production hashing is slow on purpose; tests do not need it."""
    settings.PASSWORD_HASHERS = FAST_HASHING


@pytest.fixture(scope="module")
def fast_password_hashing_for_the_module() -> Iterator[None]:
    """As every test has it, for the data a module-scoped fixture makes (before any test's)."""
    with override_settings(PASSWORD_HASHERS=FAST_HASHING):
        yield
