/**
 * One handler per verb for resource requests, shared by every kind. They decode the request,
 * call the generic store/reader and serialize what comes back; they never branch on kind.
 */
import type { KubeObject } from '../api/types.ts';
import { badRequest, pathNotFound, methodNotSupported, type ApiError } from '../api/errors.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import type { RequestContext } from '../registry/generic/context.ts';
import type { DeleteOptions } from '../registry/generic/store.ts';
import { patchTypeOf } from '../registry/generic/patch.ts';
import { defaultManager } from '../registry/generic/managed-fields.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { RequestInfo } from './request-info.ts';
import { negotiateOutput, routeAccepts, decodeBody, type Representation, type Negotiated } from './negotiation.ts';
import { sendJson, listBody, warningHeaders, type Res } from './respond.ts';
import { convertObjects, tableOptions } from './table.ts';
import { PROTOBUF, encodeProtobuf, protobufTypeFor } from './protobuf.ts';
import { FULL_VERBS } from './discovery.ts';
import { serveWatch } from './watch-handler.ts';
import type { WatchHub } from '../watch/hub.ts';
import type { UserInfo } from '../api/types.ts';

export interface ResourceRequest {
  info: RequestInfo;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  user: UserInfo;
  requestId: string;
  /** Reads the body (bounded); only called for verbs that take one. */
  body(): Promise<Buffer>;
}

const header = (h: ResourceRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

function dryRunOf(q: URLSearchParams): boolean {
  const values = q.getAll('dryRun');
  if (!values.length) return false;
  for (const v of values) {
    if (v !== 'All') throw badRequest(`Invalid dry run value "${v}": supported values: "All"`);
  }
  return true;
}

function context(r: ResourceRequest): RequestContext {
  const ua = header(r.headers, 'user-agent');
  const fm = r.query.get('fieldManager');
  if (fm !== null && (fm.length > 128 || !/^[\x20-\x7e]*$/.test(fm))) throw badRequest('fieldManager: Invalid value: must be printable and at most 128 characters');
  const fv = r.query.get('fieldValidation');
  if (fv !== null && !['', 'Ignore', 'Warn', 'Strict'].includes(fv)) {
    throw badRequest(`fieldValidation: Unsupported value: "${fv}": supported values: "Ignore", "Strict", "Warn"`);
  }
  return { user: r.user, dryRun: dryRunOf(r.query), fieldManager: fm || defaultManager(ua), userAgent: ua, requestId: r.requestId, force: r.query.get('force') === 'true' };
}

async function decodeObject(r: ResourceRequest): Promise<KubeObject> {
  const v = decodeBody(header(r.headers, 'content-type'), await r.body());
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object');
  return v as KubeObject;
}

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`${name}: Invalid value: "${v}": must be an integer`);
  return Number(v);
}

async function deleteOptions(r: ResourceRequest): Promise<DeleteOptions> {
  const raw = await r.body();
  let opts: Record<string, unknown> = {};
  if (raw.length) {
    const v = decodeBody(header(r.headers, 'content-type'), raw);
    if (v && typeof v === 'object' && !Array.isArray(v)) opts = v as Record<string, unknown>;
    else throw badRequest('DeleteOptions must be a JSON object');
  }
  const q = r.query;
  const grace = intParam(q, 'gracePeriodSeconds') ?? (opts.gracePeriodSeconds as number | undefined);
  const policy = q.get('propagationPolicy') ?? (opts.propagationPolicy as string | undefined);
  if (policy !== undefined && policy !== null && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    throw badRequest(`propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`);
  }
  const pre = (opts.preconditions ?? {}) as DeleteOptions['preconditions'];
  const out: DeleteOptions = { preconditions: pre ?? {} };
  if (grace !== undefined) out.gracePeriodSeconds = grace;
  if (policy) out.propagationPolicy = policy;
  if (typeof opts.orphanDependents === 'boolean') out.orphanDependents = opts.orphanDependents;
  return out;
}

export class ResourceHandlers {
  constructor(private readonly registry: Registry, private readonly hub: WatchHub, private readonly folded: () => number) {}

  /** Resolve the kind of a resource request; 404 for unknown resources or wrong scope. */
  resolve(info: RequestInfo): ServedKind {
    const served = this.registry.lookup(info.group, info.version, info.resource);
    if (!served) throw pathNotFound();
    if (!served.kind.namespaced && info.namespace) throw pathNotFound();
    return served;
  }

