/**
 * Real gateways for tests: Debian's nginx, HAProxy, Apache 2.4 or Caddy 2.6, started as a child process on
 * loopback in front of an upstream (normally a reference server started with `legacyRewrites: false`), set up
 * the way a platform team deploys the API: TLS terminated with a private CA's certificate (Caddy: its
 * own internal CA, `tls internal`), the
 * spec's legacy paths rewritten (spec §Obtain an access token, §Get the current user: "the gateway
 * rewrites it"), JSON gzip'd, short idle keep-alive on the client side, keep-alive to the upstream.
 *
 * Everything the process writes (configuration, pid, logs, temp files, certificates) lives in one
 * temp dir. `close()` kills the process group; the ones a test forgets are killed at process exit.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { killGroup, stopChild, trackChild, untrackChild } from './children.js';
import { freePort, tempDir } from './harness.js';
import { privateCa, type PrivateCa } from './tls.js';

export type GatewayKind = 'nginx' | 'haproxy' | 'apache' | 'caddy';

/** Where the binaries are (Debian's paths); NGINX_PATH / HAPROXY_PATH / APACHE_PATH / CADDY_PATH point at others. */
export const GATEWAY_BINARIES: Readonly<Record<GatewayKind, string>> = {
  nginx: process.env.NGINX_PATH ?? '/usr/sbin/nginx',
  haproxy: process.env.HAPROXY_PATH ?? '/usr/sbin/haproxy',
  apache: process.env.APACHE_PATH ?? '/usr/sbin/apache2',
  caddy: process.env.CADDY_PATH ?? '/usr/bin/caddy',
};

/** Apache's loadable modules (Debian's path); APACHE_MODULES points at others. */
const APACHE_MODULES = process.env.APACHE_MODULES ?? '/usr/lib/apache2/modules';

/** The Debian package that has each binary (what `.ci/run` installs). */
export const GATEWAY_PACKAGES: Readonly<Record<GatewayKind, string>> = {
  nginx: 'nginx-light',
  haproxy: 'haproxy',
  apache: 'apache2',
  caddy: 'caddy',
};

export const haveGateway = (kind: GatewayKind): boolean => existsSync(GATEWAY_BINARIES[kind]);

/** The spec's legacy paths and what the gateway rewrites them to (the same table as src/reference/gateway.ts). */
export const GATEWAY_REWRITES: readonly (readonly [legacy: string, current: string])[] = [
  ['/uaa/oauth/token', '/uaa/oauth2/token'],
  ['/uaa/userinfo', '/users/me'],
];

export interface GatewayOptions {
  kind: GatewayKind;
  /** The backend, `http://host:port` (no path). */
  upstream: string;
  /**
   * Terminate TLS with a certificate for 127.0.0.1 signed by a private CA made here (Caddy: by its
   * internal CA, `tls internal`, whose root certificate is then the gateway's `ca`); default true.
   */
  tls?: boolean;
  /** Idle client keep-alive before the gateway closes the connection; default 500 ms. */
  keepAliveTimeoutMs?: number;
  /** nginx `keepalive_requests`: requests per client connection, then it closes it; default 5. */
  keepAliveRequests?: number;
  /** Rewrite the legacy paths; default true. */
  legacyRewrites?: boolean;
  /** Gzip JSON responses for clients that accept it; default true. */
  gzip?: boolean;
  /**
   * Serve the API under this path (e.g. `/api`): stripped on the way in and declared to the
   * upstream in `X-Forwarded-Prefix`, which the reference server writes into its links; anything
   * outside it is 404. Default: none, the API at the root. Not for Caddy.
   */
  prefix?: string;
  /**
   * Idle keep-alive to the upstream. Shorter than the upstream's own (node's default: 5 s), so
   * the gateway never sends a request on a connection the upstream is closing (a POST on such a
   * connection would be a 502, not retried: it is not idempotent, RFC 9110 §9.2.2). Default 2 s.
   */
  upstreamKeepAliveMs?: number;
  /**
   * Apache: `ProxyPreserveHost On` and `X-Forwarded-Proto: https|http` to the upstream, so
   * that a backend that writes absolute links from Host and X-Forwarded-Proto writes the
   * gateway's origin. False is Apache's default: Host is the upstream's (`127.0.0.1:<port>`) and
   * no X-Forwarded-Proto, so such a backend writes links to itself over http. Default true.
   * Caddy: passes the client's Host and sends X-Forwarded-Proto by default; false is the
   * `header_up Host {upstream_hostport}` many configurations carry, so such a backend writes links
   * to itself (over https: X-Forwarded-Proto is still sent).
   * (nginx here always passes the client's Host; HAProxy passes every header unchanged.)
   */
  forwardedHeaders?: boolean;
  /** Caddy only: response header fields the gateway removes (`header_down -NAME`, `*` a wildcard). */
  hideResponseHeaders?: readonly string[];
  /** Bounded wait for the gateway to accept connections; default 10 s. */
  startTimeoutMs?: number;
  /** nginx only: configuration added to the `http` block and to the API's `server` (a log format and its access_log). */
  nginxExtra?: { http: string; server: string };
}

