/**
 * OpenAPI serving: `/openapi/v2` (JSON and gnostic protobuf), `/openapi/v3` (the discovery
 * document) and `/openapi/v3/<group-version>` (JSON and gnostic protobuf). The documents are
 * built from the registry on first request (the builders are even imported then) and cached with
 * their ETag (hex SHA-512 of the JSON bytes, as kube-openapi computes it), so start-up pays
 * nothing and later requests only copy bytes. A kind added or removed drops the cache: the next
 * request rebuilds the documents (new ETags, and Last-Modified now, as kube-openapi's UpdateSpec).
 */
import { createHash } from 'node:crypto';
import type { Registry } from '../../registry/registry.ts';
import type { Res } from '../respond.ts';
import type { DefinitionProvider, Json } from './v2.ts';
import { Payload, negotiate, serveContent, sendEmpty, type ContentRequest } from './content.ts';

const MIME_JSON = 'application/json';
const MIME_PB_V2 = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
const MIME_PB_V3 = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';

/** kube-openapi's computeETag: upper-case hex SHA-512 of the JSON bytes, quoted when sent. */
export const etagOf = (json: Buffer): string => `"${createHash('sha512').update(json).digest('hex').toUpperCase()}"`;

interface V2Cache {
  doc: Json;
  json: Payload;
  etag: string;
  pb?: Payload;
}

interface V3Entry {
  doc: Json;
  json: Payload;
  pb?: Payload;
  /** Unquoted (it also goes into `?hash=`). */
  etag: string;
}

type Builders = typeof import('./builders.ts');
let builders: Promise<Builders> | undefined;
const loadBuilders = (): Promise<Builders> => (builders ??= import('./builders.ts'));

/** Go's time.RFC1123 in UTC: `Tue, 23 Nov 2027 11:36:44 UTC`. */
const rfc1123 = (d: Date): string => d.toUTCString().replace(/GMT$/, 'UTC');

/** http.Redirect's body for a GET. */
const redirectBody = (url: string): string => `<a href="${url.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;')}">Moved Permanently</a>.\n\n`;

/** The OpenAPI documents of one server (one registry). */
export class OpenApiService {
  private v2cache: V2Cache | undefined;
  private v3cache: Map<string, V3Entry> | undefined;
  private lastModified = new Date();

  constructor(
    private readonly registry: Registry,
    private readonly version: string,
    /** Where definitions come from; default: the generated schemas. */
    private provider?: DefinitionProvider,
  ) {
    registry.subscribe(() => {
      this.v2cache = undefined;
      this.v3cache = undefined;
      this.lastModified = new Date();
    });
  }

  private async load(): Promise<{ b: Builders; provider: DefinitionProvider }> {
    const b = await loadBuilders();
    this.provider ??= b.generatedProvider(b.generatedSource(), b.descriptionsOf);
    return { b, provider: this.provider };
  }

  /** The v2 document (built once). */
  async v2(): Promise<V2Cache> {
    if (!this.v2cache) {
      const { b, provider } = await this.load();
      if (this.v2cache) return this.v2cache;
      const doc = b.buildSwagger(this.registry, provider, this.version);
      const bytes = Buffer.from(JSON.stringify(doc));
      this.v2cache = { doc, json: new Payload(bytes), etag: etagOf(bytes) };
    }
    return this.v2cache;
  }

  /** The v3 documents by group-version key (built once). */
  async v3(): Promise<Map<string, V3Entry>> {
    if (!this.v3cache) {
      const { b, provider } = await this.load();
      if (this.v3cache) return this.v3cache;
      const docs = new Map<string, V3Entry>();
      for (const [key, doc] of b.buildV3(this.registry, provider, this.version)) {
        const bytes = Buffer.from(JSON.stringify(doc));
        docs.set(key, { doc, json: new Payload(bytes), etag: etagOf(bytes).slice(1, -1) });
      }
      this.v3cache = docs;
    }
    return this.v3cache;
  }

  /** `/openapi/v3`: each group version's path with its current hash. */
  async v3Discovery(): Promise<Buffer> {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    const v3 = await this.v3();
    for (const key of [...v3.keys()].sort()) paths[key] = { serverRelativeURL: `/openapi/v3/${key}?hash=${v3.get(key)!.etag}` };
    return Buffer.from(JSON.stringify({ paths }));
  }

  /** Is `path` one this service answers? */
  static serves(path: string): boolean {
    return path === '/openapi/v2' || path === '/openapi/v3' || path.startsWith('/openapi/v3/');
  }

  /** Serve the OpenAPI paths; false when `path` is not one of them. */
  async handle(path: string, query: URLSearchParams, req: ContentRequest, res: Res): Promise<boolean> {
    if (!OpenApiService.serves(path)) return false;
    if (path === '/openapi/v3') {
      // kube serves the discovery document with time.Now() as its modification time.
      serveContent(req, res, new Payload(await this.v3Discovery()), { lastModified: new Date(), headers: {}, gzip: false });
      return true;
    }
    if (path.startsWith('/openapi/v3/')) {
      await this.serveV3(path.slice('/openapi/v3/'.length), query, req, res);
      return true;
    }
    const accept = req.headers.accept;
    const chosen = negotiate(Array.isArray(accept) ? accept.join(',') : accept, [MIME_JSON, MIME_PB_V2]);
    if (!chosen) {
      sendEmpty(res, 406, { Vary: ['Accept-Encoding', 'Accept'] });
      return true;
    }
    const c = await this.v2();
    const payload = chosen === MIME_JSON ? c.json : (c.pb ??= new Payload((await loadBuilders()).encodeSwagger(c.doc)));
    serveContent(req, res, payload, { etag: c.etag, lastModified: this.lastModified, headers: { Vary: 'Accept' }, gzip: true });
    return true;
  }

  private async serveV3(key: string, query: URLSearchParams, req: ContentRequest, res: Res): Promise<void> {
    const entry = (await this.v3()).get(key);
    if (!entry) {
      sendEmpty(res, 404, {});
      return;
    }
    const accept = req.headers.accept;
    const chosen = negotiate(Array.isArray(accept) ? accept.join(',') : accept, [MIME_JSON, MIME_PB_V3]);
    if (!chosen) {
      sendEmpty(res, 406, { Vary: 'Accept' });
      return;
    }
    const payload = chosen === MIME_JSON ? entry.json : (entry.pb ??= new Payload((await loadBuilders()).encodeOpenApiV3(entry.doc)));
    const quoted = `"${entry.etag}"`;
    const headers: Record<string, string> = { Vary: 'Accept' };
    const hash = query.get('hash');
    if (hash) {
      if (hash !== entry.etag) {
        const location = `/openapi/v3/${key}?hash=${entry.etag}`;
        const body = req.method === 'GET' ? redirectBody(location) : '';
        (res as import('node:http').ServerResponse).writeHead(301, { 'Cache-Control': 'no-cache, private', 'Content-Type': 'text/html; charset=utf-8', Etag: quoted, Location: location, Vary: 'Accept', 'Content-Length': String(Buffer.byteLength(body)) });
        res.end(body);
        return;
      }
      // The content of a hashed URL never changes: clients may cache it for a year.
      headers['Cache-Control'] = 'public, immutable';
      const expires = new Date();
      expires.setUTCFullYear(expires.getUTCFullYear() + 1);
      headers.Expires = rfc1123(expires);
    }
    serveContent(req, res, payload, { etag: quoted, lastModified: this.lastModified, headers, gzip: false });
  }
}
