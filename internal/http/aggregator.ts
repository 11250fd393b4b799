/**
 * The aggregation layer (kube-aggregator 0.24's proxyHandler, apisHandler and apiGroupHandler):
 * APIServices with a `service` name group versions served elsewhere. Requests for
 * `/apis/<group>/<version>[/…]` of such an APIService — authenticated, audited, limited and
 * authorized here first, as kube's filter chain does before the aggregator's mux — are proxied over
 * HTTPS to the service: resolved as kube-apiserver's default ClusterIP resolver does (an
 * ExternalName Service at `<externalName>:<port>`, the others at `<clusterIP>:<service port>`), the
 * backend verified against `caBundle` with the server name `<service>.<namespace>.svc` (or not at
 * all under `insecureSkipTLSVerify`), this server authenticating with the front-proxy client
 * certificate (--proxy-client-cert-file/--proxy-client-key-file) and naming the caller in
 * X-Remote-User, X-Remote-Group and X-Remote-Extra-* (transport.SetAuthProxyHeaders). The answer is
 * relayed as it comes (watches stream through); a failure to reach the service is kube's plain-text
 * 503 `error trying to reach service: <Go's error>`, and an APIService that is not Available is a
 * plain-text 503 `service unavailable` (http.Error). The availability controller
 * (controllers/apiservice-availability.ts) writes the `Available` condition this reads.
 *
 * Discovery: /apis lists the groups of APIServices with a service beside the served ones, every
 * group in kube-aggregator's order (groupPriorityMinimum, then name: SortedByGroupAndVersion), and
 * /apis/<group> of a group served only elsewhere is the aggregator's APIGroup (versions by
 * versionPriority). Connection upgrades (exec-style SPDY/WebSocket) are not relayed.
 */
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { KubeObject, UserInfo } from '../api/types.ts';
import type { Storage } from '../storage/storage.ts';
import { followStore } from '../storage/follow.ts';
import type { Registry } from '../registry/registry.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { sortedByGroupAndVersion, type APIServiceOrder } from '../registry/apiregistration/priorities.ts';
import { goCause } from '../admission/webhook/client.ts';
import type { Res } from './respond.ts';
import { sendText } from './respond.ts';

const GROUP = 'apiregistration.k8s.io';

/** One APIService as the aggregator reads it. */
export interface APIServiceEntry extends APIServiceOrder {
  service?: { namespace: string; name: string; port: number };
  caBundle?: Buffer;
  insecureSkipTLSVerify: boolean;
  /** Its Available condition is True. */
  available: boolean;
}

function entryOf(o: KubeObject): APIServiceEntry {
  const spec = (o.spec ?? {}) as Record<string, any>;
  const conditions = ((o.status as Record<string, any> | undefined)?.conditions ?? []) as Record<string, any>[];
  const svc = spec.service as Record<string, any> | undefined;
  return {
    name: o.metadata.name ?? '',
    group: String(spec.group ?? ''),
    version: String(spec.version ?? ''),
    groupPriorityMinimum: Number(spec.groupPriorityMinimum ?? 0),
    versionPriority: Number(spec.versionPriority ?? 0),
    service: svc ? { namespace: String(svc.namespace ?? ''), name: String(svc.name ?? ''), port: Number(svc.port ?? 443) } : undefined,
    caBundle: typeof spec.caBundle === 'string' && spec.caBundle ? Buffer.from(spec.caBundle, 'base64') : undefined,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    available: conditions.some((c) => c.type === 'Available' && c.status === 'True'),
  };
}

/** The front-proxy client pair (--proxy-client-cert-file / --proxy-client-key-file), PEM. */
export interface ProxyClientCert {
  cert: string;
  key: string;
}

/** Where a service reference is dialled (proxy.ResolveCluster), or the error text kube gives. */
export function resolveService(svc: KubeObject | undefined, ref: { name: string; port: number }): { host: string; port: number } | { error: string } {
  if (!svc) return { error: `service "${ref.name}" not found` };
  const spec = (svc.spec ?? {}) as Record<string, any>;
  const type = String(spec.type ?? 'ClusterIP');
  if (type === 'ClusterIP' && spec.clusterIP === 'None') return { error: 'cannot route to service with ClusterIP "None"' };
  if (type === 'ClusterIP' || type === 'LoadBalancer' || type === 'NodePort') {
    const found = ((spec.ports ?? []) as Record<string, any>[]).some((p) => p.port === ref.port);
    if (!found) return { error: `no service port ${ref.port} found for service "${ref.name}"` };
    return { host: String(spec.clusterIP ?? ''), port: ref.port };
  }
  if (type === 'ExternalName') return { host: String(spec.externalName ?? ''), port: ref.port };
  return { error: `unsupported service type "${type}"` };
}

