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

  /**
   * Send `r`; rejects on a connection error or when no full answer came within `timeoutMs`. A kept-alive
   * connection the server closed as idle just as it was reused (node's documented race: `socket hang up`
   * / ECONNRESET on a reused socket, nothing answered) is retried once on a new connection.
   */
  async send(r: Sent, timeoutMs = 20_000): Promise<Answer> {
    try {
      return await this.once(r, timeoutMs);
    } catch (e) {
      if (!(e as { reusedSocket?: boolean }).reusedSocket) throw e;
      return this.once(r, timeoutMs);
    }
  }

  private once(r: Sent, timeoutMs: number): Promise<Answer> {
    const headers: Record<string, string | number> = { ...r.headers, ...this.auth };
    if (r.body) headers['content-length'] = r.body.length;
    return new Promise((resolve, reject) => {
      let answered = false;
      const req = https.request({ host: this.host, port: this.port, method: r.method, path: r.path, headers, agent: this.agent }, (res) => {
        answered = true;
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
      req.on('error', (e: Error & { code?: string; reusedSocket?: boolean }) => {
        clearTimeout(timer);
        if (req.reusedSocket && !answered && (e.code === 'ECONNRESET' || e.message === 'socket hang up')) e.reusedSocket = true;
        reject(e);
      });
      req.end(r.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
