import pytest

collect_ignore = ["celery_probe.py"]  # imported by the worker processes of test_celery_redelivery.py only


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings) -> None:
    """Production hashing is slow on purpose; tests do not need it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
