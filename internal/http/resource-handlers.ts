/**
 * One handler per verb for resource requests, shared by every kind. They decode the request,
 * call the generic store/reader and serialize what comes back; they never branch on kind.
 */
import type { KubeObject } from '../api/types.ts';
import { ApiError, badRequest, notFound, pathNotFound, methodNotAllowed, methodNotSupported, unsupportedPatchType } from '../api/errors.ts';
import type { Registry, ServedKind } from '../registry/registry.ts';
import type { RequestContext } from '../registry/generic/context.ts';
import type { DeleteOptions, WriteResult } from '../registry/generic/store.ts';
import { validateListOptions, isStream, type ListQuery, type ListResult } from '../registry/generic/reader.ts';
import { PATCH_MEDIA_TYPES, patchTypeOf } from '../patch/patch.ts';
import { defaultManager } from '../registry/generic/managed-fields.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import type { RequestInfo } from './request-info.ts';
import { negotiateOutput, decodeBody, decodeApplyBody, applyBodyDuplicates, bodyMediaType, checkPatchRoute, type Representation, type Negotiated } from './negotiation.ts';
import { createOptions, updateOptions, patchOptions, deleteOptions } from './write-options.ts';
import { sendJson, listBody, sendListStream, sendYamlListStream, sendProtobufListStream, sendProtobufList, prettyPrint, warningHeaders, type Res } from './respond.ts';
import { convertObjects, tableOptions } from './table.ts';
import { kindAt } from '../registry/rest/strategy.ts';
import { PROTOBUF, encodeProtobuf, encodeProtobufList, protobufTypeFor } from './protobuf.ts';
import { checkRoute } from './routes.ts';
import { serveConnect } from './connect-proxy.ts';
import { invalidPathName, invalidKeyNamespace, invalidCreateNamespace } from './path-names.ts';
import { serveWatch } from './watch-handler.ts';
import { sendConvertedListStream, streamsConverted } from './converted-list-stream.ts';
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
  /** Warnings added while the request is served (admission webhooks); set by `handle`. */
  warnings?: string[];
  /** Adds an annotation to the request's audit event, when it is audited. */
  annotate?(key: string, value: string): void;
}

