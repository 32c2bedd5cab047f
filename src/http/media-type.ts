/**
 * Media type helpers for Content-Type checks (RFC 9110 §8.3.1, RFC 6839 §3.1).
 *
 * Hand-written, like the Link and WWW-Authenticate parsers beside it (the npm header parsers fail on
 * real-world input; see /work/shared/notes/rfc-checklist-and-link-parsing.md §4), and because a
 * regex on the whole value gets case, OWS and parameters wrong: `Application/JSON ; charset="utf-8"`
 * is JSON, `application/jsonp` and `application/json, text/html` are not.
 *
 *   media-type = type "/" subtype parameters
 *   type       = token
 *   subtype    = token
 *   parameters = *( OWS ";" OWS [ parameter ] )
 */
import { readToken, skipOws } from './header-grammar.js';

/**
 * The lower-cased `type/subtype` of a Content-Type value (type and subtype are case-insensitive,
 * RFC 9110 §8.3.1), without parameters or surrounding OWS; undefined when the value is absent or
 * does not start with `token "/" token` followed by OWS and then ";" or the end. Parameters are
 * not validated: they do not change the essence.
 */
export function mediaTypeEssence(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const start = skipOws(contentType, 0);
  const type = readToken(contentType, start);
  if (type === undefined || contentType.charAt(type.end) !== '/') return undefined;
  const subtype = readToken(contentType, type.end + 1);
  if (subtype === undefined) return undefined;
  const rest = skipOws(contentType, subtype.end);
  if (rest < contentType.length && contentType.charAt(rest) !== ';') return undefined;
  return `${type.value}/${subtype.value}`.toLowerCase();
}

const JSON_SUFFIX = '+json';

/**
 * True for `application/json` and for any media type with the `+json` structured syntax suffix
 * (RFC 6839 §3.1), such as `application/problem+json`, with or without parameters. The suffix
 * needs a name before it: `application/+json` is not a JSON-based type.
 */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const essence = mediaTypeEssence(contentType);
  if (essence === undefined) return false;
  if (essence === 'application/json') return true;
  const subtype = essence.slice(essence.indexOf('/') + 1);
  return subtype.length > JSON_SUFFIX.length && subtype.endsWith(JSON_SUFFIX);
}
