"""
Django settings of the DRF implementation, as the Django and DRF documentation show them; the
database is a SQLite file the launcher names (CARRIER_DRF_DATABASE), filled from the data set.
"""
import os

SECRET_KEY = "carrier-conformance-test-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

INSTALLED_APPS = ["rest_framework", "carrier_api"]
MIDDLEWARE = [
    # Picks the deployment's URLconf by the port the request came in on (see serve_drf.py).
    "carrier_api.middleware.DeploymentMiddleware",
    # APPEND_SLASH (on by default): a path without its trailing slash is redirected with 301.
    "django.middleware.common.CommonMiddleware",
]
ROOT_URLCONF = "carrier_api.urls"

# Persistent connections (CONN_MAX_AGE None), as production settings have them.
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ.get("CARRIER_DRF_DATABASE", ":memory:"), "CONN_MAX_AGE": None}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
TIME_ZONE = "UTC"

# Behind a TLS gateway (Caddy), which sends X-Forwarded-Proto: request.is_secure() and
# build_absolute_uri() then say https (Django's documented setting for it).
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["carrier_api.authentication.BearerTokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_VERSIONING_CLASS": "carrier_api.versioning.AcceptVersionHeaderVersioning",
    "ALLOWED_VERSIONS": ["1"],
    "DEFAULT_PAGINATION_CLASS": "carrier_api.pagination.HeaderPageNumberPagination",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # No django.contrib.auth: the API's clients are OAuth clients, not Django users.
    "UNAUTHENTICATED_USER": None,
}

# Quiet: no console output, and no mail_admins handler rendering tracebacks for nobody.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"null": {"class": "logging.NullHandler"}},
    "root": {"handlers": ["null"]},
    "loggers": {"django": {"handlers": ["null"], "propagate": False}},
}
