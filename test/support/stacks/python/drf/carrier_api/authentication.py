"""Bearer access tokens (RFC 6750) as DRF authentication classes."""
from rest_framework import authentication, exceptions

from . import tokens

REALM = 'Bearer realm="carrier-platform"'


class ApiClient:
    """The authenticated OAuth client (not a Django user)."""

    is_authenticated = True


def bearer_token(request):
    auth = authentication.get_authorization_header(request).split()
    if not auth or auth[0].lower() != b"bearer":
        return None
    if len(auth) != 2:
        raise exceptions.AuthenticationFailed("Invalid bearer header.")
    return auth[1].decode("latin-1")


class BearerTokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        token = bearer_token(request)
        if token is None:
            return None
        if not tokens.is_valid(token):
            raise exceptions.AuthenticationFailed("Invalid or expired token.")
        return (ApiClient(), token)

    def authenticate_header(self, request):
        # DRF answers 401 with this challenge (403 without one). RFC 6750 §3.1: error="invalid_token"
        # when a token was sent, no error code when none was.
        try:
            sent = bearer_token(request) is not None
        except exceptions.AuthenticationFailed:
            sent = True
        return f'{REALM}, error="invalid_token"' if sent else REALM


class DocsExampleBearerAuthentication(BearerTokenAuthentication):
    """
    As DRF's documentation writes a custom authentication class (its example has no
    authenticate_header): "If the .authenticate_header() method is not overridden, the
    authentication scheme will return HTTP 403 Forbidden responses when an unauthenticated
    request is denied access."
    """

    authenticate_header = authentication.BaseAuthentication.authenticate_header
