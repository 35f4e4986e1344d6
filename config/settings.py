"""Project settings, read from the environment with development defaults.

Development (no environment at all): SQLite file in the project, no Redis, Celery on its
filesystem transport with a worker started by ``make run``. Production: set DATABASE_URL,
REDIS_URL (or CELERY_BROKER_URL), SECRET_KEY, DEBUG=false and ALLOWED_HOSTS.
"""

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("VAR_DIR", BASE_DIR / "var"))


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", True)
SECRET_KEY = os.environ.get("SECRET_KEY", "dev-insecure-key-change-me-in-production-0123456789abcdef")
if not DEBUG and SECRET_KEY.startswith("dev-insecure"):
    raise RuntimeError("SECRET_KEY must be set when DEBUG is false")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "simple_history",
    "csp",
    "django_prometheus",
    "apps.core",
    "apps.accounts",
    "apps.courses",
    "apps.glossary",
    "apps.quiz",
    "apps.flashcards",
    "apps.search",
    "apps.simulators",
    "apps.exercises",
    "apps.plans",
]

MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "apps.core.middleware.RequestIdMiddleware",
    "apps.core.middleware.MetricsAccessMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "csp.middleware.CSPMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "apps.core.middleware.AdminLoginThrottleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "apps.core.middleware.DatabaseUnavailableMiddleware",
    "apps.core.middleware.ConditionalApiMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

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
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The embedded default takes concurrent writers: WAL lets readers go on while one connection writes; a writer
    # waits up to `timeout` seconds for the lock (SQLite's busy timeout) instead of failing at once; and every
    # transaction takes the write lock when it begins (IMMEDIATE). With SQLite's default (DEFERRED), a transaction
    # that read first and then writes cannot wait for the lock (waiting could deadlock), so it failed at once with
    # "database is locked": 49 of 144 writes of 8 learners answered 503 (tests/core/test_sqlite_concurrent_writers.py).
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
    }
    # A file, not memory, so tests can share the test database with server and worker subprocesses.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}
else:
    DATABASES["default"].setdefault("OPTIONS", {})["connect_timeout"] = 3
    # Planner settings for each session. The data a request reads is in memory (or on SSD), where an index probe
    # costs about what a sequential page does (PostgreSQL's default random_page_cost of 4 assumes spinning disks
    # and picks hash joins over whole tables for a 1,000-card deck), and on a few cores serving many requests a
    # parallel query only takes cores from the other requests. Measured in benchmarks/README.md ("Planner settings").
    DATABASES["default"]["OPTIONS"]["options"] = os.environ.get(
        "DB_SESSION_OPTIONS", "-c random_page_cost=1.1 -c max_parallel_workers_per_gather=0")
    # Prepared statements: parameters travel apart from the statement (server-side binding), and a statement a
    # connection has run DB_PREPARE_THRESHOLD times is prepared, so PostgreSQL stops planning it on every request.
    # The token lookup planned in 0.3 ms and ran in 0.05; prepared, it plans in 0.006 (benchmarks/README.md,
    # "Practice sessions, prepared statements, …"). "off": Django's default, values bound into the text on the
    # client, nothing prepared.
    _prepare_threshold = os.environ.get("DB_PREPARE_THRESHOLD", "5")
    if _prepare_threshold != "off":
        DATABASES["default"]["OPTIONS"].update(server_side_binding=True, prepare_threshold=int(_prepare_threshold))
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # The same backend with a health check that skips its round trip while the socket is quiet.
        DATABASES["default"]["ENGINE"] = "apps.core.postgresql"

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
FRONTEND_DIST = BASE_DIR / "frontend" / "dist"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.exists() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Upload and body limits: anything larger is refused with 413/400 before parsing.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(2 * 1024 * 1024)))
FILE_UPLOAD_MAX_MEMORY_SIZE = DATA_UPLOAD_MAX_MEMORY_SIZE
DATA_UPLOAD_MAX_NUMBER_FIELDS = 2000

