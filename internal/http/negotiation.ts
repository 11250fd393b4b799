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
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').map((part) => {
    const [type, ...ps] = part.split(';').map((s) => s.trim());
    const params: Record<string, string> = {};
    for (const p of ps) {
      const i = p.indexOf('=');
      if (i > 0) params[p.slice(0, i).trim().toLowerCase()] = p.slice(i + 1).trim();
    }
    return { type: (type ?? '').toLowerCase(), params };
  });
}

/**
 * Pick the response representation. `allowTable`: the endpoint can answer as Table
 * (get/list of resources). Throws 406 when nothing acceptable is offered.
 */
export function negotiate(accept: string | undefined, allowTable: boolean, allowProtobuf = false): Representation {
  if (!accept) return 'json';
  for (const m of parseAccept(accept)) {
    const as = m.params.as;
    if (as) {
      const metaGroup = m.params.g === 'meta.k8s.io' && (m.params.v === 'v1' || m.params.v === 'v1beta1');
      if (allowTable && metaGroup && as === 'Table' && (m.type === 'application/json' || m.type === '*/*')) return 'table';
      if (allowTable && metaGroup && (as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && m.type === 'application/json') return 'metadata';
      continue; // unknown `as=` (e.g. aggregated discovery): try the next range
    }
    if (m.type === 'application/json' || m.type === 'application/*' || m.type === '*/*' || m.type === 'application/json-patch+json' || m.type === 'application/merge-patch+json') return 'json';
    if (m.type === 'application/yaml') return 'yaml';
    if (m.type === PROTOBUF && allowProtobuf) return 'protobuf';
  }
  throw notAcceptable(accept);
}

/** What kube-apiserver's input negotiation accepts (no Content-Type means JSON); anything else is 415. */
const BODY_TYPES = new Set(['application/json', '', 'application/yaml', PROTOBUF]);

/**
 * The media type of a request body (parameters dropped), or 415 when it cannot be decoded. Write
 * handlers call it before reading options, as kube-apiserver negotiates the input serializer
 * before it looks at the query.
 */
export function bodyMediaType(contentType: string | undefined): string {
  const ct = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  if (!BODY_TYPES.has(ct)) throw unsupportedMediaType(ct);
  return ct;
}

/** Decode a request body by Content-Type: JSON (default), YAML or Protobuf. */
export function decodeBody(contentType: string | undefined, body: Buffer): unknown {
  const ct = bodyMediaType(contentType);
  if (ct === 'application/json' || ct === '') {
    try {
      return JSON.parse(body.toString('utf8'));
    } catch (e) {
      throw badRequest(`error decoding request body: ${(e as Error).message}`);
    }
  }
  if (ct === 'application/yaml') {
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
