import type { HttpResponse } from '../http/client.js';
import { PAGING_HEADER_NAMES } from './paths.js';

/**
 * The paging headers of spec §Pagination read and reckoned with: shared by the battery's walks
 * (src/battery/paging.ts) and the judges of captured traffic (src/traffic/), so that a page is
 * judged by the same arithmetic and words in a run and in traffic.
 */

export const PAGING_HEADERS = PAGING_HEADER_NAMES;
export type PagingHeader = (typeof PAGING_HEADERS)[number];

export interface PagingValues {
  values: Partial<Record<PagingHeader, number>>;
  /** Header problems: missing, repeated, not a non-negative integer. */
  problems: string[];
}

/** Reads the four paging headers: each must be sent once, as decimal digits (RFC 9110 §5.3). */
export function readPagingHeaders(res: HttpResponse): PagingValues {
  const out: PagingValues = { values: {}, problems: [] };
  for (const name of PAGING_HEADERS) {
    const lines = res.headerLines(name);
    if (lines.length === 0) {
      out.problems.push(`${name} is missing`);
      continue;
    }
    if (lines.length > 1)
      out.problems.push(`${name} is sent ${lines.length} times (${lines.map((l) => JSON.stringify(l)).join(', ')})`);
    // Only SP and HTAB are optional whitespace around a field value (RFC 9110 §5.6.3).
    const raw = (lines[0] ?? '').replace(/^[ \t]+|[ \t]+$/g, '');
    if (!/^\d+$/.test(raw)) {
      out.problems.push(`${name} is ${JSON.stringify(lines[0])}, not a non-negative integer`);
      continue;
    }
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) out.problems.push(`${name} is ${raw}, too large to be a count`);
    else out.values[name] = value;
  }
  return out;
}

/** The expected number of pages: ceil(elements / size); an empty list may say 0 or 1. */
export function expectedTotalPages(totalElements: number, pageSize: number): number[] {
  if (totalElements === 0) return [0, 1];
  if (pageSize <= 0) return [];
  return [Math.ceil(totalElements / pageSize)];
}

/**
 * How many items page `page` of a request must hold by its own headers, or why that cannot be
 * told. Page-Size is the number of elements per page and Total-Elements the number of all (spec
 * §Pagination), so page n holds min(Page-Size, Total-Elements − (n − 1) × Page-Size), and none
 * past the end. `page` is the page asked for: whether Page-Number echoes it is PAGE-ECHO's rule,
 * not this one's. A missing or unreadable header is named (PAGE-HEADERS judges it), never guessed.
 */
export function expectedItemCount(
  paging: PagingValues,
  page: number,
): { count: number; size: number; total: number } | { unknown: string } {
  const { values, problems } = paging;
  const size = values['Page-Size'];
  const total = values['Total-Elements'];
  const why = (name: PagingHeader): string => problems.find((p) => p.startsWith(`${name} `)) ?? `${name} is missing`;
  if (size === undefined) return { unknown: why('Page-Size') };
  if (total === undefined) return { unknown: why('Total-Elements') };
  if (size < 1) return { unknown: `Page-Size is ${size}, which no page of items has` };
  return { count: Math.max(0, Math.min(size, total - (page - 1) * size)), size, total };
}
