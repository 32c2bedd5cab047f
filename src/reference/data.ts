/**
 * The fixed data set: one user, three tenants, and shipments generated from their index.
 *
 * Shipments are computed on demand (never stored), so a tenant with 100 000 of them costs
 * nothing, and every request sees the same items.
 */
import { createHash } from 'node:crypto';

export interface ReferenceTenantRef {
  id: string;
  name: string;
}

/** The User resource (spec §User). */
export interface ReferenceUser {
  id: string;
  name: string;
  email: string | null;
  tenants: ReferenceTenantRef[];
}

export type ShipmentStatus = 'created' | 'in_transit' | 'delivered';

export interface Shipment {
  id: string;
  reference: string;
  carrier: string;
  status: ShipmentStatus;
  weightKg: number | null;
  deliveredAt: string | null;
  createdAt: string;
}

/**
 * An invoice: a second list under the tenant, whose optional fields are null or "" in a fixed
 * pattern (spec §Generic rules for optional fields 1, 2), so that ground truth can tell them apart.
 */
export interface Invoice {
  id: string;
  number: string;
  amountCents: number;
  currency: 'EUR' | 'USD';
  /** null: no due date agreed. */
  dueDate: string | null;
  /** null until paid. */
  paidAt: string | null;
  /** A free text: "" when the customer left it empty, null when none was ever asked for. */
  note: string | null;
  /** The shipment it bills, or null for a service invoice. */
  shipmentId: string | null;
}

/** The tenant's settings: one resource, not a list. */
export interface TenantSettings {
  tenantId: string;
  timezone: string;
  locale: string;
  /** null: no default carrier chosen. */
  defaultCarrier: string | null;
  /** "": invoices by email switched off on purpose, which is not the same as unknown. */
  invoiceEmail: string;
  webhookUrl: string | null;
}

export interface TenantRecord {
  readonly id: string;
  readonly name: string;
  readonly shipmentCount: number;
  readonly invoiceCount: number;
  /** Whether the reference client may access it; a tenant that exists but is not accessible answers 403. */
  readonly accessible: boolean;
  /** Whether the second client may (REFERENCE_SECOND_CLIENT_ID): its tenant is the one the first may not access. */
  readonly secondClient: boolean;
}

// Fixed UUIDs in version-4 format (version nibble 4, variant 8–b), so they pass any UUID check.
export const USER_ID = 'a3e1c9d2-5b7f-4e08-9c6a-2d4f8b1e7a30';
export const MAIN_TENANT_ID = '5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d';
export const EMPTY_TENANT_ID = '9b2d4f6a-8c0e-4a1b-b3c5-d7e9f1a3b5c7';
export const FOREIGN_TENANT_ID = 'c4e6a8b0-2d4f-4c6e-a8b0-c2d4e6f8a0b2';
export const FOREIGN_SHIPMENT_COUNT = 7;

export const MAIN_INVOICE_COUNT = 14;
export const FOREIGN_INVOICE_COUNT = 3;

export function buildTenants(mainShipmentCount: number): ReadonlyMap<string, TenantRecord> {
  const tenants: TenantRecord[] = [
    {
      id: MAIN_TENANT_ID,
      name: 'Acme Freight',
      shipmentCount: mainShipmentCount,
      invoiceCount: MAIN_INVOICE_COUNT,
      accessible: true,
      secondClient: false,
    },
    // The empty string is a valid name, not a stand-in for null (spec §Generic rules 2).
    { id: EMPTY_TENANT_ID, name: '', shipmentCount: 0, invoiceCount: 0, accessible: true, secondClient: false },
    {
      id: FOREIGN_TENANT_ID,
      name: 'Rival Logistics',
      shipmentCount: FOREIGN_SHIPMENT_COUNT,
      invoiceCount: FOREIGN_INVOICE_COUNT,
      accessible: false,
      secondClient: true,
    },
  ];
  return new Map(tenants.map((t) => [t.id, t]));
}

export const SECOND_USER_ID = 'd5f7b9c1-3e5a-4d7f-9b1c-e3f5a7c9e1d3';

/** Whether the client may access the tenant (spec §Authentication 5): its own tenants only. */
export function mayAccess(tenant: TenantRecord, client: 'first' | 'second'): boolean {
  return client === 'second' ? tenant.secondClient : tenant.accessible;
}

/**
 * The User that /users/me returns: the tenants the client may access, in order (for the first
 * client the main tenant first; for the second, its own tenant alone).
 */
export function buildUser(
  tenants: ReadonlyMap<string, TenantRecord>,
  client: 'first' | 'second' = 'first',
): ReferenceUser {
  return {
    id: client === 'second' ? SECOND_USER_ID : USER_ID,
    name: client === 'second' ? 'Rival Integration' : 'Ada Reference',
    // An optional field without data is null, never omitted (spec §Generic rules 1).
    email: null,
    tenants: [...tenants.values()].filter((t) => mayAccess(t, client)).map((t) => ({ id: t.id, name: t.name })),
  };
}

const CARRIERS = ['DHL Express', 'UPS', 'FedEx', 'DPD', 'PostNL', 'GLS', 'TNT'] as const;
const STATUSES: readonly ShipmentStatus[] = ['created', 'in_transit', 'delivered'];
const EPOCH_MS = Date.UTC(2026, 0, 1);
const MINUTE_MS = 60_000;

