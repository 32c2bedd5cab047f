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

export interface TenantRecord {
  readonly id: string;
  readonly name: string;
  readonly shipmentCount: number;
  /** Whether the reference client may access it; a tenant that exists but is not accessible answers 403. */
  readonly accessible: boolean;
}

// Fixed UUIDs in version-4 format (version nibble 4, variant 8–b), so they pass any UUID check.
export const USER_ID = 'a3e1c9d2-5b7f-4e08-9c6a-2d4f8b1e7a30';
export const MAIN_TENANT_ID = '5e0c3b8a-1f2d-4a6b-8c9d-0e1f2a3b4c5d';
export const EMPTY_TENANT_ID = '9b2d4f6a-8c0e-4a1b-b3c5-d7e9f1a3b5c7';
export const FOREIGN_TENANT_ID = 'c4e6a8b0-2d4f-4c6e-a8b0-c2d4e6f8a0b2';
export const FOREIGN_SHIPMENT_COUNT = 7;

export function buildTenants(mainShipmentCount: number): ReadonlyMap<string, TenantRecord> {
  const tenants: TenantRecord[] = [
    { id: MAIN_TENANT_ID, name: 'Acme Freight', shipmentCount: mainShipmentCount, accessible: true },
    // The empty string is a valid name, not a stand-in for null (spec §Generic rules 2).
    { id: EMPTY_TENANT_ID, name: '', shipmentCount: 0, accessible: true },
    { id: FOREIGN_TENANT_ID, name: 'Rival Logistics', shipmentCount: FOREIGN_SHIPMENT_COUNT, accessible: false },
  ];
  return new Map(tenants.map((t) => [t.id, t]));
}

/** The User that /users/me returns: the accessible tenants, in order, main tenant first. */
export function buildUser(tenants: ReadonlyMap<string, TenantRecord>): ReferenceUser {
  return {
    id: USER_ID,
    name: 'Ada Reference',
    // An optional field without data is null, never omitted (spec §Generic rules 1).
    email: null,
    tenants: [...tenants.values()].filter((t) => t.accessible).map((t) => ({ id: t.id, name: t.name })),
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

function shipmentId(tenantId: string, index: number): string {
  let prefix = idPrefixes.get(tenantId);
  if (prefix === undefined) {
    const h = createHash('sha256').update(tenantId).digest('hex');
    const variant = ((parseInt(h.charAt(16), 16) & 0x3) | 0x8).toString(16);
    prefix = `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}`;
    idPrefixes.set(tenantId, prefix);
  }
  return `${prefix}-${(index + 1).toString(16).padStart(12, '0')}`;
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
