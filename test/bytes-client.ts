/**
 * A client for a kubeconfig that answers bodies as bytes (Protobuf suites: the harness client
 * decodes bodies as UTF-8 text), and the JSON Go prints compared with what the protobuf decoder
 * gives.
 */
import { Agent, request } from 'undici';
import { readKubeconfig } from './target.ts';

export interface BytesResult {
  status: number;
  body: Buffer;
  type: string;
}

export interface BytesClient {
  request(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<BytesResult>;
  close(): Promise<void>;
}

export function bytesClient(kubeconfig: string): BytesClient {
  const k = readKubeconfig(kubeconfig);
  const agent = new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key } });
  return {
    async request(method, path, headers, body) {
      const r = await request(k.server + path, { method: method as 'GET', headers, body, dispatcher: agent });
      return { status: r.statusCode, body: Buffer.from(await r.body.arrayBuffer()), type: String(r.headers['content-type'] ?? '') };
    },
    close: () => agent.close(),
  };
}

/** Go's JSON has `"eventTime": null`, `"conditions": null` and friends where the protobuf decoder leaves the key out. */
export function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]));
  return v;
}