const header = (h: ResourceRequest['headers'], name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * The store's per-request context from validated options (dry run, field manager) and the request.
 * A request without a fieldManager gets one derived from its User-Agent, as kube does.
 */
function context(r: ResourceRequest, dryRun: boolean, fieldManager = ''): RequestContext {
  const ua = header(r.headers, 'user-agent');
  const fv = r.query.get('fieldValidation');
  const fieldValidation = fv === 'Ignore' || fv === 'Warn' || fv === 'Strict' ? fv : undefined;
  return {
    user: r.user,
    dryRun,
    fieldManager: fieldManager || defaultManager(ua),
    userAgent: ua,
    requestId: r.requestId,
    force: queryBool(r.query, 'force'),
    fieldValidation,
    apiVersion: r.info.version,
    fieldManagerParam: fieldManager || undefined,
    warnings: r.warnings,
    annotate: r.annotate,
  };
}

/**
 * Decode an object body whose media type `bodyMediaType` has already accepted, for an endpoint of
 * `kind` (its name appears in kube's "object provided is unrecognized" 400). A JSON `null` is an
 * empty object, as Go decodes it.
 */
function decodeObject(r: ResourceRequest, body: Buffer, kind: string, accepted?: string[]): KubeObject {
  // A media type the kind takes no body in (Protobuf for a custom resource, which has no Go type
  // to fill): kube's protobuf decoder, handed an empty Unstructured, fails on that object's
  // missing kind (a 400 whatever the body).
  if (accepted && !accepted.includes(bodyMediaType(header(r.headers, 'content-type')) || 'application/json')) {
    throw badRequest(`${kind} in version "${r.info.version}" cannot be handled as a ${kind}: Object 'Kind' is missing in 'object has no kind field '`);
  }
  const v = decodeBody(header(r.headers, 'content-type'), body, kind);
  if (v === null) return {} as KubeObject;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object');
  return v as KubeObject;
}

/**
 * A boolean query parameter as kube's query conversion reads it (Convert_Slice_string_To_bool):
 * absent is false, "0" and "false" (any case) are false, anything else (also "", "yes") is true.
 */
function queryBool(q: URLSearchParams, name: string): boolean {
  const v = q.get(name);
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

/** A query parameter's first value, '' when absent. */
const first = (q: URLSearchParams, name: string): string => q.get(name) ?? '';

function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  // kube's query-parameter conversion reports strconv's error as is.
  if (!/^[-+]?\d+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax`);
  if (BigInt(v) > 2n ** 63n - 1n || BigInt(v) < -(2n ** 63n)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(v)}: value out of range`);
  return Number(v);
}

/** The kind's Warning for a delete with these options (kube's Job REST), added to the request's. */
function deleteWarning(served: ServedKind, opts: DeleteOptions, warnings: string[] | undefined): void {
  const w = served.kind.deleteWarning?.(opts);
  if (w) warnings?.push(w);
}

/** The ListOptions of a list or deletecollection request. */
function listQuery(q: URLSearchParams): ListQuery {
  return {
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
    limit: intParam(q, 'limit'),
    continue: q.get('continue') ?? undefined,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: q.get('resourceVersionMatch') ?? undefined,
  };
}

/** ListMeta of a list result. */
function listMetaOf(result: ListResult): Record<string, unknown> {
  const meta: Record<string, unknown> = result.unversioned ? {} : { resourceVersion: String(result.rv) };
  if (result.continue) meta.continue = result.continue;
  if (result.remainingItemCount !== undefined) meta.remainingItemCount = result.remainingItemCount;
  return meta;
}

/**
 * The Warning headers of an answer, in kube's order: a deprecated version's warning first, then
 * admission's (added while the request ran, webhooks included), then the write's own.
 */
function answerWarnings(served: ServedKind | undefined, admission: string[], own: string[] = [], version?: string): Record<string, string[]> {
  const deprecation = served && kindAt(served.kind, version).deprecationWarning;
  return warningHeaders([...(deprecation ? [deprecation] : []), ...admission, ...own]);
}

/** The apiVersion of `kind` at `version` (a list's, for a kind served in several versions). */
const apiVersionOf = (kind: ServedKind['kind'], version: string): string => (kind.group ? `${kind.group}/${version}` : version);

/**
 * The storage key a request names, refused as kube's registry and etcd3 refuse it: a name that
 * cannot be a path segment (400), then a `.`/`..` namespace (500). Nothing is read or written.
 */
function checkKey(info: RequestInfo): void {
  const e = (info.name ? invalidPathName(info.name) : null) ?? invalidKeyNamespace(info.resource, info.namespace, info.name);
  if (e) throw e;
}

export class ResourceHandlers {
  /** Ends of the open watches of each kind, called when the kind is removed. */
  private readonly watchEnds = new Map<ServedKind, Set<() => void>>();

  constructor(private readonly registry: Registry, private readonly hub: WatchHub, private readonly folded: () => number, private readonly minRequestTimeoutS?: number) {
    registry.subscribe((change) => {
      if (change.type !== 'removed') return;
      const ends = this.watchEnds.get(change.served);
      this.watchEnds.delete(change.served);
      for (const end of ends ?? []) end();
    });
  }

  /** WatchRequest.untilRemoved for a kind. */
  private untilRemoved(served: ServedKind): (end: () => void) => () => void {
    return (end) => {
      const k = served.kind;
      if (this.registry.lookup(k.group, k.versions[0]!, k.resource) !== served) {
        end(); // removed while the watch started
        return () => undefined;
      }
      let ends = this.watchEnds.get(served);
      if (!ends) this.watchEnds.set(served, (ends = new Set()));
      ends.add(end);
      return () => {
        ends.delete(end);
        if (!ends.size && this.watchEnds.get(served) === ends) this.watchEnds.delete(served);
      };
    };
  }

  /** Resolve the kind of a resource request; 404 for unknown resources or wrong scope. */
  resolve(info: RequestInfo): ServedKind {
    const served = this.registry.lookup(info.group, info.version, info.resource);
    if (!served) throw pathNotFound();
    if (!served.kind.namespaced && info.namespace) throw pathNotFound();
    return served;
  }

  async handle(r: ResourceRequest, res: Res): Promise<void> {
    r.warnings ??= [];
    try {
      await this.handleVerb(r, res);
    } catch (e) {
      // Warnings added before the failure still go out (kube's warning recorder writes them on
      // every answer), after a deprecated version's own.
      if (r.warnings.length) (res as import('node:http').ServerResponse).setHeader('Warning', answerWarnings(this.registry.lookup(r.info.group, r.info.version, r.info.resource), r.warnings, [], r.info.version).Warning!);
      throw e;
    }
  }

  private async handleVerb(r: ResourceRequest, res: Res): Promise<void> {
    const info = r.info;
    const served = this.resolve(info);
    const ns = info.namespace;
    const { store, reader } = served;
    // The kind at the request's version (a custom resource's subresources and columns are per version).
    const kind = kindAt(served.kind, info.version);
    checkRoute(kind, info);
    const connect = info.subresource ? kind.subresources?.find((s) => s.name === info.subresource && s.connect) : undefined;
    if (connect) {
      const get = async (name: string): Promise<KubeObject> => parseObject(await reader.get(ns, name, undefined, info.version));
      const getCore = async (resource: string, name: string): Promise<KubeObject> => {
        const other = this.resolve({ ...info, group: '', version: 'v1', resource, namespace: resource === 'nodes' ? '' : ns });
        return parseObject(await other.reader.get(resource === 'nodes' ? '' : ns, name, undefined, 'v1'));
      };
      return serveConnect(connect, { method: info.method, name: info.name, subpath: info.subpath, query: r.query, headers: r.headers, body: r.body, get, getCore }, res);
    }
    const pb = protobufTypeFor(store.apiVersion, kind.kind) !== undefined;
    // Every kube endpoint converts to PartialObjectMetadata; Table needs a TableConvertor, which
    // the storage-less (virtual) kinds lack, so they answer a Table Accept with 406.
    const rep = (allowTable = true): Negotiated => negotiateOutput(header(r.headers, 'accept'), allowTable, pb, true);
    // kube's deprecation warning goes on every answer of a deprecated version, errors included.
    if (kind.deprecationWarning) (res as import('node:http').ServerResponse).setHeader('Warning', warningHeaders([kind.deprecationWarning]).Warning!);
    switch (info.verb) {
      case 'get': {
        if (info.subresource && !kind.subresources?.some((s) => s.name === info.subresource && s.verbs.includes('get'))) throw pathNotFound();
        const out = this.output(r, pb);
        checkKey(info);
        const view = this.viewOf(served, info.subresource);
        const b = await reader.get(ns, info.name, r.query.get('resourceVersion') ?? undefined, info.version).catch((e) => {
          throw view?.notFound && e instanceof ApiError && e.status.code === 404 ? view.notFound(info.name) : e;
        });
        if (view) return this.sendObjects(res, view.served, out, r.query, [view.answer(b)], null);
        return this.sendObjects(res, served, out, r.query, [b], null, 200, {}, info.version);
      }
      case 'list': {
        const out = this.output(r, pb);
        checkKey(info);
        // Compact JSON — plain (spliced from stored bytes), a Table or a PartialObjectMetadataList
        // (converted a batch at a time) —, plain YAML and Protobuf (measured on a first pass: its
        // length comes first) are sent while an unpaged list is read; pretty-printed answers, and
        // YAML of an UnstructuredList (items keep their type), need all items first.
        const apiVersion = apiVersionOf(kind, info.version);
        const pbList = out.rep === 'protobuf' && !out.convert && protobufTypeFor(apiVersion, kind.listKind) !== undefined;
        const yamlStreams = out.rep === 'yaml' && !out.convert && !kind.unstructuredLists;
        const streams = (out.rep === 'json' && !prettyPrint(res) && (!out.convert || streamsConverted(out.convert))) || yamlStreams || pbList;
        const result = await reader.openList(ns, listQuery(r.query), streams, undefined, info.version);
        if (isStream(result)) {
          const listMeta = { resourceVersion: String(result.rv) };
          if (yamlStreams) return sendYamlListStream(res, kind.listKind, apiVersion, listMeta, result.batches, result.close);
          if (pbList) return sendProtobufListStream(res, encodeProtobufList(apiVersion, kind.listKind, listMeta), result);
          if (!out.convert) return sendListStream(res, kind.listKind, apiVersion, listMeta, result.batches, result.close, {}, kind.unstructuredLists);
          return sendConvertedListStream(res, kind, out.convert, out.convert.as === 'Table' ? tableOptions(r.query) : { includeObject: 'Metadata' }, listMeta, result.batches, result.close);
        }
        return this.sendObjects(res, served, out, r.query, result.items, listMetaOf(result), 200, {}, info.version);
      }
      // Every write verb negotiates its response representation first, so a request whose Accept
      // cannot be served (406) has no side effect, then checks the body's media type (415), then
      // its options (422), as kube-apiserver's handlers do.
      case 'create': {
        const refused = info.subresource ? undefined : kind.refuseCreate?.();
        if (refused) throw methodNotSupported({ group: kind.group, resource: kind.resource }, 'create', refused);
        if (info.subresource) {
          const sub = kind.subresources?.find((s) => s.name === info.subresource);
          if (!sub?.create) throw this.noRoute(kind, info.subresource);
          const out = rep(false);
          bodyMediaType(header(r.headers, 'content-type'));
          const body = await r.body();
          const opts = createOptions(r.query);
          checkKey(info);
          const dryRun = r.query.getAll('dryRun');
          const result = await store.createSubresource(context(r, opts.dryRun, opts.fieldManager), ns, info.name, info.subresource, decodeObject(r, body, sub.kind?.kind ?? kind.kind), dryRun);
          return this.sendObject(res, Buffer.from(JSON.stringify(result.body)), out.rep, result.code, answerWarnings(served, r.warnings ?? [], result.warnings, info.version));
        }
        if (info.name) throw methodNotAllowed();
        const out = rep(!served.kind.virtual);
        bodyMediaType(header(r.headers, 'content-type'));
        const body = await r.body();
        const opts = createOptions(r.query);
        const created = decodeObject(r, body, store.kind.kind, store.kind.bodyMediaTypes);
        const badNs = invalidCreateNamespace(ns);
        if (badNs) throw badNs;
        const result = await store.create(context(r, opts.dryRun, opts.fieldManager), ns, created);
        return this.sendWritten(res, served, out, r.query, result, r.warnings, info.version);
      }
      case 'update': {
        if (!info.name) throw methodNotAllowed();
        const out = rep();
        bodyMediaType(header(r.headers, 'content-type'));
        const body = await r.body();
        const opts = updateOptions(r.query);
        const updated = decodeObject(r, body, store.kind.kind, store.kind.bodyMediaTypes);
        // The body's name is compared with the URL's first (the store's 400), then the key is made.
        const bodyName = updated.metadata && typeof updated.metadata === 'object' ? updated.metadata.name : undefined;
        if (!bodyName || bodyName === info.name) checkKey(info);
        const result = await store.update(context(r, opts.dryRun, opts.fieldManager), ns, info.name, updated, info.subresource || undefined);
        return this.sendWrittenOn(res, served, info.subresource, out, r.query, result, r.warnings, info.version);
      }
      case 'patch': {
        if (!info.name) throw methodNotAllowed();
        checkPatchRoute(header(r.headers, 'content-type'), Number(header(r.headers, 'content-length') ?? 0) > 0);
        const out = rep();
        const type = patchTypeOf(header(r.headers, 'content-type') ?? '');
        // handlers.PatchResource: a patch type the kind does not take (custom resources: strategic).
        const patchTypes = store.kind.patchTypes;
        if (patchTypes && !patchTypes.includes(type)) throw unsupportedPatchType(patchTypes.map((t) => PATCH_MEDIA_TYPES[t]));
        const body = await r.body();
        const opts = patchOptions(r.query, type === 'apply');
        checkKey(info);
        if (type === 'apply') {
          const applied = decodeApplyBody(body);
          const duplicates = (): string[] => applyBodyDuplicates(body);
          const result = await store.apply(context(r, opts.dryRun, opts.fieldManager), ns, info.name, applied, info.subresource || undefined, duplicates);
          return this.sendWrittenOn(res, served, info.subresource, out, r.query, result, r.warnings, info.version);
        }
        const result = await store.patch(context(r, opts.dryRun, opts.fieldManager), ns, info.name, type, body, info.subresource || undefined);
        return this.sendWrittenOn(res, served, info.subresource, out, r.query, result, r.warnings, info.version);
      }
      case 'delete': {
        if (info.subresource) throw this.noRoute(kind, info.subresource);
        const out = rep();
        const opts = deleteOptions(r.query, header(r.headers, 'content-type'), await r.body());
        checkKey(info);
        deleteWarning(served, opts.options, r.warnings);
        // kube has no fieldManager on delete; the log's audit history still records the one given.
        const result = await store.delete(context(r, opts.dryRun, first(r.query, 'fieldManager')), ns, info.name, opts.options);
        // 202 for orphanDependents=false on a delete that only started: decided by the store.
        return this.sendWritten(res, served, out, r.query, result, r.warnings, info.version);
      }
      case 'deletecollection': {
        const out = rep();
        // ListOptions first (422 ListOptions / 400 selectors), then DeleteOptions, as kube does.
        const lq = listQuery(r.query);
        validateListOptions(lq);
        reader.selectors(lq);
        const opts = deleteOptions(r.query, header(r.headers, 'content-type'), await r.body());
        const ctx = context(r, opts.dryRun, first(r.query, 'fieldManager'));
        checkKey(info);
        deleteWarning(served, opts.options, r.warnings);
        // kube's DeleteCollection lists with the request's ListOptions, deletes each item and
        // answers the list as it was listed.
        const list = await reader.list(ns, lq, info.version);
        for (const b of list.items) {
          const o = parseObject(b);
          try {
            await store.delete(ctx, o.metadata.namespace ?? '', o.metadata.name!, opts.options);
          } catch (e) {
            // Gone in between (another deleter won): deletecollection is idempotent per item.
            if ((e as ApiError).code !== 404) throw e;
          }
        }
        return this.sendObjects(res, served, out, r.query, list.items, listMetaOf(list), 200, answerWarnings(served, r.warnings ?? [], [], info.version), info.version);
      }
      case 'watch':
        // A kind without watch (a computed kind: ComponentStatus) is kube's 405 for it.
        if (kind.verbs && !kind.verbs.includes('watch')) throw methodNotSupported(store.gr, 'watch');
        return serveWatch({ served, namespace: ns, name: info.name, version: info.version, query: r.query, out: this.output(r, pb), hub: this.hub, folded: this.folded, minRequestTimeoutS: this.minRequestTimeoutS, untilRemoved: this.untilRemoved(served) }, res);
      default:
        throw methodNotSupported(store.gr, info.verb);
    }
  }

  /** A method on a subresource path it has no route for: 405 when the subresource exists, else 404. */
  private noRoute(kind: ServedKind['kind'], subresource: string): ApiError {
    return kind.subresources?.some((s) => s.name === subresource) ? methodNotAllowed() : pathNotFound();
  }

  /**
   * Negotiate a get/list/watch answer; a Table conversion validates its TableOptions first (400
   * before anything is read, as kube's optionsForTransform).
   */
  private output(r: ResourceRequest, pb: boolean): Negotiated {
    const out = negotiateOutput(header(r.headers, 'accept'), true, pb);
    if (out.convert?.as === 'Table') tableOptions(r.query);
    return out;
  }

  /**
   * A view subresource of the request (a custom resource's scale, see SubresourceView): the kind
   * its answers are converted as (its Table) and the conversion of a stored parent.
   */
  private viewOf(served: ServedKind, subresource: string): { served: ServedKind; answer(parent: Buffer): Buffer; notFound?: (name: string) => ApiError } | undefined {
    const view = subresource ? served.kind.subresources?.find((s) => s.name === subresource)?.view : undefined;
    if (!view) return undefined;
    const own = view.notFoundResource;
    return {
      served: { ...served, kind: { ...served.kind, table: view.table } },
      answer: (b) => Buffer.from(JSON.stringify(view.read(parseObject(b)))),
      notFound: own ? (name) => notFound(own({ group: served.kind.group, resource: served.kind.resource }), name) : undefined,
    };
  }

  /** sendWritten of a write on `subresource`: a view subresource answers its view of the parent. */
  private sendWrittenOn(res: Res, served: ServedKind, subresource: string, out: Negotiated, q: URLSearchParams, result: WriteResult, admissionWarnings: string[] = [], version?: string): void {
    const view = this.viewOf(served, subresource);
    if (!view) return this.sendWritten(res, served, out, q, result, admissionWarnings, version);
    return this.sendWritten(res, view.served, out, q, { ...result, body: view.answer(result.body) }, admissionWarnings);
  }

  /**
   * Send what a write returned: a Status passes through as is (kube's transformResponseObject
   * never turns a Status into a Table); objects go out in the negotiated representation and
   * conversion (TableOptions are only checked here, after the write, as kube does).
   */
  private sendWritten(res: Res, served: ServedKind, out: Negotiated, q: URLSearchParams, result: WriteResult, admissionWarnings: string[] = [], version?: string): void {
    const headers = answerWarnings(served, admissionWarnings, result.warnings, version);
    if (!out.convert) return this.sendObject(res, result.body, out.rep, result.code, headers);
    const obj = parseObject(result.body);
    if (obj.kind === 'Status') return this.sendObject(res, result.body, out.rep === 'yaml' ? 'yaml' : 'json', result.code, headers);
    return this.sendObjects(res, served, out, q, [result.body], null, result.code, headers, version);
  }

  private sendObjects(
    res: Res,
    served: ServedKind,
    out: Negotiated,
    q: URLSearchParams,
    items: Buffer[],
    listMeta: Record<string, unknown> | null,
    code = 200,
    headers: Record<string, string | string[]> = {},
    version?: string,
  ): void {
    const { kind, store } = served;
    if (out.convert) {
      const table = out.convert.as === 'Table' ? tableOptions(q) : { includeObject: 'Metadata' as const };
      const converted = convertObjects(kindAt(kind, version), out.convert, items.map(parseObject), listMeta, table);
      // PartialObjectMetadata(List) in protobuf (negotiation offers no protobuf Table).
      if (out.rep === 'protobuf') return this.sendObject(res, Buffer.from(JSON.stringify(converted)), 'protobuf', code, headers);
      return sendJson(res, converted, { code, headers, yaml: out.rep === 'yaml' });
    }
    if (out.rep === 'protobuf' && listMeta) {
      const apiVersion = version ? apiVersionOf(kind, version) : store.apiVersion;
      if (protobufTypeFor(apiVersion, kind.listKind) !== undefined) return sendProtobufList(res, encodeProtobufList(apiVersion, kind.listKind, listMeta), items, code, headers);
    }
    const body = listMeta ? listBody(kind.listKind, version ? apiVersionOf(kind, version) : store.apiVersion, listMeta, items, kind.unstructuredLists) : items[0];
    return this.sendObject(res, body, out.rep, code, headers);
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
