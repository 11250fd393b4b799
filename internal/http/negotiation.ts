/**
 * Content negotiation: which representation the client accepts (JSON, YAML, Table) and how to
 * decode the body it sent. Protobuf (application/vnd.kubernetes.protobuf) is served for kinds the
 * codec knows; clients list JSON last, so anything else falls back to JSON.
 */
import YAML from 'yaml';
import { notAcceptable, unsupportedMediaType, badRequest } from '../api/errors.ts';
import { PROTOBUF, decodeProtobuf } from './protobuf.ts';

export type Representation = 'json' | 'yaml' | 'table' | 'metadata' | 'protobuf';

interface MediaRange {
  type: string;
  params: Record<string, string>;
  /** Quality (the `q` parameter, default 1). */
  q: number;
}

/**
 * Parse an Accept header as goautoneg does for kube: `q` is taken out of the parameters, and
 * clauses are ordered by q (highest first), then concrete types before wildcards (stable otherwise).
 */
function parseAccept(header: string): MediaRange[] {
  const ranges = header.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    let q = 1;
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i <= 0) continue;
      const key = p.slice(0, i).trim().toLowerCase();
      const value = p.slice(i + 1).trim();
      if (key === 'q') q = Number.isNaN(Number(value)) ? 0 : Number(value);
      else params[key] = value;
    }
    return { type: (type ?? '').toLowerCase(), params, q };
  });
  const wild = (r: MediaRange): number => (r.type.startsWith('*/') ? 2 : r.type.endsWith('/*') ? 1 : 0);
  return ranges.sort((a, b) => b.q - a.q || wild(a) - wild(b));
}

/**
 * A transformation asked for with `;as=<Kind>;g=meta.k8s.io;v=<v>` (kube's MediaTypeOptions.Convert):
 * the answer is a Table or PartialObjectMetadata(List) of that meta.k8s.io version instead of the
 * object itself. kube-apiserver 1.24 still serves both v1 and v1beta1.
 */
export interface Conversion {
  as: 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';
  version: 'v1' | 'v1beta1';
}

/** The negotiated answer: a serialization and, optionally, a conversion of the object. */
export interface Negotiated {
  rep: 'json' | 'yaml' | 'protobuf';
  convert?: Conversion;
}

/** What kube-apiserver's serializers offer, in its order (also the 406 message's list). */
const SERIALIZERS = ['application/json', 'application/yaml', PROTOBUF] as const;

/** The conversion a clause's `as`/`g`/`v` parameters ask for; null = not one this endpoint allows. */
function conversionOf(params: Record<string, string>, mediaType: string, allowTable: boolean): Conversion | null | undefined {
  if (params.as === undefined && params.g === undefined && params.v === undefined) return undefined;
  if (!allowTable || params.g !== 'meta.k8s.io' || (params.v !== 'v1' && params.v !== 'v1beta1')) return null;
  // RequestScope.AllowsMediaTypeTransform: Table only as JSON or YAML; our protobuf codec has no
  // meta.k8s.io messages, so PartialObjectMetadata is offered as JSON and YAML too.
  if (mediaType === PROTOBUF) return null;
  if (params.as === 'Table' || params.as === 'PartialObjectMetadata' || params.as === 'PartialObjectMetadataList') return { as: params.as, version: params.v };
  return null;
}

/**
 * Pick the response serialization and conversion (kube's NegotiateMediaTypeOptions): the first
 * Accept clause that one of our serializers matches with parameters this endpoint allows.
 * `allowTable`: the endpoint can convert (get/list/watch of resources). Throws 406 when nothing
 * acceptable is offered.
 */
export function negotiateOutput(accept: string | undefined, allowTable: boolean, allowProtobuf = false): Negotiated {
  if (!accept) return { rep: 'json' };
  for (const m of parseAccept(accept)) {
    const [type, sub] = m.type.split('/');
    for (const mediaType of SERIALIZERS) {
      if (mediaType === PROTOBUF && !allowProtobuf) continue;
      const [t, s] = mediaType.split('/');
      if (!((type === t && (sub === s || sub === '*')) || (type === '*' && sub === '*'))) continue;
      const convert = conversionOf(m.params, mediaType, allowTable);
      if (convert === null) continue;
      const rep = mediaType === PROTOBUF ? 'protobuf' : mediaType === 'application/yaml' ? 'yaml' : 'json';
      return convert ? { rep, convert } : { rep };
    }
    // Patch media types are accepted as JSON by clients that echo their Content-Type.
    if (!m.params.as && (m.type === 'application/json-patch+json' || m.type === 'application/merge-patch+json')) return { rep: 'json' };
  }
  throw notAcceptable(`only the following media types are accepted: ${SERIALIZERS.join(', ')}`);
}

/**
 * Pick the response representation (`negotiateOutput` folded into one name: 'table' and
 * 'metadata' for the conversions). Throws 406 when nothing acceptable is offered.
 */
export function negotiate(accept: string | undefined, allowTable: boolean, allowProtobuf = false): Representation {
  const n = negotiateOutput(accept, allowTable, allowProtobuf);
  if (n.convert) return n.convert.as === 'Table' ? 'table' : 'metadata';
  return n.rep;
}

/** What kube's resource routes declare they produce (go-restful matches Accept against these). */
const ROUTE_PRODUCES = new Set<string>([...SERIALIZERS, '*/*']);

/**
 * go-restful's route check, which runs before kube's own negotiation: some Accept clause, without
 * its parameters, must be exactly (case-sensitively) one of the produced types or `*\/*`.
 * Otherwise 406 "406: Not Acceptable" (so `application/*` or `text/html` alone are refused here).
 */
export function routeAccepts(accept: string | undefined): void {
  if (!accept) return;
  for (const clause of accept.split(',')) {
    if (ROUTE_PRODUCES.has(clause.split(';')[0].trim())) return;
  }
  throw notAcceptable('406: Not Acceptable', {});
}

/**
 * Whether an error answer goes out indented: kube writes an error as raw, indented JSON
 * (responsewriters.WriteRawJSON) when the request's Accept cannot be negotiated without a
 * conversion (e.g. only `…;as=Table;…`, or `text/html`).
 */
export function prettyErrors(accept: string | undefined): boolean {
  if (!accept) return false;
  for (const m of parseAccept(accept)) {
    if (m.params.as !== undefined || m.params.g !== undefined || m.params.v !== undefined) continue;
    const [type, sub] = m.type.split('/');
    if (type === '*' && sub === '*') return false;
    if (SERIALIZERS.some((s) => { const [t, u] = s.split('/'); return type === t && (sub === u || sub === '*'); })) return false;
  }
  return true;
}

/** Decode a request body by Content-Type: JSON (default) or YAML. */
export function decodeBody(contentType: string | undefined, body: Buffer): unknown {
  const ct = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (ct === 'application/json' || ct === '' || ct === '*/*') {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw badRequest(`error decoding request body: ${(e as Error).message}`);
    }
  }
  if (ct === 'application/yaml' || ct === 'application/x-yaml' || ct === 'text/yaml') {
    try {
      return YAML.parse(body.toString('utf8'));
    } catch (e) {
      throw badRequest(`error decoding YAML: ${(e as Error).message}`);
    }
  }
  if (ct === PROTOBUF) {
    try {
      return decodeProtobuf(body).object;
    } catch (e) {
      throw badRequest(`error decoding protobuf request body: ${(e as Error).message}`);
    }
  }
  throw unsupportedMediaType(ct);
}
