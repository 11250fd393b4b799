/**
 * A real HTTPS admission webhook server on loopback for tests: a CA and a serving certificate
 * made for the test (127.0.0.1, localhost and any extra DNS names), a handler per path, and a
 * record of every AdmissionReview received.
 */
import { createServer, type Server } from 'node:https';
import { X509Certificate } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { ensurePki } from '../internal/auth/pki.ts';
import { tempDir } from './harness.ts';

export interface ReceivedReview {
  path: string;
  /** The query string (kube sends `timeout=<n>s`). */
  query: string;
  review: any;
}

/** What a handler answers: the AdmissionReview response fields, or a raw HTTP answer, or never. */
export type HookAnswer = { response: Record<string, unknown>; apiVersion?: string } | { raw: { status: number; body: string } } | 'hang';
export type HookHandler = (review: any) => HookAnswer | Promise<HookAnswer>;

export interface WebhookServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** base64 PEM of the test CA (the configurations' caBundle). */
  caBundle: string;
  /** The DNS names of the serving certificate, in its order. */
  certNames: string[];
  received: ReceivedReview[];
  /** Reviews received on one path. */
  on(path: string): ReceivedReview[];
  handle(path: string, h: HookHandler): void;
  close(): Promise<void>;
}

/** A v1 (or the request's version) answer: allowed, with the request's uid. */
export function allow(review: any, extra: Record<string, unknown> = {}): HookAnswer {
  return { response: { uid: review.request.uid, allowed: true, ...extra }, apiVersion: review.apiVersion };
}

/** A JSONPatch answer (base64, patchType JSONPatch). */
export function patch(review: any, ops: unknown[], extra: Record<string, unknown> = {}): HookAnswer {
  return allow(review, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64'), ...extra });
}

export function deny(review: any, status: Record<string, unknown>): HookAnswer {
  return { response: { uid: review.request.uid, allowed: false, status }, apiVersion: review.apiVersion };
}

export async function startWebhookServer(extraHosts: string[] = []): Promise<WebhookServer> {
  const pki = await ensurePki(tempDir('webhook-pki-'), { hosts: extraHosts });
  const handlers = new Map<string, HookHandler>();
  const received: ReceivedReview[] = [];
  const hanging = new Set<import('node:http').ServerResponse>();
  const server: Server = createServer({ cert: pki.serverCertPem, key: pki.serverKeyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const u = new URL(req.url ?? '/', 'https://x');
      let review: any;
      try {
        review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end('bad json');
        return;
      }
      received.push({ path: u.pathname, query: u.search.slice(1), review });
      const h = handlers.get(u.pathname) ?? ((r: any) => allow(r));
      const a = await h(review);
      if (a === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if ('raw' in a) {
        res.writeHead(a.raw.status, { 'content-type': 'application/json' }).end(a.raw.body);
        return;
      }
      const body = { apiVersion: a.apiVersion ?? 'admission.k8s.io/v1', kind: 'AdmissionReview', response: a.response };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    certNames: dnsNames(pki.serverCertPem),
    received,
    on: (path) => received.filter((r) => r.path === path),
    handle: (path, h) => void handlers.set(path, h),
    async close() {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The DNS SANs of a PEM certificate, in order. */
function dnsNames(pem: string): string[] {
  return (new X509Certificate(pem).subjectAltName ?? '').split(', ').filter((x) => x.startsWith('DNS:')).map((x) => x.slice(4));
}
