/**
 * A REAL token-review webhook for the suites: an HTTPS server on 127.0.0.1 with its own CA (made
 * with internal/auth/pki.ts) that requires a client certificate, records every call, and answers
 * by the token's last `-`-separated word (so a suite can make fresh tokens per run):
 *
 *   …-good       authenticated: webhook-user, uid u1, group wh-group, extra k=[v]
 *   …-aud        authenticated for audience `other` only
 *   …-error      not authenticated, error "token revoked"
 *   …-boom       HTTP 500, JSON content type, body "boom"
 *   …-textboom   HTTP 500, text/plain body
 *   …-forbidden  HTTP 403
 *   …-status     HTTP 500 with a Status body (reason InternalError)
 *   …-badgroups, …-badextra, …-badstatus, …-notjson: 200 with a body Go cannot decode
 *   anything else: not authenticated, no error
 *
 * `prepareWebhookDir(dir, port)` writes the PKI and a kubeconfig for the API server (paths
 * relative to it), so a reference kube-apiserver can be started against the same webhook:
 *
 *   node --import tsx -e "import('./test/token-webhook-peer.ts').then((m) => m.prepareWebhookDir('/tmp/wh', 16491))"
 */
import https from 'node:https';
import { once } from 'node:events';
import { existsSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ensurePki, issueClientCert, readCaKey, type Pki } from '../internal/auth/pki.ts';

export interface WebhookCall {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  clientCN: string;
  body: string;
}

export interface WebhookPeer {
  url: string;
  port: number;
  /** The kubeconfig the API server is given. */
  kubeconfig: string;
  calls: WebhookCall[];
  /** The calls whose TokenReview named `token`. */
  callsFor(token: string): WebhookCall[];
  close(): Promise<void>;
}

/** The webhook's answer to a TokenReview. */
export function webhookAnswer(review: { apiVersion: string; spec: { token: string } }): { code: number; type: string; body: string } {
  const ok = (status: unknown) => ({ code: 200, type: 'application/json', body: JSON.stringify({ apiVersion: review.apiVersion, kind: 'TokenReview', status }) });
  switch (review.spec.token.split('-').at(-1)) {
    case 'good':
      return ok({ authenticated: true, user: { username: 'webhook-user', uid: 'u1', groups: ['wh-group'], extra: { k: ['v'] } } });
    case 'aud':
      return ok({ authenticated: true, audiences: ['other'], user: { username: 'aud-user' } });
    case 'error':
      return ok({ authenticated: false, error: 'token revoked' });
    case 'boom':
      return { code: 500, type: 'application/json', body: 'boom' };
    case 'textboom':
      return { code: 500, type: 'text/plain; charset=utf-8', body: 'boom in text\n' };
    case 'forbidden':
      return { code: 403, type: 'application/json', body: 'nope' };
    case 'status':
      return { code: 500, type: 'application/json', body: JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'custom failure', reason: 'InternalError', code: 500 }) };
    case 'badgroups':
      return ok({ authenticated: true, user: { username: 'x', groups: 'not-a-list' } });
    case 'badextra':
      return ok({ authenticated: true, user: { username: 'x', extra: { k: 'v' } } });
    case 'badstatus':
      return ok('yes');
    case 'notjson':
      return { code: 200, type: 'application/json', body: 'hello' };
    default:
      return ok({ authenticated: false });
  }
}

function kubeconfigText(server: string): string {
  return `apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster:
    server: ${server}
    certificate-authority: webhook-pki/ca.crt
users:
- name: apiserver
  user:
    client-certificate: apiserver-client.crt
    client-key: apiserver-client.key
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
`;
}

/** The webhook's PKI and the API server's client certificate under `dir` (reused when present). */
async function pkiIn(dir: string): Promise<Pki> {
  mkdirSync(dir, { recursive: true });
  const pki = await ensurePki(join(dir, 'webhook-pki'));
  if (!existsSync(join(dir, 'apiserver-client.crt'))) {
    const client = await issueClientCert(pki, await readCaKey(pki), 'kube-apiserver', []);
    writeFileSync(join(dir, 'apiserver-client.key'), client.keyPem, { mode: 0o600 });
    writeFileSync(join(dir, 'apiserver-client.crt'), client.certPem);
  }
  return pki;
}

/** Write `dir`'s PKI and `webhook.kubeconfig` for a webhook on 127.0.0.1:`port`; returns the kubeconfig path. */
export async function prepareWebhookDir(dir: string, port: number, name = 'webhook.kubeconfig'): Promise<string> {
  await pkiIn(dir);
  const file = join(dir, name);
  writeFileSync(file, kubeconfigText(`https://127.0.0.1:${port}/authenticate`));
  return file;
}

/** Start the webhook on 127.0.0.1:`port` (0: any) with the PKI under `dir`. */
export async function startWebhookPeer(dir: string, port = 0): Promise<WebhookPeer> {
  const pki = await pkiIn(dir);
  const calls: WebhookCall[] = [];
  const server = https.createServer({ key: pki.serverKeyPem, cert: pki.serverCertPem, ca: pki.caCertPem, requestCert: true, rejectUnauthorized: true }, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, clientCN: String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ''), body });
      let a;
      try {
        a = webhookAnswer(JSON.parse(body));
      } catch {
        a = { code: 400, type: 'text/plain', body: 'bad request' };
      }
      res.writeHead(a.code, { 'content-type': a.type });
      res.end(a.body);
    });
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actual = (server.address() as AddressInfo).port;
  const kubeconfig = await prepareWebhookDir(dir, actual, `webhook-${actual}.kubeconfig`);
  const tokenOf = (c: WebhookCall): string => {
    try {
      return String(JSON.parse(c.body).spec.token);
    } catch {
      return '';
    }
  };
  return {
    url: `https://127.0.0.1:${actual}/authenticate`,
    port: actual,
    kubeconfig,
    calls,
    callsFor: (token) => calls.filter((c) => tokenOf(c) === token),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