/** One request as the gateway logged it: the target as the client sent it, before any rewrite. */
export interface AccessEntry {
  /** Which client connection carried it (nginx: connection serial; HAProxy, Apache: client port). */
  connection: string;
  method: string;
  target: string;
  status: number;
  /** Content-Encoding of the response sent to the client ('' when none). */
  contentEncoding: string;
}

export interface Gateway {
  readonly kind: GatewayKind;
  /** Base URL, e.g. `https://127.0.0.1:41234`. */
  readonly url: string;
  /** The CA's certificate (for `--ca-file`); undefined without TLS. */
  readonly ca: Pick<PrivateCa, 'caFile'> | undefined;
  readonly dir: string;
  /** Every request logged so far, in order. */
  accessLog(): Promise<AccessEntry[]>;
  /** stderr, stdout besides the access log, and the error log: for a failure message. */
  diagnostics(): Promise<string>;
  /** Kills the gateway (and its workers) and removes its temp dir. Idempotent. */
  close(): Promise<void>;
}

// ── configuration ──────────────────────────────────────────────────────────────────────────

interface Resolved {
  kind: GatewayKind;
  upstream: URL;
  port: number;
  dir: string;
  /** The private CA made for nginx, HAProxy and Apache; Caddy makes its own. */
  ca: PrivateCa | undefined;
  tls: boolean;
  keepAliveTimeoutMs: number;
  keepAliveRequests: number;
  legacyRewrites: boolean;
  gzip: boolean;
  upstreamKeepAliveMs: number;
  prefix: string;
  forwardedHeaders: boolean;
  hideResponseHeaders: readonly string[];
  nginxExtra: { http: string; server: string } | undefined;
}

const NGINX_ACCESS_LOG = 'access.log';
const ERROR_LOG = 'error.log';

