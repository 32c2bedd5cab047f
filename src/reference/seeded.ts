/**
 * The reference server's own description and ground truth: its OpenAPI document, and the items
 * of the main tenant whose values are known (an --expectations file's `resources`), chosen so
 * that null and "" both occur in optional fields (spec §Generic rules for optional fields 1, 2).
 */
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/version.js';
import { MAIN_TENANT_ID, invoiceAt, settingsOf, shipmentAt, type TenantRecord } from './data.js';

/** docs/openapi.yaml: validated by a real OpenAPI validator in the tests. */
export const REFERENCE_OPENAPI_FILE = join(PACKAGE_ROOT, 'docs', 'openapi.yaml');
/**
 * docs/reference-expectations.json: the reference server's test account (its `expectations`, as
 * --expectations reads them), shipped so that `serve` and its printed command judge every check;
 * test/reference-files.test.ts holds it to what the server serves.
 */
export const REFERENCE_EXPECTATIONS_FILE = join(PACKAGE_ROOT, 'docs', 'reference-expectations.json');
/** docs/reference-profile.yaml: a sample certification profile for the reference server (README, "Certification profiles"). */
export const REFERENCE_PROFILE_FILE = join(PACKAGE_ROOT, 'docs', 'reference-profile.yaml');

/**
 * Shipments 1 (deliveredAt null; the first item, so GET /shipments/{shipmentId} serves it too),
 * 4 (weightKg null) and 5 (reference ""); invoices 1 (paidAt null), 4 (note ""), 5 (note null)
 * and 6 (dueDate and shipmentId null); the tenant's settings (defaultCarrier null, invoiceEmail "").
 */
export function seededResources(tenants: ReadonlyMap<string, TenantRecord>): Record<string, unknown> {
  const main = tenants.get(MAIN_TENANT_ID);
  if (!main) return {};
  const shipments = [0, 3, 4].filter((i) => i < main.shipmentCount).map((i) => shipmentAt(main.id, i));
  const invoices = [0, 3, 4, 5]
    .filter((i) => i < main.invoiceCount)
    .map((i) => invoiceAt(main.id, i, main.shipmentCount));
  return { shipments, invoices, settings: settingsOf(main) };
}
