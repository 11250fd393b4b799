/**
 * Connect subresources (kube's rest.Connecter with its UpgradeAwareHandler proxy, e.g. nodes/proxy):
 * every method on `<resource>/<name>/<sub>[/<path>]` is sent to the location the kind resolves and
 * the upstream answer is relayed as it is. A location that cannot be reached is kube's 503
 * `error trying to reach service: <Go's dial error>`, so a Node whose kubelet is absent (a kwok
 * node, a node object with no agent behind it) answers what kube-apiserver answers.
 */
import http from 'node:http';
import https from 'node:https';
import { lookup } from 'node:dns/promises';
import { ApiError, badRequest, serviceUnavailable, unknownError } from '../api/errors.ts';
import type { ProxyLocation, SubresourceDescriptor } from '../registry/rest/strategy.ts';
import type { KubeObject } from '../api/types.ts';
import type { Res } from './respond.ts';

/** Go's `host:port` (net.JoinHostPort). */
const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** The text of Go's dial error for a Node socket error (`dial tcp 10.0.0.1:10250: connect: connection refused`). */
export function goDialError(e: NodeJS.ErrnoException, loc: ProxyLocation): string {
  const dial = `dial tcp ${joinHostPort(loc.host, loc.port)}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `${dial}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `${dial}: connect: no route to host`;
    case 'ENETUNREACH':
      return `${dial}: connect: network is unreachable`;
    case 'ETIMEDOUT':
      return `${dial}: i/o timeout`;
    default:
      return e.message;
  }
}

/** What the proxy needs of the request. */
export interface ConnectRequest {
  method: string;
  name: string;
  subpath: string[];
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body(): Promise<Buffer>;
  get(name: string): Promise<KubeObject>;
  getCore(resource: string, name: string): Promise<KubeObject>;
}

/** Hop-by-hop and credential headers kube's proxy does not forward. */
const DROPPED_HEADERS = new Set(['authorization', 'connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te', 'trailer', 'impersonate-user', 'impersonate-group']);

/** Resolve the location, send the request there and relay the answer; throws the ApiError to answer instead. */
export async function serveConnect(sub: SubresourceDescriptor, r: ConnectRequest, res: Res): Promise<void> {
  const loc = await sub.connect!({ name: r.name, get: r.get, getCore: r.getCore, query: r.query, resolve: async (host) => (await lookup(host, { all: true })).map((a) => a.address) });
  // No location (pods/log of a Pod with no node): kube's LocationStreamer answers an empty stream.
  if (!loc) {
    (res as http.ServerResponse).writeHead(204).end();
    return;
  }
  // kube's httpstream.IsUpgradeRequest: a `Connection: Upgrade` request (HTTP/1.1; h2 has none).
  const upgrade = /(^|,)\s*upgrade\s*(,|$)/i.test(String(r.headers.connection ?? ''));
  if (loc.mode === 'upgrade' && !upgrade) throw badRequest('Upgrade request required');
  const body = ['GET', 'HEAD', 'OPTIONS'].includes(r.method) ? Buffer.alloc(0) : await r.body();
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(r.headers)) if (v !== undefined && !k.startsWith(':') && !DROPPED_HEADERS.has(k.toLowerCase())) headers[k] = v;
  const q = r.query.toString();
  const path = loc.path ?? `/${r.subpath.map(encodeURIComponent).join('/')}${q ? `?${q}` : ''}`;
  const failure = (e: NodeJS.ErrnoException): ApiError => {
    if (e instanceof ApiError) return e;
    const why = goDialError(e, loc);
    if (loc.mode === 'stream') return unknownError(`Get "${loc.scheme}://${joinHostPort(loc.host, loc.port)}${path}": ${why}`);
    if (loc.mode === 'upgrade') return unknownError(`error dialing backend: ${why}`);
    return serviceUnavailable(`error trying to reach service: ${why}`);
  };
  // Go's dialer refuses a port beyond 16 bits before dialing.
  if (!(loc.port >= 0 && loc.port <= 65535)) throw failure(Object.assign(new Error(`dial tcp: address ${loc.port}: invalid port`), { code: 'EINVALIDPORT' }));
  const mod = loc.scheme === 'https' ? https : http;
  await new Promise<void>((resolve, reject) => {
    const up = mod.request({ host: loc.host, port: loc.port, method: r.method, path, headers, timeout: 30_000 }, (answer) => {
      const out = res as http.ServerResponse;
      const relayed: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !DROPPED_HEADERS.has(k)) relayed[k] = v;
      out.writeHead(answer.statusCode ?? 502, relayed);
      answer.pipe(out);
      answer.on('end', resolve);
      answer.on('error', reject);
    });
    up.on('timeout', () => up.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    up.on('error', (e: NodeJS.ErrnoException) => reject(failure(e)));
    up.end(body);
  });
}
