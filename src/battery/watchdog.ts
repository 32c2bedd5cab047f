import { MAX_IN_FLIGHT } from '../http/limit.js';

/**
 * How long a check may run before it is stopped as hung. Checks bound their own requests
 * (--timeout each); this only stops a check that hangs anyway: 20 request timeouts per
 * MAX_IN_FLIGHT endpoints, for a check's work grows with the endpoints it judges (issue 37:
 * Microsoft Graph's 5,824 GETs took LINK-* past a fixed 200 s, an error of the harness's making).
 */
export function checkWatchdogMs(requestTimeoutMs: number, endpoints: number): number {
  return Math.max(60_000, requestTimeoutMs * 20) * Math.max(1, Math.ceil(endpoints / MAX_IN_FLIGHT));
}
