"""The site's settings, but for the password hasher: the sites the tests start as processes of
their own (tests/games/live_site.py, test_push_browser.py, test_live_server.py) sign up and log in
some forty players a run, and the production hasher takes half a second of CPU for each password
on purpose. The tests in this process use the same fast hasher (tests/site/conftest.py
FAST_HASHING); every other setting is the site's own."""

from powerboats_site.settings import *  # noqa: F403 (every setting of the site)

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
