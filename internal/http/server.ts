/**
 * The HTTPS server (HTTP/2 with HTTP/1.1 fallback on one port) and the request filter chain, in
 * execution order: request id → body limit → authentication → request info → audit →
 * impersonation → priority and fairness (flowcontrol-filter.ts) → authorization →
 * route (discovery / health / resources). Every failure leaves as a Status; a thrown non-API error
 * is a 500 logged with its request id, and never takes the process down.
 */
import http2 from 'node:http2';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { Logger } from 'pino';
import { toApiError, tooLarge, unauthorized, forbidden, failure, pathNotFound, methodNotAllowed, notAcceptable, notAcceptableRoute, notAcceptableTypes, ApiError } from '../api/errors.ts';
import type { Registry } from '../registry/registry.ts';
import type { WatchHub } from '../watch/hub.ts';
import type { Authenticator } from '../auth/authn.ts';
import type { Authorizer } from '../auth/authz.ts';
import { peerOf, secureServerOptions } from '../auth/tls-options.ts';
import type { Pki } from '../auth/pki.ts';
import { authorizationName, requestInfo, type RequestInfo } from './request-info.ts';
import { parseRequestTarget, BadRequestTarget, type RequestTarget } from './path.ts';
import { limitHttp1 } from './header-limits.ts';
import { armDeadline, requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_MIN_REQUEST_TIMEOUT_S } from './timeout.ts';
import { PROTOBUF } from './protobuf.ts';
import { sendError, sendJson, sendProtobuf, sendText, sendRaw, sendPageNotFound, type Res } from './respond.ts';
import { ResourceHandlers } from './resource-handlers.ts';
import { apiVersions, apiResourceList, apiGroupList, apiGroup, versionInfo } from './discovery.ts';
import { proxyToAPIService, type APIServiceIndex } from './aggregator.ts';
import { runHealth, type HealthCheck } from '../health/health.ts';
import { OpenApiService } from './openapi/service.ts';
import type { ApiMetrics, RequestLabels } from '../metrics/api-metrics.ts';
import type { InflightRequests } from './inflight.ts';
import type { AuditedRequest, Auditor } from '../audit/auditor.ts';
import { auditRequest, failedAuthenticationAudit } from './audit-filter.ts';
import { cleanScope, dryRunLabel, reportedVerb, requestKind } from '../metrics/request-labels.ts';
import type { UserInfo } from '../api/types.ts';
import { headerLines } from '../auth/headers.ts';
import { impersonate, impersonationRequests, removeImpersonationHeaders, wantsImpersonation, ImpersonationRequestError } from '../auth/impersonation.ts';
import { serveOpenIdDiscovery, type OpenIdDiscovery } from './openid-discovery.ts';
import { refusedBySelfDefense, type Release, type RequestLimiter } from './flowcontrol-filter.ts';
import { kindAt } from '../registry/rest/strategy.ts';
import { afterPoll } from './turn-budget.ts';

/** Largest request body accepted (kube-apiserver: 3 MiB for JSON). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

type Req = IncomingMessage | Http2ServerRequest;

export interface ServerDeps {
  registry: Registry;
  hub: WatchHub;
  /** Last folded offset (bookmarks). */
  folded: () => number;
  authenticator: Authenticator;
  authorizer: Authorizer;
  health: { livez: HealthCheck[]; readyz: HealthCheck[] };
  log: Logger;
  /** host:port clients use, for /api's serverAddressByClientCIDRs. */
  advertiseAddress: string;
  /** `/metrics` and the request instrumentation (absent: neither). */
  metrics?: ApiMetrics;
  /** Short requests in flight, which graceful shutdown waits for. */
  inflight?: InflightRequests;
  /** The audit log (absent: no auditing). */
  audit?: Auditor;
  /** ServiceAccount issuer discovery documents (absent: the routes are not installed, 404). */
  openIdDiscovery?: OpenIdDiscovery;
  /** Priority and Fairness or max-in-flight (flowcontrol-filter.ts); absent: nothing is limited. */
  limiter?: RequestLimiter;
  /** --request-timeout in ms (timeout.ts; default 60 s). */
  requestTimeoutMs?: number;
  /** --min-request-timeout in seconds: a watch without timeoutSeconds ends after [min, 2·min). */
  minRequestTimeoutS?: number;
  /**
   * Resolves once this replica has folded everything in the log (Storage.latest); asked once before
   * a request for a kind or group this replica does not serve is answered 404 (absent: never).
   */
  catchUp?: () => Promise<unknown>;
  /** The APIServices: group versions proxied to their services, and discovery's groups (aggregator.ts). */
  aggregator?: APIServiceIndex;
}


