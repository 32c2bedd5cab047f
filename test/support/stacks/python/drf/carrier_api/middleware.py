"""Each deployment (one per port, see serve_drf.py) has its own URLconf."""


class DeploymentMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        urlconf = getattr(request, "scope", {}).get("carrier_urlconf")
        if urlconf is not None:
            request.urlconf = urlconf
        return self.get_response(request)