/** Go's net.JoinHostPort. */
export const joinHostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * transport.SetAuthProxyHeaders: the caller's name, groups (one header each) and extras
 * (`X-Remote-Extra-<path-escaped key>`, one header per value), replacing any the request carried.
 */
export function setAuthProxyHeaders(headers: Record<string, string | string[]>, user: UserInfo): void {
  for (const k of Object.keys(headers)) {
    const l = k.toLowerCase();
    if (l === 'x-remote-user' || l === 'x-remote-group' || l.startsWith('x-remote-extra-')) delete headers[k];
  }
  headers['X-Remote-User'] = user.username;
  if (user.groups.length) headers['X-Remote-Group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) if (values.length) headers[`X-Remote-Extra-${goPathEscape(key)}`] = [...values];
}

const pct = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

/** url.PathEscape: unreserved characters and `$&+:=@` stay, the rest is %-escaped. */
export function goPathEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, pct).replace(/%(24|26|2B|3A|3D|40)/g, (m) => decodeURIComponent(m));
}

/** The APIServices this server knows, followed from the fold (kube's APIService informer). */
export class APIServiceIndex {
  private readonly byName = new Map<string, APIServiceEntry>();
  private remoteGroups: Map<string, APIServiceEntry[]> | null = null;
  private sorted: APIServiceEntry[][] | null = null;
  private readonly agents = new Map<string, https.Agent>();
  private unsubscribe: (() => void) | null = null;

  constructor(private client?: ProxyClientCert) {}

  /** The front-proxy client pair presented to backends now. */
  get proxyClient(): ProxyClientCert | undefined {
    return this.client;
  }

