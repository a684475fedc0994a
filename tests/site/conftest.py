import pytest


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """Production hashing is slow on purpose; tests do not need it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