  async handle(r: ResourceRequest, res: Res): Promise<void> {
    const info = r.info;
    const served = this.resolve(info);
    const ns = info.namespace;
    const { store, reader, kind } = served;
    if (kind.namespaced && info.name && !ns && info.verb !== 'list') throw pathNotFound();
    if (!info.subresource && !(kind.verbs ?? FULL_VERBS).includes(info.verb)) throw methodNotSupported(store.gr, info.verb);
    const pb = protobufTypeFor(store.apiVersion, kind.kind) !== undefined;
    routeAccepts(header(r.headers, 'accept'));
    // Writes negotiate before they act: an unacceptable Accept must not leave a change behind.
    const writeOut: Negotiated = info.verb === 'get' || info.verb === 'list' || info.verb === 'watch' ? { rep: 'json' } : negotiateOutput(header(r.headers, 'accept'), true, pb);
    const reply = (out: { body: Buffer; code: number; warnings?: string[] }): void => this.sendWritten(res, served, writeOut, r.query, out);
    switch (info.verb) {
      case 'get': {
        if (info.subresource && !kind.subresources?.some((s) => s.name === info.subresource && s.verbs.includes('get'))) throw pathNotFound();
        const out = this.output(r, pb);
        const b = await reader.get(ns, info.name, r.query.get('resourceVersion') ?? undefined);
        return this.sendObjects(res, served, out, r.query, [b], null);
      }
      case 'list': {
        const out = this.output(r, pb);
        const result = await reader.list(ns, {
          labelSelector: r.query.get('labelSelector') ?? undefined,
          fieldSelector: r.query.get('fieldSelector') ?? undefined,
          limit: intParam(r.query, 'limit'),
          continue: r.query.get('continue') ?? undefined,
          resourceVersion: r.query.get('resourceVersion') ?? undefined,
          resourceVersionMatch: r.query.get('resourceVersionMatch') ?? undefined,
        });
        const meta: Record<string, unknown> = { resourceVersion: String(result.rv) };
        if (result.continue) meta.continue = result.continue;
        if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
        return this.sendObjects(res, served, out, r.query, result.items, meta);
      }
      case 'create': {
        if (info.name || info.subresource) throw methodNotSupported(store.gr, 'create');
        const ctx = context(r);
        const out = await store.create(ctx, ns, await decodeObject(r));
        return reply(out);
      }
      case 'update': {
        if (!info.name) throw methodNotSupported(store.gr, 'update');
        const ctx = context(r);
        const out = await store.update(ctx, ns, info.name, await decodeObject(r), info.subresource || undefined);
        return reply(out);
      }
      case 'patch': {
        if (!info.name) throw methodNotSupported(store.gr, 'patch');
        const type = patchTypeOf(header(r.headers, 'content-type') ?? '');
        if (type === 'apply') throw methodNotSupported(store.gr, 'apply (server-side apply is not served yet)');
        const ctx = context(r);
        const out = await store.patch(ctx, ns, info.name, type, await r.body(), info.subresource || undefined);
        return reply(out);
      }
      case 'delete': {
        if (info.subresource) throw methodNotSupported(store.gr, 'delete');
        const ctx = context(r);
        const out = await store.delete(ctx, ns, info.name, await deleteOptions(r));
        return reply(out);
      }
      case 'deletecollection': {
        const ctx = context(r);
        const opts = await deleteOptions(r);
        const list = await reader.list(ns, { labelSelector: r.query.get('labelSelector') ?? undefined, fieldSelector: r.query.get('fieldSelector') ?? undefined });
        for (const b of list.items) {
          const o = parseObject(b);
          try {
            await store.delete(ctx, o.metadata.namespace ?? '', o.metadata.name!, opts);
          } catch (e) {
            // Gone in between (another deleter won): deletecollection is idempotent per item.
            if ((e as ApiError).code !== 404) throw e;
          }
        }
        return reply({ body: Buffer.from(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' })), code: 200 });
      }
      case 'watch':
        return serveWatch({ served, namespace: ns, name: info.name, query: r.query, out: this.output(r, pb), hub: this.hub, folded: this.folded }, res);
      default:
        throw methodNotSupported(store.gr, info.verb);
    }
  }

  /**
   * Negotiate a get/list answer; a Table conversion validates its TableOptions first (400 before
   * anything is read, as kube's optionsForTransform).
   */
  private output(r: ResourceRequest, pb: boolean): Negotiated {
    const out = negotiateOutput(header(r.headers, 'accept'), true, pb);
    if (out.convert?.as === 'Table') tableOptions(r.query);
    return out;
  }

  private sendObjects(res: Res, served: ServedKind, out: Negotiated, q: URLSearchParams, items: Buffer[], listMeta: Record<string, unknown> | null): void {
    const { kind, store } = served;
    if (out.convert) {
      const table = out.convert.as === 'Table' ? tableOptions(q) : { includeObject: 'Metadata' as const };
      return sendJson(res, convertObjects(kind, out.convert, items.map(parseObject), listMeta, table), { yaml: out.rep === 'yaml' });
    }
    const body = listMeta ? listBody(kind.listKind, store.apiVersion, listMeta, items) : items[0];
    return this.sendObject(res, body, out.rep, 200, {});
  }

  /**
   * Answer a write: the object (or Status) as negotiated. A conversion applies to the written
   * object as to a get (kube's transformResponseObject; a Status passes through unchanged, and
   * TableOptions are only checked here, after the write, as kube does).
   */
  private sendWritten(res: Res, served: ServedKind, out: Negotiated, q: URLSearchParams, written: { body: Buffer; code: number; warnings?: string[] }): void {
    const headers = warningHeaders(written.warnings ?? []);
    if (!out.convert) return this.sendObject(res, written.body, out.rep, written.code, headers);
    const obj = parseObject(written.body);
    if (obj.kind === 'Status') return sendJson(res, written.body, { code: written.code, headers, yaml: out.rep === 'yaml' });
    const table = out.convert.as === 'Table' ? tableOptions(q) : { includeObject: 'Metadata' as const };
    return sendJson(res, convertObjects(served.kind, out.convert, [obj], null, table), { code: written.code, headers, yaml: out.rep === 'yaml' });
  }

  /** Send stored JSON bytes as JSON (as is), YAML, or Protobuf (encoded from the JSON). */
  private sendObject(res: Res, body: Buffer, rep: Representation, code: number, headers: Record<string, string | string[]>): void {
    if (rep === 'protobuf') {
      const obj = JSON.parse(body.toString('utf8'));
      if (protobufTypeFor(String(obj.apiVersion), String(obj.kind)) !== undefined) {
        (res as import('node:http').ServerResponse).writeHead(code, { 'Content-Type': PROTOBUF, 'Cache-Control': 'no-cache, private', ...headers } as Record<string, string>);
        res.end(encodeProtobuf(obj));
        return;
      }
    }
    sendJson(res, body, { code, headers, yaml: rep === 'yaml' });
  }
}
