"""ModelSerializers; the API's camelCase names are declared with `source=`."""
from rest_framework import serializers

from .models import Account, ConventionInvoice, ConventionTenantSettings, Invoice, Shipment, Tenant, TenantSettings


class TenantRefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Tenant
        fields = ["id", "name"]


class UserSerializer(serializers.ModelSerializer):
    tenants = serializers.SerializerMethodField()

    class Meta:
        model = Account
        fields = ["id", "name", "email", "tenants"]

    def get_tenants(self, account):
        return TenantRefSerializer(Tenant.objects.filter(accessible=True), many=True).data


class ShipmentSerializer(serializers.ModelSerializer):
    weightKg = serializers.FloatField(source="weight_kg", allow_null=True, required=False)
    deliveredAt = serializers.DateTimeField(source="delivered_at", allow_null=True, required=False)
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Shipment
        fields = ["id", "reference", "carrier", "status", "weightKg", "deliveredAt", "createdAt"]


class InvoiceSerializer(serializers.ModelSerializer):
    amountCents = serializers.IntegerField(source="amount_cents")
    dueDate = serializers.DateField(source="due_date", allow_null=True, required=False)
    paidAt = serializers.DateTimeField(source="paid_at", allow_null=True, required=False)
    shipmentId = serializers.UUIDField(source="shipment_id", allow_null=True, read_only=True)

    class Meta:
        model = Invoice
        fields = ["id", "number", "amountCents", "currency", "dueDate", "paidAt", "note", "shipmentId"]


class TenantSettingsSerializer(serializers.ModelSerializer):
    tenantId = serializers.UUIDField(source="tenant_id", read_only=True)
    defaultCarrier = serializers.CharField(source="default_carrier", allow_null=True, required=False)
    invoiceEmail = serializers.CharField(source="invoice_email", allow_blank=True)
    webhookUrl = serializers.URLField(source="webhook_url", allow_null=True, required=False)

    class Meta:
        model = TenantSettings
        fields = ["tenantId", "timezone", "locale", "defaultCarrier", "invoiceEmail", "webhookUrl"]


class ConventionInvoiceSerializer(InvoiceSerializer):
    class Meta(InvoiceSerializer.Meta):
        model = ConventionInvoice


class ConventionTenantSettingsSerializer(TenantSettingsSerializer):
    defaultCarrier = serializers.CharField(source="default_carrier", allow_blank=True, required=False)
    webhookUrl = serializers.URLField(source="webhook_url", allow_blank=True, required=False)

    class Meta(TenantSettingsSerializer.Meta):
        model = ConventionTenantSettings
