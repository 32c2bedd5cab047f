"""
The URLconf of each deployment, from its set of defects (none: the conformant API), built with
DRF's SimpleRouter (trailing-slash paths) under `tenants/<uuid:tenant_id>/`:

- `auth-403`: DocsExampleBearerAuthentication (no authenticate_header: 403 without a challenge);
- `version-406`: an invalid Accept-Version gets 406, as DRF's AcceptHeaderVersioning answers;
- `append-slash`: the current user's paths written Django's way, with a trailing slash (`users/me/`,
  `uaa/userinfo/`; the token endpoint at the spec's path): APPEND_SLASH answers /users/me with 301;
- `body-paging`: DRF's PageNumberPagination as shipped (the paging in a body envelope);
- `size-ignored`: `size` ignored (page_size_query_param left at None);
- `blank-strings`: invoices and settings from models with Django's string convention ("" for none);
- `no-legacy`: no legacy paths (a gateway in front rewrites them).
"""
import sys
import types
from typing import FrozenSet, List

from django.urls import include, path
from rest_framework import routers

from .authentication import DocsExampleBearerAuthentication
from .models import ConventionInvoice, ConventionTenantSettings
from .pagination import BodyPageNumberPagination, SizeIgnoringPagination
from .serializers import ConventionInvoiceSerializer, ConventionTenantSettingsSerializer
from .versioning import NotAcceptableVersioning
from .views import CurrentUserView, InvoiceViewSet, ShipmentViewSet, TenantSettingsView, TokenView

DEFECTS = {"auth-403", "version-406", "append-slash", "body-paging", "size-ignored", "blank-strings", "no-legacy"}


def build_urlpatterns(defects: FrozenSet[str], token_ttl_seconds: float = 2.0) -> List[object]:
    common = {"versioning_class": NotAcceptableVersioning} if "version-406" in defects else {}
    guarded = dict(common, **({"authentication_classes": [DocsExampleBearerAuthentication]} if "auth-403" in defects else {}))
    listing = dict(guarded)
    if "body-paging" in defects:
        listing["pagination_class"] = BodyPageNumberPagination
    if "size-ignored" in defects:
        listing["pagination_class"] = SizeIgnoringPagination

    def variant(cls, attrs):
        return type(cls.__name__, (cls,), dict(attrs, __module__=cls.__module__)) if attrs else cls

    invoices = dict(listing, queryset=ConventionInvoice.objects.all(), serializer_class=ConventionInvoiceSerializer) if "blank-strings" in defects else listing
    settings = dict(guarded, queryset=ConventionTenantSettings.objects.all(), serializer_class=ConventionTenantSettingsSerializer) if "blank-strings" in defects else guarded

    router = routers.SimpleRouter()
    router.register("shipments", variant(ShipmentViewSet, listing), basename="shipment")
    router.register("invoices", variant(InvoiceViewSet, invoices), basename="invoice")

    token = variant(TokenView, dict(common, token_ttl_seconds=token_ttl_seconds)).as_view
    user = variant(CurrentUserView, guarded).as_view
    slash = "/" if "append-slash" in defects else ""
    patterns = [
        path("uaa/oauth2/token", token()),
        path(f"users/me{slash}", user()),
        path("tenants/<uuid:tenant_id>/", include(router.urls + [path("settings/", variant(TenantSettingsView, settings).as_view())])),
    ]
    if "no-legacy" not in defects:
        # spec §Obtain an access token, §Get the current user: the legacy paths answer as the current ones.
        patterns += [path("uaa/oauth/token", token(schema=None)), path(f"uaa/userinfo{slash}", user(schema=None))]
    return patterns


def register_deployment(index: int, defects: FrozenSet[str], token_ttl_seconds: float) -> str:
    """A module holding the deployment's urlpatterns, by name (for request.urlconf and generateschema)."""
    name = f"carrier_deployment_{index}"
    module = types.ModuleType(name)
    module.urlpatterns = build_urlpatterns(defects, token_ttl_seconds)  # type: ignore[attr-defined]
    sys.modules[name] = module
    return name


urlpatterns = build_urlpatterns(frozenset())
