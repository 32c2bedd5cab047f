"""
The API's data as Django models. Optional values are `null=True, blank=True`; the `Convention*`
models follow Django's advice for strings instead ("Avoid using null on string-based fields such as
CharField and TextField ... the Django convention is to use the empty string, not NULL"), which
the `blank-strings` deployment serves: "" where the API must send null.
"""
from django.db import models


class Tenant(models.Model):
    id = models.UUIDField(primary_key=True)
    name = models.CharField(max_length=200, blank=True)
    accessible = models.BooleanField(default=True)
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["position"]


class Account(models.Model):
    id = models.UUIDField(primary_key=True)
    name = models.CharField(max_length=200)
    email = models.EmailField(null=True, blank=True)


class Shipment(models.Model):
    STATUSES = [("created", "created"), ("in_transit", "in transit"), ("delivered", "delivered")]

    id = models.UUIDField(primary_key=True)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="shipments")
    position = models.PositiveIntegerField()
    reference = models.CharField(max_length=40, blank=True)
    carrier = models.CharField(max_length=80)
    status = models.CharField(max_length=20, choices=STATUSES)
    weight_kg = models.FloatField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["position"]


class InvoiceFields(models.Model):
    id = models.UUIDField(primary_key=True)
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()
    number = models.CharField(max_length=40)
    amount_cents = models.IntegerField()
    currency = models.CharField(max_length=3)
    due_date = models.DateField(null=True, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    shipment = models.ForeignKey(Shipment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        abstract = True
        ordering = ["position"]


class Invoice(InvoiceFields):
    note = models.TextField(null=True, blank=True)


class ConventionInvoice(InvoiceFields):
    """Invoice with Django's string convention: note is "" when there is none."""

    note = models.TextField(blank=True, default="")


class SettingsFields(models.Model):
    tenant = models.OneToOneField(Tenant, primary_key=True, on_delete=models.CASCADE, related_name="+")
    timezone = models.CharField(max_length=64)
    locale = models.CharField(max_length=16)
    invoice_email = models.CharField(max_length=200, blank=True)

    class Meta:
        abstract = True


class TenantSettings(SettingsFields):
    default_carrier = models.CharField(max_length=80, null=True, blank=True)
    webhook_url = models.URLField(null=True, blank=True)


class ConventionTenantSettings(SettingsFields):
    """TenantSettings with Django's string convention: "" for no default carrier, no webhook."""

    default_carrier = models.CharField(max_length=80, blank=True, default="")
    webhook_url = models.URLField(blank=True, default="")