# Caches: local memory by default; Redis when CACHE_URL is given, through a wrapper that degrades to a
# per-process cache when Redis errors or stalls (short socket timeouts, a circuit breaker, logged once and
# counted in metrics), so a Redis outage never fails a request: throttles become per-process meanwhile. A loaded
# but healthy Redis must not trip it: 250 ms is over 10x the p99.9 round trip measured under an oversubscribed CPU
# and busy disk, and it takes two failures in a row (benchmarks/cache_breaker.py); a frozen Redis then costs each
# worker 0.5 s once and one 250 ms probe per 5 s.
if os.environ.get("CACHE_URL"):
    CACHES = {
        "default": {
            "BACKEND": "apps.core.cache.ResilientRedisCache",
            "LOCATION": os.environ["CACHE_URL"],
            "OPTIONS": {
                "socket_connect_timeout": float(os.environ.get("CACHE_CONNECT_TIMEOUT_S", "0.25")),
                "socket_timeout": float(os.environ.get("CACHE_SOCKET_TIMEOUT_S", "0.25")),
                "retry_after_s": float(os.environ.get("CACHE_RETRY_AFTER_S", "5")),
                "failures_to_trip": int(os.environ.get("CACHE_FAILURES_TO_TRIP", "2")),
            },
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Security headers. In production (DEBUG false) cookies are secure and HSTS is on.
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "apps.core.errors.csrf_failure"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", True)
    CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_REDIRECT_EXEMPT = [r"^api/v1/health/$", r"^metrics$"]

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

# Proxies of ours in front of the app (load balancer, TLS terminator): each appends to X-Forwarded-For. With 0 the
# header is ignored and the socket address is the client; set it to the exact count or clients can pick an address.
TRUSTED_PROXY_COUNT = int(os.environ.get("TRUSTED_PROXY_COUNT", "0"))

REST_FRAMEWORK = {
    # Token first: its WWW-Authenticate challenge makes "not signed in" a 401 (Session alone gives 403).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apps.core.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["apps.core.parsers.StrictJSONParser"],
    "DEFAULT_PAGINATION_CLASS": "apps.core.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "apps.core.schema.AutoSchema",
    "EXCEPTION_HANDLER": "apps.core.errors.api_exception_handler",
    "DEFAULT_THROTTLE_CLASSES": [
        "apps.core.throttling.AnonThrottle",
        "apps.core.throttling.UserThrottle",
    ],
    # The client address is the socket peer unless this many trusted proxies sit in front (X-Forwarded-For).
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("THROTTLE_ANON", "3000/hour"),
        "user": os.environ.get("THROTTLE_USER", "20000/hour"),
        # Sign-in, token and registration attempts per client address; sign-in attempts per account and address;
        # per account from addresses it has never signed in from (larger and shorter: a stranger's guesses cannot
        # hold the owner out for long, and the owner's own addresses are exempt). apps/core/throttling.py.
        "login": os.environ.get("THROTTLE_LOGIN", "10/minute"),
        "login_pair": os.environ.get("THROTTLE_LOGIN_PAIR", "10/15m"),
        "login_account": os.environ.get("THROTTLE_LOGIN_ACCOUNT", "50/15m"),
        "sweeps": os.environ.get("THROTTLE_SWEEPS", "30/hour"),
    },
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "LLM-serving interview kit API",
    "DESCRIPTION": "Curriculum, practice, flashcards and simulators for learning how LLMs are served.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "POSTPROCESSING_HOOKS": ["drf_spectacular.hooks.postprocess_schema_enums", "apps.core.schema.add_error_responses"],
    "ENUM_NAME_OVERRIDES": {
        "QuestionKindEnum": "apps.quiz.models.Kind",
        "InvestigationGameEnum": "apps.quiz.models.Game",
        "EvidenceKindEnum": "apps.quiz.models.EvidenceKind",
        "ContentStatusEnum": "apps.core.models.Status",
        "ProgressStatusEnum": "apps.courses.models.ProgressStatus",
        "SweepStatusEnum": "apps.simulators.models.SweepStatus",
        "SweepModeEnum": "apps.simulators.api.inputs.SWEEP_MODES",
        "ModeEnum": "apps.quiz.models.SessionMode",
        "OwnCardKindEnum": "apps.flashcards.own_cards.KINDS",
        "ImportFormatEnum": "apps.flashcards.models.ImportFormat",
        "FileJobStatusEnum": [(status, status) for status in ("queued", "running", "done", "failed")],  # import/export jobs
        "ExportFormatEnum": "apps.flashcards.models.ExportFormat",
        "ExerciseLevelEnum": "apps.exercises.models.ExerciseLevel",
        "LevelEnum": "apps.courses.models.Level",
        "ExerciseCategoryEnum": "apps.exercises.models.Category",
        "FormatEnum": ["llmkit-flashcards"],  # the collection file's format name (interchange.collection)
        "DtypeEnum": "apps.simulators.api.inputs.DTYPES",
        "KvDtypeEnum": "apps.simulators.api.inputs.KV_DTYPES",
        "TensorParallelEnum": "apps.simulators.api.inputs.TP_CHOICES",
        "CapacityTensorParallelEnum": "apps.simulators.api.inputs.CAPACITY_TP_CHOICES",
        "AttentionEnum": "apps.simulators.models.Attention",
        "MlpEnum": "apps.simulators.models.MLP",
        "DeckKindEnum": [(kind, kind) for kind in ("all", "part", "chapter", "topic")],  # flashcards DeckKind values
        "SearchResultKindEnum": [("chapter", "chapter"), ("term", "term"), ("question", "question")],
        "CardStateEnum": [(state, state) for state in (0, 1, 2, 3)],  # apps.flashcards.models.CardState values
    },
}

# Celery. With REDIS_URL/CELERY_BROKER_URL a real Redis broker; otherwise Celery's filesystem
# transport under var/celery, served by the worker that `make run` starts next to the web server.
REDIS_URL = os.environ.get("REDIS_URL", "")
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL or "filesystem://")
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND", REDIS_URL or None)
CELERY_BROKER_FILESYSTEM_DIR = VAR_DIR / "celery"
if CELERY_BROKER_URL.startswith("filesystem"):
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_FILESYSTEM_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_FILESYSTEM_DIR / "queue"),
        "processed_folder": str(CELERY_BROKER_FILESYSTEM_DIR / "processed"),
        "store_processed": False,
    }