/**
 * A UUID in version-4 format: the first 20 hex digits come from a hash of the tenant, the last 12
 * are the item number, so ids are unique within a tenant by construction and differ across tenants.
 */
const idPrefixes = new Map<string, string>();

/** The first 20 hex digits of the ids of one kind of item of one tenant. */
function idPrefix(tenantId: string, kind: string): string {
  const key = `${kind}:${tenantId}`;
  let prefix = idPrefixes.get(key);
  if (prefix === undefined) {
    // Shipments keep the plain tenant hash their ids always had.
    const h = createHash('sha256')
      .update(kind === 'shipment' ? tenantId : key)
      .digest('hex');
    const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
    prefix = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}`;
    idPrefixes.set(key, prefix);
  }
  return prefix;
}

function itemId(tenantId: string, kind: string, index: number): string {
  return `${idPrefix(tenantId, kind)}-${(index + 1).toString(16).padStart(12, '0')}`;
}

/** The index of the item an id names, when it is one of this tenant's ids of this kind; else undefined. */
export function indexOfId(
  tenantId: string,
  kind: 'shipment' | 'invoice',
  id: string,
  count: number,
): number | undefined {
  const prefix = idPrefix(tenantId, kind);
  const m = /^([0-9a-f-]{23})-([0-9a-f]{12})$/i.exec(id);
  if (m?.[1]?.toLowerCase() !== prefix) return undefined;
  const index = parseInt(m[2] ?? '', 16) - 1;
  return index >= 0 && index < count ? index : undefined;
}

function shipmentId(tenantId: string, index: number): string {
  return itemId(tenantId, 'shipment', index);
}

/** Item `index` (0-based) of a tenant's list; the same on every call. */
export function shipmentAt(tenantId: string, index: number): Shipment {
  const n = index + 1;
  const status = STATUSES[index % STATUSES.length] ?? 'created';
  const created = EPOCH_MS + index * 37 * MINUTE_MS;
  return {
    id: shipmentId(tenantId, index),
    // Every 5th reference is "" and every 4th weight null: both kinds of "no value" appear in the data.
    reference: n % 5 === 0 ? '' : `SHP-${String(n).padStart(6, '0')}`,
    carrier: CARRIERS[index % CARRIERS.length] ?? 'DHL Express',
    status,
    weightKg: n % 4 === 0 ? null : Math.round(((index * 7919) % 4000) + 5) / 10,
    deliveredAt: status === 'delivered' ? new Date(created + 2 * 24 * 60 * MINUTE_MS).toISOString() : null,
    createdAt: new Date(created).toISOString(),
  };
}

/** Items [from, to) of a tenant's list. */
export function shipmentsSlice(tenant: TenantRecord, from: number, to: number): Shipment[] {
  const items: Shipment[] = [];
  for (let i = Math.max(0, from); i < Math.min(to, tenant.shipmentCount); i++) items.push(shipmentAt(tenant.id, i));
  return items;
}

const CURRENCIES = ['EUR', 'USD'] as const;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** Invoice `index` (0-based) of a tenant; the same on every call. */
export function invoiceAt(tenantId: string, index: number, shipmentCount: number): Invoice {
  const n = index + 1;
  const issued = EPOCH_MS + index * 3 * DAY_MS;
  return {
    id: itemId(tenantId, 'invoice', index),
    number: `INV-2026-${String(n).padStart(4, '0')}`,
    amountCents: ((index * 104_729) % 90_000) + 1_000,
    currency: CURRENCIES[index % CURRENCIES.length] ?? 'EUR',
    // Every 3rd has no due date; every 2nd is paid.
    dueDate: n % 3 === 0 ? null : new Date(issued + 30 * DAY_MS).toISOString().slice(0, 10),
    paidAt: n % 2 === 0 ? new Date(issued + 10 * DAY_MS).toISOString() : null,
    // Every 4th note is "", every 5th (not 4th) null: both kinds of "no value" appear.
    note: n % 4 === 0 ? '' : n % 5 === 0 ? null : `Invoice ${n} for services rendered`,
    shipmentId: n % 6 === 0 || shipmentCount === 0 ? null : shipmentId(tenantId, index % shipmentCount),
  };
}

/** Items [from, to) of a tenant's invoices. */
export function invoicesSlice(tenant: TenantRecord, from: number, to: number): Invoice[] {
  const items: Invoice[] = [];
  for (let i = Math.max(0, from); i < Math.min(to, tenant.invoiceCount); i++)
    items.push(invoiceAt(tenant.id, i, tenant.shipmentCount));
  return items;
}

/** A tenant's settings. */
export function settingsOf(tenant: TenantRecord): TenantSettings {
  return {
    tenantId: tenant.id,
    timezone: 'Europe/Amsterdam',
    locale: 'nl-NL',
    defaultCarrier: null,
    invoiceEmail: '',
    webhookUrl: null,
  };
}

/** The paged lists of a tenant, by path segment. */
export type Collection = 'shipments' | 'invoices';

/** How many items a tenant's list holds. */
export function listCount(tenant: TenantRecord, collection: Collection): number {
  return collection === 'shipments' ? tenant.shipmentCount : tenant.invoiceCount;
}

/** Items [from, to) of a tenant's list. */
export function listSlice(tenant: TenantRecord, collection: Collection, from: number, to: number): unknown[] {
  return collection === 'shipments' ? shipmentsSlice(tenant, from, to) : invoicesSlice(tenant, from, to);
}