  /** A rotated client pair: new connections present it (pooled ones are closed). */
  setProxyClient(client: ProxyClientCert): void {
    this.client = client;
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  async start(storage: Storage): Promise<void> {
    this.unsubscribe = await followStore(storage, {
      resources: [{ group: GROUP, resource: 'apiservices' }],
      wants: (key) => key.group === GROUP && key.resource === 'apiservices',
      load: (_r, json) => this.put(parseObject(json)),
      apply: (c) => {
        if (c.type === 'DELETED') this.drop(c.key.name);
        else this.put(parseObject(c.object));
      },
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private put(o: KubeObject): void {
    this.drop(o.metadata.name ?? '');
    this.byName.set(o.metadata.name ?? '', entryOf(o));
  }

  private drop(name: string): void {
    this.byName.delete(name);
    this.agents.get(name)?.destroy();
    this.agents.delete(name);
    this.remoteGroups = null;
    this.sorted = null;
  }

  /** The APIService with a service for this group version (undefined: served here, or nowhere). */
  remote(group: string, version: string): APIServiceEntry | undefined {
    const e = this.byName.get(`${version}.${group}`);
    return e?.service ? e : undefined;
  }

  /** Groups with at least one APIService with a service, each group's APIServices in kube's version order. */
  groups(): Map<string, APIServiceEntry[]> {
    if (!this.remoteGroups) {
      this.remoteGroups = new Map();
      for (const g of this.sortedGroups()) if (g.some((e) => e.service) && g[0]!.group) this.remoteGroups.set(g[0]!.group, g);
    }
    return this.remoteGroups;
  }

  /** Every APIService grouped by group, in kube-aggregator's order (SortedByGroupAndVersion). */
  sortedGroups(): APIServiceEntry[][] {
    return (this.sorted ??= sortedByGroupAndVersion([...this.byName.values()]));
  }

  /** The pooled TLS connections of one APIService (its caBundle, server name and the proxy client pair). */
  agentFor(e: APIServiceEntry): https.Agent {
    let a = this.agents.get(e.name);
    if (!a) {
      a = new https.Agent({
        keepAlive: true,
        maxFreeSockets: 16,
        timeout: 30_000,
        ca: e.caBundle,
        rejectUnauthorized: !e.insecureSkipTLSVerify,
        servername: e.service ? `${e.service.name}.${e.service.namespace}.svc` : undefined,
        cert: this.client?.cert,
        key: this.client?.key,
      });
      this.agents.set(e.name, a);
    }
    return a;
  }
}

/** The APIGroup document of a group from its APIServices (convertToDiscoveryAPIGroup). */
export function aggregatedAPIGroup(entries: readonly APIServiceEntry[]) {
  const versions = entries.map((e) => ({ groupVersion: `${e.group}/${e.version}`, version: e.version }));
  return { name: entries[0]!.group, versions, preferredVersion: versions[0]! };
}

/** Hop-by-hop headers (Go's ReverseProxy drops them both ways) and what HTTP/2 refuses. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'http2-settings']);
/** Credentials kube's filters remove before the proxy (authentication and impersonation). */
const CONSUMED = new Set(['authorization', 'impersonate-user', 'impersonate-group', 'impersonate-uid']);

/** url.Values.Encode: keys sorted, Go's QueryEscape. */
function goQuery(q: URLSearchParams): string {
  const esc = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, pct).replace(/%20/g, '+');
  const keys = [...new Set(q.keys())].sort();
  return keys.flatMap((k) => q.getAll(k).map((v) => `${esc(k)}=${esc(v)}`)).join('&');
}

export interface ProxyRequest {
  req: IncomingMessage | Http2ServerRequest;
  path: string;
  query: URLSearchParams;
  user: UserInfo;
  requestId: string;
  /** Whether the request is a group version's discovery document (kube bounds those by 5 s). */
  discovery: boolean;
}

/** Proxy one request to the APIService's service and relay the answer (proxyHandler.ServeHTTP). */
export async function proxyToAPIService(index: APIServiceIndex, registry: Registry, e: APIServiceEntry, r: ProxyRequest, res: Res): Promise<void> {
  const unavailable = (): void => sendText(res, 503, 'service unavailable\n');
  if (!e.available) return unavailable();
  const ref = e.service!;
  const services = registry.lookup('', 'v1', 'services');
  const svc = await services?.reader.get(ref.namespace, ref.name).then(parseObject, () => undefined);
  const loc = resolveService(svc, ref);
  if ('error' in loc) return unavailable();
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(r.req.headers)) {
    const l = k.toLowerCase();
    if (v === undefined || l.startsWith(':') || HOP_BY_HOP.has(l) || CONSUMED.has(l) || l.startsWith('impersonate-extra-')) continue;
    headers[k] = v;
  }
  setAuthProxyHeaders(headers, r.user);
  headers['Audit-Id'] = r.requestId;
  const remote = r.req.socket?.remoteAddress?.replace(/^::ffff:(?=\d+\.)/, '');
  if (remote) headers['X-Forwarded-For'] = [headers['x-forwarded-for'], remote].flat().filter(Boolean).join(', ');
  delete headers['x-forwarded-for'];
  const hostPort = joinHostPort(loc.host, loc.port);
  headers.Host = hostPort;
  const q = goQuery(r.query);
  const target = new URL(`https://${hostPort}`);
  const method = (r.req.method ?? 'GET').toUpperCase();
  const bodyless = method === 'GET' || method === 'HEAD';
  if (bodyless) r.req.resume();
  await new Promise<void>((resolve) => {
    let answered = false;
    let retried = false;
    const attempt = (): void => {
      const up = https.request(
        { host: loc.host, port: loc.port, method, path: `${r.path}${q ? `?${q}` : ''}`, headers, agent: index.agentFor(e), timeout: r.discovery ? 5_000 : undefined },
        (answer) => {
          answered = true;
          const relayed: Record<string, string | string[]> = {};
          for (const [k, v] of Object.entries(answer.headers)) if (v !== undefined && !HOP_BY_HOP.has(k)) relayed[k] = v;
          const out = res as ServerResponse;
          out.writeHead(answer.statusCode ?? 502, relayed);
          // Relay as it comes (a watch's events are flushed one by one).
          answer.on('data', (c: Buffer) => out.write(c));
          answer.on('end', () => {
            out.end();
            resolve();
          });
          answer.on('error', () => {
            out.destroy();
            resolve();
          });
          res.once('close', () => answer.destroy());
        },
      );
      up.on('timeout', () => up.destroy(Object.assign(new Error('context deadline exceeded'), { code: 'ETIMEDOUT_CTX' })));
      up.on('error', (err: NodeJS.ErrnoException) => {
        // A pooled connection the backend closed as it was reused: once more on a new one, as Go's
        // transport retries a bodiless request that failed on a reused idle connection.
        if (!answered && !retried && bodyless && up.reusedSocket) {
          retried = true;
          attempt();
          return;
        }
        if (!answered && !res.headersSent) sendText(res, 503, `error trying to reach service: ${goCause(err, target, `${ref.name}.${ref.namespace}.svc`)}\n`);
        else (res as ServerResponse).destroy();
        resolve();
      });
      res.once('close', () => {
        if (!answered) up.destroy();
      });
      if (bodyless) up.end();
      else r.req.pipe(up);
    };
    attempt();
  });
}
