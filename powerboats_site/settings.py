"""Settings, all read from the environment (documented in README.md, "Configuration").

With no environment at all the site runs embedded: SQLite in ``var/``, a Celery broker
in the folder ``var/broker``, email to the console.
"""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from email.utils import parseaddr
from pathlib import Path

import environ
from csp.constants import NONCE, NONE, SELF

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("POWERBOATS_VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

env = environ.Env()


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept in var/."""
    if env.str("SECRET_KEY", default=""):
        return str(env.str("SECRET_KEY"))
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
SITE_URL = env.str("SITE_URL", default="http://127.0.0.1:8000").rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    "csp",
    "accounts",
    "games",
    "games.ratings",  # the two-player and multi-player ratings (docs/ratings.md)
    "games.live",  # the live event log (docs/live.md)
    "games.notifications",  # emails and their log
    "games.social",  # chat, rematches, the next game, watching, player search (docs/social.md)
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "common.middleware.BadInputMiddleware",  # NUL bytes, huge bodies: 400/413 before anything else
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",  # the language from the switcher's cookie, else Accept-Language
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "accounts.middleware.AuthenticationMiddleware",  # Django's, with the player read with the session
    "common.middleware.UserLocaleMiddleware",  # a logged-in player's own language and time zone
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a login lockout into its page
]

# --- HTTPS (README "Production"): on when SITE_URL is https -------------------------------
# gunicorn speaks plain HTTP behind a proxy that ends TLS and sets X-Forwarded-Proto.
HTTPS = SITE_URL.startswith("https://")
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = True
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]  # load balancers may check over plain HTTP
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("HSTS_SECONDS", default=365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("HSTS_PRELOAD", default=False)
# Asking browsers to preload HSTS is the domain owner's decision (HSTS_PRELOAD=true), not a default.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

# Content-Security-Policy (django-csp): only this site's own files; the few inline <script>
# and <style> blocks (the API docs page) carry the request's nonce.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF, NONCE],
        "img-src": [SELF, "data:"],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
        **({"upgrade-insecure-requests": True} if HTTPS else {}),
    },
}

DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024  # the largest form or JSON body; the site takes no file uploads

ROOT_URLCONF = "powerboats_site.urls"
WSGI_APPLICATION = "powerboats_site.wsgi.application"
ASGI_APPLICATION = "powerboats_site.asgi.application"  # what bin/run serves (uvicorn): the site and its live streams
AUTH_USER_MODEL = "accounts.User"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "powerboats_site.context_processors.links",
            ],
            # {% load kept_i18n %}, {% load kept_static %} (our templates): Django's i18n and static
            # libraries, their tags' answers for a literal kept per process (common/templatetags/)
            "libraries": {"kept_i18n": "common.templatetags.kept_i18n", "kept_static": "common.templatetags.kept_static"},
            # {% url %}: Django's, its reverse of a name with plain arguments kept (common/templatetags/kept_url.py)
            "builtins": ["common.templatetags.kept_url"],
        },
    },
]

# --- database -------------------------------------------------------------------------
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # one writer at a time: take the write lock at BEGIN, wait for it instead of failing
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env.bool("DATABASE_PREPARED", default=True):
    # the fixed reads every request makes (common.db.reading.read_cursor: the game, its history,
    # the token, the session) as prepared statements, each parsed and planned once per
    # connection; Django's other queries bind on the client and are never prepared. Off
    # (DATABASE_PREPARED=false) behind a pooler in transaction mode that cannot keep them.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 0
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The demo account (demo/demo, made by ensure_demo) exists only on the embedded default:
# SQLite and an http SITE_URL. Anywhere else ensure_demo makes none (README "Production").
DEMO_ACCOUNT = DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" and not HTTPS

# Shared by every process on every machine: the database's table (bin/run creates it with
# createcachetable) unless CACHE_URL names e.g. redis://host:6379/1.
CACHES = {"default": env.cache_url("CACHE_URL", default="dbcache://powerboats_cache")}

# --- no password guessing (accounts/throttle.py) -----------------------------------------
AUTHENTICATION_BACKENDS = [
    "accounts.throttle.LoginLockoutBackend",  # django-axes: refuses logins while locked
    # Django's ModelBackend, its read of a session's player put together once (a session made
    # while ModelBackend was listed here logs in again once)
    "accounts.backends.PlayerBackend",
]
SESSION_ENGINE = "powerboats_site.sessions"  # Django's database sessions, their read put together once
AXES_FAILURE_LIMIT = env.int("LOGIN_FAILURE_LIMIT", default=10)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("LOGIN_LOCKOUT_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # per account, and per address
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False  # the time we announce stays true
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
AXES_USERNAME_CALLABLE = "accounts.throttle.attempted_username"
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_ip"
AXES_DISABLE_ACCESS_LOG = True  # count failures only; successful logins are not logged
AXES_VERBOSE = False
PASSWORD_RESET_RATES = {"address": "10/hour", "email": "3/hour"}
PROXY_COUNT = env.int("PROXY_COUNT", default=0)  # reverse proxies in front that add X-Forwarded-For

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# the site's languages (docs/i18n.md); names in their own language, as the switcher shows them
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("it", "Italiano")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["powerboats_site.formats"]  # how each language writes dates (Django fills in the rest)
LANGUAGE_COOKIE_NAME = "language"
LANGUAGE_COOKIE_SAMESITE = "Lax"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# --- email ----------------------------------------------------------------------------
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
# a your-turn email waits this long (sent by the minute sweep), and is not sent if the player moved meanwhile
YOUR_TURN_EMAIL_DELAY = env.int("YOUR_TURN_EMAIL_DELAY", default=120)
# an unsubscribe link in an email works this many days (RFC 8058 one-click; games/notifications/emails.py)
UNSUBSCRIBE_LINK_DAYS = env.int("UNSUBSCRIBE_LINK_DAYS", default=60)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Powerboats <noreply@powerboats.local>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- web push (docs/notifications.md) --------------------------------------------------------


def _vapid_private_key() -> str:
    """The VAPID key pushes are signed with (RFC 8292): VAPID_PRIVATE_KEY from the environment (its
    PEM, or the raw key in base64url as ``web-push generate-vapid-keys`` prints it), else one
    generated once and kept in var/ (as the secret key). A new key makes every device subscribe
    again: keep it with the secret key (docs/backup.md)."""
    if env.str("VAPID_PRIVATE_KEY", default=""):
        return str(env.str("VAPID_PRIVATE_KEY", multiline=True))
    path = VAR_DIR / "vapid_private_key.pem"
    if not path.exists():
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec

        pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        fresh = VAR_DIR / f".vapid-{os.getpid()}-{secrets.token_hex(4)}"
        fresh.write_bytes(pem)
        fresh.chmod(0o600)
        try:
            os.link(fresh, path)  # atomic: of two processes starting at once, one key wins
        except FileExistsError:
            pass
        finally:
            fresh.unlink()
    return path.read_text()


VAPID_PRIVATE_KEY = _vapid_private_key()
# who runs the site, for the push services (a mailto: or https: URL)
VAPID_SUBJECT = env.str("VAPID_SUBJECT", default="mailto:" + (parseaddr(DEFAULT_FROM_EMAIL)[1] or "noreply@localhost"))
# the push services a device's subscription may name (the site sends to no other address): URL
# prefixes, a host may start with "*." (Chrome/Android: FCM; Firefox: Mozilla; Safari: Apple; Edge: WNS)
PUSH_SERVICES = env.list("PUSH_SERVICES", default=[
    "https://fcm.googleapis.com/", "https://updates.push.services.mozilla.com/", "https://*.push.apple.com/",
    "https://*.notify.windows.com/"])
# a your-turn push waits this long (seconds) and is dropped if the player moved or saw the move live
YOUR_TURN_PUSH_DELAY = env.int("YOUR_TURN_PUSH_DELAY", default=10)
PUSH_TIMEOUT_SECONDS = env.float("PUSH_TIMEOUT_SECONDS", default=10.0)  # one request to a push service

# --- live events (docs/live.md) -------------------------------------------------------------
LIVE_POLL_SECONDS = env.float("LIVE_POLL_SECONDS", default=0.2)  # each web process reads the event log this often
LIVE_HEARTBEAT_SECONDS = env.float("LIVE_HEARTBEAT_SECONDS", default=15.0)  # a keep-alive line after this much silence
LIVE_RETRY_MS = env.int("LIVE_RETRY_MS", default=1000)  # a browser reconnects after this long
LIVE_SEEN_SECONDS = 90  # a live connection refreshes LiveSeen every minute; this much slack
# limits of the open streams (games/streams/asgi.py), counted by each web process: over one, a 429
LIVE_STREAMS_PER_PROCESS = env.int("LIVE_STREAMS_PER_PROCESS", default=10_000)  # and never above its open-file limit
LIVE_STREAMS_PER_CLIENT = env.int("LIVE_STREAMS_PER_CLIENT", default=16)  # a player (any session or token), or a session
LIVE_STREAMS_PER_ADDRESS = env.int("LIVE_STREAMS_PER_ADDRESS", default=64)  # a client address (PROXY_COUNT)
LIVE_BUSY_RETRY_SECONDS = env.int("LIVE_BUSY_RETRY_SECONDS", default=30)  # a refused client is told to wait this long
LIVE_STREAM_SECONDS = env.float("LIVE_STREAM_SECONDS", default=1800.0)  # a stream ends after this (the client resumes)
LIVE_SEND_TIMEOUT_SECONDS = env.float("LIVE_SEND_TIMEOUT_SECONDS", default=30.0)  # a client that reads nothing this long is dropped
LIVE_QUEUE_EVENTS = env.int("LIVE_QUEUE_EVENTS", default=256)  # events waiting for a slow client before its stream ends

# --- Celery ---------------------------------------------------------------------------
BROKER_DIR = VAR_DIR / "broker"
# folder://: the embedded default, a folder in var/ (powerboats_site/broker.py, docs/broker.md)
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="folder://")
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {}
if CELERY_BROKER_URL.startswith(("folder://", "filesystem://")):
    for sub in ("queue", "processed", "control"):
        (BROKER_DIR / sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.1,  # the default 1 s means ~0.5 s latency per task
    }
elif CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    # A task whose worker dies is delivered again once it has gone unacknowledged this long
    # (Redis' default is an hour). Our longest tasks (pairing a 1,000-player round, a digest
    # sweep) take well under a minute; one that runs longer is delivered a second time while
    # it runs, which every task survives (they lock their rows and check again).
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300}
# The folder broker keeps a message a worker has taken in that worker's own folder until the
# task is done: a task whose worker is killed goes back to the queue when another consumer (the
# restarted worker) next looks, within seconds (docs/broker.md).
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True  # acknowledge when done, not when taken
CELERY_TASK_REJECT_ON_WORKER_LOST = True  # a worker process killed mid-task puts it back at once
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    "sweep-clocks": {"task": "games.tasks.sweep_clocks", "schedule": 60.0},
    "send-digests": {"task": "games.tasks.send_digests", "schedule": 900.0},
    "tournament-tick": {"task": "tournaments.tasks.tournament_tick", "schedule": 60.0},
    "formats-tick": {"task": "tournaments.tasks.formats_tick", "schedule": 60.0},  # round-robins, the Competition
}

# --- API ------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "powerboats_site.api_auth.TokenAuthentication",  # + the player's language (docs/i18n.md)
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_SCHEMA_CLASS": "common.schema.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "common.pagination.Pages",
    # the API reads JSON bodies only: one way to send a value, checked field by field
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "common.api.exception_handler",
    "PAGE_SIZE": 50,
    "NUM_PROXIES": PROXY_COUNT,  # the client address of throttles (and of login lockouts)
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Powerboats API",
    "DESCRIPTION": "Play Powerboats by correspondence: challenges, games, moves, records.",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # the live streams are async views, described by a hook (games/streams/schema.py)
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "games.streams.schema.add_streams",
                            "common.schema.one_blank_string"],
    "ENUM_NAME_OVERRIDES": {
        "ChallengeColorEnum": "games.models.ColorChoice",
        "PlayerColorEnum": "games.api_enums.PLAYER_COLOR",
        "OutcomeEnum": "games.api_enums.OUTCOME",
        "DaysPerMoveEnum": "games.api_enums.DAYS_PER_MOVE",
        "GraceDaysEnum": "games.api_enums.GRACE_DAYS",
        "DirectionNameEnum": "games.api_enums.DIRECTION_NAME",
        "ChallengeStatusEnum": "games.models.Challenge.Status",
        "GameStatusEnum": "games.models.Game.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        "LakeSideEnum": "games.models.LakeSide",
        "ByePointsEnum": "tournaments.models.Tournament.ByePoints",
        "SeriesColorEnum": "games.api_enums.SERIES_COLOR",
        "CourseLetterEnum": "games.api_enums.RACE_LETTER",  # the name it had before series came
        "KindEnum": "games.models.Move.Kind",
        "SeriesActionKindEnum": "games.api_enums.SERIES_KIND",
        "PhaseEnum": "games.models.Game.Phase",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        # the token of an unsubscribe link (in its path) masked wherever a request's path is logged:
        # Django's 4xx/5xx lines and runserver's, the servers' access logs (the Procfile's uvicorn
        # logs every request); added to those loggers as the servers set them up
        # (powerboats_site/log_filters.py)
        "unsubscribe_tokens": {
            "()": "powerboats_site.log_filters.on_loggers",
            "loggers": ["django.request", "django.server", "uvicorn.access", "gunicorn.access"],
        },
    },
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
