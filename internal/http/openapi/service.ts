/**
 * OpenAPI serving: `/openapi/v2` (JSON and gnostic protobuf). The documents are built from the
 * registry on first request and cached with their ETag (hex SHA-512 of the JSON bytes, as
 * kube-openapi computes it), so start-up pays nothing and later requests only copy bytes.
 */
import { createHash } from 'node:crypto';
import type { Registry } from '../../registry/registry.ts';
import { generatedSource, descriptionsOf } from '../../schema/registry.ts';
import type { Res } from '../respond.ts';
import { buildSwagger, generatedProvider, type DefinitionProvider, type Json } from './v2.ts';
import { encodeSwagger } from './proto.ts';
import { Payload, negotiate, serveContent, sendEmpty, type ContentRequest } from './content.ts';

const MIME_JSON = 'application/json';
const MIME_PB_V2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

/** kube-openapi's computeETag: upper-case hex SHA-512 of the JSON bytes, quoted when sent. */
export const etagOf = (json: Buffer): string => `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;

interface V2Cache {
  doc: Json;
  json: Payload;
  etag: string;
  pb?: Payload;
}

/** The OpenAPI documents of one server (one registry). */
export class OpenApiService {
  private v2cache: V2Cache | undefined;
  private readonly lastModified = new Date();
  private readonly provider: DefinitionProvider;

  constructor(
    private readonly registry: Registry,
    private readonly version: string,
    provider?: DefinitionProvider,
  ) {
    this.provider = provider ?? generatedProvider(generatedSource(), descriptionsOf);
  }

  /** The v2 document (built once). */
  v2(): V2Cache {
    if (!this.v2cache) {
      const doc = buildSwagger(this.registry, this.provider, this.version);
      const bytes = Buffer.from(JSON.stringify(doc));
      this.v2cache = { doc, json: new Payload(bytes), etag: etagOf(bytes) };
    }
    return this.v2cache;
  }

  /** Serve `/openapi/v2`; false when the path is not an OpenAPI path this service answers. */
  handle(path: string, query: URLSearchParams, req: ContentRequest, res: Res): boolean {
    if (path !== '/openapi/v2') return false;
    const accept = req.headers.accept;
    const chosen = negotiate(Array.isArray(accept) ? accept.join(',') : accept, [MIME_JSON, MIME_PB_V2]);
    if (!chosen) {
      sendEmpty(res, 406, { Vary: ['Accept-Encoding', 'Accept'] });
      return true;
    }
    const c = this.v2();
    const payload = chosen === MIME_JSON ? c.json : (c.pb ??= new Payload(encodeSwagger(c.doc)));
    serveContent(req, res, payload, { etag: c.etag, lastModified: this.lastModified, headers: { Vary: 'Accept' }, gzip: true });
    return true;
  }
}
