"""The spec's Accept-Version request header as a DRF versioning class."""
from rest_framework import exceptions
from rest_framework.versioning import BaseVersioning


class AcceptVersionHeaderVersioning(BaseVersioning):
    """spec §Versioning 1–2: missing 400, an invalid version 404 (or 400)."""

    invalid_version_message = "Unsupported API version."

    def determine_version(self, request, *args, **kwargs):
        version = request.META.get("HTTP_ACCEPT_VERSION")
        if version is None:
            raise exceptions.ParseError("The Accept-Version header is required.")
        version = version.strip()
        if not self.is_allowed_version(version):
            raise self.invalid_version(version)
        return version

    def invalid_version(self, version):
        return exceptions.NotFound(self.invalid_version_message)


class NotAcceptableVersioning(AcceptVersionHeaderVersioning):
    """As DRF's own AcceptHeaderVersioning answers an invalid version: 406 Not Acceptable."""

    def invalid_version(self, version):
        return exceptions.NotAcceptable(self.invalid_version_message)
