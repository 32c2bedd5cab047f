import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Where a tested target was, for a certification profile (issue 31): a run against loopback, a
 * private address or the embedded reference server proves nothing about a vendor's deployment, so
 * the bundle records where the target's hosts resolved and `verify-bundle --profile` refuses those
 * kinds unless the profile allows them.
 */

export type AddressKind = 'loopback' | 'private' | 'public';

export interface HostRecord {
  host: string;
  addresses: { address: string; kind: AddressKind }[];
  /** Why the host's addresses are not known (a name that did not resolve when the bundle was written). */
  unresolved?: string;
}

function ipv4Kind(address: string): AddressKind {
  const [a = -1, b = -1] = address.split('.').map(Number);
  // RFC 1122 §3.2.1.3: 127/8 is loopback, 0/8 "this host" (0.0.0.0 reaches the host itself).
  if (a === 127 || a === 0) return 'loopback';
  // RFC 1918 §3: 10/8, 172.16/12, 192.168/16; RFC 3927: 169.254/16 link-local.
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254))
    return 'private';
  return 'public';
}

/** The kind of an IP address literal (v4 or v6), or undefined for a name. */
export function addressKind(literal: string): AddressKind | undefined {
  const address = literal.replace(/^\[|\]$/g, '');
  const family = isIP(address);
  if (family === 4) return ipv4Kind(address);
  if (family !== 6) return undefined;
  const lower = address.toLowerCase();
  // RFC 4291 §2.5.5.2: an IPv4-mapped address is the IPv4 address's.
  const mapped = /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (mapped !== undefined) return ipv4Kind(mapped);
  // The same in hex, as the WHATWG URL parser writes it: http://[::ffff:127.0.0.1]/ has the host [::ffff:7f00:1].
  const hex = /^(?:0*:)*:?ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex !== null) {
    const high = parseInt(hex[1] ?? '0', 16);
    const low = parseInt(hex[2] ?? '0', 16);
    return ipv4Kind(`${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`);
  }
  // RFC 4291 §2.5.3 loopback ::1, §2.5.2 unspecified ::.
  if (/^(?:0*:)*:?0*1$/.test(lower) || /^(?:0*:)*:?0*$/.test(lower)) return 'loopback';
  const first = parseInt(lower.split(':')[0] || '0', 16);
  // RFC 4193 unique local fc00::/7; RFC 4291 §2.5.6 link-local fe80::/10.
  if ((first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80) return 'private';
  return 'public';
}

/** RFC 6761 §6.3: `localhost` and names under it are loopback, whatever a resolver says. */
export function hostKind(host: string): AddressKind | undefined {
  const bare = host.toLowerCase().replace(/\.$/, '');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return 'loopback';
  return addressKind(bare);
}

export function hostOfUrl(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

/** Where each distinct host of `urls` resolves now, each address with its kind. */
export async function recordHosts(urls: readonly string[]): Promise<HostRecord[]> {
  const hosts = [...new Set(urls.map(hostOfUrl).filter((h): h is string => h !== undefined))];
  return Promise.all(
    hosts.map(async (host): Promise<HostRecord> => {
      const literal = host.replace(/^\[|\]$/g, '');
      const kind = hostKind(literal);
      if (kind !== undefined && isIP(literal) !== 0) return { host, addresses: [{ address: literal, kind }] };
      try {
        const found = await lookup(literal, { all: true });
        const addresses = found.map(({ address }) => ({ address, kind: addressKind(address) ?? 'public' }));
        // A name under localhost is loopback even if a resolver says otherwise.
        return { host, addresses: kind === undefined ? addresses : addresses.map((a) => ({ ...a, kind })) };
      } catch (err) {
        return {
          host,
          addresses: kind === undefined ? [] : [{ address: literal, kind }],
          unresolved: (err as { code?: string }).code ?? (err as Error).message,
        };
      }
    }),
  );
}