else:
    # A message taken by a worker that then dies goes back to the queue after visibility_timeout (checked every
    # 10 s); every task's hard time limit is below it, so a task still running is never handed out twice.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT_S", "90")),
                                       "unacked_restore_interval": 10, "unacked_restore_throttle": 1}
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery")
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 60
CELERY_TASK_TIME_LIMIT = 75
# FSRS optimisation jobs have their own queue, so sweeps never hold them up. A worker started without -Q consumes
# every queue below (make run); production mode runs a worker per queue (scripts/prod.sh, compose.yaml).
CELERY_OPTIMIZE_QUEUE = os.environ.get("CELERY_OPTIMIZE_QUEUE", "optimize")
CELERY_TASK_QUEUES = {CELERY_TASK_DEFAULT_QUEUE: {}, CELERY_OPTIMIZE_QUEUE: {}}
CELERY_TASK_ROUTES = {"flashcards.optimize_parameters": {"queue": CELERY_OPTIMIZE_QUEUE}}
CELERY_TASK_ANNOTATIONS = {"flashcards.optimize_parameters": {"time_limit": 75}}  # below the visibility timeout
# Beat (embedded in one worker: `celery worker -B`) runs the sweep watchdog and deletes flashcard exports older than
# a day; a missed run expires, never piles up.
CELERY_BEAT_SCHEDULE = {"sweep-watchdog": {"task": "simulators.sweep_watchdog", "schedule": 20.0,
                                           "options": {"expires": 60}},
                        "flashcard-export-prune": {"task": "flashcards.prune_exports", "schedule": 3600.0,
                                                   "options": {"expires": 600}}}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Job endpoints ping the broker first and answer 503 when it does not answer within this many seconds.
BROKER_CHECK_TIMEOUT_S = float(os.environ.get("BROKER_CHECK_TIMEOUT_S", "0.1"))
# Sweeps (apps/simulators/sweeps.py). A job with chunks out and no progress for SWEEP_WATCHDOG_TIMEOUT_S has them
# sent again, SWEEP_MAX_REQUEUES times in a row at most, then fails. Budgets are estimated worker CPU seconds: per
# user over their queued and running sweeps (beyond it 400 for one sweep, 429 with others), and over everybody's
# (beyond it 503 with Retry-After, from SWEEP_WORKERS worker processes). Each user has SWEEP_USER_WINDOW chunks of
# about SWEEP_CHUNK_TARGET_S in the queue at most, so users' sweeps interleave. Optional dedicated queue.
SWEEP_WATCHDOG_TIMEOUT_S = float(os.environ.get("SWEEP_WATCHDOG_TIMEOUT_S", "60"))
SWEEP_MAX_REQUEUES = int(os.environ.get("SWEEP_MAX_REQUEUES", "3"))
SWEEP_USER_BUDGET_CPU_S = float(os.environ.get("SWEEP_USER_BUDGET_CPU_S", "1800"))
SWEEP_BACKLOG_MAX_CPU_S = float(os.environ.get("SWEEP_BACKLOG_MAX_CPU_S", "14400"))
SWEEP_WORKERS = int(os.environ.get("SWEEP_WORKERS", "2"))
SWEEP_USER_WINDOW = int(os.environ.get("SWEEP_USER_WINDOW", "2"))
SWEEP_CHUNK_TARGET_S = float(os.environ.get("SWEEP_CHUNK_TARGET_S", "2"))
SWEEPS_QUEUE = os.environ.get("SWEEPS_QUEUE") or None

# /metrics: scrapers send "Authorization: Bearer <METRICS_TOKEN>" or come from METRICS_ALLOWED_IPS (addresses or
# networks, comma-separated). Default: loopback only in DEBUG, nobody otherwise. Under gunicorn set
# PROMETHEUS_MULTIPROC_DIR (scripts/prod.sh does) so the counters add up over all worker processes.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")
METRICS_ALLOWED_IPS = env_list("METRICS_ALLOWED_IPS", "127.0.0.1,::1" if DEBUG else "")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "apps.core.middleware.RequestIdLogFilter"}},
    "formatters": {
        "json": {"()": "apps.core.logging.JsonFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id"]},
    },
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.server": {"level": "WARNING"}},
}
