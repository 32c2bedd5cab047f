"""The API's views: the token endpoint, the current user, the tenant's resources (viewsets)."""
import base64
import binascii
import secrets
from urllib.parse import unquote_plus

from django.shortcuts import get_object_or_404
from rest_framework import generics, mixins, permissions, viewsets
from rest_framework.parsers import FormParser
from rest_framework.response import Response
from rest_framework.views import APIView

from . import tokens
from .models import Account, Invoice, Shipment, Tenant, TenantSettings
from .serializers import InvoiceSerializer, ShipmentSerializer, TenantSettingsSerializer, UserSerializer

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
# The API client's credentials (set by the launcher from the data set).
CLIENT = {"id": "", "secret": ""}


def oauth_error(status, error, description, challenge=False):
    headers = dict(NO_STORE)
    if challenge:
        headers["WWW-Authenticate"] = 'Basic realm="carrier-platform"'
    return Response({"error": error, "error_description": description}, status=status, headers=headers)


def basic_credentials(request):
    """RFC 7617 credentials, each form-urlencoded first (RFC 6749 §2.3.1); None when absent or malformed."""
    parts = request.META.get("HTTP_AUTHORIZATION", "").split()
    if len(parts) != 2 or parts[0].lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(parts[1], validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    client_id, colon, secret = decoded.partition(":")
    return (unquote_plus(client_id), unquote_plus(secret)) if colon else None


class TokenView(APIView):
    """POST /uaa/oauth2/token: the client credentials grant (RFC 6749 §4.4) with HTTP Basic."""

    authentication_classes = []
    permission_classes = []
    parser_classes = [FormParser]
    # expires_in of the tokens (each deployment sets its own).
    token_ttl_seconds = 2.0

    def post(self, request):
        credentials = basic_credentials(request)
        if credentials is None or not (secrets.compare_digest(credentials[0], CLIENT["id"]) and secrets.compare_digest(credentials[1].encode(), CLIENT["secret"].encode())):
            return oauth_error(401, "invalid_client", "Client authentication failed", challenge=True)
        grant_type = request.data.get("grant_type")
        if not grant_type:
            return oauth_error(400, "invalid_request", "grant_type is required")
        if grant_type != "client_credentials":
            return oauth_error(400, "unsupported_grant_type", "Only client_credentials is supported")
        body = {"access_token": tokens.issue(self.token_ttl_seconds), "token_type": "bearer", "expires_in": int(self.token_ttl_seconds)}
        return Response(body, headers=NO_STORE)


class CurrentUserView(generics.RetrieveAPIView):
    """GET /users/me."""

    serializer_class = UserSerializer

    def get_object(self):
        return Account.objects.get()


class IsTenantMember(permissions.BasePermission):
    """spec §Authentication 5: only the tenants the client may access."""

    message = "No access to this tenant."

    def has_permission(self, request, view):
        return Tenant.objects.filter(pk=view.kwargs["tenant_id"], accessible=True).exists()


class TenantScopedViewSet(viewsets.ReadOnlyModelViewSet):
    permission_classes = [permissions.IsAuthenticated, IsTenantMember]

    def get_queryset(self):
        return super().get_queryset().filter(tenant_id=self.kwargs["tenant_id"])


class ShipmentViewSet(mixins.CreateModelMixin, mixins.DestroyModelMixin, TenantScopedViewSet):
    """The shipments, with a create and a delete operation (POST shipments/, DELETE shipments/{id}/), as a router writes them."""

    queryset = Shipment.objects.all()
    serializer_class = ShipmentSerializer

    def perform_create(self, serializer):
        serializer.save(tenant_id=self.kwargs["tenant_id"])


class InvoiceViewSet(TenantScopedViewSet):
    queryset = Invoice.objects.all()
    serializer_class = InvoiceSerializer


class TenantSettingsView(generics.RetrieveAPIView):
    permission_classes = [permissions.IsAuthenticated, IsTenantMember]
    queryset = TenantSettings.objects.all()
    serializer_class = TenantSettingsSerializer

    def get_object(self):
        return get_object_or_404(self.get_queryset(), tenant_id=self.kwargs["tenant_id"])
