/**
 * The HTTPS server (HTTP/2 with HTTP/1.1 fallback on one port) and the request filter chain, in
 * execution order: request id → body limit → authentication → request info → authorization →
 * route (discovery / health / resources). Every failure leaves as a Status; a thrown non-API error
 * is a 500 logged with its request id, and never takes the process down.
 */
import http2 from 'node:http2';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import type { Logger } from 'pino';
import { toApiError, tooLarge, unauthorized, forbidden, pathNotFound, methodNotSupported, ApiError } from '../api/errors.ts';
import type { Registry } from '../registry/registry.ts';
import type { WatchHub } from '../watch/hub.ts';
import type { Authenticator } from '../auth/authn.ts';
import type { Authorizer } from '../auth/authz.ts';
import { peerOf, secureServerOptions } from '../auth/tls-options.ts';
import type { Pki } from '../auth/pki.ts';
import { requestInfo } from './request-info.ts';
import { sendError, sendJson, sendText, type Res } from './respond.ts';
import { ResourceHandlers } from './resource-handlers.ts';
import { prettyErrors } from './negotiation.ts';
import { apiVersions, apiResourceList, apiGroupList, apiGroup, versionInfo } from './discovery.ts';
import { runHealth, type HealthCheck } from '../health/health.ts';

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
}

/** Paths that answer without credentials (kube-apiserver's system:public-info-viewer). */
const PUBLIC_PATHS = /^\/(healthz|livez|readyz|version)(\/|$)/;

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
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

export function createHandler(deps: ServerDeps) {
  const resources = new ResourceHandlers(deps.registry, deps.hub, deps.folded);
  return async function handle(req: Req, res: Res): Promise<void> {
    const requestId = randomUUID();
    res.setHeader('Audit-Id', requestId);
    const url = new URL(req.url ?? '/', 'https://localhost');
    const path = url.pathname;
    const method = (req.method ?? 'GET').toUpperCase();
    let bodyPromise: Promise<Buffer> | null = null;
    const body = () => (bodyPromise ??= readBody(req, MAX_BODY_BYTES));
    try {
      // Authentication
      const peer = peerOf(req);
      const user = await deps.authenticator.authenticate({ headers: req.headers as Record<string, string | string[] | undefined>, peerCertificate: peer.peerCertificate, certAuthorized: peer.certAuthorized });
      if (!user && !PUBLIC_PATHS.test(path)) throw unauthorized();
      const info = requestInfo(method, path, url.searchParams);
      // Authorization
      if (user) {
        const d = await deps.authorizer.authorize({ user, verb: info.verb, isResourceRequest: info.isResourceRequest, group: info.group, version: info.version, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name, path });
        if (!d.allowed) {
          throw info.isResourceRequest
            ? forbidden({ group: info.group, resource: info.resource }, info.name, `User "${user.username}" cannot ${info.verb} resource "${info.resource}" in API group "${info.group}"${info.namespace ? ` in the namespace "${info.namespace}"` : ''}${d.reason ? `: ${d.reason}` : ''}`)
            : new ApiError({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `forbidden: User "${user.username}" cannot ${info.verb} path "${path}"`, reason: 'Forbidden', details: {}, code: 403 });
        }
      }
      if (info.isResourceRequest) {
        await resources.handle({ info, query: url.searchParams, headers: req.headers as Record<string, string | string[] | undefined>, user: user!, requestId, body }, res);
        return;
      }
      await nonResource(deps, method, path, info, url.searchParams, res);
    } catch (err) {
      const e = toApiError(err);
      if (e.code >= 500 && e.code !== 503 && e.code !== 504) deps.log.error({ err, requestId, path, method }, 'request failed');
      // Drain an unread body so the connection stays usable (HTTP/1.1 keep-alive).
      if (!bodyPromise && e.code !== 413) req.resume();
      if (e.code === 413 && 'stream' in req === false) res.setHeader('Connection', 'close');
      sendError(res, e, {}, prettyErrors(req.headers.accept));
    }
  };
}

async function nonResource(deps: ServerDeps, method: string, path: string, info: ReturnType<typeof requestInfo>, q: URLSearchParams, res: Res): Promise<void> {
  if (method !== 'GET' && method !== 'HEAD') throw methodNotSupported({ group: '', resource: path }, method);
  const health = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
  if (health) {
    const endpoint = health[1];
    const checks = endpoint === 'livez' ? deps.health.livez : deps.health.readyz;
    const r = await runHealth(endpoint, checks, health[2] ?? '', q);
    sendText(res, r.code, r.body);
    return;
  }
  if (path === '/version') return sendJson(res, versionInfo);
  // kube-apiserver serves discovery documents with or without a trailing slash.
  if (path === '/api' || path === '/api/') return sendJson(res, apiVersions(deps.advertiseAddress));
  if (path === '/apis' || path === '/apis/') return sendJson(res, apiGroupList(deps.registry));
  if (info.apiPrefix === 'api' && info.version && info.parts.length === 0) {
    const doc = apiResourceList(deps.registry, '', info.version);
    if (doc) return sendJson(res, doc);
  }
  if (info.apiPrefix === 'apis' && info.group && !info.version) {
    const doc = apiGroup(deps.registry, info.group);
    if (doc) return sendJson(res, doc);
  }
  // A group nobody serves falls through kube's mux to its plain-text NotFound handler.
  if (info.apiPrefix === 'apis' && info.group && !deps.registry.groups().has(info.group)) return sendText(res, 404, '404 page not found\n');
  if (info.apiPrefix === 'apis' && info.group && info.version && info.parts.length === 0) {
    const doc = apiResourceList(deps.registry, info.group, info.version);
    if (doc) return sendJson(res, doc);
  }
  if (path === '/') {
    return sendJson(res, { paths: ['/api', '/api/v1', '/apis', '/healthz', '/livez', '/readyz', '/version', ...[...deps.registry.groups().entries()].filter(([g]) => g).flatMap(([g, vs]) => [`/apis/${g}`, ...vs.map((v) => `/apis/${g}/${v}`)])] });
  }
  throw pathNotFound();
}

/** Create the HTTPS server (h2 + http/1.1) serving `handler`. */
export function createServer(pki: Pki, handler: ReturnType<typeof createHandler>) {
  const server = http2.createSecureServer(secureServerOptions(pki), (req, res) => {
    void handler(req, res);
  });
  // A misbehaving client must not take the process down.
  server.on('sessionError', () => undefined);
  server.on('tlsClientError', () => undefined);
  return server;
}
