/**
 * Option defaults that code outside the configuration needs as well: a leaf, so that the battery's
 * workers read them without loading the configuration's schemas (src/config/options.ts, zod).
 */

/** --max-expiry-wait when none is given, in seconds: src/battery/expiry.ts tells a default from a given value by it. */
export const DEFAULT_MAX_EXPIRY_WAIT_SECONDS = 60;
