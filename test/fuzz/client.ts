/**
 * The fuzzer's HTTP client: node:https over keep-alive connections with a kubeconfig's credentials,
 * the request target sent exactly as written (no dot-segment or escape normalization), any method,
 * any headers, raw body bytes, and a client-side deadline so a request that never answers is a
 * finding ("hang"), not a stuck run.
 */
import https from 'node:https';
import { readKubeconfig } from '../target.ts';

export interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export class FuzzClient {
  private readonly agent: https.Agent;
  private readonly host: string;
  private readonly port: string;
  private readonly auth: Record<string, string>;

  constructor(kubeconfig: string) {
    const k = readKubeconfig(kubeconfig);
    const u = new URL(k.server);
    this.host = u.hostname;
    this.port = u.port;
    this.auth = k.token ? { authorization: `Bearer ${k.token}` } : {};
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 8, ca: k.ca, cert: k.cert, key: k.key });
  }

  /** Send `r`; rejects on a connection error or when no full answer came within `timeoutMs`. */
  send(r: Sent, timeoutMs = 20_000): Promise<Answer> {
    const headers: Record<string, string | number> = { ...r.headers, ...this.auth };
    if (r.body) headers['content-length'] = r.body.length;
    return new Promise((resolve, reject) => {
      const req = https.request({ host: this.host, port: this.port, method: r.method, path: r.path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.on('error', (e) => {
          clearTimeout(timer);
          reject(e);
        });
      });
      const timer = setTimeout(() => req.destroy(new Error(`hang: no answer in ${timeoutMs} ms`)), timeoutMs);
      req.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      req.end(r.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
