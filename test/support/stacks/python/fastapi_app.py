"""
The Carrier-Platform API written as a team writes it with FastAPI 0.92 and pydantic 1.10 (Debian 12's
python3-fastapi), following FastAPI's documentation: pydantic response models with
`Optional[...] = None` for the optional fields, typed path parameters (`tenant_id: UUID`), `Query`
bounds for page and size, security dependencies from fastapi.security (HTTPBasic for the token
endpoint, HTTPBearer for the rest), a global dependency for Accept-Version, an APIRouter for the
tenant's resources, and the OpenAPI document FastAPI generates (what it serves at /openapi.json).

The data is the reference server's data set (src/reference/data.ts), handed over as a JSON file.

Each app is built from a set of defects, the mistakes FastAPI teams really make (none by default):

- `http-bearer-403`: `HTTPBearer()` as the docs show it (auto_error): a request without credentials,
  or with another scheme, gets FastAPI's 403 {"detail": "Not authenticated"} with no challenge.
- `exclude-none`: `response_model_exclude_none=True` on the routes: null fields are left out.
- `expires-float`: the token response built as a JSONResponse from `timedelta.total_seconds()`:
  `"expires_in": 2.0`.
- `links-drop-size`: Link targets from `request.url.replace_query_params(page=n)`, which drops every
  other query parameter (`size` among them).
- `size-capped`: the data layer returns at most 25 items, while the handler echoes the requested
  size in Page-Size and computes Total-Pages from it.
- `basic-ignored`: a token endpoint modelled on fastapi.security.OAuth2PasswordRequestForm, which reads
  client_id and client_secret from the form (client_secret_post) and never HTTP Basic.
"""
import argparse
import json
import math
import os
import secrets
import sys
import time
from datetime import date, datetime, timedelta, timezone
from typing import Any, Callable, Dict, List, Optional, Set
from urllib.parse import unquote_plus
from uuid import UUID, uuid4

from fastapi import APIRouter, Depends, FastAPI, Form, Header, HTTPException, Query, Request, Response
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBasic, HTTPBasicCredentials, HTTPBearer
from pydantic import BaseModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from launch import serve_apps  # noqa: E402

DEFECTS = {"http-bearer-403", "exclude-none", "expires-float", "links-drop-size", "size-capped", "basic-ignored"}
PAGE_SIZE_DEFAULT = 10
PAGE_SIZE_MAX = 100
DATA_LAYER_LIMIT = 25


# ── models (pydantic 1: an Optional field with a None default is documented without null) ─────


class TenantRef(BaseModel):
    id: UUID
    name: str


class User(BaseModel):
    id: UUID
    name: str
    email: Optional[str] = None
    tenants: List[TenantRef]


class Shipment(BaseModel):
    id: UUID
    reference: str
    carrier: str
    status: str
    weightKg: Optional[float] = None
    deliveredAt: Optional[datetime] = None
    createdAt: datetime


class ShipmentDraft(BaseModel):
    reference: str = ""
    carrier: str
    weightKg: Optional[float] = None


class Invoice(BaseModel):
    id: UUID
    number: str
    amountCents: int
    currency: str
    dueDate: Optional[date] = None
    paidAt: Optional[datetime] = None
    note: Optional[str] = None
    shipmentId: Optional[UUID] = None


class TenantSettings(BaseModel):
    tenantId: UUID
    timezone: str
    locale: str
    defaultCarrier: Optional[str] = None
    invoiceEmail: str
    webhookUrl: Optional[str] = None


class Token(BaseModel):
    access_token: str
    token_type: str
    expires_in: int


# ── the app ───────────────────────────────────────────────────────────────────────────────────


