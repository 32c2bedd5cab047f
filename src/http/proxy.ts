/**
 * The proxy variables (HTTP_PROXY, HTTPS_PROXY, NO_PROXY, in either case), read once here for the
 * HTTP client (src/http/dispatcher.ts) and for what a certification bundle records of them: a leaf,
 * without undici, so that the bundle commands can say what a run did without loading a client.
 */

/** The proxy variables as undici's EnvHttpProxyAgent reads them (lower case first), given to it explicitly. */
export function proxySettings(env: NodeJS.ProcessEnv = process.env): {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy: string;
} {
  const httpProxy = env.http_proxy ?? env.HTTP_PROXY;
  // An empty HTTPS proxy falls back to the HTTP one, as the agent's does.
  const httpsProxy = (env.https_proxy ?? env.HTTPS_PROXY) || httpProxy;
  return {
    ...(httpProxy ? { httpProxy } : {}),
    ...(httpsProxy ? { httpsProxy } : {}),
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
  };
}

/**
 * The proxy a request to `url` goes through, as an origin without credentials, or undefined when
 * it goes to the target itself: EnvHttpProxyAgent's rules (undici 7, env-http-proxy-agent.js), to
 * which createDispatcher gives the same settings: NO_PROXY entries by host (a leading `.` or `*.`
 * dropped, subdomains included) and optional port, `*` for none. A certification bundle records it
 * (issue 39: a run "against" a public address reached loopback through HTTP_PROXY).
 */
export function proxyFor(url: string, settings = proxySettings()): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const proxy = parsed.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!proxy) return undefined;
  const hostname = parsed.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(parsed.port, 10) || (parsed.protocol === 'https:' ? 443 : 80);
  const entries = settings.noProxy.split(/[,\s]/).filter((e) => e !== '');
  if (settings.noProxy === '*') return undefined;
  for (const entry of entries) {
    const m = /^(.+):(\d+)$/.exec(entry);
    const host = (m ? (m[1] ?? '') : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = m ? Number.parseInt(m[2] ?? '0', 10) : 0;
    if (entryPort !== 0 && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return undefined;
  }
  try {
    const p = new URL(proxy);
    return `${p.protocol}//${p.host}`;
  } catch {
    return 'a proxy (its URL does not parse)';
  }
}

/** Whether any request may go through a proxy: the HTTP client then uses the agent that can. */
export function proxyConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  const { httpProxy, httpsProxy } = proxySettings(env);
  return httpProxy !== undefined || httpsProxy !== undefined;
}
