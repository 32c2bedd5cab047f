/**
 * Accept-Version, checked on every endpoint before authentication (spec §Versioning 1–2, §Errors).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ReferenceBehaviour } from './behaviour.js';
import type { Refusal } from './reply.js';

/** Returns null when the request may go on, else the refusal to send. */
export function checkAcceptVersion(headers: IncomingHttpHeaders, behaviour: ReferenceBehaviour): Refusal | null {
  // node lower-cases header names, so any spelling of the name matches (RFC 9110 §5.1).
  const field = headers['accept-version'];
  if (field === undefined) {
    // spec §Versioning 2: "A missing header gives status 400".
    return { status: 400, error: 'invalid_request', description: 'The Accept-Version header is required' };
  }
  // Repeated lines form one comma-joined value (RFC 9110 §5.3), which is then not a valid version.
  const raw = Array.isArray(field) ? field.join(', ') : field;
  // Leading and trailing OWS is not part of the field value (RFC 9110 §5.5).
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (!behaviour.supportedVersions.includes(value)) {
    // spec §Versioning 2: an invalid version "can give 404 or 400"; 404 says "no such version".
    return {
      status: 404,
      error: 'unsupported_version',
      description: `Accept-Version must be one of: ${behaviour.supportedVersions.join(', ')}`,
    };
  }
  return null;
}
