/**
 * The embedded reference implementation of the Carrier-Platform API, started on loopback when no
 * base URL is given so the battery has a conformant target.
 */
export { startReferenceServer, REFERENCE_EMPTY_TENANT_ID, type ReferenceServer, type ServedRequest } from './server.js';
export {
  DEFAULT_TOKEN_TTL_SECONDS,
  REFERENCE_CLIENT_ID,
  REFERENCE_CLIENT_SECRET,
  REFERENCE_SECOND_CLIENT_ID,
  REFERENCE_SECOND_CLIENT_SECRET,
  type ReferenceBehaviour,
  type ReferenceOptions,
} from './behaviour.js';
export type { ReferenceUser, Shipment } from './data.js';
