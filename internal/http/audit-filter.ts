/**
 * The audit filter (kube's WithAudit / WithFailedAuthenticationAudit): builds an audit event's
 * request facts, watches the response — headers of a long-running response for ResponseStarted,
 * the body when the level logs it or when it is an error Status — and completes the event when the
 * response ends. Bodies are decoded by their content type (JSON, YAML, Protobuf) into the objects
 * the event carries.
 */
import type { IncomingMessage } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { parse as parseYaml } from 'yaml';
import type { UserInfo } from '../api/types.ts';
import type { AuditedRequest, AuditRequestInfo, Auditor, ObjectRef } from '../audit/auditor.ts';
import type { Registry } from '../registry/registry.ts';
import type { RequestInfo } from './request-info.ts';
import type { Res } from './respond.ts';
import { PROTOBUF, decodeProtobuf } from './protobuf.ts';
import { kindAt } from '../registry/rest/strategy.ts';

type Req = IncomingMessage | Http2ServerRequest;

/** Verbs whose request body is an object (or a patch) the event can carry. */
const BODY_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** utilnet.SourceIPs: X-Forwarded-For entries, X-Real-Ip, then the peer, without repeats. */
function sourceIPs(req: Req): string[] {
  const out: string[] = [];
  const add = (ip: string | undefined): void => {
    const v = ip?.trim().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, '');
    if (v && !out.includes(v)) out.push(v);
  };
  const xff = req.headers['x-forwarded-for'];
  for (const part of (Array.isArray(xff) ? xff.join(',') : xff ?? '').split(',')) add(part);
  const real = req.headers['x-real-ip'];
  add(Array.isArray(real) ? real[0] : real);
  add(req.socket?.remoteAddress);
  return out;
}

function objectRef(info: RequestInfo): ObjectRef | undefined {
  if (!info.isResourceRequest) return undefined;
  return {
    resource: info.resource,
    ...(info.namespace ? { namespace: info.namespace } : {}),
    ...(info.name ? { name: info.name } : {}),
    ...(info.group ? { apiGroup: info.group } : {}),
    apiVersion: info.version,
    ...(info.subresource ? { subresource: info.subresource } : {}),
  };
}

function requestFacts(req: Req, info: RequestInfo, user: UserInfo | null, auditID: string, annotations?: Record<string, string>): AuditRequestInfo {
  const ua = req.headers['user-agent'];
  return {
    auditID,
    requestURI: req.url ?? info.path,
    verb: info.verb,
    user,
    sourceIPs: sourceIPs(req),
    userAgent: Array.isArray(ua) ? ua[0] : ua,
    attributes: { user, verb: info.verb, isResourceRequest: info.isResourceRequest, path: info.path, namespace: info.namespace, group: info.group, resource: info.resource, subresource: info.subresource, name: info.name },
    objectRef: objectRef(info),
    ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
  };
}

/** Decode a body by its content type; undefined when it cannot be read as an object. */
function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return undefined;
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  try {
    if (type === PROTOBUF) {
      const d = decodeProtobuf(body);
      return { kind: d.kind, apiVersion: d.apiVersion, ...d.object };
    }
    if (type === 'application/yaml' || type === 'application/apply-patch+yaml') return parseYaml(body.toString('utf8'));
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Log a request whose authentication failed (401), if the policy audits it. */
export function failedAuthenticationAudit(auditor: Auditor, req: Req, info: RequestInfo, auditID: string): void {
  auditor.failedAuthentication(requestFacts(req, info, null, auditID), { metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
}

/**
 * Audit one authenticated request: emits RequestReceived now, and the later stages as the response
 * goes out. Returns null when the policy does not audit the request.
 */
export function auditRequest(auditor: Auditor, registry: Registry, req: Req, res: Res, info: RequestInfo, user: UserInfo | null, auditID: string, requestBody: () => Promise<Buffer> | null, authAnnotations?: Record<string, string>): AuditedRequest | null {
  const a = auditor.begin(requestFacts(req, info, user, auditID, authAnnotations));
  if (!a) return null;
  const served = info.isResourceRequest ? registry.lookup(info.group, info.version, info.resource) : undefined;
  if (served && kindAt(served.kind, info.version).deprecationWarning) {
    a.annotate('k8s.io/deprecated', 'true');
    if (served.kind.removedRelease) a.annotate('k8s.io/removed-release', served.kind.removedRelease);
  }
  const longRunning = info.isResourceRequest && info.verb === 'watch';
  const w = res as unknown as { writeHead: (...args: unknown[]) => unknown; write: (...args: unknown[]) => unknown; end: (...args: unknown[]) => unknown; statusCode: number };
  if (longRunning) {
    const writeHead = w.writeHead.bind(res);
    let started = false;
    w.writeHead = (...args: unknown[]) => {
      if (!started) {
        started = true;
        a.started(Number(args[0]) || w.statusCode);
      }
      return writeHead(...args);
    };
  }
  // Response bytes are kept only when the event will carry them: the object at RequestResponse,
  // and any error Status (its code, reason and message go into responseStatus at every level).
  const chunks: Buffer[] = [];
  const keep = (chunk: unknown): void => {
    if (longRunning || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    // A create names its object only in the answer: kept at every level for objectRef.name.
    if (!a.wantsResponseObject && w.statusCode < 300 && info.verb !== 'create') return;
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  };
  const write = w.write.bind(res);
  const end = w.end.bind(res);
  // HTTP/2's Http2ServerResponse.end(chunk) writes the chunk through this.write: keep it once.
  let ending = false;
  w.write = (...args: unknown[]) => {
    if (!ending) keep(args[0]);
    return write(...args);
  };
  w.end = (...args: unknown[]) => {
    keep(args[0]);
    ending = true;
    return end(...args);
  };
  res.once('close', () => {
    void (async () => {
      const code = w.statusCode;
      const type = res.getHeader('content-type');
      const out = chunks.length ? decodeBody(Buffer.concat(chunks), Array.isArray(type) ? type[0] : type === undefined ? undefined : String(type)) : undefined;
      if (out && typeof out === 'object' && (out as { kind?: unknown }).kind === 'Status' && code >= 300) {
        const { kind: _k, apiVersion: _v, ...status } = out as Record<string, unknown>;
        a.responseStatus = status;
      }
      if (a.wantsResponseObject && out !== undefined) a.responseObject = out;
      a.nameFrom(out);
      const body = requestBody();
      if (a.wantsRequestObject && body && BODY_VERBS.has(info.verb)) {
        const b = await body.catch(() => undefined);
        const ct = req.headers['content-type'];
        if (b) a.requestObject = decodeBody(b, Array.isArray(ct) ? ct[0] : ct);
      }
      a.complete(code);
    })();
  });
  return a;
}