/**
 * The request's body. It resolves after the event loop's poll phase (setImmediate), not as soon
 * as the body's last byte is read: what follows is a write's heavy part (decode, admission,
 * validation, the append), and the GETs and other requests read in the same poll phase are taken
 * first, so reads do not queue behind writes' work. Measured under 64 connections of creates with
 * GETs beside them, 3 alternated pairs (issue 14): creates/s +3–8 % on HTTP/1.1 and +5–21 % on
 * HTTP/2, GET p99 2–21 % lower. At most TURN_BUDGET_MS of that work runs per turn (turn-budget.ts),
 * so new connections and exempt requests are not kept waiting behind all of it.
 */
function readBody(req: Req, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) {
      reject(tooLarge(limit));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) afterPoll(() => resolve(Buffer.concat(chunks)));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

export function createHandler(deps: ServerDeps) {
  const resources = new ResourceHandlers(deps.registry, deps.hub, deps.folded, deps.minRequestTimeoutS ?? DEFAULT_MIN_REQUEST_TIMEOUT_S);
  const openapi = new OpenApiService(deps.registry, versionInfo.gitVersion.split('-')[0]!);
  return async function handle(req: Req, res: Res): Promise<void> {
    const target = requestTarget(req, res);
    if (!target) return;
    // kube's WithAuditID: a client-chosen Audit-ID is kept, else a new one.
    const given = req.headers['audit-id'];
    const requestId = (Array.isArray(given) ? given[0] : given) || randomUUID();
    res.setHeader('Audit-Id', requestId);
    // Graceful shutdown waits for short requests; a watch leaves the count once it is known to be
    // one (shutdown ends watches itself).
    const inflightEnd = deps.inflight?.begin();
    if (inflightEnd) res.once('close', inflightEnd);
    const { path, query } = target;
    const method = (req.method ?? 'GET').toUpperCase();
    let bodyPromise: Promise<Buffer> | null = null;
    let audited: AuditedRequest | null = null;
    const body = () => (bodyPromise ??= readBody(req, MAX_BODY_BYTES));
    let release: Release | null = null;
    try {
      const info = requestInfo(method, path, query);
      // The deadline (before authentication, as kube's filters run): 400 for a bad ?timeout=.
      if (!info.error && !(info.isResourceRequest && info.verb === 'watch')) armDeadline(req, res, requestTimeoutMs(query, deps.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS));
      // Authentication
      const peer = peerOf(req);
      // One raw-header array for every stage that reads (and, as kube, removes) identity headers.
      const rawHeaders = req.rawHeaders;
      // Audit annotations recorded while authenticating (e.g. a legacy service-account token).
      const authAnnotations: Record<string, string> = {};
      // A client certificate is answered synchronously: awaited only when a promise.
      const authenticating = deps.authenticator.authenticate({ headers: req.headers as Record<string, string | string[] | undefined>, peerCertificate: peer.peerCertificate, certAuthorized: peer.certAuthorized, rawHeaders, annotations: authAnnotations });
      let user = !(authenticating instanceof Promise)
        ? authenticating
        : await authenticating.catch((err: unknown) => {
            // Bad credentials: kube's failed-authentication audit event, then the 401.
            if (deps.audit) failedAuthenticationAudit(deps.audit, req, info, requestId);
            throw err;
          });
      // No user: no credentials and --anonymous-auth=false.
      if (!user) {
        if (deps.audit) failedAuthenticationAudit(deps.audit, req, info, requestId);
        throw unauthorized();
      }
      if (deps.catchUp && !info.error && unknownKindOrGroup(deps.registry, info) && !deps.aggregator?.groups().has(info.group)) await deps.catchUp().catch(() => undefined);
      audited = deps.audit && !info.error ? auditRequest(deps.audit, deps.registry, req, res, info, user, requestId, () => bodyPromise, authAnnotations) : null;
      if (info.error) {
        // kube's request-info filter: a plain-text 500 naming the URL, before authorization.
        const uri = req.url ?? path;
        const text = `Internal Server Error: ${JSON.stringify(uri)}: failed to create RequestInfo: ${info.error}${uri}`;
        sendText(res, 500, text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') + '\n');
        return;
      }
      // Impersonation (kube's WithImpersonation: after authentication and audit, before authorization).
      const impersonating = impersonation(deps, req, rawHeaders, user, res);
      const acting = impersonating instanceof Promise ? await impersonating : impersonating;
      if (!acting) return;
      if (acting !== user) audited?.impersonated(acting);
      user = acting;
      if (info.isResourceRequest && info.verb === 'watch') inflightEnd?.();
      if (deps.metrics) instrument(deps.metrics, deps.registry, req, res, info, query);
      // Priority and fairness (or max-in-flight): run, wait in a queue, or a 429 sent here.
      if (deps.limiter) {
        const admitted = deps.limiter.admit(req, res, info, user, query);
        release = admitted instanceof Promise ? await admitted : admitted;
        if (!release) return;
      }
      // Authorization
      if (user) {
        const name = authorizationName(info, query);
        const deciding = deps.authorizer.authorize({ user, verb: info.verb, isResourceRequest: info.isResourceRequest, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name, path });
        const d = deciding instanceof Promise ? await deciding : deciding;
        audited?.annotate('authorization.k8s.io/decision', d.allowed ? 'allow' : 'forbid');
        audited?.annotate('authorization.k8s.io/reason', d.reason ?? '');
        if (!d.allowed) {
          // kube's authorization filter (responsewriters.Forbidden): forbiddenMessage's wording,
          // the authorizer's reason after it, and a nosniff header on this one error.
          const why = d.reason ? `: ${d.reason}` : '';
          const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
          const scope = info.namespace ? `in the namespace ${JSON.stringify(info.namespace)}` : 'at the cluster scope';
          const e = info.isResourceRequest
            ? forbidden({ group: info.group, resource: info.resource }, name, `User ${JSON.stringify(user.username)} cannot ${info.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(info.group)} ${scope}${why}`)
            : new ApiError(failure(403, 'Forbidden', `forbidden: User ${JSON.stringify(user.username)} cannot ${info.verb} path ${JSON.stringify(path)}${why}`, {}));
          e.headers['X-Content-Type-Options'] = 'nosniff';
          throw e;
        }
      }
      // kube-aggregator's proxy: a group version an APIService with a service names.
      const remote = deps.aggregator && info.apiPrefix === 'apis' && info.group && info.version ? deps.aggregator.remote(info.group, info.version) : undefined;
      if (remote) {
        const discovery = !info.isResourceRequest && info.parts.length === 0;
        // utilflowcontrol.RequestDelegated: a proxied watch holds no seat (its init latch is released).
        if (info.isResourceRequest && info.verb === 'watch') {
          release?.();
          release = null;
        }
        await proxyToAPIService(deps.aggregator!, deps.registry, remote, { req, path, query, user: user!, requestId, discovery }, res);
        return;
      }
      // Outside every API prefix this server routes, kube's mux answers, not go-restful.
      if (!underRestfulPrefix(deps.registry, info, deps.aggregator)) {
        // kube's OpenAPI handlers answer every method (POST /openapi/v2 → 200 on kube-apiserver too);
        // an unread request body is drained so the connection stays usable.
        if (await openapi.handle(path, query, { method, headers: req.headers }, res)) return void req.resume();
        await mux(deps, method, path, query, res, Array.isArray(req.headers.accept) ? req.headers.accept[0] : req.headers.accept);
        return;
      }
      if (info.isResourceRequest) {
        await resources.handle(
          { info, query, headers: req.headers as Record<string, string | string[] | undefined>, user: user!, requestId, body, annotate: audited ? (k, v) => audited!.annotate(k, v) : undefined },
          res,
        );
        return;
      }
      const accept = req.headers.accept;
      await nonResource(deps, method, Array.isArray(accept) ? accept[0] : accept, info, res);
    } catch (err) {
      const e = toApiError(err);
      // An unexpected failure (not an API error) is kube's handler panic: audited at stage Panic.
      if (!(err instanceof ApiError)) audited?.panic(String((err as Error)?.message ?? err));
      // A 500 without a reason is kube's pass-through of a client-caused storage error, not a fault.
      if (e.code >= 500 && e.code !== 503 && e.code !== 504 && e.reason) deps.log.error({ err, requestId, path, method }, 'request failed');
      // Drain an unread body so the connection stays usable (HTTP/1.1 keep-alive).
      if (!bodyPromise && e.code !== 413) req.resume();
      if (e.code === 413 && 'stream' in req === false) res.setHeader('Connection', 'close');
      const accept = req.headers.accept;
      sendError(res, e, {}, Array.isArray(accept) ? accept[0] : accept);
    } finally {
      release?.();
    }
  };
}

/**
 * The request's path and query as kube reads them (path.ts); a target Go's server refuses (a
 * malformed %-escape in the path) gets its plain-text 400 and a closed connection (null).
 */
function requestTarget(req: Req, res: Res): RequestTarget | null {
  try {
    return parseRequestTarget(req.url ?? '/');
  } catch (e) {
    if (!(e instanceof BadRequestTarget)) throw e;
    if (!('stream' in req)) res.setHeader('Connection', 'close');
    sendText(res, 400, '400 Bad Request');
    req.resume();
    return null;
  }
}

/**
 * The user a request acts as: its authenticated user, or the one its Impersonate-* headers name
 * once every part is authorized (a refused part throws kube's 403). Groups, uid or extras without a
 * user get kube's plain-text 500 here, and null tells the caller the response is sent.
 */
function impersonation(deps: ServerDeps, req: Req, rawHeaders: string[], user: UserInfo, res: Res): UserInfo | Promise<UserInfo | null> {
  // Fast path for the common request, answered synchronously (no promise, no microtask turn):
  // no header name starting with `impersonate-`.
  let any = false;
  for (let i = 0; i < rawHeaders.length && !any; i += 2) any = rawHeaders[i]!.length > 12 && rawHeaders[i]!.slice(0, 12).toLowerCase() === 'impersonate-';
  return any ? impersonated(deps, req, rawHeaders, user, res) : user;
}

async function impersonated(deps: ServerDeps, req: Req, rawHeaders: string[], user: UserInfo, res: Res): Promise<UserInfo | null> {
  const headers = req.headers as Record<string, string | string[] | undefined>;
  const lines = headerLines(headers, rawHeaders);
  if (!wantsImpersonation(lines)) return user;
  let requests;
  try {
    requests = impersonationRequests(lines);
  } catch (e) {
    if (!(e instanceof ImpersonationRequestError)) throw e;
    const text = `Internal Server Error: ${JSON.stringify(req.url ?? '/')}: ${e.message}`;
    sendText(res, 500, text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') + '\n');
    req.resume();
    return null;
  }
  const acting = await impersonate(user, requests, deps.authorizer);
  removeImpersonationHeaders(headers, rawHeaders);
  return acting;
}

/** Health endpoints kube instruments (healthz.InstallPathHandler), with component "". */
const INSTRUMENTED_PATHS = new Set(['/healthz', '/livez', '/readyz']);

/**
 * Track one request in the metrics: in-flight (or long-running) while it runs, and — for the
 * requests kube-apiserver instruments: resource requests of a served kind, and the health
 * endpoints — apiserver_request_total and apiserver_request_duration_seconds when the response
 * ends, with kube's labels. A request to a deprecated version also sets
 * apiserver_requested_deprecated_apis.
 */
function instrument(metrics: ApiMetrics, registry: Registry, req: Req, res: Res, info: RequestInfo, query: URLSearchParams): void {
  const served = info.isResourceRequest ? registry.lookup(info.group, info.version, info.resource) : undefined;
  const scope = cleanScope(info);
  const verb = reportedVerb({ method: req.method ?? 'GET', verb: info.verb, isResourceRequest: info.isResourceRequest, namespace: info.namespace, name: info.name, query, contentType: req.headers['content-type'], legacyWatch: info.legacyWatch });
  let labels: RequestLabels | undefined;
  if (served) {
    labels = { verb, dry_run: dryRunLabel(query), group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, scope, component: 'apiserver' };
    if (kindAt(served.kind, info.version).deprecationWarning) metrics.deprecatedRequest({ group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, removedRelease: served.kind.removedRelease ?? '' });
  } else if (!info.isResourceRequest && INSTRUMENTED_PATHS.has(info.path)) {
    labels = { verb, dry_run: dryRunLabel(query), group: '', version: '', resource: '', subresource: info.path, scope: '', component: '' };
  }
  const longRunning = info.isResourceRequest && info.verb === 'watch';
  const tracker = metrics.startRequest({
    labels,
    kind: requestKind(info.verb, info.isResourceRequest, info.method),
    longRunning,
    watchKind: longRunning && served ? { group: info.group, version: info.version, kind: served.kind.kind } : undefined,
  });
  res.once('close', () => tracker.done(res.statusCode, refusedBySelfDefense(res)));
}

/**
 * A request for a kind (or an API group's discovery) this replica does not serve. In Kafka mode
 * another replica may have served it already: the CRD controller adds a kind when it folds the
 * CRD's Established event, so a client that saw the CRD Established on replica A may reach
 * replica B before B folded that event. The handler then waits for B to fold the log's end
 * (Storage.latest: one broker round trip when nothing is behind) and looks again, so every
 * replica answers from the same offset on; what is still unknown is the 404 as before.
 */
function unknownKindOrGroup(registry: Registry, info: RequestInfo): boolean {
  // Custom kinds are never in the core group (a CRD's group has a dot).
  if (info.apiPrefix !== 'apis' || info.group === '') return false;
  if (info.isResourceRequest) return !registry.lookup(info.group, info.version, info.resource);
  return !registry.groups().has(info.group);
}

/**
 * Whether kube-apiserver's handler director would send this path to go-restful (whose misses are
 * 404/405 Status bodies) rather than to its plain mux (text/plain `404 page not found`). Go-restful
 * owns `/api` and everything under it, `/apis` and `/apis/` exactly, everything under a served
 * group `/apis/<group>`, and `/version` with everything under it.
 */
function underRestfulPrefix(registry: Registry, info: RequestInfo, aggregator?: APIServiceIndex): boolean {
  // The director compares the path as it came (`//api/v1` is not under `/api`).
  if (info.apiPrefix && !info.path.startsWith(`/${info.apiPrefix}`)) return false;
  if (info.apiPrefix === 'api') return true;
  if (info.apiPrefix === 'apis') return info.parts.length === 0 && !info.group ? true : (registry.groups().has(info.group) || Boolean(aggregator?.groups().has(info.group))) && info.group !== '';
  return /^\/version(\/|$)/.test(info.path);
}

/** Paths outside the API prefixes: health checks, the index, else the mux's text/plain 404. */
async function mux(deps: ServerDeps, method: string, path: string, q: URLSearchParams, res: Res, accept?: string): Promise<void> {
  if (path === '/metrics' && deps.metrics && (method === 'GET' || method === 'HEAD')) {
    const m = await deps.metrics.render();
    sendText(res, 200, m.body, { 'Content-Type': m.contentType });
    return;
  }
  if (deps.openIdDiscovery && serveOpenIdDiscovery(deps.openIdDiscovery, method, path, accept, res)) return;
  const dump = await deps.limiter?.debugDump?.(path, q);
  // A Go handler's text without a set type: sniffed as text/plain, no nosniff header.
  if (dump != null) return sendRaw(res, 200, 'text/plain; charset=utf-8', dump);
  const health = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
  if (health) {
    const endpoint = health[1];
    // /healthz has kube's livez checks (the etcd check fails there only when a restart is needed).
    const checks = endpoint === 'readyz' ? deps.health.readyz : deps.health.livez;
    const r = await runHealth(endpoint, checks, health[2] ?? '', q);
    sendText(res, r.code, r.body);
    return;
  }
  if (path === '/' && (method === 'GET' || method === 'HEAD')) {
    return sendJson(res, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/openapi/v2', '/openapi/v3', '/readyz', '/version', ...[...deps.registry.groups().entries()].filter(([g]) => g).flatMap(([g, vs]) => [`/apis/${g}`, ...vs.map((v) => `/apis/${g}/${v}`)])] }, { rawJson: true });
  }
  sendPageNotFound(res);
}

/**
 * Discovery and /version (go-restful routes, GET only): a trailing slash names the same document
 * (`/api/`, `/apis/apps/v1/`, `/version/`), as go-restful matches either.
 */
async function nonResource(deps: ServerDeps, method: string, accept: string | undefined, info: RequestInfo, res: Res): Promise<void> {
  const p = info.path;
  const found = (): unknown => {
    if (p === '/version') return versionInfo;
    if (p === '/api') return apiVersions(deps.advertiseAddress);
    if (p === '/apis') return apiGroupList(deps.registry, deps.aggregator);
    if (info.apiPrefix === 'api' && info.version && info.parts.length === 0) return apiResourceList(deps.registry, '', info.version);
    if (info.apiPrefix === 'apis' && info.group && !info.version) return apiGroup(deps.registry, info.group, deps.aggregator);
    if (info.apiPrefix === 'apis' && info.group && info.version && info.parts.length === 0) return apiResourceList(deps.registry, info.group, info.version);
    return null;
  };
  const doc = found();
  if (!doc) throw pathNotFound();
  // /apis and /apis/<group> are plain handlers that ignore the method (kube serves them outside
  // go-restful's method routing); the rest are GET routes.
  const anyMethod = info.apiPrefix === 'apis' && !info.version;
  if (!anyMethod && method !== 'GET') throw methodNotAllowed();
  const rep = discoveryRepresentation(accept, info, anyMethod);
  if (rep === 'protobuf') return sendProtobuf(res, doc);
  // /version is written with WriteRawJSON; the discovery documents with the negotiated serializer.
  return sendJson(res, doc, { yaml: rep === 'yaml', rawJson: p === '/version' });
}

/**
 * How kube answers an Accept header on discovery and /version: /version is a go-restful route
 * producing JSON only; /api, /api/v1 and /apis/<g>/<v> go-restful routes producing JSON, YAML and
 * Protobuf; /apis and /apis/<g> plain handlers that negotiate themselves. Ranges with `as=`
 * (aggregated discovery) are skipped, as kube's negotiation skips them. Protobuf is the meta/v1
 * discovery message (APIVersions, APIGroupList, APIGroup, APIResourceList).
 */
function discoveryRepresentation(accept: string | undefined, info: RequestInfo, plainHandler: boolean): 'json' | 'yaml' | 'protobuf' {
  if (!accept || !accept.trim()) return 'json';
  const ranges = accept.split(',').map((part) => {
    const [type, ...params] = part.split(';').map((x) => x.trim().toLowerCase());
    return { type, conversion: params.some((p) => p.startsWith('as=')) };
  });
  const anyJson = (t: string): boolean => t === 'application/json' || t === '*/*' || t === 'application/*';
  if (info.path === '/version') {
    if (ranges.some((r) => anyJson(r.type))) return 'json';
    throw notAcceptableRoute();
  }
  for (const r of ranges) {
    if (r.conversion) continue;
    if (anyJson(r.type)) return 'json';
    if (r.type === PROTOBUF) return 'protobuf';
    if (r.type === 'application/yaml') return 'yaml';
  }
  throw plainHandler ? notAcceptableTypes() : notAcceptable(accept);
}

/**
 * kube-apiserver's HTTP/2 settings (1.24 secure_serving.go): 99 % of serialized objects are under
 * 256 KiB, so a stream may send that much before it waits for a window update, in frames that size,
 * 250 streams at once, and the connection as much as all of them. Node's defaults (64 KiB for the
 * connection, unlimited streams) made a client's 64 concurrent creates on one connection wait for
 * window updates.
 */
const H2_STREAM_WINDOW = 256 * 1024;
const H2_MAX_STREAMS = 250;
const H2_CONNECTION_WINDOW = H2_STREAM_WINDOW * H2_MAX_STREAMS;
/** Go's announcement for http.Server.MaxHeaderBytes 1 MiB (+ 32 bytes for each of 10 headers). */
const H2_MAX_HEADER_LIST = (1 << 20) + 320;

/** Create the HTTPS server (h2 + http/1.1) serving `handler`. */
export function createServer(pki: Pki, handler: ReturnType<typeof createHandler>, clientCaPems?: string[]) {
  const options = {
    ...secureServerOptions(pki, clientCaPems),
    settings: { initialWindowSize: H2_STREAM_WINDOW, maxFrameSize: H2_STREAM_WINDOW, maxConcurrentStreams: H2_MAX_STREAMS, maxHeaderListSize: H2_MAX_HEADER_LIST },
    // Bodies a connection may have in flight (its window) fit in the session's memory limit (MB).
    maxSessionMemory: Math.ceil(H2_CONNECTION_WINDOW / (1024 * 1024)) + 10,
    // TCP_NODELAY on every connection, as Go's net package sets it for kube-apiserver. Node's http2
    // sets it on HTTP/2 sessions only; HTTP/1.1 connections (allowHTTP1) kept Nagle's algorithm,
    // which holds a small write (a watch event) until the previous segment is acknowledged.
    noDelay: true,
  };
  const server = http2.createSecureServer(options, (req, res) => {
    void handler(req, res);
  });
  server.on('session', (session: http2.ServerHttp2Session) => session.setLocalWindowSize(H2_CONNECTION_WINDOW));
  // A misbehaving client must not take the process down.
  server.on('sessionError', () => undefined);
  server.on('tlsClientError', () => undefined);
  limitHttp1(server);
  return server;
}