export function nginxConfig(o: Resolved): string {
  const listen = `127.0.0.1:${o.port}${o.ca ? ' ssl' : ''}`;
  const proxy = 'proxy_pass http://backend;';
  // `location =` matches the path exactly, whatever the query; `rewrite ... break` changes the
  // URI nginx proxies and appends the original arguments (a rewrite, not a redirect).
  const rewrites = o.legacyRewrites
    ? GATEWAY_REWRITES.map(
        ([legacy, current]) => `    location = ${o.prefix}${legacy} { rewrite ^ ${current} break; ${proxy} }`,
      ).join('\n')
    : '';
  // Under a prefix: `proxy_pass` with a URI replaces the matched location with it (/api/x -> /x).
  const api = o.prefix
    ? `    proxy_set_header X-Forwarded-Prefix ${o.prefix};\n    location ${o.prefix}/ { proxy_pass http://backend/; }\n    location / { return 404; }`
    : `    location / { ${proxy} }`;
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${join(o.dir, 'temp', t)};`)
    .join('\n');
  return `# Generated by test/support/gateways.ts
# As root the workers would switch to nobody, who cannot enter the 0700 temp dir: keep root.
${process.getuid?.() === 0 ? 'user root root;' : ''}
worker_processes 1;
pid ${join(o.dir, 'nginx.pid')};
error_log ${join(o.dir, ERROR_LOG)} warn;
events { worker_connections 256; }
http {
${temp}
  default_type application/octet-stream;
  log_format gateway '$connection\\t$request_method\\t$request_uri\\t$status\\t$sent_http_content_encoding';
  access_log ${join(o.dir, NGINX_ACCESS_LOG)} gateway;
${o.nginxExtra?.http ?? ''}
  # Paths as sent: '//uaa/userinfo' is not '/uaa/userinfo' (RFC 3986 §6.2.2 does not merge slashes).
  merge_slashes off;
  keepalive_timeout ${o.keepAliveTimeoutMs}ms;
  keepalive_requests ${o.keepAliveRequests};
  gzip ${o.gzip ? 'on' : 'off'};
  gzip_types application/json;
  gzip_proxied any;
  gzip_vary on;
  upstream backend {
    server ${o.upstream.host};
    keepalive 8;
    keepalive_timeout ${o.upstreamKeepAliveMs}ms;
  }
  server {
    listen ${listen};
${o.ca ? `    ssl_certificate ${o.ca.certFile};\n    ssl_certificate_key ${o.ca.keyFile};` : ''}
    # Upstream keep-alive needs HTTP/1.1 and no 'Connection: close' from the client.
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    # The gateway compresses, not the upstream.
    proxy_set_header Accept-Encoding "";
    proxy_buffering off;
    proxy_request_buffering off;
    proxy_redirect off;
${o.nginxExtra?.server ?? ''}
${rewrites}
${api}
  }
}
`;
}

export function haproxyConfig(o: Resolved): string {
  const bind = `127.0.0.1:${o.port}${o.ca ? ` ssl crt ${join(o.dir, 'haproxy-cert.pem')}` : ''}`;
  // set-path changes the path and keeps the query string (a rewrite, not a redirect).
  // Under a prefix, stripped first (the legacy paths are then matched without it).
  const prefix = o.prefix
    ? [
        `  http-request deny deny_status 404 unless { path_beg ${o.prefix}/ }`,
        `  http-request set-header X-Forwarded-Prefix ${o.prefix}`,
        `  http-request set-path %[path,regsub(^${o.prefix}/,/)]`,
      ].join('\n')
    : '';
  const rewrites = o.legacyRewrites
    ? GATEWAY_REWRITES.map(([legacy, current]) => `  http-request set-path ${current} if { path ${legacy} }`).join('\n')
    : '';
  return `# Generated by test/support/gateways.ts
global
  log stdout format raw local0 info
  nbthread 1
defaults
  mode http
  log global
  # Not the readiness probe's empty connection.
  option dontlognull
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  timeout http-request 10s
  timeout http-keep-alive ${o.keepAliveTimeoutMs}ms
frontend api
  bind ${bind}
  log-format "%cp %HM %HU %ST %[res.comp_algo]"
  # Keep-Alive is connection-specific (RFC 9110 §7.6.1): the upstream's 'timeout=5' is not this
  # gateway's, which closes idle connections much sooner. nginx drops it by itself.
  http-response del-header keep-alive
${prefix}
${rewrites}
${o.gzip ? '  compression algo gzip\n  compression type application/json\n  # The gateway compresses, not the upstream: Accept-Encoding is removed on the way in.\n  compression offload' : ''}
  default_backend reference
backend reference
  # Reuse upstream connections across client connections, but not for a client's first
  # request (which may be a POST that cannot be retried, RFC 9110 §9.2.2).
  http-reuse safe
  # Idle upstream connections are closed (half of them per period) well before the upstream's
  # own idle timeout; HAProxy also drops those the upstream closes while they are idle.
  server upstream ${o.upstream.host} pool-purge-delay ${o.upstreamKeepAliveMs}ms
`;
}

/** Apache's access log: the client port, the request line as sent (before any rewrite), status, encoding. */
const APACHE_ACCESS_LOG = 'access.log';

export function apacheConfig(o: Resolved): string {
  const upstream = `http://${o.upstream.host}`;
  const modules = [
    'mpm_event',
    'authz_core',
    'headers',
    'setenvif',
    'rewrite',
    'proxy',
    'proxy_http',
    'filter',
    'deflate',
    ...(o.ca ? ['ssl'] : []),
  ];
  // Upstream pool: idle connections closed after ttl (seconds), before node's own 5 s.
  const pool = `ttl=${Math.max(1, Math.floor(o.upstreamKeepAliveMs / 1000))}`;
  // [P]: proxied (a rewrite, not a redirect); without a '?' in the substitution mod_rewrite
  // appends the original query string. The target is the ProxyPass worker's URL, so it is pooled.
  const rewrites = o.legacyRewrites
    ? GATEWAY_REWRITES.map(
        ([legacy, current]) => `  RewriteRule ^${o.prefix}${legacy}$ ${upstream}${current} [P]`,
      ).join('\n')
    : '';
  // Under a prefix: ProxyPass with a path replaces the matched prefix (/api/x -> /x); anything
  // outside it is 404 (not the server's empty document root).
  const api = o.prefix
    ? `  RequestHeader set X-Forwarded-Prefix ${o.prefix}\n  RewriteRule !^${o.prefix}/ - [R=404]\n  ProxyPass ${o.prefix}/ ${upstream}/ ${pool} nocanon`
    : `  ProxyPass / ${upstream}/ ${pool} nocanon`;
  return `# Generated by test/support/gateways.ts
ServerRoot ${o.dir}
${modules.map((m) => `LoadModule ${m}_module ${join(APACHE_MODULES, `mod_${m}.so`)}`).join('\n')}
# Apache refuses to serve as root: as root its children switch to www-data (the parent, root,
# has already opened the logs and read the key).
${process.getuid?.() === 0 ? 'User www-data\nGroup www-data' : ''}
ServerName 127.0.0.1
Listen 127.0.0.1:${o.port}
PidFile ${join(o.dir, 'apache2.pid')}
DefaultRuntimeDir ${join(o.dir, 'temp')}
ErrorLog ${join(o.dir, ERROR_LOG)}
LogLevel warn
${o.ca ? 'SSLSessionCache none\n' : ''}LogFormat "%{remote}p\\t%r\\t%>s\\t%{Content-Encoding}o" gateway
CustomLog ${join(o.dir, APACHE_ACCESS_LOG)} gateway
StartServers 1
ServerLimit 1
ThreadsPerChild 32
MaxRequestWorkers 32
MinSpareThreads 4
MaxSpareThreads 32
# Paths as sent: '//uaa/userinfo' is not '/uaa/userinfo' (RFC 3986 §6.2.2 does not merge slashes);
# %2F is passed on, not refused (nocanon on ProxyPass sends the path as received).
MergeSlashes Off
AllowEncodedSlashes NoDecode
KeepAlive On
KeepAliveTimeout ${o.keepAliveTimeoutMs}ms
# Apache counts the requests after the first: N requests per connection is N - 1 here.
MaxKeepAliveRequests ${Math.max(1, o.keepAliveRequests - 1)}
<VirtualHost 127.0.0.1:${o.port}>
${o.ca ? `  SSLEngine on\n  SSLCertificateFile ${o.ca.certFile}\n  SSLCertificateKeyFile ${o.ca.keyFile}` : ''}
  ProxyRequests Off
${o.forwardedHeaders ? `  ProxyPreserveHost On\n  RequestHeader set X-Forwarded-Proto ${o.ca ? 'https' : 'http'}` : "  # Apache's defaults: Host is the upstream's, no X-Forwarded-Proto."}
${
  o.gzip
    ? `  # The gateway compresses, not the upstream: Accept-Encoding is removed on the way in, so
  # mod_deflate (which reads it) is told by force-gzip, set before the removal, instead.
  SetEnvIf Accept-Encoding "\\bgzip\\b" force-gzip
  RequestHeader unset Accept-Encoding
  AddOutputFilterByType DEFLATE application/json`
    : ''
}
  RewriteEngine On
${rewrites}
${api}
</VirtualHost>
`;
}