def build_app(defects: Set[str], data: Dict[str, Any], ttl: timedelta) -> FastAPI:
    tokens: Dict[str, float] = {}
    tenants = {t["id"]: t for t in data["tenants"]}
    client_id: str = data["clientId"]
    client_secret: str = data["clientSecret"]
    no_store = {"Cache-Control": "no-store", "Pragma": "no-cache"}
    route_options: Dict[str, Any] = {"response_model_exclude_none": True} if "exclude-none" in defects else {}

    # spec §Versioning 1–2, §Errors: missing 400, another version 404; on every endpoint.
    def accept_version(accept_version: Optional[str] = Header(None, description="The API version: 1")) -> None:
        if accept_version is None:
            raise HTTPException(status_code=400, detail="The Accept-Version header is required")
        if accept_version.strip() != "1":
            raise HTTPException(status_code=404, detail="Unsupported API version")

    app = FastAPI(title="Carrier-Platform API", version="1", dependencies=[Depends(accept_version)])

    # ── bearer tokens (RFC 6750) ──
    if "http-bearer-403" in defects:
        bearer_scheme = HTTPBearer()  # auto_error: 403 "Not authenticated", no challenge

        def current_client(credentials: HTTPAuthorizationCredentials = Depends(bearer_scheme)) -> str:
            return valid_token(credentials.credentials)
    else:
        bearer_scheme = HTTPBearer(auto_error=False)

        def current_client(credentials: Optional[HTTPAuthorizationCredentials] = Depends(bearer_scheme)) -> str:
            if credentials is None:
                # RFC 6750 §3.1: no error code when the request has no token.
                raise HTTPException(status_code=401, detail="Not authenticated", headers={"WWW-Authenticate": 'Bearer realm="carrier-platform"'})
            return valid_token(credentials.credentials)

    def valid_token(token: str) -> str:
        expires = tokens.get(token)
        if expires is None or expires <= time.monotonic():
            raise HTTPException(status_code=401, detail="Invalid or expired token", headers={"WWW-Authenticate": 'Bearer realm="carrier-platform", error="invalid_token"'})
        return token

    # ── the token endpoint (RFC 6749 §4.4) ──
    def oauth_error(status: int, error: str, description: str, challenge: bool = False) -> JSONResponse:
        headers = dict(no_store, **({"WWW-Authenticate": 'Basic realm="carrier-platform"'} if challenge else {}))
        return JSONResponse(status_code=status, content={"error": error, "error_description": description}, headers=headers)

    def new_token() -> str:
        token = secrets.token_urlsafe(32)
        tokens[token] = time.monotonic() + ttl.total_seconds()
        return token

    def grant_problem(grant_type: Optional[str]) -> Optional[JSONResponse]:
        if not grant_type:
            return oauth_error(400, "invalid_request", "grant_type is required")
        if grant_type != "client_credentials":
            return oauth_error(400, "unsupported_grant_type", "Only client_credentials is supported")
        return None

    def same(given: str, known: str) -> bool:
        return secrets.compare_digest(given.encode("utf-8"), known.encode("utf-8"))

    if "basic-ignored" in defects:

        class ClientCredentialsRequestForm:
            """Modelled on fastapi.security.OAuth2PasswordRequestForm: the client's credentials from the form."""

            def __init__(self, grant_type: Optional[str] = Form(None), scope: str = Form(""), client_id: Optional[str] = Form(None), client_secret: Optional[str] = Form(None)):
                self.grant_type = grant_type
                self.scopes = scope.split()
                self.client_id = client_id
                self.client_secret = client_secret

        def issue_token(response: Response, form: ClientCredentialsRequestForm = Depends()) -> Any:
            if form.client_id is None or form.client_secret is None or not (same(form.client_id, client_id) and same(form.client_secret, client_secret)):
                return oauth_error(401, "invalid_client", "Client authentication failed", challenge=True)
            problem = grant_problem(form.grant_type)
            if problem is not None:
                return problem
            response.headers.update(no_store)
            return {"access_token": new_token(), "token_type": "bearer", "expires_in": int(ttl.total_seconds())}
    else:
        basic_scheme = HTTPBasic(auto_error=False)

        def issue_token(response: Response, grant_type: Optional[str] = Form(None), credentials: Optional[HTTPBasicCredentials] = Depends(basic_scheme)) -> Any:
            # RFC 6749 §2.3.1: the client id and secret are form-urlencoded before Base64.
            if credentials is None or not (same(unquote_plus(credentials.username), client_id) and same(unquote_plus(credentials.password), client_secret)):
                return oauth_error(401, "invalid_client", "Client authentication failed", challenge=True)
            problem = grant_problem(grant_type)
            if problem is not None:
                return problem
            if "expires-float" in defects:
                return JSONResponse({"access_token": new_token(), "token_type": "bearer", "expires_in": ttl.total_seconds()}, headers=no_store)
            response.headers.update(no_store)
            return {"access_token": new_token(), "token_type": "bearer", "expires_in": int(ttl.total_seconds())}

    # The legacy paths are served by the app itself (no gateway in front), kept out of the document.
    for path, in_schema in (("/uaa/oauth2/token", True), ("/uaa/oauth/token", False)):
        app.add_api_route(path, issue_token, methods=["POST"], response_model=Token, include_in_schema=in_schema)

    # ── the current user ──
    user = User.parse_obj(data["user"])

    def read_current_user() -> User:
        return user

    for path, in_schema in (("/users/me", True), ("/uaa/userinfo", False)):
        app.add_api_route(path, read_current_user, methods=["GET"], response_model=User, dependencies=[Depends(current_client)], include_in_schema=in_schema, **route_options)

    # ── the tenant's resources ──
    def accessible_tenant(tenant_id: UUID) -> Dict[str, Any]:
        tenant = tenants.get(str(tenant_id))
        if tenant is None:
            raise HTTPException(status_code=404, detail="Tenant not found")
        if not tenant["accessible"]:
            raise HTTPException(status_code=403, detail="No access to this tenant")
        return tenant

    router = APIRouter(prefix="/tenants/{tenant_id}", dependencies=[Depends(current_client)])

    def fetch(items: List[Any], offset: int, limit: int) -> List[Any]:
        """The data layer; in `size-capped` it returns at most 25 rows, whatever it is asked for."""
        if "size-capped" in defects:
            limit = min(limit, DATA_LAYER_LIMIT)
        return items[offset : offset + limit]

    def page_url(request: Request, page: int) -> str:
        if "links-drop-size" in defects:
            return str(request.url.replace_query_params(page=page))
        return str(request.url.include_query_params(page=page))

    def paginate(request: Request, response: Response, items: List[Any], page: int, size: int) -> List[Any]:
        total = len(items)
        total_pages = math.ceil(total / size)
        links = []
        if total_pages >= 1:
            links.append((1, "first"))
        if 1 < page <= total_pages + 1:
            links.append((page - 1, "prev"))
        if page < total_pages:
            links.append((page + 1, "next"))
        if total_pages >= 1:
            links.append((total_pages, "last"))
        response.headers["Total-Pages"] = str(total_pages)
        response.headers["Page-Size"] = str(size)
        response.headers["Page-Number"] = str(page)
        response.headers["Total-Elements"] = str(total)
        if links:
            response.headers["Link"] = ", ".join(f'<{page_url(request, n)}>; rel="{rel}"' for n, rel in links)
        return fetch(items, (page - 1) * size, size)

    def one(items: List[Any], item_id: UUID, kind: str) -> Any:
        for item in items:
            if item["id"] == str(item_id):
                return item
        raise HTTPException(status_code=404, detail=f"{kind} not found")

    @router.get("/shipments", response_model=List[Shipment], **route_options)
    def list_shipments(request: Request, response: Response, page: int = Query(1, ge=1), size: int = Query(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX), tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Any:
        return paginate(request, response, data["shipments"][tenant["id"]], page, size)

    @router.get("/shipments/{shipment_id}", response_model=Shipment, **route_options)
    def read_shipment(shipment_id: UUID, tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Any:
        return one(data["shipments"][tenant["id"]], shipment_id, "Shipment")

    # The write operations, as FastAPI writes them: a body model, and a 204 without content.
    @router.post("/shipments", response_model=Shipment, status_code=201, **route_options)
    def create_shipment(draft: ShipmentDraft, tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Any:
        return {"id": str(uuid4()), "reference": draft.reference, "carrier": draft.carrier, "status": "created", "weightKg": draft.weightKg, "deliveredAt": None, "createdAt": datetime.now(timezone.utc)}

    @router.delete("/shipments/{shipment_id}", status_code=204, response_class=Response)
    def delete_shipment(shipment_id: UUID, tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Response:
        one(data["shipments"][tenant["id"]], shipment_id, "Shipment")
        return Response(status_code=204)

    @router.get("/invoices", response_model=List[Invoice], **route_options)
    def list_invoices(request: Request, response: Response, page: int = Query(1, ge=1), size: int = Query(PAGE_SIZE_DEFAULT, ge=1, le=PAGE_SIZE_MAX), tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Any:
        return paginate(request, response, data["invoices"][tenant["id"]], page, size)

    @router.get("/invoices/{invoice_id}", response_model=Invoice, **route_options)
    def read_invoice(invoice_id: UUID, tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Any:
        return one(data["invoices"][tenant["id"]], invoice_id, "Invoice")

    @router.get("/settings", response_model=TenantSettings, **route_options)
    def read_settings(tenant: Dict[str, Any] = Depends(accessible_tenant)) -> Any:
        return data["settings"][tenant["id"]]

    app.include_router(router)
    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="the data set (JSON)")
    parser.add_argument("--out", required=True, help="where each app's OpenAPI document is written, as <name>.json")
    parser.add_argument("--app", action="append", required=True, help="an app to serve, NAME@TTL: NAME 'conformant' or defects joined by '+', TTL the tokens' expires_in in seconds")
    args = parser.parse_args()
    with open(args.data, encoding="utf-8") as f:
        data = json.load(f)
    apps: Dict[str, Callable[..., Any]] = {}
    for spec in args.app:
        name, _, ttl = spec.partition("@")
        defects = set() if name == "conformant" else set(name.split("+"))
        unknown = defects - DEFECTS
        if unknown:
            parser.error(f"unknown defects: {', '.join(sorted(unknown))}")
        app = build_app(defects, data, timedelta(seconds=float(ttl or 2)))
        # What FastAPI serves at /openapi.json.
        with open(os.path.join(args.out, f"{name}.json"), "w", encoding="utf-8") as f:
            json.dump(app.openapi(), f, indent=2)
        apps[name] = app
    serve_apps(apps)


if __name__ == "__main__":
    main()
