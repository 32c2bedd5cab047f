"""
The Carrier-Platform API written as a team writes it with Django 3.2 and Django REST framework 3.14
(Debian 12's python3-djangorestframework), following DRF's documentation: models and
ModelSerializers, ReadOnlyModelViewSets on a SimpleRouter (trailing-slash paths), a versioning
class, an authentication class, a pagination class, and the OpenAPI document `generateschema`
writes. Served by uvicorn (Django's "How to use Django with Uvicorn"), one deployment per port.

The data is the reference server's data set (src/reference/data.ts), loaded from a JSON file into
a SQLite database.
"""
import argparse
import json
import os
import sys
from datetime import date, datetime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.dirname(HERE)]


def when(value):
    return None if value is None else datetime.fromisoformat(value.replace("Z", "+00:00"))


def day(value):
    return None if value is None else date.fromisoformat(value)


def load(data):
    from carrier_api.models import Account, ConventionInvoice, ConventionTenantSettings, Invoice, Shipment, Tenant, TenantSettings

    Tenant.objects.bulk_create(Tenant(id=t["id"], name=t["name"], accessible=t["accessible"], position=i) for i, t in enumerate(data["tenants"]))
    user = data["user"]
    Account.objects.create(id=user["id"], name=user["name"], email=user["email"])
    for tenant_id, items in data["shipments"].items():
        Shipment.objects.bulk_create(
            Shipment(id=s["id"], tenant_id=tenant_id, position=i, reference=s["reference"], carrier=s["carrier"], status=s["status"], weight_kg=s["weightKg"], delivered_at=when(s["deliveredAt"]), created_at=when(s["createdAt"]))
            for i, s in enumerate(items)
        )
    for tenant_id, items in data["invoices"].items():
        for model, none in ((Invoice, None), (ConventionInvoice, "")):
            model.objects.bulk_create(
                model(id=v["id"], tenant_id=tenant_id, position=i, number=v["number"], amount_cents=v["amountCents"], currency=v["currency"], due_date=day(v["dueDate"]), paid_at=when(v["paidAt"]), note=none if v["note"] is None else v["note"], shipment_id=v["shipmentId"])
                for i, v in enumerate(items)
            )
    for tenant_id, s in data["settings"].items():
        TenantSettings.objects.create(tenant_id=tenant_id, timezone=s["timezone"], locale=s["locale"], default_carrier=s["defaultCarrier"], invoice_email=s["invoiceEmail"], webhook_url=s["webhookUrl"])
        # What the column holds under Django's string convention: "" where there is no value.
        ConventionTenantSettings.objects.create(tenant_id=tenant_id, timezone=s["timezone"], locale=s["locale"], default_carrier=s["defaultCarrier"] or "", invoice_email=s["invoiceEmail"], webhook_url=s["webhookUrl"] or "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="the data set (JSON)")
    parser.add_argument("--out", required=True, help="where the database and each deployment's OpenAPI document (<name>.yaml) go")
    parser.add_argument("--app", action="append", required=True, help="a deployment to serve, NAME@TTL: NAME 'conformant' or defects joined by '+', TTL the tokens' expires_in in seconds")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "carrier_api.settings")
    os.environ["CARRIER_DRF_DATABASE"] = os.path.join(args.out, "db.sqlite3")

    import django

    django.setup()
    from django.core.asgi import get_asgi_application
    from django.core.management import call_command

    from carrier_api import views
    from carrier_api.urls import DEFECTS, register_deployment
    from launch import serve_apps

    with open(args.data, encoding="utf-8") as f:
        data = json.load(f)
    call_command("migrate", run_syncdb=True, verbosity=0)
    load(data)
    views.CLIENT.update(id=data["clientId"], secret=data["clientSecret"])

    django_app = get_asgi_application()

    def deployment(urlconf):
        async def app(scope, receive, send):
            await django_app(dict(scope, carrier_urlconf=urlconf), receive, send)

        return app

    apps = {}
    for index, spec in enumerate(args.app):
        name, _, ttl = spec.partition("@")
        defects = frozenset() if name == "conformant" else frozenset(name.split("+"))
        unknown = defects - DEFECTS
        if unknown:
            parser.error(f"unknown defects: {', '.join(sorted(unknown))}")
        urlconf = register_deployment(index, defects, float(ttl or 2))
        call_command("generateschema", urlconf=urlconf, title="Carrier-Platform API", api_version="1", file=os.path.join(args.out, f"{name}.yaml"))
        apps[name] = deployment(urlconf)
    serve_apps(apps)


if __name__ == "__main__":
    main()