/** Caddy's files under the gateway's dir: its storage (the internal CA), access log. */
const CADDY_STORAGE = 'caddy-data';
const CADDY_ACCESS_LOG = 'access.log';
/** Where `tls internal` keeps the root certificate of its CA (under the storage root). */
const CADDY_ROOT_CERT = join(CADDY_STORAGE, 'pki', 'authorities', 'local', 'root.crt');

export function caddyConfig(o: Resolved): string {
  if (o.prefix) throw new Error('caddy: the prefix option is not implemented');
  const site = `${o.tls ? 'https' : 'http'}://127.0.0.1:${o.port}`;
  // `rewrite` changes the path and keeps the query string when the target has none (a rewrite,
  // not a redirect); the path matcher is exact.
  const rewrites = o.legacyRewrites
    ? GATEWAY_REWRITES.map(([legacy, current]) => `\trewrite ${legacy} ${current}`).join('\n')
    : '';
  const proxy = [
    // The gateway compresses, not the upstream.
    '\t\theader_up -Accept-Encoding',
    ...(o.forwardedHeaders ? [] : ['\t\theader_up Host {upstream_hostport}']),
    ...o.hideResponseHeaders.map((name) => `\t\theader_down -${name}`),
    // Idle upstream connections closed before the upstream's own idle timeout.
    `\t\ttransport http {\n\t\t\tkeepalive ${o.upstreamKeepAliveMs}ms\n\t\t}`,
  ].join('\n');
  return `# Generated by test/support/gateways.ts
{
\t# No admin endpoint, no root certificate installed into the system's trust store, no :80 listener.
\tadmin off
\tskip_install_trust
\tauto_https disable_redirects
\tstorage file_system {
\t\troot ${join(o.dir, CADDY_STORAGE)}
\t}
\tlog {
\t\toutput file ${join(o.dir, ERROR_LOG)}
\t\tlevel ERROR
\t}
\tservers {
\t\t# HTTP/1.1 and 2 over TCP (no HTTP/3 listener on UDP).
\t\tprotocols h1 h2
\t\ttimeouts {
\t\t\tidle ${o.keepAliveTimeoutMs}ms
\t\t}
\t}
}

${site} {
${o.tls ? '\ttls internal\n' : ''}\tlog {
\t\toutput file ${join(o.dir, CADDY_ACCESS_LOG)}
\t\tformat json
\t}
${o.gzip ? '\tencode gzip\n' : ''}${rewrites}
\treverse_proxy ${o.upstream.host} {
${proxy}
\t}
}
`;
}

/** One line of Caddy's JSON access log (the request as the client sent it, before any rewrite). */
function parseCaddyAccessLine(line: string): AccessEntry | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof entry !== 'object' || entry === null) return undefined;
  const {
    request,
    status,
    resp_headers: headers,
  } = entry as {
    request?: { remote_port?: unknown; method?: unknown; uri?: unknown };
    status?: unknown;
    resp_headers?: Record<string, unknown>;
  };
  if (typeof request?.method !== 'string' || typeof request.uri !== 'string' || typeof status !== 'number')
    return undefined;
  const encoding = headers?.['Content-Encoding'];
  return {
    connection:
      typeof request.remote_port === 'string' || typeof request.remote_port === 'number'
        ? String(request.remote_port)
        : '',
    method: request.method,
    target: request.uri,
    status,
    contentEncoding: Array.isArray(encoding) && typeof encoding[0] === 'string' ? encoding[0] : '',
  };
}

// ── processes ──────────────────────────────────────────────────────────────────────────────

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function parseAccessLine(kind: GatewayKind, line: string): AccessEntry | undefined {
  if (kind === 'caddy') return parseCaddyAccessLine(line);
  // Apache logs the request line as one field: method, target and protocol split on spaces.
  const fields =
    kind === 'apache'
      ? line.split('\t').flatMap((f, i) => (i === 1 ? f.split(' ').slice(0, 2) : [f]))
      : line.split(kind === 'nginx' ? '\t' : ' ');
  const [connection = '', method = '', target = '', status = '', encoding = ''] = fields;
  // HAProxy's other lines (a connection closed during the TLS handshake) go to stdout as well.
  if (!/^[A-Z]+$/.test(method) || !/^\d{3}$/.test(status)) return undefined;
  // nginx writes '-' for an absent variable; HAProxy for an absent sample; Apache for an absent header.
  return { connection, method, target, status: Number(status), contentEncoding: encoding === '-' ? '' : encoding };
}

/** A TLS handshake that trusts `caFile` succeeds (Caddy issues its certificate after it listens). */
async function handshakes(port: number, caFile: string): Promise<boolean> {
  const ca = await readFile(caFile, 'utf8').catch(() => undefined);
  if (ca === undefined) return false;
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca });
    socket.once('secureConnect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function startOnce(options: GatewayOptions, dir: string, ca: PrivateCa | undefined): Promise<Gateway> {
  const o: Resolved = {
    kind: options.kind,
    upstream: new URL(options.upstream),
    port: await freePort(),
    dir,
    ca,
    tls: options.tls ?? true,
    keepAliveTimeoutMs: options.keepAliveTimeoutMs ?? 500,
    keepAliveRequests: options.keepAliveRequests ?? 5,
    legacyRewrites: options.legacyRewrites ?? true,
    gzip: options.gzip ?? true,
    upstreamKeepAliveMs: options.upstreamKeepAliveMs ?? 2_000,
    prefix: options.prefix ?? '',
    forwardedHeaders: options.forwardedHeaders ?? true,
    hideResponseHeaders: options.hideResponseHeaders ?? [],
    nginxExtra: options.nginxExtra,
  };
  if (o.kind !== 'caddy' && o.hideResponseHeaders.length > 0)
    throw new Error(`${o.kind}: hideResponseHeaders is implemented for caddy only`);
  const configFile = join(dir, `${o.kind}.conf`);
  let args: string[];
  if (o.kind === 'nginx') {
    await writeFile(configFile, nginxConfig(o));
    args = ['-p', dir, '-c', configFile, '-e', join(dir, ERROR_LOG), '-g', 'daemon off;'];
  } else if (o.kind === 'apache') {
    await writeFile(configFile, apacheConfig(o));
    // The binary itself, not apache2ctl (which reads /etc/apache2/envvars): its own config only.
    args = ['-f', configFile, '-DFOREGROUND'];
  } else if (o.kind === 'caddy') {
    await writeFile(configFile, caddyConfig(o));
    args = ['run', '--config', configFile, '--adapter', 'caddyfile'];
  } else {
    if (ca)
      await writeFile(
        join(dir, 'haproxy-cert.pem'),
        (await readFile(ca.certFile, 'utf8')) + (await readFile(ca.keyFile, 'utf8')),
      );
    await writeFile(configFile, haproxyConfig(o));
    // -db: foreground, no daemon; one process, so killing it leaves nothing behind.
    args = ['-db', '-f', configFile, '-p', join(dir, 'haproxy.pid')];
  }

  // Caddy writes its autosaved configuration and data under XDG_CONFIG_HOME and XDG_DATA_HOME (HOME when unset): the temp dir.
  const env =
    o.kind === 'caddy'
      ? { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, 'xdg-config'), XDG_DATA_HOME: join(dir, 'xdg-data') }
      : process.env;
  const child = spawn(GATEWAY_BINARIES[o.kind], args, {
    cwd: dir,
    detached: true,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  trackChild(child);
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));

  const readLog = (name: string) => readFile(join(dir, name), 'utf8').catch(() => '');
  const diagnostics = async (): Promise<string> => {
    const errorLog = await readLog(ERROR_LOG);
    const other =
      o.kind === 'haproxy'
        ? stdout
            .split('\n')
            .filter((l) => parseAccessLine(o.kind, l) === undefined && l !== '')
            .join('\n')
        : stdout;
    // Answers the gateway made up itself (502, 504…): the upstream side failed, not the client's.
    const own = (await gateway.accessLog())
      .filter((e) => e.status >= 500)
      .map((e) => `${e.status} ${e.method} ${e.target}`);
    return [
      `gateway: ${o.kind} ${args.join(' ')}`,
      stderr && `stderr:\n${stderr}`,
      other && `stdout:\n${other}`,
      errorLog && `${ERROR_LOG}:\n${errorLog}`,
      own.length > 0 && `5xx answers:\n${own.join('\n')}`,
    ]
      .filter(Boolean)
      .join('\n');
  };
  let closing: Promise<void> | undefined;
  const gateway: Gateway = {
    kind: o.kind,
    url: `${o.tls ? 'https' : 'http'}://127.0.0.1:${o.port}`,
    ca: o.kind === 'caddy' ? (o.tls ? { caFile: join(dir, CADDY_ROOT_CERT) } : undefined) : ca,
    dir,
    accessLog: async () => {
      const text =
        o.kind === 'nginx'
          ? await readLog(NGINX_ACCESS_LOG)
          : o.kind === 'apache'
            ? await readLog(APACHE_ACCESS_LOG)
            : o.kind === 'caddy'
              ? await readLog(CADDY_ACCESS_LOG)
              : stdout;
      return text.split('\n').flatMap((line) => parseAccessLine(o.kind, line) ?? []);
    },
    diagnostics,
    close: () => {
      closing ??= (async () => {
        // SIGTERM: all shut down at once (nginx's and Apache's parents take their children along); SIGKILL if not.
        await stopChild(child, exited, () => killGroup(child, 'SIGTERM'));
        await rm(dir, { recursive: true, force: true });
      })();
      return closing;
    },
  };

  const deadline = Date.now() + (options.startTimeoutMs ?? 10_000);
  for (;;) {
    if (spawnError || child.exitCode !== null || child.signalCode !== null) {
      await Promise.race([exited, sleep(500)]);
      const message = `${o.kind} did not start${spawnError ? ` (${spawnError.message})` : ` (exit ${child.exitCode ?? child.signalCode})`}:\n${await diagnostics()}`;
      untrackChild(child);
      throw new GatewayStartError(message, /address already in use/i.test(stderr + (await readLog(ERROR_LOG))));
    }
    if (await accepts(o.port)) {
      if (o.kind !== 'caddy' || !o.tls || (await handshakes(o.port, join(dir, CADDY_ROOT_CERT)))) return gateway;
    }
    if (Date.now() > deadline) {
      const message = `${o.kind} did not accept connections on 127.0.0.1:${o.port} within ${options.startTimeoutMs ?? 10_000} ms:\n${await diagnostics()}`;
      await gateway.close();
      throw new GatewayStartError(message, false);
    }
    await sleep(25);
  }
}

class GatewayStartError extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
  ) {
    super(message);
  }
}

/**
 * Starts a gateway. The free port is found by binding port 0 and letting it go, so another
 * process may take it in between: that one case is retried (three attempts in all).
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const dir = await tempDir(`carrier-${options.kind}-`);
  try {
    await mkdir(join(dir, 'temp'));
    const ca = options.tls === false || options.kind === 'caddy' ? undefined : await privateCa(dir);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await startOnce(options, dir, ca);
      } catch (err) {
        if (!(err instanceof GatewayStartError && err.portTaken && attempt < 3)) throw err;
      }
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
